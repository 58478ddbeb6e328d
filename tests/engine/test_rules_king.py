"""R-KING: the Royal Scepter, the fanfare, the Crown passing left and the new Jester."""

from __future__ import annotations

from royal_revenge.engine import (
    FANFARE,
    Catch,
    ChooseJester,
    Colour,
    Decision,
    GameOptions,
    GameState,
    Kind,
    events,
)
from royal_revenge.engine.position import position

from .helpers import apply, cards, hand, refused, rest_of_deck, seed_with_start, top

HANDS = ["R1 R2 G3", "R3 R4 B1", "R5 R6 B2", "R8 Y1 B3"]
DRAW = "Y7 Y6 Y5 Y4 Y3"

# ---------------------------------------------------------------- R-KING-1


def test_turn_counted_scepter_fires_after_its_turns() -> None:
    """R-KING-1 (D-6): without a clock the fanfare lands at the end of the turn on which the count runs out."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=0, jester=1, scepter_left=2)
    assert state.options.scepter_turns is not None
    apply(state, "0:R1")
    assert state.scepter_left == 1 and state.king == 0
    assert state.pending == (Decision.TURN, 1)
    log = state.apply_move("1:R3")
    assert events.FanfareSounded(True) in log
    assert events.CrownPassed(0, 1) in log
    assert state.king == 1
    assert state.pending == (Decision.JESTER, 1)
    assert not state.scepter_running
    apply(state, "1:jester 0")
    assert state.scepter_running and state.scepter_left is not None and 1 <= state.scepter_left <= 99
    assert state.pending == (Decision.TURN, 1)


def test_turn_count_counts_whole_turns() -> None:
    """R-KING-1 (D-6): a draw and keep, a Wild and its colour, a pass: each one turn."""
    state = position(hands=["W R2 G3", *HANDS[1:]], discard="R7", draw="Y7", king=2, jester=1, scepter_left=3)
    apply(state, "0:W")
    assert state.scepter_left == 3  # the turn is not over until the colour is chosen
    apply(state, "2:colour R")
    assert state.scepter_left == 2 and state.turns_since_scepter == 1
    apply(state, "1:draw")
    assert state.scepter_left == 2
    apply(state, "1:keep")
    assert state.scepter_left == 1 and state.turns_since_scepter == 2
    apply(state, "2:R5")
    assert state.king == 3
    assert state.pending == (Decision.JESTER, 3)
    used = ["B2 G6", "G1 Y2", "R7"]
    state = position(hands=[*used[:2], rest_of_deck(*used)], discard="R7", draw="", king=2, scepter_left=1)
    apply(state, "0:draw")  # nothing to draw: a pass, and a turn
    assert state.king == 0
    assert state.pending == (Decision.JESTER, 0)


def test_scepter_turns_drawn_in_the_configured_range() -> None:
    """R-KING-1: the number of turns is drawn at random in the configured range (default 9 to 15)."""
    assert GameOptions().scepter_turns == (9, 15)
    seed = seed_with_start(Kind.NUMBER)
    seen = set()
    for s in range(seed, seed + 200):
        state = GameState.new(GameOptions(players=4), seed=s, first_king=0)
        apply(state, "0:jester 1")
        if state.scepter_left is not None:
            seen.add(state.scepter_left)
    assert seen == set(range(9, 16))


def test_scepter_schedule_in_a_dealt_game() -> None:
    """R-KING-1: a dealt game with scepter_turns=(2, 2) passes the Crown after two turns."""
    seed = seed_with_start(Kind.NUMBER)
    state = GameState.new(GameOptions(players=3, scepter_turns=(2, 2)), seed=seed, first_king=0)
    apply(state, "0:jester 2")
    assert state.scepter_left == 2
    apply(state, "0:draw", "0:keep", "1:draw", "1:keep")
    assert state.king == 1
    assert state.pending == (Decision.JESTER, 1)


def test_scepter_can_be_turned_off() -> None:
    """R-KING-1: the turn-counted scepter can be turned off; then only the table's fanfare passes the Crown."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=0, jester=1)
    assert state.options.scepter_turns is None and state.scepter_left is None
    apply(state, "0:R1", "1:R3", "2:R5", "3:R8", "0:R2", "1:R4", "2:R6", "3:draw", "3:keep")
    assert state.king == 0
    assert state.legal_actions(None) == [FANFARE]
    apply(state, "fanfare")
    assert state.king == 1


