"""R-DIGITAL: out-of-turn decisions, what a player sees, and a table that can always decide."""

from __future__ import annotations

import json
import random

import pytest

from royal_revenge.engine import (
    CALL_UNO,
    DRAW,
    FANFARE,
    Card,
    Catch,
    ChooseColour,
    Colour,
    Decision,
    GameOptions,
    GameState,
    IllegalActionError,
    Play,
    Scoring,
    events,
    redact,
)
from royal_revenge.engine.position import position

from .helpers import apply, refused, rest_of_deck

HANDS = ["R1 R2 G3", "W R4 B1", "R5 R6 B2", "R8 Y1 B3"]

# ---------------------------------------------------------------- R-DIGITAL-1


def test_game_says_who_decides_and_refuses_everyone_else() -> None:
    """R-DIGITAL-1: the King's colour is decided out of turn; the game says who decides and refuses others."""
    state = position(hands=HANDS, discard="R7", king=3, jester=0, current=1)
    apply(state, "1:W")
    assert state.pending == (Decision.COLOUR, 3)
    assert state.current == 1
    for seat in (0, 1, 2):
        error = refused(state, f"{seat}:colour R", "R-DIGITAL-1")
        assert "King (seat 3)" in str(error)
        assert all(not isinstance(a, ChooseColour) for a in state.legal_actions(seat))
    refused(state, "2:R5", "R-DIGITAL-1")
    refused(state, "2:draw", "R-DIGITAL-1")
    refused(state, "3:victim 1", "R-DIGITAL-1")  # the right seat, the wrong decision
    refused(state, "3:keep", "R-DIGITAL-1")


def test_uno_call_and_catch_out_of_turn() -> None:
    """R-DIGITAL-1: anyone's UNO call or catch is a decision outside the turn order."""
    state = position(hands=["R1 G3", *HANDS[1:]], discard="R7", king=3, jester=0, current=0)
    apply(state, "0:R1")
    assert state.pending == (Decision.TURN, 1)
    assert state.legal_actions(0) == [CALL_UNO]
    assert state.legal_actions(2) == [Catch(0)]
    assert state.legal_actions(3) == [Catch(0)]
    apply(state, "2:catch 0")
    assert len(state.hands[0]) == 3
    assert state.pending == (Decision.TURN, 1)


def test_table_actions_are_not_players_actions() -> None:
    """R-DIGITAL-1: a player cannot act for the table (fanfare, deal), nor the table for a player."""
    state = position(hands=HANDS, discard="R7", king=3, jester=0)
    refused(state, "0:fanfare", "R-KING-1")
    refused(state, "0:deal", "R-SCORE-2")
    before = state.copy()
    for action in (Play(Card.parse("R1")), DRAW):
        with pytest.raises(IllegalActionError) as info:
            state.apply(None, action)
        assert info.value.rule == "R-DIGITAL-1"
        assert state == before


# ---------------------------------------------------------------- R-DIGITAL-2


def test_player_sees_own_hand_and_public_facts_only() -> None:
    """R-DIGITAL-2: own hand, top discard, active colour, counts, scores, King, Jester, direction, pending."""
    state = position(hands=HANDS, discard="R7", draw="Y7 Y6", king=3, jester=0, current=1, direction=-1,
                     scores=[5, 6, 7, 8], scepter_left=4)
    view = state.observe(2)
    assert list(view.hand) == state.hands[2]
    assert view.top == Card.parse("R7")
    assert view.active_colour == state.active_colour
    assert view.hand_sizes == (3, 3, 3, 3)
    assert view.scores == (5, 6, 7, 8)
    assert (view.king, view.jester, view.direction) == (3, 0, -1)
    assert view.pending == (Decision.TURN, 1)
    assert view.draw_pile_size == len(state.draw_pile)
    for hidden in ("hands", "draw_pile", "scepter_left", "rng"):
        assert not hasattr(view, hidden)
    text = json.dumps(view.to_json())
    assert "scepter_left" not in text and "draw_pile\"" not in text
    assert "B1" not in text and "Y1" not in text  # other players' cards
    assert "R5" in text  # the observer's own


