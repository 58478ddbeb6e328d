"""R-SETUP: players, the dealer, the deal, the first King, the first Jester and the start card."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from royal_revenge.engine import (
    KEEP,
    Card,
    Colour,
    Decision,
    GameOptions,
    GameState,
    Kind,
    OptionsError,
    Play,
    events,
)
from royal_revenge.engine.actions import ChooseJester
from royal_revenge.engine.position import position

from .helpers import apply, cards, hand, refused, seed_with_start, top

# ---------------------------------------------------------------- R-SETUP-1


@pytest.mark.parametrize("players", [0, 1, 7, 10])
def test_player_count_outside_two_to_six_is_refused(players: int) -> None:
    """R-SETUP-1: fewer than 2 or more than 6 players is not a game."""
    with pytest.raises(OptionsError, match="R-SETUP-1"):
        GameOptions(players=players)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_two_to_six_players_can_play(players: int) -> None:
    """R-SETUP-1: every count from 2 to 6 sets up a game with one hand per seat."""
    state = GameState.new(GameOptions(players=players), seed=1)
    assert len(state.hands) == players
    assert state.pending.kind is Decision.JESTER


def test_seat_outside_the_table_is_refused() -> None:
    """R-SETUP-1: a move from a seat that does not exist is refused."""
    state = position(hands=["R1 R2", "G1 G2", "B1 B2"], discard="R5")
    refused(state, "3:R1", "R-SETUP-1")


# ---------------------------------------------------------------- R-SETUP-2


def _dealer_draw(seed: int, players: int) -> tuple[events.DealerDrawn, GameState]:
    log: list[events.Event] = []
    state = GameState.new(GameOptions(players=players), seed=seed, events=log)
    drawn = [e for e in log if isinstance(e, events.DealerDrawn)]
    assert len(drawn) == 1
    return drawn[0], state


@pytest.mark.parametrize("players", [2, 4, 6])
def test_highest_number_deals_symbols_count_zero(players: int) -> None:
    """R-SETUP-2: each player draws a card; the highest number deals; a symbol counts as zero."""
    saw_symbol = False
    for seed in range(60):
        drawn, state = _dealer_draw(seed, players)
        first = drawn.draws[0]
        assert [seat for seat, _ in first] == list(range(players))  # everyone draws
        last = drawn.draws[-1]
        values = {seat: card.number or 0 for seat, card in last}
        best = max(values.values())
        assert [seat for seat, value in values.items() if value == best] == [drawn.dealer]
        assert state.dealer == drawn.dealer
        saw_symbol = saw_symbol or any(card.number is None for _, card in first)
        for drawing in drawn.draws:
            for seat, card in drawing:
                if card.number is None:
                    assert values.get(seat, 0) <= best  # a symbol never beats a number
    assert saw_symbol


def test_dealer_ties_draw_again_only_the_tied() -> None:
    """R-SETUP-2 (Reading, D-10): players tied for highest draw again until one is highest; only they draw."""
    found = 0
    for seed in range(400):
        drawn, state = _dealer_draw(seed, 5)
        if len(drawn.draws) < 2:
            continue
        found += 1
        for before, after in zip(drawn.draws, drawn.draws[1:], strict=False):
            best = max(card.number or 0 for _, card in before)
            tied = [seat for seat, card in before if (card.number or 0) == best]
            assert len(tied) >= 2
            assert [seat for seat, _ in after] == tied
        assert state.dealer == drawn.dealer
    assert found >= 3


def test_dealer_cards_go_back_and_deck_is_shuffled() -> None:
    """R-SETUP-2: the cards drawn for the dealer go back: the deal uses all 56 cards."""
    state = GameState.new(GameOptions(players=3), seed=11)
    everything = [c for h in state.hands for c in h] + state.draw_pile + state.discard
    assert len(everything) == 56


# ---------------------------------------------------------------- R-SETUP-3


@pytest.mark.parametrize("players", [2, 3, 6])
def test_deal_seven_each_rest_is_draw_pile_top_turned(players: int) -> None:
    """R-SETUP-3: 7 cards each; the rest is the draw pile; its top card starts the discard pile."""
    state = GameState.new(GameOptions(players=players), seed=8)
    assert [len(h) for h in state.hands] == [7] * players
    assert len(state.discard) == 1
    assert len(state.draw_pile) == 56 - 7 * players - 1
    start = state.top
    assert state.active_colour == start.colour


def test_deals_differ_by_seed_and_repeat_by_seed() -> None:
    """R-SETUP-3: the deal is a shuffle: the same seed deals the same, other seeds differ."""
    a = GameState.new(GameOptions(players=4), seed=1)
    b = GameState.new(GameOptions(players=4), seed=1)
    c = GameState.new(GameOptions(players=4), seed=2)
    assert a == b
    assert a.hands != c.hands


# ---------------------------------------------------------------- R-SETUP-4


def test_youngest_player_is_first_king() -> None:
    """R-SETUP-4: the youngest player is the first King."""
    for seed in range(20):
        state = GameState.new(GameOptions(players=4), seed=seed, ages=[40, 9, 33, 12])
        assert state.king == 1
        assert state.pending == (Decision.JESTER, 1)


def test_tied_youngest_chosen_at_random_among_them() -> None:
    """R-SETUP-4 (Reading, D-3): ties among the youngest are broken at random among the tied only."""
    kings = Counter(GameState.new(GameOptions(players=4), seed=s, ages=[8, 30, 8, 50]).king for s in range(80))
    assert set(kings) == {0, 2}


def test_missing_ages_are_not_candidates_when_others_gave_one() -> None:
    """R-SETUP-4 (Reading, D-3): players who give no age are not candidates when others gave one."""
    kings = {GameState.new(GameOptions(players=4), seed=s, ages=[None, 30, None, 31]).king for s in range(40)}
    assert kings == {1}


def test_no_ages_means_random_among_everyone() -> None:
    """R-SETUP-4 (Reading, D-3): with no age at all the first King is random among everyone."""
    kings = {GameState.new(GameOptions(players=4), seed=s).king for s in range(80)}
    kings_none = {GameState.new(GameOptions(players=3), seed=s, ages=[None] * 3).king for s in range(80)}
    assert kings == {0, 1, 2, 3}
    assert kings_none == {0, 1, 2}


def test_host_may_pick_the_first_king() -> None:
    """R-SETUP-4: a host may instead pick the first King (first_king overrides the ages)."""
    state = GameState.new(GameOptions(players=4), seed=3, ages=[5, 50, 50, 50], first_king=2)
    assert state.king == 2
    assert state.pending == (Decision.JESTER, 2)


def test_bad_setup_arguments_are_refused() -> None:
    """R-SETUP-4: ages one per seat; first_king a real seat."""
    with pytest.raises(OptionsError):
        GameState.new(GameOptions(players=3), ages=[1, 2])
    with pytest.raises(OptionsError):
        GameState.new(GameOptions(players=3), first_king=3)


@pytest.mark.parametrize(
    "arguments",
    [
        {"seed": "7"},
        {"seed": 1.5},
        {"seed": True},
        {"options": {"players": 3}},
        {"first_king": "1"},
        {"first_king": 1.0},
        {"ages": 7},
        {"ages": "abc"},
        {"ages": [1, "2", 3]},
    ],
)
def test_wrongly_typed_setup_arguments_are_refused_with_the_engines_error(arguments: dict[str, Any]) -> None:
    """The same OptionsError interpreted and compiled (the compiled build would otherwise raise TypeError)."""
    options = arguments.pop("options", GameOptions(players=3))
    with pytest.raises(OptionsError):
        GameState.new(options, **arguments)


# ---------------------------------------------------------------- R-SETUP-5


def test_king_chooses_jester_any_other_player_and_scepter_starts() -> None:
    """R-SETUP-5: the King chooses the Jester, anyone but the King; that starts the scepter."""
    seed = seed_with_start(Kind.NUMBER)
    state = GameState.new(GameOptions(players=4, scepter_turns=(9, 15)), seed=seed, first_king=0)
    assert state.pending == (Decision.JESTER, 0)
    assert state.legal_actions(0) == [ChooseJester(1), ChooseJester(2), ChooseJester(3)]
    assert not state.scepter_running
    refused(state, "fanfare", "R-KING-1")  # the scepter has not started
    refused(state, "0:jester 0", "R-SETUP-5")
    refused(state, "2:jester 1", "R-DIGITAL-1")
    apply(state, "0:jester 3")
    assert state.jester == 3
    assert state.scepter_running
    assert state.scepter_left is not None and 9 <= state.scepter_left <= 15
    assert state.turns_since_scepter == 0


def test_nothing_but_the_jester_choice_before_it() -> None:
    """R-SETUP-5: play does not start before the Jester is chosen."""
    seed = seed_with_start(Kind.NUMBER)
    state = GameState.new(GameOptions(players=4), seed=seed, first_king=0)
    some_card = state.hands[0][0]
    refused(state, f"0:{some_card}", "R-DIGITAL-1")
    refused(state, "0:draw", "R-DIGITAL-1")


# ---------------------------------------------------------------- R-SETUP-6 (dealt games)


def _new(kind: Kind, players: int = 4, not_seats: tuple[int, ...] = ()) -> GameState:
    seed = seed_with_start(kind, players, not_seats=not_seats)
    return GameState.new(GameOptions(players=players, scepter_turns=None), seed=seed, first_king=0)


def test_start_number_king_starts_left() -> None:
    """R-SETUP-6: a number: the King starts; direction left."""
    state = _new(Kind.NUMBER, not_seats=(0,))
    start = state.top
    apply(state, "0:jester 2")
    assert state.pending == (Decision.TURN, 0)
    assert state.current == 0
    assert state.direction == 1
    assert state.top == start and state.active_colour == start.colour
    assert [len(h) for h in state.hands] == [7, 7, 7, 7]


def test_start_reverse_dealer_first_to_the_right() -> None:
    """R-SETUP-6: a Reverse: the dealer goes first, and play moves to the right."""
    state = _new(Kind.REVERSE, not_seats=(0,))
    dealer = state.dealer
    apply(state, "0:jester 1")
    assert state.pending == (Decision.TURN, dealer)
    assert state.direction == -1
    assert state.next_seat(dealer) == (dealer - 1) % 4


def test_start_skip_dealers_left_is_skipped() -> None:
    """R-SETUP-6: a Skip: the player left of the dealer is skipped; the one left of that player starts."""
    state = _new(Kind.SKIP, not_seats=(2, 3))  # so that the starter is not the King
    dealer = state.dealer
    apply(state, "0:jester 1")
    assert state.pending == (Decision.TURN, (dealer + 2) % 4)
    assert state.direction == 1


def test_start_wild_king_chooses_colour_then_starts() -> None:
    """R-SETUP-6: a Wild: the King chooses the active colour; then the King starts."""
    state = _new(Kind.WILD)
    apply(state, "0:jester 3")
    assert state.pending == (Decision.COLOUR, 0)
    assert state.active_colour is None
    refused(state, "3:colour R", "R-DIGITAL-1")
    apply(state, "0:colour B")
    assert state.active_colour is Colour.BLUE
    assert state.pending == (Decision.TURN, 0)
    assert state.direction == 1


def test_start_kings_choice_king_names_anyone_who_draws() -> None:
    """R-SETUP-6: a King's Choice: the King chooses any player, who draws one card; then the King starts."""
    state = _new(Kind.KINGS_CHOICE)
    apply(state, "0:jester 1")
    assert state.pending == (Decision.VICTIM, 0)
    next_card = state.draw_pile[-1]
    apply(state, "0:victim 2")
    assert [len(h) for h in state.hands] == [7, 7, 8, 7]
    assert state.hands[2][-1] == next_card
    assert state.pending == (Decision.TURN, 0)


