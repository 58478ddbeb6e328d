"""R-TURN: what may be played, drawing, the drawn card, empty piles, the turn order and the stalemate."""

from __future__ import annotations

from collections import Counter

import pytest

from royal_revenge.engine import (
    DRAW,
    FULL_DECK,
    KEEP,
    Card,
    Colour,
    Decision,
    GameOptions,
    Play,
    events,
    is_playable,
)
from royal_revenge.engine.position import position

from .helpers import apply, cards, hand, refused, rest_of_deck, top

# ---------------------------------------------------------------- R-TURN-1

PLAYABILITY = [
    # (card, top, active colour when the top is a Wild, playable?)
    # a Wild, always
    ("W", "R7", None, True),
    ("W", "BS", None, True),
    ("W", "GJ", None, True),
    ("W", "W", "Y", True),
    # the active colour
    ("R2", "R7", None, True),
    ("RS", "R7", None, True),
    ("RR", "R7", None, True),
    ("RK", "R3", None, True),
    ("RJ", "RS", None, True),
    ("R5", "RK", None, True),
    # a number equal to the top's number
    ("B7", "R7", None, True),
    ("B6", "R7", None, False),
    ("Y1", "GS", None, False),
    # Reverse only on its colour or a Reverse
    ("BR", "RR", None, True),
    ("BR", "R7", None, False),
    ("BR", "RS", None, False),
    ("BR", "RJ", None, False),
    # Skip only on its colour or a Skip
    ("BS", "RS", None, True),
    ("BS", "R7", None, False),
    ("BS", "RR", None, False),
    ("BS", "RK", None, False),
    # +1 on +1, across kinds
    ("BJ", "RJ", None, True),
    ("BK", "RJ", None, True),
    ("BJ", "RK", None, True),
    ("BK", "YK", None, True),
    ("BK", "R7", None, False),
    ("BJ", "RS", None, False),
    ("BJ", "RR", None, False),
    # on a Wild only the chosen colour (or another Wild)
    ("G3", "W", "G", True),
    ("GS", "W", "G", True),
    ("GJ", "W", "G", True),
    ("R3", "W", "G", False),
    ("RJ", "W", "G", False),
    ("RS", "W", "G", False),
    ("YR", "W", "G", False),
]


@pytest.mark.parametrize(("card", "top", "active", "playable"), PLAYABILITY)
def test_playability_table(card: str, top: str, active: str | None, playable: bool) -> None:
    """R-TURN-1: the playability table (also R-ACT-WILD: a Wild is playable at any time)."""
    colour = Colour.parse(active) if active else Card.parse(top).colour
    assert is_playable(Card.parse(card), Card.parse(top), colour) is playable
    state = position(hands=[f"{card} Y4 Y5", "G1 G2"], discard=top, active_colour=active)
    assert (Play(Card.parse(card)) in state.legal_actions(0)) is playable
    if playable:
        apply(state, f"0:{card}")
        assert str(state.top) == card
        assert hand(state, 0) == cards("Y4 Y5")
    else:
        refused(state, f"0:{card}", "R-TURN-1")


def test_wild_playable_when_other_cards_match() -> None:
    """R-ACT-WILD: a Wild is playable at any time, even when another card would be playable."""
    state = position(hands=["R2 W B1", "G1 G2"], discard="R7")
    assert state.legal_actions(0) == [Play(Card.parse("R2")), Play(Card.parse("W")), DRAW]


# ---------------------------------------------------------------- R-TURN-2


def test_play_one_playable_card_or_draw() -> None:
    """R-TURN-2: on your turn you play one playable card or draw; you may draw holding a playable card."""
    state = position(hands=["R2 G6 Y1", "G1 G2"], discard="R7", draw="B5")
    assert state.legal_actions(0) == [Play(Card.parse("R2")), DRAW]
    apply(state, "0:draw")
    assert hand(state, 0) == cards("R2 G6 Y1 B5")
    assert state.pending == (Decision.DRAWN, 0)
    assert state.drawn == Card.parse("B5")


