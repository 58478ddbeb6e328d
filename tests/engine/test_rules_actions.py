"""R-ACT: Reverse, Skip, Wild, King's Choice, Jester and where play goes after a +1."""

from __future__ import annotations

import pytest

from royal_revenge.engine import Card, Colour, Decision, GameOptions, events
from royal_revenge.engine.actions import ChooseColour, ChooseVictim
from royal_revenge.engine.position import position

from .helpers import apply, cards, hand, refused, top

FOUR = ["R1 R2 G3", "R3 R4 G4", "R5 R6 G5", "R8 Y1 G6"]

# ---------------------------------------------------------------- R-ACT-REV


def test_reverse_flips_direction() -> None:
    """R-ACT-REV: the direction flips; the next player is the next one in the new direction."""
    hands = ["R1 G3", "RR R3 R4", "R5 R6 G5", "R8 Y1 G6"]
    state = position(hands=hands, discard="R7", current=1)
    log = state.apply_move("1:RR")
    assert events.DirectionChanged(-1) in log
    assert state.direction == -1
    assert state.pending == (Decision.TURN, 0)
    apply(state, "0:R1")
    assert state.pending == (Decision.TURN, 3)


def test_reverse_back_to_the_left() -> None:
    """R-ACT-REV: a second Reverse turns play back to the left."""
    state = position(hands=["R1 G3", "BR R4", "R5 G5", "R8 G6"], discard="RR", current=1, direction=-1)
    apply(state, "1:BR")
    assert state.direction == 1
    assert state.pending == (Decision.TURN, 2)
    assert state.active_colour is Colour.BLUE


def test_reverse_with_two_players_changes_nothing_by_default() -> None:
    """R-ACT-REV (Reading): with 2 players a Reverse flips the direction but the other player still plays next."""
    state = position(hands=["RR R1 G3", "R3 R4"], discard="R7")
    apply(state, "0:RR")
    assert state.direction == -1
    assert state.pending == (Decision.TURN, 1)


def test_reverse_with_two_players_as_skip_option() -> None:
    """R-ACT-REV: the two_player_reverse_skips option makes a 2-player Reverse act as a Skip."""
    options = GameOptions(players=2, two_player_reverse_skips=True, scepter_turns=None)
    state = position(hands=["RR R1 G3", "R3 R4"], discard="R7", options=options)
    log = state.apply_move("0:RR")
    assert events.Skipped(1) in log
    assert state.pending == (Decision.TURN, 0)
    assert top(state) == "RR"


def test_reverse_as_skip_option_does_nothing_with_three_players() -> None:
    """R-ACT-REV: the 2-player option leaves a Reverse alone at a bigger table."""
    options = GameOptions(players=3, two_player_reverse_skips=True, scepter_turns=None)
    state = position(hands=["RR R1 G3", "R3 R4", "R5 R6"], discard="R7", options=options)
    apply(state, "0:RR")
    assert state.direction == -1
    assert state.pending == (Decision.TURN, 2)


# ---------------------------------------------------------------- R-ACT-SKIP


def test_skip_next_player_loses_turn() -> None:
    """R-ACT-SKIP: the next player loses their turn; the one after plays."""
    state = position(hands=["RS R1 G3", "R3 R4", "R5 R6", "R8 Y1"], discard="R7")
    log = state.apply_move("0:RS")
    assert events.Skipped(1) in log
    assert state.pending == (Decision.TURN, 2)
    assert hand(state, 1) == cards("R3 R4")


def test_skip_against_the_direction() -> None:
    """R-ACT-SKIP: with play moving right, the player to the right is skipped."""
    state = position(hands=["R1 G3", "RS R4 G1", "R5 R6", "R8 Y1"], discard="R7", current=1, direction=-1)
    apply(state, "1:RS")
    assert state.pending == (Decision.TURN, 3)


def test_skip_with_two_players_plays_again() -> None:
    """R-ACT-SKIP: with 2 players the Skip's player plays again."""
    state = position(hands=["RS R1 G3", "R3 R4"], discard="BS")
    apply(state, "0:RS")
    assert state.pending == (Decision.TURN, 0)


# ---------------------------------------------------------------- R-ACT-WILD


def test_wild_colour_chosen_by_the_king_not_the_player() -> None:
    """R-ACT-WILD: the King, not the player who played the Wild, chooses the active colour."""
    state = position(hands=[FOUR[0], "W R3 G4", FOUR[2], FOUR[3]], discard="R7", king=3, jester=0, current=1)
    apply(state, "1:W")
    assert top(state) == "W"
    assert state.pending == (Decision.COLOUR, 3)
    assert state.current == 1
    assert state.active_colour is None
    assert state.legal_actions(3) == [ChooseColour(c) for c in Colour]
    assert state.legal_actions(1) == []
    refused(state, "1:colour G", "R-DIGITAL-1")
    refused(state, "2:R5", "R-DIGITAL-1")  # the next player waits for the colour
    log = state.apply_move("3:colour G")
    assert events.ColourChosen(3, Colour.GREEN) in log
    assert state.active_colour is Colour.GREEN
    assert state.pending == (Decision.TURN, 2)  # play goes on from the Wild's player
    refused(state, "2:R5", "R-TURN-1")  # only green (or a Wild) on this Wild
    apply(state, "2:G5")


def test_wild_king_may_choose_the_colour_in_play_before() -> None:
    """R-ACT-WILD: any of the four colours, including the colour in play before."""
    state = position(hands=["W R1 G3", "R3 R4", "R5 R6"], discard="R7", king=2, jester=0)
    apply(state, "0:W", "2:colour R")
    assert state.active_colour is Colour.RED
    assert state.pending == (Decision.TURN, 1)


