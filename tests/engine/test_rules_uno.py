"""R-UNO: calling UNO, catching a player who did not, and what is refused."""

from __future__ import annotations

from royal_revenge.engine import CALL_UNO, Card, Catch, Colour, Decision, GameOptions, Play, events
from royal_revenge.engine.position import position

from .helpers import apply, cards, hand, refused, rest_of_deck

HANDS = ["R7 G3", "R3 R4 B1", "R5 R6 B2", "R8 Y1 B3"]
DRAW = "Y7 Y6 Y5 Y4"


def test_call_with_the_card() -> None:
    """R-UNO-1: the call can go with the next-to-last card (notation R7!); then nobody can catch."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    assert Play(Card.parse("R7"), uno=True) in state.legal_actions(0)
    log = state.apply_move("0:R7!")
    assert events.Played(0, Card.parse("R7"), True) in log
    assert events.UnoCalled(0) in log
    assert state.uno_seat is None
    assert all(not isinstance(a, Catch) for s in range(4) for a in state.legal_actions(s))
    refused(state, "1:catch 0", "R-UNO-3")
    refused(state, "0:uno", "R-UNO-3")


def test_call_with_a_card_that_is_not_the_next_to_last_is_refused() -> None:
    """R-UNO-3: a call that is not due (with the card, keeping more than one) is refused and costs nothing."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2, current=1)
    assert Play(Card.parse("R3"), uno=True) not in state.legal_actions(1)
    refused(state, "1:R3!", "R-UNO-3")


def test_call_afterwards_before_the_next_player_begins() -> None:
    """R-UNO-1: the call can come after the card, any moment before the next player begins their turn."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:R7")
    assert state.uno_seat == 0
    assert state.legal_actions(0) == [CALL_UNO]
    assert Catch(0) in state.legal_actions(2)
    log = state.apply_move("0:uno")
    assert log == [events.UnoCalled(0)]
    assert state.uno_seat is None
    assert hand(state, 0) == cards("G3")
    refused(state, "2:catch 0", "R-UNO-3")  # the call closed the chance
    assert state.pending == (Decision.TURN, 1)


def test_catch_gives_two_cards() -> None:
    """R-UNO-2: any other player may catch a missing call; the caught player draws two cards."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:R7")
    log = state.apply_move("3:catch 0")
    assert events.Caught(3, 0) in log
    assert events.Drew(0, 2, "penalty", (Card.parse("Y7"), Card.parse("Y6")), Card.parse("R7"), Colour.RED) in log
    assert hand(state, 0) == cards("G3 Y7 Y6")
    assert state.uno_seat is None
    assert state.pending == (Decision.TURN, 1)  # a catch costs nobody a turn
    refused(state, "2:catch 0", "R-UNO-3")  # the first valid catch counts
    refused(state, "0:uno", "R-UNO-3")


def test_next_player_may_catch_before_beginning_the_turn() -> None:
    """R-UNO-2 (D-11): the next player may catch before their first play or draw; their actions list it."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:R7")
    assert Catch(0) in state.legal_actions(1)
    apply(state, "1:catch 0", "1:R3")
    assert hand(state, 0) == cards("G3 Y7 Y6")
    assert hand(state, 1) == cards("R4 B1")


def test_catch_window_closes_when_next_player_plays() -> None:
    """R-UNO-2: once the next player begins their turn (a play) the chance is gone."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:R7", "1:R3")
    assert state.uno_seat is None
    refused(state, "2:catch 0", "R-UNO-3")
    refused(state, "0:uno", "R-UNO-3")
    assert all(not isinstance(a, Catch) and a != CALL_UNO for s in range(4) for a in state.legal_actions(s))


def test_catch_window_closes_when_next_player_draws() -> None:
    """R-UNO-2: a draw by the next player begins their turn too."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:R7", "1:draw")
    refused(state, "3:catch 0", "R-UNO-3")
    refused(state, "0:uno", "R-UNO-3")


def test_catch_window_stays_open_over_a_skipped_player() -> None:
    """R-UNO-2: after a Skip the next player to begin a turn is the one after the skipped player."""
    state = position(hands=["RS G3", *HANDS[1:]], discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:RS")
    assert state.pending == (Decision.TURN, 2)
    apply(state, "1:catch 0")
    assert hand(state, 0) == cards("G3 Y7 Y6")


def test_catch_while_the_king_chooses_the_colour() -> None:
    """R-UNO-2: the chance stays open while the King chooses the colour of the Wild just played."""
    state = position(hands=["W G3", *HANDS[1:]], discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:W")
    assert state.pending == (Decision.COLOUR, 3)
    assert state.legal_actions(3) == [*state.legal_actions(3)[:4], Catch(0)]
    apply(state, "2:catch 0", "3:colour B")
    assert hand(state, 0) == cards("G3 Y7 Y6")
    assert state.pending == (Decision.TURN, 1)


def test_player_who_drew_since_cannot_be_caught() -> None:
    """R-UNO-2 (Reading): a catch needs the caught player to still hold one card; one who drew for a +1 cannot be."""
    state = position(hands=["RK G3", *HANDS[1:]], discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:RK")
    assert state.uno_seat == 0
    apply(state, "3:victim 0")
    assert hand(state, 0) == cards("G3 Y7")
    refused(state, "1:catch 0", "R-UNO-2")
    refused(state, "0:uno", "R-UNO-3")
    assert all(not isinstance(a, Catch) for s in range(4) for a in state.legal_actions(s))


def test_jester_who_drew_for_own_jester_cannot_be_caught() -> None:
    """R-UNO-2 (Reading): the Jester playing a Jester as next-to-last card draws and cannot be caught."""
    state = position(hands=["RJ G3", *HANDS[1:]], discard="R2", draw=DRAW, king=3, jester=0)
    apply(state, "0:RJ")
    assert hand(state, 0) == cards("G3 Y7")
    refused(state, "1:catch 0", "R-UNO-2")


def test_call_not_due_is_refused() -> None:
    """R-UNO-3: a call that is not due is refused with a reason and costs nothing."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    error = refused(state, "0:uno", "R-UNO-3")  # before playing: two cards in hand
    assert "2 cards" in str(error)
    refused(state, "3:uno", "R-UNO-3")
    apply(state, "0:R7")
    refused(state, "1:uno", "R-UNO-3")  # only the player who owes the call may make it


