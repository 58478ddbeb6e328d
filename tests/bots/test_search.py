"""The search bot: finds winning moves, handles out-of-turn chances, respects its budget; with its rollouts on
the engine and on the compiled batched core (``rollouts="compiled"``, Numba)."""

from __future__ import annotations

import pytest

from royal_revenge.bots import Agent, HeuristicAgent, SearchAgent
from royal_revenge.bots.search import COMPILED_CHUNK, rollout, rollout_policy
from royal_revenge.engine import (
    CALL_UNO,
    DRAW,
    Card,
    Catch,
    ChooseColour,
    ChooseVictim,
    Colour,
    Decision,
    GameOptions,
    GameState,
    Play,
)
from royal_revenge.engine.position import position
from royal_revenge.sim import play_game


def decide(agent: SearchAgent, state: GameState, seat: int) -> object:
    legal = state.legal_actions(seat)
    action = agent.act(state.observe(seat), legal)
    assert action is None or action in legal
    return action


ROLLOUTS = pytest.mark.parametrize("rollouts", ["engine", "compiled"])


def test_plays_its_last_card_rather_than_draw() -> None:
    state = position(hands=["R5", "Y1 Y2 Y3", "G1 G2", "B1 B2 B3"], discard="R3")
    assert decide(SearchAgent(seed=1, iterations=20), state, 0) == Play(Card.parse("R5"))


@ROLLOUTS
def test_finds_the_skip_that_wins(rollouts: str) -> None:
    # Two players, the opponent holds one card. Playing R3 first lets the opponent go out
    # whenever that card matches; the Skip gives the bot a second turn to go out itself.
    state = position(hands=["RS R3", "R8"], discard="R1", king=1, jester=0)
    agent = SearchAgent(seed=3, iterations=90, rollouts=rollouts)
    assert decide(agent, state, 0) == Play(Card.parse("RS"), uno=True)
    values = agent.last_values
    assert values[Play(Card.parse("RS"), uno=True)] == 1.0
    assert values[Play(Card.parse("R3"), uno=True)] < 1.0


@ROLLOUTS
def test_finds_the_kings_choice_victim_that_stops_a_win(rollouts: str) -> None:
    # The King (seat 0) names who draws for seat 1's King's Choice. Seat 2, next to play,
    # holds a red that goes out on the red King's Choice unless it has to draw first.
    state = position(
        hands=["G1 G2 G3 G4", "Y1 Y2 Y3 Y4", "R8", "B1 B2 B3 B4 B5"],
        discard="RK", decision=Decision.VICTIM, king=0, current=1, resolving=1,
    )
    assert decide(SearchAgent(seed=2, iterations=120, rollouts=rollouts), state, 0) == ChooseVictim(2)


@ROLLOUTS
def test_king_colour_from_search_denies_the_leader(rollouts: str) -> None:
    # The leader (seat 2) holds one card; every yellow but one is visible to the King, so
    # naming yellow is what most likely stops the leader going out next turn.
    state = position(
        hands=["Y1 Y2 Y3 Y4 Y5 Y6 G1", "B1 B2 B3", "R8", "B4 B5 B6"],
        discard="Y7 Y8 YR YS YK YJ W", decision=Decision.COLOUR, king=0, current=1, resolving=1,
    )
    assert decide(SearchAgent(seed=4, iterations=120, rollouts=rollouts), state, 0) == ChooseColour(Colour.YELLOW)


def test_always_calls_uno_and_catches() -> None:
    state = position(hands=["R3 G5 B1", "Y1 Y2 Y3", "Y4", "G1 G2 G3"], discard="Y8", current=3, uno_seat=2)
    agent = SearchAgent(seed=1, iterations=10)
    assert decide(agent, state, 0) == Catch(2)
    assert decide(agent, state, 2) == CALL_UNO
    assert agent.last_rollouts == 0