def test_wild_played_by_the_king_king_chooses() -> None:
    """R-ACT-WILD: when the King plays a Wild, the King chooses."""
    state = position(hands=["W R1 G3", "R3 R4", "R5 R6"], discard="R7", king=0, jester=1)
    apply(state, "0:W")
    assert state.pending == (Decision.COLOUR, 0)
    apply(state, "0:colour Y")
    assert state.active_colour is Colour.YELLOW
    assert state.pending == (Decision.TURN, 1)


# ---------------------------------------------------------------- R-ACT-KC


@pytest.mark.parametrize("victim", [0, 1, 2, 3])
def test_kings_choice_king_names_any_seat(victim: int) -> None:
    """R-ACT-KC: the King chooses any seat (the King and the player included); that player draws one."""
    hands = ["R1 G3", "RK R4 G1", "R5 R6", "R8 Y1"]
    state = position(hands=hands, discard="R7", draw="B8 B7", king=3, jester=0, current=1)
    apply(state, "1:RK")
    assert state.pending == (Decision.VICTIM, 3)
    assert state.legal_actions(3) == [ChooseVictim(s) for s in range(4)]
    refused(state, "1:victim 0", "R-DIGITAL-1")
    log = state.apply_move(f"3:victim {victim}")
    assert events.VictimChosen(3, victim) in log
    expected = ["R1 G3", "R4 G1", "R5 R6", "R8 Y1"]
    expected[victim] += " B8"
    assert [hand(state, s) for s in range(4)] == [cards(h) for h in expected]
    assert state.pending == (Decision.TURN, 2)  # R-ACT-PLUS: after the player who played it
    assert top(state) == "RK" and state.active_colour is Colour.RED


def test_kings_choice_victim_must_be_a_seat() -> None:
    """R-ACT-KC: the victim is a player at the table."""
    state = position(hands=["RK R1 G3", "R3 R4", "R5 R6"], discard="R7", king=1, jester=2)
    apply(state, "0:RK")
    refused(state, "1:victim 4", "R-ACT-KC")


# ---------------------------------------------------------------- R-ACT-JEST


def test_jester_the_jester_draws() -> None:
    """R-ACT-JEST: whoever wears the Jester Hat draws one card."""
    state = position(hands=["RJ R1 G3", "R3 R4", "R5 R6", "R8 Y1"], discard="R7", draw="B8", king=0, jester=3)
    log = state.apply_move("0:RJ")
    assert events.Drew(3, 1, "plus", (Card.parse("B8"),), Card.parse("RJ"), Colour.RED) in log
    assert hand(state, 3) == cards("R8 Y1 B8")
    assert state.pending == (Decision.TURN, 1)


def test_jester_player_who_is_the_jester_draws_too() -> None:
    """R-ACT-JEST: the Jester draws even when the Jester played the card."""
    state = position(hands=["RJ R1 G3", "R3 R4", "R5 R6"], discard="R7", draw="B8", king=1, jester=0)
    apply(state, "0:RJ")
    assert hand(state, 0) == cards("R1 G3 B8")
    assert state.pending == (Decision.TURN, 1)


# ---------------------------------------------------------------- R-ACT-PLUS


def test_sheet_example_jester() -> None:
    """R-ACT-PLUS: the sheet's example: player 1 plays a Jester, player 3 is the Jester; player 3 draws;
    player 2 plays next (seats 0..3 are the sheet's players 1..4)."""
    state = position(hands=["RJ R1 G3", "R3 R4", "R5 R6", "R8 Y1"], discard="R2", draw="B8", king=3, jester=2)
    apply(state, "0:RJ")
    assert hand(state, 2) == cards("R5 R6 B8")
    assert state.pending == (Decision.TURN, 1)
    assert state.current == 1


def test_plus_one_drawer_who_plays_next_keeps_the_turn() -> None:
    """R-ACT-PLUS: drawing for a +1 costs no turn when the drawer is the next player."""
    state = position(hands=["RJ R1 G3", "R3 R4", "R5 R6"], discard="R2", draw="B8", king=2, jester=1)
    apply(state, "0:RJ")
    assert hand(state, 1) == cards("R3 R4 B8")
    assert state.pending == (Decision.TURN, 1)
    apply(state, "1:R3")
    assert state.pending == (Decision.TURN, 2)


def test_kings_choice_victim_who_plays_next_keeps_the_turn() -> None:
    """R-ACT-PLUS: a King's Choice victim who is the next player still plays their turn."""
    state = position(hands=["R1 G3", "R3 R4", "GK R5 R6"], discard="G2", draw="B8", king=0, jester=1,
                     current=2, direction=-1)
    apply(state, "2:GK", "0:victim 1")
    assert hand(state, 1) == cards("R3 R4 B8")
    assert state.pending == (Decision.TURN, 1)


def test_plus_one_play_does_not_continue_from_the_drawer() -> None:
    """R-ACT-PLUS: after the +1 draw play continues after the card's player, not after the drawer."""
    state = position(hands=["R1 G3", "R3 R4", "RK R5 R6", "R8 Y1", "Y2 Y3"], discard="R2", draw="B8",
                     king=0, jester=1, current=2)
    apply(state, "2:RK", "0:victim 4")
    assert state.pending == (Decision.TURN, 3)
    state = position(hands=["R1 G3", "R3 R4", "RJ R5 R6", "R8 Y1", "Y2 Y3"], discard="R2", draw="B8",
                     king=0, jester=0, current=2, direction=-1)
    apply(state, "2:RJ")
    assert hand(state, 0) == cards("R1 G3 B8")
    assert state.pending == (Decision.TURN, 1)