def test_catch_of_player_who_cannot_be_caught_is_refused() -> None:
    """R-UNO-3: a catch of a player who cannot be caught is refused and costs nothing."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    refused(state, "1:catch 0", "R-UNO-3")  # nothing played yet
    refused(state, "1:catch 5", "R-UNO-3")  # no such seat at this table


def test_catching_yourself_is_refused() -> None:
    """R-UNO-2: only another player may catch; catching yourself is refused."""
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:R7")
    refused(state, "0:catch 0", "R-UNO-2")
    assert Catch(0) not in state.legal_actions(0)


def test_penalty_gives_fewer_cards_when_the_piles_run_dry() -> None:
    """R-UNO-2, R-TURN-4: a penalty gives fewer cards when the piles run dry, and then a +1 gives none."""
    used = ["RK G3", "R3 R4", "R7"]
    hands = [*used[:2], rest_of_deck(*used)]
    options = GameOptions(players=3, target_score=10_000, scepter_turns=None)
    state = position(hands=hands, discard="R7", draw="", king=2, jester=1, options=options)
    apply(state, "0:RK")  # R7 now lies under RK: the only card that can be drawn
    log = state.apply_move("1:catch 0")
    assert events.Drew(0, 1, "penalty", (Card.parse("R7"),), Card.parse("RK"), Colour.RED) in log
    assert hand(state, 0) == cards("G3 R7")
    assert state.discard == [Card.parse("RK")] and state.draw_pile == []
    log = state.apply_move("2:victim 1")
    assert events.Drew(1, 0, "plus", (), Card.parse("RK"), Colour.RED) in log
    assert hand(state, 1) == cards("R3 R4")
    assert state.pending == (Decision.TURN, 1)


def test_going_out_needs_no_call() -> None:
    """R-UNO-1: only the next-to-last card calls for UNO; the last card ends the round."""
    state = position(hands=["R7", *HANDS[1:]], discard="R2", draw=DRAW, king=3, jester=2)
    assert Play(Card.parse("R7"), uno=True) not in state.legal_actions(0)
    apply(state, "0:R7")
    assert state.uno_seat is None
    assert state.last_round is not None and state.last_round.winner == 0


def test_two_player_skip_window_open_until_own_next_turn() -> None:
    """R-UNO-2: with 2 players a Skip makes its player the next to begin a turn; until then they can be caught."""
    state = position(hands=["RS G3", "R3 R4 B1"], discard="R2", draw=DRAW, king=1, jester=0)
    apply(state, "0:RS")
    assert state.pending == (Decision.TURN, 0)
    assert state.legal_actions(1) == [Catch(0)]
    assert CALL_UNO in state.legal_actions(0)
    apply(state, "1:catch 0")
    assert hand(state, 0) == cards("G3 Y7 Y6")
    assert state.pending == (Decision.TURN, 0)


def test_who_may_act_out_of_turn_and_in_what_order() -> None:
    """R-UNO-2: the window's owner is asked first, then the others in order of play; the decider is left out.

    This one order is what the simulation driver, the online table and the RL core all follow.
    """
    state = position(hands=HANDS, discard="R2", draw=DRAW, king=3, jester=2)
    assert state.out_of_turn() == []  # no window open
    apply(state, "0:R7")  # seat 0 keeps one card without calling: the window opens, seat 1 decides
    assert state.decider == 1
    assert state.out_of_turn() == [0, 2, 3]
    apply(state, "0:uno")
    assert state.out_of_turn() == []  # the call closed it


def test_the_out_of_turn_order_follows_the_direction_of_play() -> None:
    """R-UNO-2: after a Reverse the others are asked against the seat order."""
    state = position(hands=["RR G3", "R3 R4 B1", "R5 R6 B2", "R8 Y1 B3"], discard="R2", draw=DRAW, king=3, jester=2)
    apply(state, "0:RR")  # play now goes right: seat 3 decides
    assert state.decider == 3
    assert state.out_of_turn() == [0, 2, 1]
