"""The one-line position notation (state.position(), position.parse()) and positions built freely."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from royal_revenge.engine import (
    Decision,
    GameOptions,
    GameState,
    NotationError,
    RecordError,
    state_from_json,
    state_to_json,
)
from royal_revenge.engine.position import parse, position

from .randomplay import GameSpec, drive, game_specs

HISTORY_CHECKED_IN_FULL = 300


def test_the_start_of_a_round_before_the_jester_is_chosen() -> None:
    state = GameState.new(GameOptions(players=3), seed=7, first_king=2)
    assert state.decision is Decision.JESTER and state.jester is None
    line = state.position()
    assert "\n" not in line and "jester=-" in line.split() and "decision=jester" in line.split()
    assert parse(line) == state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=game_specs())
def test_the_states_of_random_games_read_back_identical(spec: GameSpec) -> None:
    """Every phase (turns, drawn cards, the King's choices, fanfares, UNO windows, round and game ends), at every
    state of a round's first 300 history entries, every 97th move after, and every round's and the game's end."""
    state = spec.new_state()
    seen: set[Decision] = set()
    for index, _move in enumerate(drive(state, random.Random(spec.seed), spec)):
        seen.add(state.decision)
        # Every state while the round's history is short; in the long rounds of the hoarding policy (thousands of
        # draws and keeps) every 97th: each check writes and reads the whole history, so checking them all grows
        # with the square of a round's length (minutes for one example, seen in a full run).
        if len(state.history) > HISTORY_CHECKED_IN_FULL and index % 97 and state.decision < Decision.ROUND_OVER:
            continue
        line = state.position()
        again = parse(line)
        assert again == state
        assert again.position() == line
        assert again.legal_actions(again.decider) == state.legal_actions(state.decider)
    assert Decision.TURN in seen


def test_a_parsed_position_plays_on_exactly_as_the_original() -> None:
    state = GameState.new(GameOptions(players=4), seed=11)
    twin = parse(state.position())
    rng = random.Random(1)
    for _ in range(200):
        if state.is_over():
            break
        seat = state.decider
        action = rng.choice(state.legal_actions(seat))
        assert state.apply(seat, action) == twin.apply(seat, action)
    assert state == twin


def test_positions_are_built_freely_and_checked_apart() -> None:
    """Five Wilds (the deck has four): building works, is_valid says no and why, and a state document is refused."""
    state = position(hands=["W W W W W R7", "G2 G3", "Y1"], discard="R5", jester=2)
    assert not state.is_valid()
    assert any("more copies than the deck holds of W" in problem for problem in state.problems())
    assert parse(state.position()) == state  # the notation writes and reads it all the same
    with pytest.raises(RecordError, match="56 cards"):
        state_from_json(state_to_json(state))
    legal = position(hands=["R7 BJ", "G2 G3 W", "Y1"], discard="R5", jester=2)
    assert legal.is_valid() and legal.problems() == []


def test_an_impossible_decision_is_a_problem_not_a_crash() -> None:
    state = position(hands=["R7", "G2", "Y1"], discard="R5", decision=Decision.DRAWN, drawn="B8", jester=2)
    assert "the drawn card must be in its drawer's hand" in state.problems()
    no_jester = position(hands=["R7", "G2", "Y1"], discard="R5", jester=None)
    assert "play cannot go on before the Jester is chosen" in no_jester.problems()


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda line: line.replace(" king=0", ""), "missing king"),
        (lambda line: line + " colour=R", "unknown colour"),
        (lambda line: line + " king=1", "king is given twice"),
        (lambda line: line.replace(" king=0", " king=x"), "king"),
        (lambda line: line.replace(" king=0", " king=9"), "king"),
        (lambda line: line.replace(" direction=1", " direction=2"), "direction"),
        (lambda line: line.replace(" fanfare_queued=0", " fanfare_queued=yes"), "fanfare_queued"),
        (lambda line: line.replace("hands=", "hands=Q9."), "hands"),
        (lambda line: line.replace(" rng=", " rng=xyz"), "rng"),
        (lambda line: line.replace(" king=0", " king"), "not key=value"),
    ],
)
def test_lines_that_cannot_be_read_name_the_field(edit, words: str) -> None:  # type: ignore[no-untyped-def]
    line = position(hands=["R7 BJ", "G2 G3 W", "Y1"], discard="R5", jester=2).position()
    with pytest.raises((NotationError, RecordError)) as info:
        parse(edit(line))
    assert words in str(info.value)
