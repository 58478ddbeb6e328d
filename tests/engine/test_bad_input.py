"""Illegal and malformed input: refused with IllegalActionError naming a rule, and nothing changes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from royal_revenge.engine import (
    ALL_CARDS,
    CALL_UNO,
    DRAW,
    FANFARE,
    KEEP,
    NEXT_ROUND,
    WILD,
    Action,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    GameOptions,
    GameState,
    IllegalActionError,
    Move,
    NotationError,
    Play,
    RoyalRevengeError,
    state_to_json,
)
from royal_revenge.engine.position import position

from .randomplay import GameSpec, drive, game_specs
from .rules_page import rule_ids
from .test_notation import EVERY_ACTION

RULE_IDS = rule_ids()
"""The rule ids of docs/rules.md (the shared RULES.md restated in the repository)."""


def refused(state: GameState, seat: Any, action: Any, rule: str | None = None, *, named: bool = True) -> str:
    """Apply must raise IllegalActionError naming a rule of docs/rules.md and leave the state exactly as it was.

    Checked for both ``apply`` and ``step``; returns the message.
    """
    before = state_to_json(state)
    twin = state.copy()
    for method in (state.apply, state.step):
        with pytest.raises(IllegalActionError) as info:
            method(seat, action)
        assert state_to_json(state) == before
        assert state == twin
    error = info.value
    assert isinstance(error, ValueError) and isinstance(error, RoyalRevengeError)
    if named:
        assert error.rule in RULE_IDS, f"{error!r} names no rule"
        assert str(error).startswith(f"{error.rule}: ")
    if rule is not None:
        assert error.rule == rule, str(error)
    return str(error)


def hands3(**kwargs: Any) -> GameState:
    """Seat 0 to play on R5; seat 1 holds G5 G6 B7 YK; seat 2 holds Y3 BJ."""
    return position(**{"hands": ["R1 R2 W", "G5 G6 B7 YK", "Y3 BJ"], "discard": "B1 R5", "draw": "Y8 G1", **kwargs})


# ---------------------------------------------------------------- whose decision


def test_wrong_seat_for_a_turn() -> None:
    state = hands3()
    assert state.pending == (Decision.TURN, 0)
    assert "seat 0 must play or draw" in refused(state, 1, Play(Card.parse("G5")), "R-DIGITAL-1")
    refused(state, 2, DRAW, "R-DIGITAL-1")
    refused(state, None, Play(Card.parse("R1")), "R-DIGITAL-1")
    refused(state, None, DRAW, "R-DIGITAL-1")
    refused(state, 0, KEEP, "R-DIGITAL-1")


def test_wrong_seat_for_the_kings_decisions() -> None:
    colour = hands3(decision=Decision.COLOUR, discard="B1 W", king=2, resolving=0)
    assert colour.pending == (Decision.COLOUR, 2)
    refused(colour, 0, ChooseColour(Colour.RED), "R-DIGITAL-1")  # the player of the Wild is not the King
    refused(colour, None, ChooseColour(Colour.RED), "R-DIGITAL-1")
    refused(colour, 0, DRAW, "R-DIGITAL-1")
    victim = hands3(decision=Decision.VICTIM, discard="B1 RK", king=1, resolving=0)
    refused(victim, 0, ChooseVictim(2), "R-DIGITAL-1")
    refused(victim, 2, ChooseVictim(2), "R-DIGITAL-1")
    jester = GameState.new(GameOptions(players=3), seed=2, first_king=1)
    assert jester.pending == (Decision.JESTER, 1)
    refused(jester, 0, ChooseJester(2), "R-DIGITAL-1")
    refused(jester, None, ChooseJester(2), "R-DIGITAL-1")


@pytest.mark.parametrize("seat", [3, 6, 7, -1, -4, 10**20])
def test_seats_out_of_range(seat: int) -> None:
    state = hands3()
    refused(state, seat, DRAW, "R-SETUP-1")
    refused(state, seat, CALL_UNO, "R-SETUP-1")


@pytest.mark.parametrize("seat", ["0", 0.0, True, False, [0], (0,), b"0", object()])
def test_seats_that_are_not_whole_numbers(seat: object) -> None:
    state = hands3()
    refused(state, seat, DRAW, "R-SETUP-1")
    refused(state, seat, Play(Card.parse("R1")), "R-SETUP-1")


@pytest.mark.parametrize("target", [3, 5, -1])
def test_action_arguments_that_name_no_seat(target: Any) -> None:
    victim = hands3(decision=Decision.VICTIM, discard="B1 RK", king=1, resolving=0)
    refused(victim, 1, ChooseVictim(target), "R-ACT-KC")
    jester = GameState.new(GameOptions(players=3), seed=2, first_king=1)
    refused(jester, 1, ChooseJester(target), "R-SETUP-5")
    window = hands3(uno_seat=2, hands=["R1 R2", "G5 G6 B7 YK", "BJ"])
    refused(window, 0, Catch(target), "R-UNO-3")


@pytest.mark.parametrize("target", ["1", 1.0, True, None])
def test_actions_that_name_no_seat_cannot_be_made(target: Any) -> None:
    """An action is checked when it is made: the engine never sees a seat that is not a whole number."""
    for kind, rule in ((ChooseVictim, "R-ACT-KC"), (ChooseJester, "R-SETUP-5"), (Catch, "R-UNO-3")):
        with pytest.raises(IllegalActionError) as info:
            kind(target)
        assert info.value.rule == rule


@pytest.mark.parametrize(("card", "uno"), [("R7", False), (7, False), (None, False), (Card.parse("R7"), 1)])
def test_plays_that_name_no_card_cannot_be_made(card: Any, uno: Any) -> None:
    with pytest.raises(IllegalActionError) as info:
        Play(card, uno)
    assert info.value.rule == "R-TURN-2"


def test_colour_that_is_not_a_colour() -> None:
    state = hands3(decision=Decision.COLOUR, discard="B1 W", king=2, resolving=0)
    for colour in ["R", 0, None, 4]:
        with pytest.raises(IllegalActionError) as info:
            ChooseColour(colour)  # type: ignore[arg-type]
        assert info.value.rule == "R-ACT-WILD"
    refused(state, 1, ChooseColour(Colour.RED), "R-DIGITAL-1")  # and the state is unchanged


# ---------------------------------------------------------------- cards


def test_playing_a_card_not_held() -> None:
    state = hands3()
    assert "holds no R7" in refused(state, 0, Play(Card.parse("R7")), "R-TURN-2")
    refused(state, 0, Play(Card.parse("G5")), "R-TURN-2")  # seat 1's card


def test_playing_an_unplayable_card() -> None:
    state = position(hands=["B7 GS YK R2", "G5 G6", "Y3 BJ"], discard="R5", jester=2)
    for text in ("B7", "GS", "YK"):
        refused(state, 0, Play(Card.parse(text)), "R-TURN-1")
    on_wild = position(hands=["B7 R2", "G5 G6", "Y3 BJ"], discard="W", active_colour="G", jester=2)
    refused(on_wild, 0, Play(Card.parse("R2")), "R-TURN-1")
    refused(on_wild, 0, Play(Card.parse("B7")), "R-TURN-1")


def test_after_drawing_only_the_drawn_card() -> None:
    state = position(hands=["R2 R3 B7", "G5 G6", "Y3 BJ"], discard="R5", draw="R8", jester=2)
    state.apply(0, DRAW)
    assert state.pending == (Decision.DRAWN, 0) and state.drawn == Card.parse("R8")
    refused(state, 0, Play(Card.parse("R2")), "R-TURN-3")  # playable, but not the drawn card
    refused(state, 0, DRAW, "R-DIGITAL-1")
    refused(state, 1, KEEP, "R-DIGITAL-1")
    refused(state, 1, Play(Card.parse("R8")), "R-DIGITAL-1")
    unplayable = position(hands=["R2 R3 B7", "G5 G6", "Y3 BJ"], discard="R5", draw="B8", jester=2)
    unplayable.apply(0, DRAW)
    refused(unplayable, 0, Play(Card.parse("B8")), "R-TURN-3")
    assert unplayable.legal_actions(0) == [KEEP]


def test_uno_flag_only_with_the_next_to_last_card() -> None:
    state = hands3(hands=["R1 R2 R3", "G5 G6 B7 YK", "Y3 BJ"])
    refused(state, 0, Play(Card.parse("R1"), uno=True), "R-UNO-3")
    last = hands3(hands=["R1", "G5 G6 B7 YK", "Y3 BJ R2"])
    refused(last, 0, Play(Card.parse("R1"), uno=True), "R-UNO-3")
    drawn = position(hands=["R2 R3", "G5 G6", "Y3 BJ"], discard="R5", draw="R8", jester=2)
    drawn.apply(0, DRAW)  # three cards now: playing the drawn one leaves two
    refused(drawn, 0, Play(Card.parse("R8"), uno=True), "R-UNO-3")


# ---------------------------------------------------------------- decisions that are not pending


def test_choices_when_not_pending() -> None:
    state = hands3()
    for action in (ChooseColour(Colour.RED), ChooseVictim(1), ChooseJester(1)):
        refused(state, 0, action, "R-DIGITAL-1")
        refused(state, state.king, action, "R-DIGITAL-1")
    colour = hands3(decision=Decision.COLOUR, discard="B1 W", king=2, resolving=0)
    refused(colour, 2, ChooseVictim(1), "R-DIGITAL-1")
    refused(colour, 2, ChooseJester(1), "R-DIGITAL-1")
    refused(colour, 2, KEEP, "R-DIGITAL-1")


def test_the_king_cannot_be_the_jester() -> None:
    state = GameState.new(GameOptions(players=4), seed=9, first_king=3)
    assert "King cannot be their own Jester" in refused(state, 3, ChooseJester(3), "R-SETUP-5")


# ---------------------------------------------------------------- UNO


def test_catch_not_due() -> None:
    state = hands3()
    refused(state, 1, Catch(2), "R-UNO-3")  # no window
    window = hands3(uno_seat=2, hands=["R1 R2", "G5 G6 B7 YK", "BJ"])
    assert Catch(2) in window.legal_actions(1)
    refused(window, 1, Catch(0), "R-UNO-3")  # seat 0 is not the one who forgot
    refused(window, 2, Catch(2), "R-UNO-2")  # nobody catches themselves
    refused(window, None, Catch(2), "R-UNO-2")
    grown = hands3(uno_seat=2, hands=["R1 R2", "G5 G6 B7 YK", "BJ Y3"])  # has drawn since: cannot be caught
    refused(grown, 1, Catch(2), "R-UNO-2")


def test_call_not_due() -> None:
    state = hands3()
    refused(state, 0, CALL_UNO, "R-UNO-3")
    window = hands3(uno_seat=2, hands=["R1 R2", "G5 G6 B7 YK", "BJ"])
    refused(window, 1, CALL_UNO, "R-UNO-3")  # only the player who forgot may call
    refused(window, None, CALL_UNO, "R-UNO-1")
    window.apply(2, CALL_UNO)
    refused(window, 2, CALL_UNO, "R-UNO-3")  # already called
    refused(window, 1, Catch(2), "R-UNO-3")  # and the call closed the chance


# ---------------------------------------------------------------- the table's actions


def test_fanfare_from_a_player() -> None:
    state = hands3(scepter_left=5)
    for seat in range(3):
        refused(state, seat, FANFARE, "R-KING-1")


def test_fanfare_while_a_jester_is_chosen() -> None:
    state = GameState.new(GameOptions(players=3), seed=4)
    assert state.pending.kind is Decision.JESTER and state.legal_actions(None) == []
    assert "Jester" in refused(state, None, FANFARE, "R-KING-1")
    running = hands3(scepter_left=5)
    running.apply(None, FANFARE)  # lands at once on a turn: the new King chooses a Jester
    assert running.pending == (Decision.JESTER, 1)
    refused(running, None, FANFARE, "R-KING-1")


def test_fanfare_waiting_cannot_sound_again() -> None:
    state = position(hands=["R2 R3", "G5 G6", "Y3 BJ"], discard="R5", draw="R8", jester=2, scepter_left=5)
    state.apply(0, DRAW)
    state.apply(None, FANFARE)
    assert state.fanfare_queued and state.pending == (Decision.DRAWN, 0)
    refused(state, None, FANFARE, "R-KING-1")


def test_deal_when_the_round_is_not_over() -> None:
    state = hands3()
    assert "round is not over" in refused(state, None, NEXT_ROUND, "R-SCORE-2")
    refused(state, 0, NEXT_ROUND, "R-SCORE-2")


def _finished(single_round: bool, seed: int) -> GameState:
    state = GameState.new(GameOptions(players=3, single_round=single_round, target_score=60), seed=seed)
    rng = random.Random(seed)
    while state.decision < Decision.ROUND_OVER:
        legal = state.legal_actions(state.decider)
        plays = [a for a in legal if isinstance(a, Play)]
        state.apply(state.decider, rng.choice(plays or legal))
    return state


def test_between_rounds_only_the_deal() -> None:
    state = next(s for s in (_finished(False, k) for k in range(20)) if s.decision is Decision.ROUND_OVER)
    assert state.legal_actions(None) == [NEXT_ROUND]
    refused(state, None, FANFARE, "R-KING-1")
    refused(state, 0, NEXT_ROUND, "R-SCORE-2")
    for seat in range(3):
        assert state.legal_actions(seat) == []
        for action in (DRAW, Play(state.hands[seat][0]) if state.hands[seat] else KEEP, CALL_UNO, Catch(0)):
            refused(state, seat, action)


def test_any_action_after_the_game_is_over() -> None:
    state = _finished(True, 1)
    assert state.is_over()
    for seat in (None, 0, 1, 2):
        assert state.legal_actions(seat) == []
        for action in EVERY_ACTION:
            refused(state, seat, action, "R-SCORE-3")


# ---------------------------------------------------------------- not actions at all


@pytest.mark.parametrize(
    "thing",
    ["R1", "draw", None, 3, Card.parse("R1"), Move(0, DRAW), Play, {"type": "draw"}, ["draw"], object()],
    ids=repr,
)
def test_objects_that_are_not_actions(thing: object) -> None:
    state = hands3()
    message = refused(state, 0, thing, named=False)
    assert "not an action" in message


@pytest.mark.parametrize(
    "card",
    [
        pytest.param(1, id="int-1-is-R2"),
        pytest.param(48, id="int-48-is-W"),
        pytest.param(True, id="True-is-R2"),
        pytest.param(48.0, id="float-48.0"),
        pytest.param(-1, id="int-minus-1"),
        pytest.param(49, id="int-49"),
        pytest.param("R1", id="text-R1"),
        pytest.param(None, id="None"),
    ],
)
def test_a_play_of_something_that_is_not_a_card(card: object) -> None:
    """Only :class:`Card` objects are cards: R2 is code 1 and the Wild 48, but plain numbers are not cards."""
    with pytest.raises(IllegalActionError) as info:
        Play(card)  # type: ignore[arg-type]
    assert info.value.rule == "R-TURN-2"


# ---------------------------------------------------------------- malformed notation


GARBAGE_ACTIONS = [
    "", "   ", "R9", "R0", "X7", "RRR", "WW", "W1", "R7!!", "!", "uno!", "R 7", "play R7", "R7 R8", "colour",
    "colour purple", "colour R G", "colour 1", "victim", "victim x", "victim 6", "victim -1", "victim 1.0",
    "jester 1 2", "jester", "catch", "catch seat", "draw 1", "keep it", "deal now", "fanfare!", "0:R7",
    "R7\x00", "\uff32\uff17", "r7?", "color", "1",
]


@pytest.mark.parametrize("text", GARBAGE_ACTIONS, ids=repr)
def test_garbage_action_notation(text: str) -> None:
    with pytest.raises(NotationError) as info:
        Action.parse(text)
    assert isinstance(info.value, IllegalActionError) and isinstance(info.value, ValueError)
    assert str(info.value)


@pytest.mark.parametrize(
    "text",
    ["9:R7", "x:R7", ":R7", "0:", "0:R9", "0:1:R7", "-1:draw", "6:draw", "0 1:draw", "1.0:draw", "", ":", "0::R7",
     "R9", "victim", "0:colour"],
    ids=repr,
)
def test_garbage_move_notation(text: str) -> None:
    with pytest.raises(NotationError):
        Move.parse(text)


@pytest.mark.parametrize("text", ["", "R", "R9", "R0", "W1", "WW", "RR7", "7R", "r 7", "B10", "Wild", "J", "RJJ"])
def test_garbage_card_notation(text: str) -> None:
    with pytest.raises(NotationError):
        Card.parse(text)


@pytest.mark.parametrize("text", ["", "P", "purple", "RG", "re d", "W", "0"])
def test_garbage_colour_notation(text: str) -> None:
    with pytest.raises(NotationError):
        Colour.parse(text)


@pytest.mark.parametrize("value", [None, 7, b"R7", ["R7"]], ids=repr)
def test_action_and_move_parse_refuse_non_text(value: object) -> None:
    with pytest.raises(NotationError):
        Action.parse(value)  # type: ignore[arg-type]
    with pytest.raises(NotationError):
        Move.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 7], ids=repr)
def test_card_and_colour_parse_refuse_non_text(value: object) -> None:
    with pytest.raises(NotationError):
        Card.parse(value)  # type: ignore[arg-type]
    with pytest.raises(NotationError):
        Colour.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "data",
    [
        None, [], "draw", 3, {}, {"type": None}, {"type": "jump"}, {"type": ["play"]}, {"type": "play"},
        {"type": "play", "card": 7}, {"type": "play", "card": "R9"}, {"type": "play", "card": "R7", "uno": "yes"},
        {"type": "play", "card": "R7", "uno": 1}, {"type": "play", "card": None}, {"type": "colour"},
        {"type": "colour", "colour": 1}, {"type": "colour", "colour": "purple"}, {"type": "victim"},
        {"type": "victim", "seat": "1"}, {"type": "victim", "seat": True}, {"type": "victim", "seat": 9},
        {"type": "victim", "seat": 1.0}, {"type": "jester", "seat": None}, {"type": "catch", "seat": -1},
        {"type": "PLAY", "card": "R7"}, {"card": "R7"},
    ],
    ids=repr,
)
def test_garbage_action_json(data: object) -> None:
    with pytest.raises(NotationError):
        Action.from_json(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "draw", "seat": 2}, "a draw action has no field 'seat'"),
        ({"type": "play", "card": "R7", "uno": False, "seat": 0}, "a play action has no field 'seat'"),
        ({"type": "catch", "seat": 1, "card": "R7"}, "a catch action has no field 'card'"),
        ({"type": "colour", "colour": "G", "seat": 0, "uno": True}, "a colour action has no fields 'seat', 'uno'"),
        ({"type": "keep", "": None}, "a keep action has no field ''"),
        ({"type": "uno", "x" * 100: 1}, "a uno action has no field 'xxxxxxxxxxxxxxxxxxxxxxxx...'"),
        ({"type": "fanfare", "a": 1, "b": 2, "c": 3, "d": 4}, "a fanfare action has no fields 'a', 'b', 'c', ..."),
    ],
    ids=repr,
)
def test_a_field_the_action_does_not_have_is_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(NotationError) as refused:
        Action.from_json(data)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"card": "R7"}, "an action needs a 'type'"),
        ({"type": "play"}, "a play action needs a 'card'"),
        ({"type": "victim"}, "a victim action needs a 'seat'"),
        ({"type": "play", "card": [[[[1]]]]}, "a play action's 'card' must be text such as \"R7\", not an array"),
        ({"type": "play", "card": "R7", "uno": None}, "a play action's 'uno' must be true or false, not null"),
        ({"type": "colour", "colour": {"R": 1}},
         """a colour action's 'colour' must be "R", "Y", "G" or "B", not an object"""),
        ({"type": "catch", "seat": 2**70}, "a catch action's 'seat' must be a seat number from 0 to 5"),
        ({"type": "jester", "seat": True}, "a jester action's 'seat' must be a seat number, not true"),
        ({"type": "jump" * 20}, "'jumpjumpjumpjumpjumpjump...' is not an action type (the types are play, draw, keep, "
                                "colour, victim, jester, uno, catch, fanfare, deal)"),
    ],
    ids=repr,
)
def test_bad_action_json_is_refused_in_plain_words_without_echoing_it(data: dict[str, Any], message: str) -> None:
    with pytest.raises(NotationError) as refused:
        Action.from_json(data)
    assert str(refused.value) == message


