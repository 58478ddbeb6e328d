"""The round's public history (GameState.history, Observation.history): what everyone at the table has seen."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from royal_revenge.engine import (
    NEXT_ROUND,
    Card,
    Colour,
    GameOptions,
    GameState,
    RecordError,
    events,
    redact,
    state_from_json,
    state_to_json,
)
from royal_revenge.engine.actions import FANFARE
from royal_revenge.engine.position import parse, position

from .helpers import apply
from .randomplay import GameSpec, drive, game_specs

C = Card.parse
HANDS = ["R1 R2 G3 RK", "W R4 B1", "R5 R6 B2", "R8 Y1 B3"]


def public_events_since_the_deal(log: list[events.Event]) -> list[events.Event]:
    """What the history should hold: the recorded kinds of event since the last deal, draws without their cards."""
    start = max(index for index, event in enumerate(log) if isinstance(event, events.RoundStarted))
    return [event for event in redact(log[start:], None) if isinstance(event, events.RECORDED)]


def test_a_round_in_card_notation() -> None:
    """Plays, a draw for the turn with its top card and colour, a keep, the King's colour and victim, UNO, a catch."""
    state = position(hands=HANDS, discard="R7", draw="Y7 G8 G1 G2", king=3, jester=2)
    apply(state, "0:R1", "1:draw", "1:keep", "2:R5", "3:R8", "0:RK", "3:victim 1", "1:W", "3:colour G",
          "2:draw", "2:keep")
    assert state.observe(None).history == [
        events.Played(0, C("R1"), False),
        events.Drew(1, 1, "turn", None, C("R1"), Colour.RED),
        events.Kept(1),
        events.Played(2, C("R5"), False),
        events.Played(3, C("R8"), False),
        events.Played(0, C("RK"), False),
        events.VictimChosen(3, 1),
        events.Drew(1, 1, "plus", None, C("RK"), Colour.RED),
        events.Played(1, C("W"), False),
        events.ColourChosen(3, Colour.GREEN),
        events.Drew(2, 1, "turn", None, C("W"), Colour.GREEN),
        events.Kept(2),
    ]
    # Everyone sees the same history, and nobody sees a card drawn in it.
    views = [state.observe(seat).history for seat in (None, 0, 1, 2, 3)]
    assert all(view == views[0] for view in views)
    assert all(event.cards is None for event in views[0] if isinstance(event, events.Drew))
    # The state keeps each event as its name and fields, as the state document writes it.
    assert state.history[1] == ("drew", 1, 1, "turn", None, C("R1"), Colour.RED)
    assert [events.from_entry(entry) for entry in state.history] == list(views[0])


def test_uno_calls_catches_and_the_fanfare_are_recorded() -> None:
    options = GameOptions(players=4, scepter_turns=None)
    state = position(hands=["R1 R2", "R3 G4 B5", "R6 Y7", "B8 Y1"], discard="R8", draw="G1 G2 G3",
                     king=3, jester=2, options=options)
    apply(state, "0:R1!", "1:R3", "2:R6")  # seat 2 forgets UNO
    apply(state, "3:catch 2")
    state.apply(None, FANFARE)
    assert state.observe(2).history == [
        events.Played(0, C("R1"), True),
        events.UnoCalled(0),
        events.Played(1, C("R3"), False),
        events.Played(2, C("R6"), False),
        events.Caught(3, 2),
        events.Drew(2, 2, "penalty", None, C("R6"), Colour.RED),
        events.FanfareSounded(True),
        events.CrownPassed(3, 0),
    ]


def test_a_new_round_starts_a_new_history() -> None:
    state = GameState.new(GameOptions(players=3, target_score=10_000), seed=11)
    assert state.observe(0).history == [events.RoundStarted(1, state.dealer, state.king, state.discard[0])]
    rng = random.Random(2)
    while state.decider is not None:
        state.apply(state.decider, rng.choice(state.legal_actions(state.decider)))
    assert len(state.history) > 1  # the finished round's history stays until the next deal
    state.apply(None, NEXT_ROUND)
    assert state.observe(0).history == [events.RoundStarted(2, state.dealer, state.king, state.discard[0])]


SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=30)


@SETTINGS
@given(spec=game_specs())
def test_the_history_is_the_public_log_of_the_round(spec: GameSpec) -> None:
    """At every step of random games (fanfares, calls and catches included), the history is the redacted
    recorded events since the deal; stepping without events keeps the same history; documents keep it."""
    state = spec.new_state()
    twin = state.copy()
    log: list[events.Event] = []
    setup: list[events.Event] = []
    GameState.new(spec.options, spec.seed, events=setup)
    log.extend(setup)

    def apply_both(seat: int | None, action: Any) -> None:
        log.extend(state.apply(seat, action))
        twin.step(seat, action)

    for index, _move in enumerate(drive(state, random.Random(spec.seed), spec, apply_both)):
        assert state.observe(None).history == public_events_since_the_deal(log)
        assert twin.history == state.history
        if index % 23 == 0:
            assert state_from_json(state_to_json(state)).history == state.history
            assert parse(state.position()) == state


def test_a_document_with_a_bad_history_is_refused_in_plain_words() -> None:
    state = position(hands=HANDS, discard="R7", draw="Y7", king=3, jester=2)
    apply(state, "0:R1", "1:draw")
    document = state_to_json(state)
    assert document["history"] == [["played", 0, "R1", False], ["drew", 1, 1, "turn", None, "R1", "R"]]
    for history, words in [
        ([["sneezed", 1]], "an event's name"),
        ([["played", 9, "R1", False]], "seat must be a whole number from 0 to 3"),
        ([["played", 0, "R1"]], "played has 3 fields"),
        ([["drew", 1, 1, "turn", ["Y7"], "R1", "R"]], "never shows the cards drawn"),
        ([["drew", 1, 1, "sneeze", None, "R1", "R"]], "reason must be one of"),
        ([["colour_chosen", 1, None]], "colour must be a colour letter"),
        ("played", "must be a list of events"),
    ]:
        bad = copy.deepcopy(document)
        bad["history"] = history
        with pytest.raises(RecordError, match=words):
            state_from_json(bad)
    assert state_from_json(document) == state


def test_an_observations_history_does_not_change_as_the_game_goes_on() -> None:
    """The observation shows the history as it was: later events, and the next deal, do not reach it."""
    state = position(hands=HANDS, discard="R7", draw="Y7 G8", king=3, jester=2,
                     options=GameOptions(players=4, target_score=10_000, scepter_turns=None))
    apply(state, "0:R1")
    view = state.observe(1).history
    assert len(view) == 1 and view[0] == view[-1] == events.Played(0, C("R1"), False)
    apply(state, "1:draw", "1:keep", "2:R5")
    assert len(view) == 1 and list(view) == [events.Played(0, C("R1"), False)]
    later = state.observe(1).history
    assert len(later) == 4 and later[1:3] == (events.Drew(1, 1, "turn", None, C("R1"), Colour.RED), events.Kept(1))
    assert later != view and later[:1] == tuple(view) and hash(state.observe(0).history) == hash(later)
    with pytest.raises(IndexError):
        view[1]
    assert state.observe(2).sample_state(random.Random(3)).history == state.history
