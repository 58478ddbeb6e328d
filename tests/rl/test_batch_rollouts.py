"""The search bot's compiled rollouts (rl/batch/rollouts.py): an engine state as a row of the batch, the rollout
policy on arrays against the engine's, and the values of candidate actions against the engine's rollouts."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from royal_revenge.bots import HeuristicAgent, SearchAgent
from royal_revenge.bots.search import _candidates, rollout, rollout_policy
from royal_revenge.engine import Decision, GameOptions, GameState, Scoring
from royal_revenge.engine.position import position
from royal_revenge.rl.batch import kernel
from royal_revenge.rl.batch.rollouts import CompiledRollouts
from royal_revenge.rl.encoding import action_index, legal_action_ints
from royal_revenge.sim import play_game

from .batch_reference import FIELDS_COMPARED, engine_state

DECISIONS = (Decision.TURN, Decision.DRAWN, Decision.COLOUR, Decision.VICTIM, Decision.JESTER)


def decision_states(players: int, games: int, seed: int) -> list[GameState]:
    """Copies of every player's decision in ``games`` single rounds of heuristic bots."""
    states = []
    for game in range(games):
        state = GameState.new(GameOptions(players=players, single_round=True), seed=seed + game)
        agents = [HeuristicAgent(random.Random(seed * 100 + game * 10 + seat)) for seat in range(players)]
        while state.decision < Decision.ROUND_OVER:
            seat = state.decider
            assert seat is not None
            if state.decision in DECISIONS:
                states.append(state.copy())
            legal = state.legal_actions(seat)
            action = agents[seat].act(state.observe(seat), legal)
            state.step(seat, action)
    return states


def as_game(row: dict[str, Any]) -> dict[str, Any]:
    """A row as batch_reference.engine_state reads one game of a batch."""
    return {name: np.asarray(value) for name, value in row.items()}


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_row_is_the_engine_state(players: int) -> None:
    rollouts = CompiledRollouts(GameOptions(players=players, single_round=True), 25)
    for state in decision_states(players, 3, seed=players):
        seat = state.decider
        assert seat is not None
        back = engine_state(as_game(rollouts._row(state, seat)), rollouts.config)
        for name in FIELDS_COMPARED:
            assert getattr(back, name) == getattr(state, name), name
        assert [Counter(hand) for hand in back.hands] == [Counter(hand) for hand in state.hands]
        assert Counter(back.draw_pile) == Counter(state.draw_pile)
        assert back.discard == state.discard


def compiled_action(rollouts: CompiledRollouts, state: GameState, seat: int) -> int:
    row = as_game(rollouts._row(state, seat))
    batch = {name: value[None] for name, value in row.items()}
    batch["legal"][0, legal_action_ints(state.legal_actions(seat), seat, state.players)] = True
    batch["hand_points"] = np.zeros((1, state.players), dtype=np.int32)
    return int(kernel._rollout_action(
        0, state.players, batch["hands"], batch["held"], batch["discard"], batch["discard_size"],
        batch["discard_counts"], batch["colour"], batch["direction"], batch["king"], batch["jester"],
        batch["decision"], batch["drawn"], batch["selected"], batch["chance"], batch["legal"], batch["scores"]))


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_rollout_policy_on_arrays_is_the_engines(players: int) -> None:
    # The engine's policy breaks ties between cards valued alike by the order of the hand, the compiled one by
    # face: with each hand sorted by face, the two must choose alike at every decision.
    rollouts = CompiledRollouts(GameOptions(players=players, single_round=True), 25)
    checked = Counter()
    for state in decision_states(players, 6, seed=10 + players):
        for hand in state.hands:
            hand.sort()
        seat = state.decider
        assert seat is not None
        expected = action_index(rollout_policy(state), seat, players)
        assert compiled_action(rollouts, state, seat) == expected, (state.decision, state.hands[seat])
        checked[state.decision] += 1
    assert checked[Decision.TURN] > 50 and checked[Decision.DRAWN] > 5


def test_values_agree_with_the_engines_rollouts() -> None:
    # The same policy on the same kind of deals: the mean values of each candidate agree within the noise of
    # 3,000 worlds (the compiled rollouts draw from their own random stream, so not draw for draw).
    rng = random.Random(5)
    checked = 0
    for state in decision_states(4, 4, seed=40)[5::9][:6]:
        me = state.decider
        assert me is not None
        observation = state.observe(me)
        candidates = _candidates(state.legal_actions(me))[:3]
        worlds = 3000
        totals = [0.0] * len(candidates)
        for _ in range(worlds):
            world = observation.sample_state(rng)
            for index, action in enumerate(candidates):
                trial = world.copy()
                trial.step(me, action)
                totals[index] += rollout(trial, me, 25)
        compiled = CompiledRollouts(observation.options, 25).totals(
            observation.sample_state(rng), me, candidates, worlds, seed=1)
        for total, compiled_total in zip(totals, compiled, strict=True):
            assert abs(total - compiled_total) / worlds < 0.035, (candidates, totals, compiled)
        checked += 1
    assert checked == 6


def test_a_sure_win_is_valued_one() -> None:
    state = position(hands=["RS R3", "R8"], discard="R1", king=1, jester=0)
    rollouts = CompiledRollouts(state.options, 25)
    observation = state.observe(0)
    candidates = [a for a in state.legal_actions(0) if getattr(a, "uno", False)]
    totals = rollouts.totals(observation.sample_state(random.Random(1)), 0, candidates, 200, seed=2)
    by_card = {str(action.card): total for action, total in zip(candidates, totals, strict=True)}  # type: ignore[union-attr]
    assert by_card["RS"] == 200
    assert by_card["R3"] < 200


@pytest.mark.parametrize("options", [
    GameOptions(players=2, single_round=True, two_player_reverse_skips=False),
    GameOptions(players=3, target_score=60),
    GameOptions(players=5, single_round=True, scepter_turns=None),
    GameOptions(players=6, single_round=True, scoring=Scoring.LOWEST_TALLY),
])
def test_the_compiled_search_plays_whole_games(options: GameOptions) -> None:
    # Every table size and option the batch knows: a game of compiled searches and a heuristic bot runs to its
    # end (the driver refuses any illegal action), the searches searching.
    searches = [SearchAgent(seat, iterations=60, rollouts="compiled") for seat in range(options.players - 1)]
    searched = []

    def note(_seat: int | None, _action: object, _state: GameState) -> None:
        searched.extend(agent.last_rollouts for agent in searches)

    log = play_game(GameState.new(options, seed=options.players), [*searches, HeuristicAgent(9)], on_step=note)
    assert log.rounds and log.rounds[-1] is not None
    assert max(searched) == 60


def test_warming_up_the_hard_level_compiles_the_rollouts() -> None:
    from royal_revenge.bots.registry import warm_up

    assert warm_up("hard")
    assert kernel._run.signatures  # compiled (or loaded from the cache) in this process
    assert warm_up("expert") and warm_up("normal")
