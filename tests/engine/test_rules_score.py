"""R-SCORE: the end of a round, its points, new rounds and the end of the game."""

from __future__ import annotations

from typing import Any

import pytest

from royal_revenge.engine import (
    NEXT_ROUND,
    Card,
    Colour,
    Decision,
    GameOptions,
    GameState,
    OptionsError,
    Outcome,
    Scoring,
    events,
)
from royal_revenge.engine.position import position

from .helpers import apply, cards, hand, refused, top

OTHERS = ["W YS Y8", "B3 GK"]  # 50 + 20 + 8 = 78 and 3 + 20 = 23


def _three(first: str, **kwargs: Any) -> GameState:
    return position(hands=[first, *OTHERS], discard="R7", draw="Y7 Y6", **kwargs)


# ---------------------------------------------------------------- R-SCORE-1


def test_winner_scores_opponents_hand_points() -> None:
    """R-SCORE-1: the player with no cards left wins the round and scores the opponents' hand points (R-DECK-2)."""
    state = _three("R1", king=1, jester=2)
    log = state.apply_move("0:R1")
    assert state.pending == (Decision.ROUND_OVER, None)
    assert state.last_round is not None
    assert state.last_round.winner == 0
    assert not state.last_round.blocked
    assert state.last_round.hand_points == (0, 78, 23)
    assert state.last_round.points == 101
    assert state.scores == [101, 0, 0]
    assert events.RoundEnded(0, False, 101, (0, 78, 23), (101, 0, 0)) in log
    assert state.outcome() is None
    refused(state, "1:W", "R-DIGITAL-1")


def test_kings_choice_as_last_card_still_makes_someone_draw() -> None:
    """R-SCORE-1: after the effect of the last card: a King's Choice still makes its victim draw, which scores."""
    state = _three("RK", king=1, jester=2)
    apply(state, "0:RK")
    assert state.pending == (Decision.VICTIM, 1)
    apply(state, "1:victim 2")
    assert hand(state, 2) == cards("B3 GK Y7")
    assert state.last_round is not None and state.last_round.winner == 0
    assert state.scores == [78 + 23 + 7, 0, 0]


def test_jester_as_last_card_still_makes_the_jester_draw() -> None:
    """R-SCORE-1: a Jester as the last card: the Jester draws before the round is scored."""
    state = _three("RJ", king=1, jester=1)
    apply(state, "0:RJ")
    assert hand(state, 1) == cards("W YS Y8 Y7")
    assert state.scores == [78 + 7 + 23, 0, 0]


def test_plus_one_at_the_player_who_went_out_gives_nothing() -> None:
    """R-SCORE-1 (D-1): a +1 aimed at the player who has just gone out gives them nothing; they win."""
    state = _three("RJ", king=1, jester=0)
    apply(state, "0:RJ")
    assert state.hands[0] == []
    assert state.last_round is not None and state.last_round.winner == 0
    assert state.scores == [101, 0, 0]
    state = _three("RK", king=1, jester=2)
    apply(state, "0:RK")
    log = state.apply_move("1:victim 0")
    assert events.Drew(0, 0, "plus", (), Card.parse("RK"), Colour.RED) in log
    assert state.hands[0] == []
    assert state.last_round is not None and state.last_round.winner == 0
    assert state.scores == [101, 0, 0]


def test_wild_as_last_card_needs_no_colour() -> None:
    """R-SCORE-1: a Wild as the last card needs no colour: the round ends at once."""
    state = position(hands=["W", "R3 R4", "B3 GK"], discard="R7", king=1, jester=2)
    apply(state, "0:W")
    assert state.pending == (Decision.ROUND_OVER, None)
    assert top(state) == "W"
    assert state.scores == [7 + 23, 0, 0]


@pytest.mark.parametrize("last", ["RS", "RR", "R1"])
def test_round_ends_as_soon_as_the_hand_is_empty(last: str) -> None:
    """R-SCORE-1: a round ends as soon as a player has no cards left."""
    state = _three(last, king=1, jester=2)
    apply(state, f"0:{last}")
    assert state.pending == (Decision.ROUND_OVER, None)
    refused(state, "1:draw", "R-DIGITAL-1")
    refused(state, "2:draw", "R-DIGITAL-1")


# ---------------------------------------------------------------- R-SCORE-2