def test_start_kings_choice_king_may_name_himself() -> None:
    """R-SETUP-6: a King's Choice at the start: the King may name himself."""
    state = _new(Kind.KINGS_CHOICE)
    apply(state, "0:jester 1", "0:victim 0")
    assert [len(h) for h in state.hands] == [8, 7, 7, 7]
    assert state.pending == (Decision.TURN, 0)


def test_start_jester_the_jester_draws_then_king_starts() -> None:
    """R-SETUP-6: a Jester: the Jester draws one card; then the King starts."""
    state = _new(Kind.JESTER)
    next_card = state.draw_pile[-1]
    apply(state, "0:jester 3")
    assert [len(h) for h in state.hands] == [7, 7, 7, 8]
    assert state.hands[3][-1] == next_card
    assert state.pending == (Decision.TURN, 0)


def test_start_reverse_two_players_with_reverse_as_skip_option() -> None:
    """R-SETUP-6 (D-9): a start Reverse follows R-SETUP-6 even with the 2-player Reverse-as-Skip option."""
    for seed in range(2000):
        options = GameOptions(players=2, two_player_reverse_skips=True, scepter_turns=None)
        state = GameState.new(options, seed=seed, first_king=0)
        if state.top.kind is Kind.REVERSE and state.dealer == 1:
            break
    else:
        raise AssertionError("no seed")
    apply(state, "0:jester 1")
    assert state.pending == (Decision.TURN, 1)  # the dealer goes first
    assert state.direction == -1