def test_cannot_play_a_card_not_held() -> None:
    """R-TURN-2: only a card from your own hand can be played."""
    state = position(hands=["R2 G6", "R3 G2"], discard="R7")
    refused(state, "0:R3", "R-TURN-2")


# ---------------------------------------------------------------- R-TURN-3


def test_drawn_playable_card_may_be_played_at_once() -> None:
    """R-TURN-3: after drawing, a playable drawn card may be played at once."""
    state = position(hands=["B2 G6", "G1 G2", "Y1"], discard="R7", draw="R4 Y8")
    apply(state, "0:draw")
    assert state.legal_actions(0) == [Play(Card.parse("R4")), KEEP]
    apply(state, "0:R4")
    assert top(state) == "R4"
    assert hand(state, 0) == cards("B2 G6")
    assert state.pending == (Decision.TURN, 1)


def test_only_the_drawn_card_may_be_played() -> None:
    """R-TURN-3: only the drawn card may be played after drawing, not another playable card."""
    state = position(hands=["R2 G6", "G1 G2"], discard="R7", draw="R4")
    apply(state, "0:draw")
    refused(state, "0:R2", "R-TURN-3")
    refused(state, "0:draw", "R-DIGITAL-1")  # and no second draw


def test_keep_ends_the_turn_and_the_card_cannot_be_played_later() -> None:
    """R-TURN-3: keeping the drawn card ends the turn; it can be played only then."""
    state = position(hands=["B2 G6", "G1 G2", "Y1 Y2"], discard="R7", draw="R4")
    apply(state, "0:draw", "0:keep")
    assert hand(state, 0) == cards("B2 G6 R4")
    assert top(state) == "R7"
    assert state.pending == (Decision.TURN, 1)
    refused(state, "0:R4", "R-DIGITAL-1")


def test_unplayable_drawn_card_can_only_be_kept() -> None:
    """R-TURN-3 (D-2): a drawn card that does not match gives a DRAWN decision whose only choice is keep."""
    state = position(hands=["B2 G6", "G1 G2"], discard="R7", draw="Y3")
    apply(state, "0:draw")
    assert state.pending == (Decision.DRAWN, 0)
    assert state.legal_actions(0) == [KEEP]
    refused(state, "0:Y3", "R-TURN-3")
    apply(state, "0:keep")
    assert state.pending == (Decision.TURN, 1)


# ---------------------------------------------------------------- R-TURN-4


def test_empty_draw_pile_reshuffles_discard_keeping_top() -> None:
    """R-TURN-4: an empty draw pile is refilled from the discard pile, all but its top card."""
    used = ["R2 G6", "G1 G2", "R7"]
    under = rest_of_deck(*used).split()
    state = position(hands=used[:2], discard=[*under, "R7"], draw="")
    assert state.draw_pile == []
    log = state.apply_move("0:draw")
    assert [e for e in log if isinstance(e, events.Reshuffled)] == [events.Reshuffled(len(under))]
    assert state.discard == [Card.parse("R7")]
    assert len(state.hands[0]) == 3
    assert len(state.draw_pile) == len(under) - 1
    everything = [c for h in state.hands for c in h] + state.draw_pile + state.discard
    assert Counter(everything) == Counter(FULL_DECK)
    assert state.pending == (Decision.DRAWN, 0)


HIGH_TARGET = GameOptions(players=3, target_score=10_000, scepter_turns=None)


def _starved(hands: list[str], top_card: str) -> list[str]:
    """Hands so that every card but the top discard is held: nothing can be drawn."""
    filler = rest_of_deck(*hands, top_card)
    return [*hands, filler]


def test_nothing_to_draw_is_a_pass() -> None:
    """R-TURN-4: when no card can be drawn, a turn that would draw becomes a pass."""
    hands = _starved(["B2 G6", "G1 G2"], "R7")
    state = position(hands=hands, discard="R7", draw="")
    log = state.apply_move("0:draw")
    assert events.Passed(0) in log
    assert hand(state, 0) == cards("B2 G6")
    assert state.pending == (Decision.TURN, 1)
    assert top(state) == "R7"


