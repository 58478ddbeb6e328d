"""R-DECK: the 56 cards and their points."""

from __future__ import annotations

from collections import Counter

import pytest

from royal_revenge.engine import FULL_DECK, WILD, Card, Colour, GameOptions, GameState, Kind, NotationError


def test_deck_composition() -> None:
    """R-DECK-1: 56 cards; per colour 1-8 once, one Reverse, Skip, King's Choice, two Jesters; 4 Wilds."""
    assert len(FULL_DECK) == 56
    counts = Counter(FULL_DECK)
    for colour in Colour:
        for number in range(1, 9):
            assert counts[Card.make(Kind.NUMBER, colour, number)] == 1
        assert counts[Card.make(Kind.REVERSE, colour)] == 1
        assert counts[Card.make(Kind.SKIP, colour)] == 1
        assert counts[Card.make(Kind.KINGS_CHOICE, colour)] == 1
        assert counts[Card.make(Kind.JESTER, colour)] == 2
    assert counts[WILD] == 4
    assert WILD.colour is None
    kinds = Counter(card.kind for card in FULL_DECK)
    assert kinds == {Kind.NUMBER: 32, Kind.REVERSE: 4, Kind.SKIP: 4, Kind.KINGS_CHOICE: 4, Kind.JESTER: 8, Kind.WILD: 4}


@pytest.mark.parametrize("text", ["R0", "B9", "G10", "WR", "X1"])
def test_no_zero_no_nine(text: str) -> None:
    """R-DECK-1: there is no 0 and no 9 (nor any other face outside the deck)."""
    with pytest.raises(NotationError):
        Card.parse(text)
    with pytest.raises(NotationError):
        Card.make(Kind.NUMBER, Colour.RED, 0)
    with pytest.raises(NotationError):
        Card.make(Kind.NUMBER, Colour.RED, 9)


def test_a_dealt_game_holds_the_whole_deck() -> None:
    """R-DECK-1: hands, draw pile and discard of a fresh game are exactly the 56 cards."""
    state = GameState.new(GameOptions(players=6), seed=5)
    everything = [c for h in state.hands for c in h] + state.draw_pile + state.discard
    assert Counter(everything) == Counter(FULL_DECK)


@pytest.mark.parametrize(
    ("text", "points"),
    [("R1", 1), ("Y5", 5), ("B8", 8), ("GR", 20), ("RS", 20), ("YK", 20), ("BJ", 20), ("W", 50)],
)
def test_card_points(text: str, points: int) -> None:
    """R-DECK-2: a number is worth its face value, Reverse/Skip/King's Choice/Jester 20, a Wild 50."""
    assert Card.parse(text).points == points


def test_deck_total_points() -> None:
    """R-DECK-2: 4 x (1+..+8) + 4 x 5 symbols x 20 + 4 Wilds x 50 = 144 + 400 + 200."""
    assert sum(card.points for card in FULL_DECK) == 144 + 400 + 200