# ---------------------------------------------------------------- R-SETUP-6 (exact positions)


def _setup_position(start: str, dealer: int = 2) -> GameState:
    state = position(
        hands=["R1 R2", "G1 G2", "B1 B2", "Y1 Y2"],
        discard=start,
        draw="Y8 B8",
        king=0,
        jester=None,
        dealer=dealer,
        decision=Decision.JESTER,
        decider=0,
    )
    state.jester_for_setup = True
    state.scepter_running = False
    return state


def test_start_card_effects_exactly() -> None:
    """R-SETUP-6: each start card's effect, on an exact position (King 0, dealer 2)."""
    state = _setup_position("G5")
    apply(state, "0:jester 1")
    assert (state.pending, state.direction) == ((Decision.TURN, 0), 1)

    state = _setup_position("GR")
    apply(state, "0:jester 1")
    assert (state.pending, state.direction) == ((Decision.TURN, 2), -1)
    apply(state, "2:draw", "2:keep")
    assert state.pending == (Decision.TURN, 1)  # to the right of the dealer

    state = _setup_position("GS")
    apply(state, "0:jester 1")
    assert state.pending == (Decision.TURN, 0)  # dealer 2, seat 3 skipped, seat 0 starts
    state = _setup_position("GS", dealer=0)
    apply(state, "0:jester 1")
    assert state.pending == (Decision.TURN, 2)

    state = _setup_position("GJ")
    apply(state, "0:jester 3")
    assert hand(state, 3) == cards("Y1 Y2 Y8")
    assert state.pending == (Decision.TURN, 0)

    state = _setup_position("GK")
    apply(state, "0:jester 3", "0:victim 1")
    assert hand(state, 1) == cards("G1 G2 Y8")
    assert state.pending == (Decision.TURN, 0)

    state = _setup_position("W")
    apply(state, "0:jester 3", "0:colour Y")
    assert (top(state), state.active_colour) == ("W", Colour.YELLOW)
    assert state.pending == (Decision.TURN, 0)
    apply(state, "0:draw")
    assert state.drawn == Card.parse("Y8")
    assert state.legal_actions(0) == [Play(Card.parse("Y8")), KEEP]  # yellow plays on the Wild