def test_fanfare_comes_from_the_table_only() -> None:
    """R-KING-1: a player cannot sound the scepter."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=0, jester=1)
    refused(state, "0:fanfare", "R-KING-1")


# ---------------------------------------------------------------- R-KING-2


def test_fanfare_crown_goes_left_by_seat_whatever_the_direction() -> None:
    """R-KING-2: the Crown goes to the King's left by seat, even when play moves right."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=1, jester=3, current=3, direction=-1)
    log = state.apply_move("fanfare")
    assert log == [events.FanfareSounded(True), events.CrownPassed(1, 2)]
    assert state.king == 2
    assert state.pending == (Decision.JESTER, 2)
    assert state.direction == -1


def test_new_king_chooses_a_jester_never_themselves_last_jester_allowed() -> None:
    """R-KING-2: the new King chooses a Jester, any player but themselves, the last Jester included."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=1, jester=3, current=3, direction=-1)
    apply(state, "fanfare")
    assert state.legal_actions(2) == [ChooseJester(0), ChooseJester(1), ChooseJester(3)]
    refused(state, "2:jester 2", "R-SETUP-5")
    refused(state, "1:jester 3", "R-DIGITAL-1")  # the old King no longer chooses
    refused(state, "3:R8", "R-DIGITAL-1")  # the player whose turn it was waits
    refused(state, "fanfare", "R-KING-1")  # the scepter is silent while the Jester is chosen
    apply(state, "2:jester 3")
    assert state.jester == 3
    assert state.scepter_running


def test_new_king_plays_next_direction_unchanged() -> None:
    """R-KING-2: then the new King takes the next turn; the direction of play is unchanged."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=1, jester=3, current=3, direction=-1)
    apply(state, "fanfare", "2:jester 0")
    assert state.pending == (Decision.TURN, 2)
    assert state.current == 2 and state.direction == -1
    assert hand(state, 3) == cards("R8 Y1 B3")  # seat 3 lost the turn the fanfare interrupted (D-4)
    apply(state, "2:R5")
    assert state.pending == (Decision.TURN, 1)


def test_crown_wraps_around_the_table() -> None:
    """R-KING-2: the left of the last seat is seat 0."""
    state = position(hands=HANDS, discard="R7", draw=DRAW, king=3, jester=0, current=1)
    apply(state, "fanfare")
    assert state.king == 0
    assert state.pending == (Decision.JESTER, 0)
    apply(state, "0:jester 3")
    assert state.pending == (Decision.TURN, 0)


# ---------------------------------------------------------------- R-KING-3


def test_fanfare_waits_for_the_colour_chosen_by_the_old_king() -> None:
    """R-KING-3 (D-4): a fanfare during a pending colour waits; the King who held the Crown chooses; then it lands."""
    state = position(hands=["R1 R2 G3", "W R4 B1", *HANDS[2:]], discard="R7", draw=DRAW, king=0, jester=2,
                     current=1)
    apply(state, "1:W")
    log = state.apply_move("fanfare")
    assert log == [events.FanfareSounded(False)]
    assert state.king == 0
    assert state.pending == (Decision.COLOUR, 0)
    refused(state, "fanfare", "R-KING-1")  # it already waits
    assert state.legal_actions(None) == []
    log = state.apply_move("0:colour B")
    assert events.ColourChosen(0, Colour.BLUE) in log
    assert events.CrownPassed(0, 1) in log
    assert state.active_colour is Colour.BLUE and top(state) == "W"
    assert state.pending == (Decision.JESTER, 1)
    apply(state, "1:jester 0")
    assert state.pending == (Decision.TURN, 1)  # the new King plays next (the Wild's player here)


def test_fanfare_waits_for_the_victim() -> None:
    """R-KING-3: a fanfare during a pending King's Choice waits; the old King names the victim."""
    state = position(hands=["RK R2 G3", *HANDS[1:]], discard="R7", draw=DRAW, king=2, jester=1)
    apply(state, "0:RK", "fanfare")
    assert state.pending == (Decision.VICTIM, 2)
    refused(state, "3:victim 0", "R-DIGITAL-1")
    apply(state, "2:victim 2")
    assert hand(state, 2) == cards("R5 R6 B2 Y7")
    assert state.king == 3
    assert state.pending == (Decision.JESTER, 3)
    apply(state, "3:jester 2")
    assert state.pending == (Decision.TURN, 3)


def test_fanfare_waits_for_the_drawn_card_decision() -> None:
    """R-KING-3: a player who drew decides about the drawn card first; a drawn Wild's colour is the old King's."""
    state = position(hands=HANDS, discard="R7", draw="W Y6", king=3, jester=1, current=1)
    apply(state, "1:draw", "fanfare")
    assert state.pending == (Decision.DRAWN, 1)
    apply(state, "1:W")
    assert state.pending == (Decision.COLOUR, 3)
    apply(state, "3:colour Y")
    assert state.king == 0
    assert state.pending == (Decision.JESTER, 0)
    assert state.active_colour is Colour.YELLOW
    state = position(hands=HANDS, discard="R7", draw="Y8 Y6", king=3, jester=1, current=1)
    apply(state, "1:draw", "fanfare", "1:keep")
    assert state.king == 0
    assert state.pending == (Decision.JESTER, 0)


