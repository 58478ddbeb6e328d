"""Shared helpers for the rule-by-rule scenario tests (tests/engine/test_rules_*.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pytest

from royal_revenge.engine import (
    FULL_DECK,
    Card,
    Decision,
    GameOptions,
    GameState,
    IllegalActionError,
    Kind,
    state_to_json,
)
from royal_revenge.engine.position import parse_cards

__all__ = ["apply", "cards", "hand", "refused", "rest_of_deck", "seed_with_start", "top"]


def apply(state: GameState, *moves: str) -> None:
    """Apply moves in notation, one after the other."""
    for move in moves:
        state.apply_move(move)


def hand(state: GameState, seat: int) -> str:
    """A seat's hand in notation, sorted, so that tests compare it to a literal."""
    return " ".join(sorted(str(card) for card in state.hands[seat]))


def cards(text: str) -> str:
    """Notation sorted the same way as :func:`hand`."""
    return " ".join(sorted(str(card) for card in parse_cards(text)))


def top(state: GameState) -> str:
    return str(state.top)


def refused(state: GameState, move: str, rule: str) -> IllegalActionError:
    """Assert that ``move`` is refused under ``rule`` and leaves the state exactly as it was."""
    before = state_to_json(state)
    copy = state.copy()
    with pytest.raises(IllegalActionError) as info:
        state.apply_move(move)
    assert info.value.rule == rule, f"{move!r} refused under {info.value.rule}, not {rule}: {info.value}"
    assert state_to_json(state) == before
    assert state == copy
    return info.value


def rest_of_deck(*used: str) -> str:
    """Every card of the deck not named in ``used`` (each a notation string), as notation."""
    remaining = Counter(FULL_DECK)
    for text in used:
        remaining.subtract(parse_cards(text))
    assert all(count >= 0 for count in remaining.values()), "more copies than the deck holds"
    return " ".join(str(card) for card in sorted(remaining.elements()))


def seed_with_start(kind: Kind, players: int = 4, first_king: int = 0, *, not_seats: Iterable[int] = ()) -> int:
    """The first seed whose start card is of ``kind`` (and whose dealer is not in ``not_seats``)."""
    avoid = set(not_seats)
    for seed in range(10_000):
        state = GameState.new(GameOptions(players=players, scepter_turns=None), seed=seed, first_king=first_king)
        if state.top.kind is kind and state.dealer not in avoid:
            assert state.pending == (Decision.JESTER, first_king)
            return seed
    raise AssertionError(f"no seed starts with a {kind.name}")


def card(text: str) -> Card:
    return Card.parse(text)
