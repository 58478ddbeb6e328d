"""The text and JSON notation of cards, colours, actions and moves round-trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from royal_revenge.engine import (
    ALL_CARDS,
    CALL_UNO,
    DRAW,
    FANFARE,
    FULL_DECK,
    KEEP,
    NEXT_ROUND,
    WILD,
    Action,
    AnyAction,
    CallUno,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Draw,
    Fanfare,
    Keep,
    Kind,
    Move,
    NextRound,
    Play,
)
from royal_revenge.engine.actions import MAX_SEATS

EVERY_ACTION: list[AnyAction] = [
    *(Play(card) for card in ALL_CARDS),
    *(Play(card, uno=True) for card in ALL_CARDS),
    DRAW,
    KEEP,
    CALL_UNO,
    FANFARE,
    NEXT_ROUND,
    *(ChooseColour(colour) for colour in Colour),
    *(ChooseVictim(seat) for seat in range(MAX_SEATS)),
    *(ChooseJester(seat) for seat in range(MAX_SEATS)),
    *(Catch(seat) for seat in range(MAX_SEATS)),
]


def test_the_deck() -> None:
    assert len(ALL_CARDS) == 49 and len(FULL_DECK) == 56
    assert len(set(FULL_DECK)) == 49
    assert sum(card.points for card in FULL_DECK) == 4 * (36 + 20 * 5) + 4 * 50
    assert sum(1 for card in FULL_DECK if card.kind is Kind.JESTER) == 8
    assert sum(1 for card in FULL_DECK if card is WILD or card == WILD) == 4
    assert all(card.number is None or 1 <= card.number <= 8 for card in ALL_CARDS)


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_every_card_round_trips(card: Card) -> None:
    text = str(card)
    assert Card.parse(text) == card and type(Card.parse(text)) is Card
    assert Card.parse(text.lower()) == card
    assert Card.parse(f"  {text.lower()} \n") == card
    assert repr(card) == f"Card({text!r})"
    assert eval(repr(card), {"Card": lambda t: Card.parse(t)}) == card
    assert Card.make(card.kind, card.colour, card.number) == card
    assert Card(int(card)) == card and str(Card(int(card))) == text


def test_card_notation_is_exactly_the_expected_set() -> None:
    expected = {"W"} | {c + r for c in "RYGB" for r in [*"12345678", *"RSKJ"]}
    assert {str(card) for card in ALL_CARDS} == expected


def test_card_is_an_int_usable_as_an_index() -> None:
    table = list(range(100, 149))
    for card in ALL_CARDS:
        assert isinstance(card, int)
        assert table[card] == 100 + int(card)
        assert ALL_CARDS[card] is card
    counts = [0] * 49
    for card in FULL_DECK:
        counts[card] += 1
    assert counts[WILD] == 4 and counts[Card.parse("RJ")] == 2 and counts[Card.parse("R7")] == 1
    assert {Card.parse("R7"): 1}[Card.parse("r7")] == 1
    assert hash(Card.parse("BJ")) == hash(int(Card.parse("BJ")))
    assert sorted([Card.parse("W"), Card.parse("R1")]) == [Card.parse("R1"), WILD]


@pytest.mark.parametrize("colour", list(Colour), ids=str)
def test_every_colour_round_trips(colour: Colour) -> None:
    assert Colour.parse(str(colour)) is colour
    assert Colour.parse(colour.letter.lower()) is colour
    assert Colour.parse(colour.name) is colour
    assert Colour.parse(colour.name.lower()) is colour
    assert Colour.parse(f" {colour.name.title()} ") is colour


@pytest.mark.parametrize("action", EVERY_ACTION, ids=str)
def test_every_action_round_trips(action: AnyAction) -> None:
    text = str(action)
    assert Action.parse(text) == action
    assert Action.parse(text.upper()) == action
    assert Action.parse(f"  {text.lower()}  ") == action
    data = action.to_json()
    assert Action.from_json(data) == action
    assert Action.from_json(json.loads(json.dumps(data))) == action
    assert type(Action.from_json(data)) is type(action)


@pytest.mark.parametrize("action", EVERY_ACTION, ids=str)
def test_every_move_round_trips(action: AnyAction) -> None:
    seats: list[int | None] = [None] if isinstance(action, (Fanfare, NextRound)) else list(range(MAX_SEATS))
    for seat in seats:
        move = Move(seat, action)
        text = str(move)
        assert Move.parse(text) == move
        assert Move.parse(text.upper()) == move
        if seat is not None:
            assert text == f"{seat}:{action}"
            assert Move.parse(f" {seat} : {str(action).lower()} ") == move
        else:
            assert text == str(action)


def test_action_spellings() -> None:
    assert Action.parse("color red") == ChooseColour(Colour.RED)
    assert Action.parse("COLOUR Blue") == ChooseColour(Colour.BLUE)
    assert Action.parse("Draw") == Draw() and Action.parse("KEEP") == Keep()
    assert Action.parse("Uno") == CallUno() and Action.parse("FanFare") == Fanfare()
    assert Action.parse("DEAL") == NextRound()
    assert Action.parse("w!") == Play(WILD, uno=True)
    assert Action.parse("gk") == Play(Card.parse("GK"))
    assert Action.from_json({"type": "play", "card": "yj"}) == Play(Card.parse("YJ"))  # uno defaults to false


@settings(max_examples=300, deadline=None)
@given(action=st.sampled_from(EVERY_ACTION), seat=st.none() | st.integers(0, MAX_SEATS - 1))
def test_move_json_and_text_agree(action: AnyAction, seat: int | None) -> None:
    move = Move(seat, action)
    assert Move.parse(str(move)) == move
    assert Action.from_json(action.to_json()) == Action.parse(str(action))