def test_fanfare_during_setup_choice_of_start_card() -> None:
    """R-KING-3: a fanfare while the King chooses the start Wild's colour lands right after it."""
    seed = seed_with_start(Kind.WILD)
    state = GameState.new(GameOptions(players=4, scepter_turns=None), seed=seed, first_king=0)
    apply(state, "0:jester 2", "fanfare")
    assert state.pending == (Decision.COLOUR, 0)
    apply(state, "0:colour G")
    assert state.king == 1
    assert state.pending == (Decision.JESTER, 1)
    apply(state, "1:jester 0")
    assert state.pending == (Decision.TURN, 1)
    assert state.active_colour is Colour.GREEN


def test_uno_catch_stays_open_across_fanfare_until_new_king_begins() -> None:
    """R-KING-3: an open UNO catch stays open until the new King begins their turn."""
    state = position(hands=["R1 G3", *HANDS[1:]], discard="R7", draw=DRAW, king=1, jester=2)
    apply(state, "0:R1", "fanfare")
    assert state.pending == (Decision.JESTER, 2)
    assert Catch(0) in state.legal_actions(3)
    apply(state, "2:jester 3")
    assert state.pending == (Decision.TURN, 2)
    assert Catch(0) in state.legal_actions(2)
    apply(state, "3:catch 0")
    assert hand(state, 0) == cards("G3 Y7 Y6")


def test_uno_catch_closes_when_new_king_begins() -> None:
    """R-KING-3: once the new King plays, the catch chance is gone."""
    state = position(hands=["R1 G3", *HANDS[1:]], discard="R7", draw=DRAW, king=1, jester=2)
    apply(state, "0:R1", "fanfare", "2:jester 3")
    apply(state, "0:uno")  # the call can still be made too
    state = position(hands=["R1 G3", *HANDS[1:]], discard="R7", draw=DRAW, king=1, jester=2)
    apply(state, "0:R1", "fanfare", "2:jester 3", "2:R5")
    refused(state, "3:catch 0", "R-UNO-3")


def test_fanfare_refused_between_rounds() -> None:
    """R-KING-3 (D-8): the end of a round stops the scepter."""
    state = position(hands=["R1", *HANDS[1:]], discard="R7", draw=DRAW, king=1, jester=2)
    apply(state, "0:R1")
    assert state.pending.kind is Decision.ROUND_OVER
    refused(state, "fanfare", "R-KING-1")


# ---------------------------------------------------------------- R-KING-4


def test_new_round_crown_passes_left_and_new_king_chooses_jester() -> None:
    """R-KING-4: every round after the first starts with the Crown passing left and a new Jester choice."""
    state = position(hands=["R1", *HANDS[1:]], discard="R7", draw=DRAW, king=3, jester=1, dealer=2)
    apply(state, "0:R1")
    assert state.decision is Decision.ROUND_OVER
    log = state.apply_move("deal")
    assert state.round_no == 2
    assert state.king == 0
    assert state.dealer == 3
    assert state.pending == (Decision.JESTER, 0)
    assert [len(h) for h in state.hands] == [7, 7, 7, 7] and len(state.discard) == 1  # a fresh deal
    assert state.jester == 1  # D-12: the last Jester wears the Hat until the new King chooses
    assert not state.scepter_running
    refused(state, "fanfare", "R-KING-1")
    assert any(isinstance(e, events.RoundStarted) and e.king == 0 and e.dealer == 3 for e in log)
    apply(state, "0:jester 2")
    assert state.jester == 2
    assert state.scepter_running


def test_new_round_when_the_last_jester_becomes_king() -> None:
    """R-KING-4 (D-12): the new King who wore the Hat keeps it until choosing a Jester, never themselves."""
    state = position(hands=["R1", *HANDS[1:]], discard="R7", draw=DRAW, king=0, jester=1)
    apply(state, "0:R1", "deal")
    assert (state.king, state.jester) == (1, 1)
    assert state.pending == (Decision.JESTER, 1)
    assert state.legal_actions(1) == [ChooseJester(0), ChooseJester(2), ChooseJester(3)]
    refused(state, "1:jester 1", "R-SETUP-5")
    apply(state, "1:jester 0")
    assert (state.king, state.jester) == (1, 0)
