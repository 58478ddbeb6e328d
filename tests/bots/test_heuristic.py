"""The heuristic bot plays sensibly in constructed positions, including the royal decisions."""

from __future__ import annotations

from royal_revenge.bots import HeuristicAgent, RandomAgent
from royal_revenge.engine import (
    DRAW,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    GameOptions,
    GameState,
    Play,
)
from royal_revenge.engine.position import position
from royal_revenge.sim import play_game


def decide(state: GameState, seat: int, agent: HeuristicAgent | None = None) -> object:
    agent = agent if agent is not None else HeuristicAgent(seed=1)
    legal = state.legal_actions(seat)
    action = agent.act(state.observe(seat), legal)
    assert action is None or action in legal
    return action


# ---------------------------------------------------------------- the King's decisions


def test_king_chooses_the_colour_it_holds_most_for_someone_elses_wild() -> None:
    state = position(
        hands=["R1 R2 R6 G3 B4", "Y1 Y2 Y3", "Y4 Y5 Y6 Y7", "G1 G2 G4 G5"],
        discard="B8 W", decision=Decision.COLOUR, king=0, current=1, resolving=1,
    )
    assert state.pending == (Decision.COLOUR, 0)
    assert decide(state, 0) == ChooseColour(Colour.RED)


def test_king_shades_the_colour_against_a_leader_about_to_go_out() -> None:
    # The King holds one red and one green. Seven greens are already discarded, so the leader
    # (one card left) is far less likely to hold a green than a red: green hurts the leader.
    state = position(
        hands=["R1 G1 B5", "Y1 Y2 Y3 Y4", "R7", "B1 B2 B3 B4"],
        discard="G2 G3 G4 G5 G6 G7 G8 W", decision=Decision.COLOUR, king=0, current=1, resolving=1,
    )
    assert decide(state, 0) == ChooseColour(Colour.GREEN)


def test_king_sends_kings_choice_to_the_most_dangerous_opponent() -> None:
    state = position(
        hands=["R1 R2 R3", "Y1 Y2 Y3 Y4 Y5", "G1 G2 G3", "B1"],
        discard="RK", decision=Decision.VICTIM, king=0, current=2, resolving=2,
    )
    assert decide(state, 0) == ChooseVictim(3)


def test_kings_choice_between_equal_hands_goes_to_the_highest_score() -> None:
    state = position(
        hands=["R1 R2 R3", "Y1 Y2", "G1 G2", "B1 B2 B3"],
        discard="RK", decision=Decision.VICTIM, king=0, current=3, resolving=3, scores=[100, 50, 320, 0],
    )
    assert decide(state, 0) == ChooseVictim(2)


def test_kings_choice_as_last_card_of_an_opponent_goes_to_them_and_costs_nothing() -> None:
    # Seat 2 went out with the King's Choice: any card the King hands out scores for seat 2,
    # except one for seat 2 itself, which is no card at all (D-1).
    state = position(
        hands=["R1 R2 R3", "Y1 Y2", "", "B1 B2 B3"],
        discard="RK", decision=Decision.VICTIM, king=0, current=2, resolving=2,
    )
    assert decide(state, 0) == ChooseVictim(2)


def test_king_hands_the_jester_hat_to_the_most_dangerous_opponent() -> None:
    state = position(
        hands=["R1 R2 R3", "Y1 Y2 Y3 Y4", "G1 G2", "B1 B2 B3 B4 B5"],
        discard="R5", decision=Decision.JESTER, king=0, current=0, jester=3,
    )
    assert decide(state, 0) == ChooseJester(2)


# ---------------------------------------------------------------- playing


def test_keeps_the_wild_when_another_card_plays() -> None:
    state = position(hands=["W R3 G5 B2", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7")
    assert decide(state, 0) == Play(Card.parse("R3"))


def test_plays_the_wild_rather_than_draw_when_nothing_else_plays() -> None:
    state = position(hands=["W G5 B2", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7")
    assert decide(state, 0) == Play(Card.parse("W"))


def test_draws_only_when_nothing_plays_and_plays_a_playable_drawn_card() -> None:
    state = position(hands=["G5 B2", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7", draw="R4")
    assert decide(state, 0) == DRAW
    state.apply(0, DRAW)
    # Three cards now, so no UNO yet: just the drawn card.
    assert decide(state, 0) == Play(Card.parse("R4"))


def test_calls_uno_with_the_next_to_last_card() -> None:
    state = position(hands=["R3 G5", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7")
    assert decide(state, 0) == Play(Card.parse("R3"), uno=True)


def test_catches_a_player_who_forgot_uno() -> None:
    state = position(hands=["R3 G5 B1", "Y1 Y2 Y3", "Y4", "G1 G2 G3"], discard="Y8", current=3, uno_seat=2)
    # Out of turn: seat 0 may catch seat 2.
    assert state.legal_actions(0) == [Catch(2)]
    assert decide(state, 0) == Catch(2)
    # The player about to play catches first, then plays.
    assert Catch(2) in state.legal_actions(3)
    assert decide(state, 3) == Catch(2)


def test_passes_an_optional_chance_with_nothing_to_do() -> None:
    state = position(hands=["R3 G5 B1", "Y1 Y2 Y3", "Y4 Y6", "G1 G2 G3"], discard="Y8", current=3)
    assert decide(state, 0, HeuristicAgent(seed=1)) is None or state.legal_actions(0) == []


def test_does_not_play_a_jester_while_wearing_the_hat() -> None:
    state = position(hands=["RJ R3 G5", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7", jester=0, king=1)
    assert decide(state, 0) == Play(Card.parse("R3"))


def test_aims_a_jester_at_a_jester_about_to_go_out() -> None:
    state = position(hands=["RJ R3 G5", "Y1 Y2 Y3", "Y4", "G1 G2 G3"], discard="R7", jester=2, king=1)
    assert decide(state, 0) == Play(Card.parse("RJ"))


def test_skips_a_next_player_about_to_go_out() -> None:
    state = position(hands=["RS R3 G5", "Y1", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7", jester=2, king=3)
    assert decide(state, 0) == Play(Card.parse("RS"))


def test_goes_out_when_it_can() -> None:
    state = position(hands=["BJ", "Y1", "Y4 Y5 Y6", "G1 G2 G3"], discard="B7", jester=0, king=3)
    assert decide(state, 0) == Play(Card.parse("BJ"))


def test_forgetful_heuristic_forgets_uno() -> None:
    state = position(hands=["R3 G5", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7")
    forgetful = HeuristicAgent(seed=1, forget_uno=1.0)
    action = decide(state, 0, forgetful)
    assert action == Play(Card.parse("R3"))
    state.apply(0, Play(Card.parse("R3")))
    assert state.uno_seat == 0
    assert decide(state, 0, forgetful) is None  # it does not call late either
    assert decide(state, 1) == Catch(0)  # and a normal heuristic catches it


def test_heuristic_beats_random_players() -> None:
    wins = 0
    games = 40
    for game in range(games):
        seat = game % 4
        agents = [HeuristicAgent(game) if s == seat else RandomAgent(100 * game + s) for s in range(4)]
        log = play_game(GameState.new(GameOptions(players=4, single_round=True), seed=game), agents)
        wins += log.rounds[-1].winner == seat
    assert wins >= 0.6 * games
