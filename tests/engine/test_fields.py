"""The state's fields are declared once (engine/fields.py); everything else agrees with that declaration."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import random
from enum import IntEnum
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from royal_revenge.engine import (
    ALL_CARDS,
    Card,
    Colour,
    GameState,
    Observation,
    Outcome,
    RoundResult,
    state_from_json,
    state_to_json,
)
from royal_revenge.engine import state as state_module
from royal_revenge.engine.fields import FIELD_NAMES, STATE_FIELDS, Seen

from .randomplay import GameSpec, drive, game_specs


def annotated_attributes() -> list[str]:
    """The attributes GameState's class body annotates (read from the source: the compiled class has no annotations)."""
    source = (Path(inspect.getfile(state_module)).parent / "state.py").read_text()  # (beside the .so, compiled)
    tree = ast.parse(source)
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "GameState").body
    return [node.target.id for node in body if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)]


def test_the_class_annotates_exactly_the_declared_fields() -> None:
    assert sorted(annotated_attributes()) == sorted([*FIELD_NAMES, "_events"])


def test_every_field_is_documented_once() -> None:
    assert len(set(FIELD_NAMES)) == len(FIELD_NAMES)
    assert all(f.doc for f in STATE_FIELDS)


def test_the_state_document_holds_every_written_field() -> None:
    state = GameState.new(seed=3)
    keys = set(state_to_json(state)) - {"format", "version"}
    assert keys == {f.key for f in STATE_FIELDS if f.key}
    assert "players" not in keys  # derived from the options


def test_an_observation_shows_the_public_fields_and_hides_the_rest() -> None:
    shown = {f.observed_as or f.name for f in STATE_FIELDS if f.seen is Seen.PUBLIC and f.name != "players"}
    own_ways = {"seat", "hand", "hand_sizes", "draw_pile_size", "drawn"}
    assert {f.name for f in dataclasses.fields(Observation)} == shown | own_ways
    hidden = {f.name for f in STATE_FIELDS if f.seen is Seen.HIDDEN}
    assert hidden == {"rng", "scepter_left"}
    state = GameState.new(seed=5)
    for seat in (None, *range(state.players)):
        data = state.observe(seat).to_json()
        assert not hidden & set(data) and "draw_pile" not in data and "hands" not in data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=game_specs())
def test_copy_copies_every_declared_field(spec: GameSpec) -> None:
    """GameState.copy is written out for speed: it must copy every field, and share no list with the original."""
    state = spec.new_state()
    for index, _move in enumerate(drive(state, random.Random(spec.seed), spec)):
        if index % 17:
            continue
        twin = state.copy()
        assert twin == state and state_to_json(twin) == state_to_json(state)
        for f in STATE_FIELDS:
            mine, theirs = getattr(state, f.name), getattr(twin, f.name)
            assert mine == theirs, f.name
            if f.copied != "value":
                assert mine is not theirs, f.name
            if f.copied == "lists":
                assert all(a is not b for a, b in zip(mine, theirs, strict=True)), f.name
        assert state_from_json(state_to_json(state)) == state


NOT_NONE = {
    "drawn": ALL_CARDS[6], "scepter_left": 3, "uno_seat": 0, "jester": 0, "decider": 0, "active_colour": Colour.RED,
    "last_round": RoundResult(1, 0, False, 10, (0, 10, 0, 0)), "result": Outcome((0,), (10, 0, 0, 0)),
}


def test_equality_sees_every_field() -> None:
    """Two states that differ in any one field are not equal."""
    base = GameState.new(seed=8)
    base.apply(base.decider, base.legal_actions(base.decider)[0])
    for f in STATE_FIELDS:
        if f.name in ("options", "players"):
            continue
        other = base.copy()
        value = getattr(other, f.name)
        changed: object
        # (values of the field's own type: compiled, the state's attributes refuse any other)
        if isinstance(value, bool):
            changed = not value
        elif isinstance(value, IntEnum):
            changed = type(value)((value + 1) % len(type(value)))
        elif isinstance(value, Card):
            changed = ALL_CARDS[(value + 1) % len(ALL_CARDS)]
        elif isinstance(value, int):
            changed = value + 1
        elif isinstance(value, list):
            changed = [*value, value[0]] if value else [0]
        elif value is None:
            changed = NOT_NONE[f.name]
        else:
            changed = None
        setattr(other, f.name, changed)
        assert other != base, f.name