def test_passes_optional_chances_with_nothing_to_do_and_plays_forced_moves_at_once() -> None:
    state = position(hands=["R3 G5 B1", "Y1 Y2 Y3", "Y4 Y6", "G1 G2 G3"], discard="B8", current=1)
    agent = SearchAgent(seed=1, iterations=50)
    assert decide(agent, state, 1) == DRAW  # nothing plays: the only move, no search
    assert agent.last_rollouts == 0


@ROLLOUTS
def test_iteration_budget_is_respected(rollouts: str) -> None:
    state = position(hands=["R3 R4 G5 B1 Y2", "Y1 Y3 Y5", "Y4 Y6", "G1 G2 G3"], discard="R8")
    agent = SearchAgent(seed=1, iterations=30, rollouts=rollouts)
    decide(agent, state, 0)
    candidates = len(agent.last_values)
    assert candidates == 3  # R3, R4, draw
    assert agent.last_rollouts <= 30 and agent.last_rollouts % candidates == 0


def test_millisecond_budget_uses_the_injected_clock() -> None:
    ticks = [0.0]

    def clock() -> float:
        ticks[0] += 0.004  # every reading is 4 ms later
        return ticks[0]

    state = position(hands=["R3 R4 G5 B1 Y2", "Y1 Y3 Y5", "Y4 Y6", "G1 G2 G3"], discard="R8")
    agent = SearchAgent(seed=1, budget_ms=20, clock=clock)
    decide(agent, state, 0)
    # One reading sets the deadline; the world loop then reads once per world: 20 ms = 5 readings.
    assert agent.last_rollouts == 5 * 3


def test_compiled_rollouts_take_the_millisecond_budget_in_chunks_of_worlds() -> None:
    ticks = [0.0]

    def clock() -> float:
        ticks[0] += 0.004
        return ticks[0]

    state = position(hands=["R3 R4 G5 B1 Y2", "Y1 Y3 Y5", "Y4 Y6", "G1 G2 G3"], discard="R8")
    agent = SearchAgent(seed=1, budget_ms=20, clock=clock, rollouts="compiled")
    decide(agent, state, 0)
    assert agent.last_rollouts == 5 * COMPILED_CHUNK * 3
    with_more = SearchAgent(seed=1, iterations=3 * (COMPILED_CHUNK + 10), rollouts="compiled")
    decide(with_more, state, 0)
    assert with_more.last_rollouts == 3 * (COMPILED_CHUNK + 10)  # a full chunk, then the 10 worlds left


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="budget_ms"):
        SearchAgent(budget_ms=-1)
    with pytest.raises(ValueError, match="iterations"):
        SearchAgent(iterations=0)
    with pytest.raises(ValueError, match="rollouts must be 'engine' or 'compiled', not 'gpu'"):
        SearchAgent(rollouts="gpu")
    with pytest.raises(ValueError, match="inference works with the engine's rollouts only"):
        SearchAgent(rollouts="compiled", inference=True)


def test_rollout_policy_finishes_rounds() -> None:
    for seed in range(5):
        state = GameState.new(GameOptions(players=4, single_round=True), seed=seed)
        value = rollout(state, 0, max_steps=10_000)
        assert value in (0.0, 1.0)
        assert state.decision is Decision.GAME_OVER
    state = GameState.new(GameOptions(players=3), seed=1)
    assert rollout_policy(state) in state.legal_actions(state.decider)


@ROLLOUTS
def test_same_seed_same_game(rollouts: str) -> None:
    def run() -> list[str]:
        moves: list[str] = []
        agents: list[Agent] = [SearchAgent(11, iterations=12, rollouts=rollouts), HeuristicAgent(1),
                               SearchAgent(12, iterations=12, rollouts=rollouts)]
        play_game(
            GameState.new(GameOptions(players=3, single_round=True), seed=5), agents,
            on_step=lambda seat, action, _state: moves.append(f"{seat}:{action}"),
        )
        return moves

    assert run() == run()