# ---------------------------------------------------------------- R-TURN-5


def test_one_card_per_turn_then_next_in_direction() -> None:
    """R-TURN-5: one card per turn; then the next player in the direction of play."""
    state = position(hands=["R2 R3", "R4 R5", "R6 R8"], discard="R7")
    apply(state, "0:R2")
    assert state.pending == (Decision.TURN, 1)
    refused(state, "0:R3", "R-DIGITAL-1")
    state = position(hands=["R2 R3", "R4 R5", "R6 R8"], discard="R7", direction=-1)
    apply(state, "0:R2")
    assert state.pending == (Decision.TURN, 2)
    apply(state, "2:R6")
    assert state.pending == (Decision.TURN, 1)


# ---------------------------------------------------------------- R-TURN-6


def test_stalemate_ends_round_fewest_points_wins() -> None:
    """R-TURN-6: when nothing can be drawn and every player in turn passes, the fewest points in hand win."""
    hands = _starved(["B2 G6", "G1 Y2"], "R7")  # 8 and 3 points; seat 2 holds the rest
    state = position(hands=hands, discard="R7", draw="", options=HIGH_TARGET)
    apply(state, "0:draw", "1:draw")
    assert state.pending == (Decision.TURN, 2)
    log = state.apply_move("2:draw")
    assert state.decision is Decision.ROUND_OVER
    assert state.last_round is not None
    assert state.last_round.blocked
    assert state.last_round.winner == 1
    rest = sum(card.points for card in state.hands[2])
    assert state.last_round.points == 8 + rest
    assert state.scores == [0, 8 + rest, 0]
    assert any(isinstance(e, events.RoundEnded) and e.blocked for e in log)


def test_stalemate_tie_goes_to_who_would_play_soonest() -> None:
    """R-TURN-6 (D-7): tied fewest points go to the first tied seat after the last passer."""
    hands = ["R2 Y3", "W W", "G4 B1"]  # seat 0: 5, seat 2: 5
    hands = [hands[0], hands[1] + " " + rest_of_deck(*hands, "R7"), hands[2]]
    state = position(hands=hands, discard="R7", draw="", current=2)
    apply(state, "2:draw", "0:draw", "1:draw")  # the last passer is seat 1; seat 2 plays soonest
    assert state.last_round is not None
    assert state.last_round.blocked
    assert state.last_round.winner == 2
    # the same tie, with seat 2 passing last: seat 0 would play soonest
    state = position(hands=hands, discard="R7", draw="", current=0)
    apply(state, "0:draw", "1:draw", "2:draw")
    assert state.last_round is not None and state.last_round.winner == 0
    # and against the direction of play
    state = position(hands=hands, discard="R7", draw="", current=0, direction=-1)
    apply(state, "0:draw", "2:draw", "1:draw")  # last passer 1, next in direction is 0
    assert state.last_round is not None and state.last_round.winner == 0


def test_a_play_or_a_draw_resets_the_stalemate_count() -> None:
    """R-TURN-6 (D-7): only the passes since the last card played or drawn count."""
    hands = _starved(["R2 G6", "G1 Y2"], "R7")
    state = position(hands=hands, discard="R7", draw="", options=HIGH_TARGET)
    apply(state, "0:draw", "1:draw")
    seat2_card = next(c for c in state.hands[2] if c.colour is Colour.RED)
    apply(state, f"2:{seat2_card}")  # a play: R7 now lies under it
    apply(state, "0:draw")  # reshuffle: seat 0 draws the R7
    assert Card.parse("R7") in state.hands[0]
    apply(state, "0:keep", "1:draw", "2:draw")
    assert state.pending == (Decision.TURN, 0)  # seat 0 drew, so it has not passed
    apply(state, "0:draw")
    assert state.decision is Decision.ROUND_OVER