def test_new_round_is_dealt_by_the_next_dealer() -> None:
    """R-SCORE-2: below the target, all cards are shuffled and a new round is dealt; the deal passes left."""
    state = _three("R1", king=1, jester=2, dealer=2)
    apply(state, "0:R1")
    refused(state, "0:deal", "R-SCORE-2")  # the table deals, not a player
    assert state.legal_actions(None) == [NEXT_ROUND]
    assert state.legal_actions(0) == []
    apply(state, "deal")
    assert state.round_no == 2
    assert state.dealer == 0
    assert state.king == 2
    assert [len(h) for h in state.hands] == [7, 7, 7]
    assert len(state.discard) == 1 and len(state.draw_pile) == 56 - 21 - 1
    assert state.scores == [101, 0, 0]
    assert state.direction == 1


def test_deal_refused_during_a_round() -> None:
    """R-SCORE-2: a new round is dealt only after a round is over."""
    state = _three("R1 R2", king=1, jester=2)
    refused(state, "deal", "R-SCORE-2")


# ---------------------------------------------------------------- R-SCORE-3


def test_first_to_reach_500_wins() -> None:
    """R-SCORE-3: the first player to reach 500 points (or more) wins the game."""
    state = _three("R1", king=1, jester=2, scores=[399, 450, 0])
    apply(state, "0:R1")
    assert state.scores == [500, 450, 0]
    assert state.is_over()
    assert state.pending == (Decision.GAME_OVER, None)
    assert state.outcome() == Outcome((0,), (500, 450, 0))
    refused(state, "deal", "R-SCORE-3")
    refused(state, "1:W", "R-SCORE-3")


def test_below_500_the_game_goes_on() -> None:
    """R-SCORE-3: 499 points is not yet a win."""
    state = _three("R1", king=1, jester=2, scores=[398, 499, 0])
    apply(state, "0:R1")
    assert state.scores == [499, 499, 0]
    assert state.pending == (Decision.ROUND_OVER, None)
    assert state.outcome() is None


# ---------------------------------------------------------------- R-SCORE-4


def test_lowest_tally_each_adds_own_hand() -> None:
    """R-SCORE-4: in alternative scoring each player adds the points left in their own hand."""
    options = GameOptions(players=3, scoring=Scoring.LOWEST_TALLY, scepter_turns=None)
    state = _three("R1", king=1, jester=2, options=options, scores=[10, 20, 30])
    apply(state, "0:R1")
    assert state.scores == [10, 20 + 78, 30 + 23]
    assert state.pending == (Decision.ROUND_OVER, None)


def test_lowest_tally_game_ends_when_a_tally_reaches_500_lowest_wins() -> None:
    """R-SCORE-4: when any tally reaches 500 the game ends and the lowest tally wins."""
    options = GameOptions(players=3, scoring=Scoring.LOWEST_TALLY, scepter_turns=None)
    state = _three("R1", king=1, jester=2, options=options, scores=[300, 430, 200])
    apply(state, "0:R1")
    assert state.scores == [300, 508, 223]
    assert state.outcome() == Outcome((2,), (300, 508, 223))


def test_lowest_tally_tie_shares_the_win() -> None:
    """R-SCORE-4: a tie for the lowest tally shares the win."""
    options = GameOptions(players=3, scoring=Scoring.LOWEST_TALLY, scepter_turns=None)
    state = _three("R1", king=1, jester=2, options=options, scores=[223, 430, 200])
    apply(state, "0:R1")
    assert state.outcome() == Outcome((0, 2), (223, 508, 223))


# ---------------------------------------------------------------- R-SCORE-5


def test_target_is_configurable() -> None:
    """R-SCORE-5: the target is configurable."""
    options = GameOptions(players=3, target_score=100, scepter_turns=None)
    state = _three("R1", king=1, jester=2, options=options)
    apply(state, "0:R1")
    assert state.outcome() == Outcome((0,), (101, 0, 0))
    options = GameOptions(players=3, target_score=102, scepter_turns=None)
    state = _three("R1", king=1, jester=2, options=options)
    apply(state, "0:R1")
    assert state.pending == (Decision.ROUND_OVER, None)


def test_single_round_game() -> None:
    """R-SCORE-5: a game may be a single round: the round's winner wins whatever the points."""
    options = GameOptions(players=3, single_round=True, scepter_turns=None)
    state = position(hands=["R1", "R3", "B3"], discard="R7", king=1, jester=2, options=options)
    apply(state, "0:R1")
    assert state.outcome() == Outcome((0,), (6, 0, 0))
    options = GameOptions(players=3, single_round=True, scoring=Scoring.LOWEST_TALLY, scepter_turns=None)
    state = position(hands=["R1", "R3", "B3"], discard="R7", king=1, jester=2, options=options)
    apply(state, "0:R1")
    assert state.outcome() == Outcome((0,), (0, 3, 3))


def test_target_must_be_positive() -> None:
    """R-SCORE-5: the target is a positive whole number."""
    with pytest.raises(OptionsError):
        GameOptions(target_score=0)