def test_drawn_card_is_seen_only_by_the_drawer() -> None:
    """R-DIGITAL-2: nobody sees another player's drawn card, in the view or in the events."""
    state = position(hands=HANDS, discard="R7", draw="Y7", king=3, jester=0)
    log = state.apply_move("0:draw")
    assert state.observe(0).drawn == Card.parse("Y7")
    assert state.observe(1).drawn is None
    assert redact(log, 1) == [events.Drew(0, 1, "turn", None, Card.parse("R7"), Colour.RED)]
    assert redact(log, 0) == log


# ---------------------------------------------------------------- R-DIGITAL-3


def _random_games() -> list[GameState]:
    """States met in random games on every table size, with catches, calls and fanfares thrown in."""
    seen: list[GameState] = []
    for seed in range(30):
        rng = random.Random(seed)
        players = 2 + seed % 5
        options = GameOptions(
            players=players,
            scoring=Scoring.LOWEST_TALLY if seed % 3 == 0 else Scoring.STANDARD,
            scepter_turns=(2, 6) if seed % 2 else None,
            two_player_reverse_skips=seed % 4 == 0,
            target_score=150,
        )
        state = GameState.new(options, seed=seed)
        for _ in range(600):
            if state.is_over():
                break
            seen.append(state.copy())
            if rng.random() < 0.1:  # a player may call or catch out of turn
                seat = rng.randrange(players)
                extra = [a for a in state.legal_actions(seat) if a == CALL_UNO or isinstance(a, Catch)]
                if extra:
                    state.apply(seat, rng.choice(extra))
                    continue
            if rng.random() < 0.03 and FANFARE in state.legal_actions(None):
                state.apply(None, FANFARE)
                continue
            pending = state.pending
            actions = state.legal_actions(pending.seat)
            state.apply(pending.seat, rng.choice(actions))
    return seen


def test_a_pending_decision_always_has_a_legal_action() -> None:
    """R-DIGITAL-3: in any position, whoever must decide has at least one legal action, so the table can decide."""
    states = _random_games()
    kinds = {state.pending.kind for state in states}
    assert kinds >= {Decision.TURN, Decision.DRAWN, Decision.COLOUR, Decision.VICTIM, Decision.JESTER,
                     Decision.ROUND_OVER}
    for i, state in enumerate(states):
        pending = state.pending
        actions = state.legal_actions(pending.seat)
        assert actions, f"no legal action for {pending} in {state!r}"
        if i % 7 == 0:  # every listed action is accepted
            for action in actions:
                state.copy().apply(pending.seat, action)


def test_legal_actions_are_exactly_the_accepted_ones_in_the_engine_order() -> None:
    """Every seat's list holds every action that ``apply`` accepts and no other, each once, in the
    engine's order: plays by face, the same plays with UNO, draw or keep, then colours, victims or
    Jesters, then the UNO call or the catch."""
    from royal_revenge.engine import KEEP
    from royal_revenge.engine.actions import CATCHES, COLOURS, JESTERS, PLAYS, PLAYS_UNO, VICTIMS

    candidates = [*PLAYS, *PLAYS_UNO, DRAW, KEEP, *COLOURS, *VICTIMS, *JESTERS, CALL_UNO, *CATCHES]
    checked = 0
    for state in _random_games()[::23]:
        for seat in range(state.players):
            accepted = []
            for action in candidates:
                try:
                    state.copy().apply(seat, action)
                except IllegalActionError:
                    continue
                accepted.append(action)
            assert state.legal_actions(seat) == accepted, (state, seat)
            checked += bool(accepted)
    assert checked > 200


def test_a_stuck_player_still_has_an_action() -> None:
    """R-DIGITAL-3: with nothing playable and nothing to draw, the decider can still pass (draw gives nothing)."""
    used = ["B2 G6", "G1 Y2", "R7"]
    state = position(hands=[*used[:2], rest_of_deck(*used)], discard="R7", draw="")
    assert state.legal_actions(0) == [DRAW]
    apply(state, "0:draw")
    assert state.pending == (Decision.TURN, 1)