def test_a_deeply_nested_action_value_is_refused_not_a_recursion_error() -> None:
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    for data in ({"type": "play", "card": deep}, {"type": "victim", "seat": deep}, {"type": deep}):
        with pytest.raises(NotationError):
            Action.from_json(data)


def test_every_action_form_reads_back_exactly_its_own_json() -> None:
    """The JSON forms the server lists as legal (and records hold) are read back; each with one field more is not."""
    for action in EVERY_ACTION:
        data = action.to_json()
        assert Action.from_json(data) == action
        with pytest.raises(NotationError, match="has no field 'as'"):
            Action.from_json({**data, "as": 1})


# ---------------------------------------------------------------- random bad input at random states


SEATS_TO_TRY: list[Any] = [None, None, 0, 1, 2, 3, 4, 5, 0, 1, 2, -1, 6, 7, "0", 1.0, True, False]


def random_action(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.35:
        return Play(rng.choice(ALL_CARDS), rng.random() < 0.3)
    if roll < 0.85:
        return rng.choice(
            [
                DRAW, KEEP, CALL_UNO, FANFARE, NEXT_ROUND, ChooseColour(rng.choice(list(Colour))),
                ChooseVictim(rng.randrange(-1, 8)), ChooseJester(rng.randrange(-1, 8)), Catch(rng.randrange(-1, 8)),
            ]
        )
    return rng.choice(
        # (a malformed action cannot be made at all: see test_plays_that_name_no_card_cannot_be_made)
        [None, "draw", 3, WILD, Move(0, DRAW), Play, ChooseColour, (DRAW,)]
    )


def well_formed(seat: Any, action: Any, players: int) -> bool:
    """A real action object with well-typed fields, from the table or a seat of the game."""
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
        return False
    if type(action) not in Action.TYPES:
        return False
    field = getattr(action, "seat", getattr(action, "colour", None))
    return not isinstance(field, (str, bool))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=game_specs(), steps=st.integers(0, 400), k=st.integers(0, 2**32))
def test_random_input_at_random_states(spec: GameSpec, steps: int, k: int) -> None:
    """An action is accepted exactly when it is among the seat's legal actions; otherwise nothing changes."""
    state = spec.new_state()
    rng = random.Random(k)
    for index, _move in enumerate(drive(state, random.Random(spec.seed), spec)):
        if index >= steps:
            break
    for _ in range(40):
        seat = rng.choice(SEATS_TO_TRY)
        action = random_action(rng)
        legal = state.legal_actions(seat) if seat is None or (type(seat) is int and 0 <= seat < state.players) else []
        if action in legal and well_formed(seat, action, state.players):
            state.apply(seat, action)  # accepted: the game goes on from here
            continue
        refused(state, seat, action, named=well_formed(seat, action, state.players))
