"""Observations (R-DIGITAL-2) and determinization: unit tests on chosen positions."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings

from royal_revenge.engine import (
    FANFARE,
    FULL_DECK,
    KEEP,
    Card,
    Decision,
    GameOptions,
    GameState,
    Observation,
    Play,
    PublicJSON,
    observation_json,
    state_from_json,
    state_to_json,
)
from royal_revenge.engine.position import parse_cards, position

from .randomplay import GameSpec, all_cards, drive, game_specs


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def three_seats(**kwargs: object) -> GameState:
    return position(
        hands=["R1 R2 W", "G5 G6 B7 YK", "Y3 BJ"],
        discard="B1 B2 R5",
        draw="Y8 G1",
        **kwargs,  # type: ignore[arg-type]
    )


def test_unseen_cards_are_exactly_the_complement() -> None:
    state = three_seats()
    obs = state.observe(0)
    expected = Counter(FULL_DECK)
    expected.subtract(cards("R1 R2 W B1 B2 R5"))
    assert obs.unseen_cards() == sorted(expected.elements())
    hidden = state.hands[1] + state.hands[2] + state.draw_pile
    assert obs.unseen_cards() == sorted(hidden)
    assert len(obs.unseen_cards()) == 56 - 3 - 3


def test_spectator_unseen_cards_are_everything_but_the_discards() -> None:
    state = three_seats()
    obs = state.observe(None)
    expected = Counter(FULL_DECK)
    expected.subtract(cards("B1 B2 R5"))
    assert obs.unseen_cards() == sorted(expected.elements())


@pytest.mark.parametrize("seat", [None, 0, 1, 2])
def test_sample_deals_hidden_cards_with_the_right_counts(seat: int | None) -> None:
    state = three_seats()
    obs = state.observe(seat)
    rng = random.Random(5)
    for _ in range(50):
        sample = obs.sample_state(rng)
        assert [len(hand) for hand in sample.hands] == [4 - 1, 4, 2]
        assert len(sample.draw_pile) == len(state.draw_pile)
        assert sample.discard == state.discard and sample.active_colour == state.active_colour
        if seat is not None:
            assert sample.hands[seat] == state.hands[seat]
        dealt = Counter(card for s, hand in enumerate(sample.hands) if s != seat for card in hand)
        dealt.update(sample.draw_pile)
        assert sorted(dealt.elements()) == obs.unseen_cards()
        assert all_cards(sample) == Counter(FULL_DECK)
        assert sample.observe(seat) == obs
        assert state_from_json(state_to_json(sample)) == sample


def test_samples_vary_and_are_reproducible() -> None:
    obs = three_seats().observe(0)
    deals = {tuple(map(tuple, obs.sample_state(random.Random(k)).hands)) for k in range(20)}
    assert len(deals) > 10
    assert obs.sample_state(random.Random(3)) == obs.sample_state(random.Random(3))
    # Every unseen card lands in an opponent's hand in some sample.
    seen_in_hands: set[Card] = set()
    rng = random.Random(0)
    for _ in range(400):
        sample = obs.sample_state(rng)
        seen_in_hands.update(sample.hands[1] + sample.hands[2])
    assert seen_in_hands == set(obs.unseen_cards())


def test_an_opponents_drawn_card_is_in_their_hand_in_the_sample() -> None:
    state = position(
        hands=["R1 R2 W", "G5 G6 B7 YK", "Y3 BJ"],
        discard="B1 R5",
        current=1,
        decision=Decision.DRAWN,
        drawn="YK",
    )
    assert state.pending == (Decision.DRAWN, 1)
    obs = state.observe(0)
    assert obs.drawn is None and obs.pending == (Decision.DRAWN, 1)
    assert state.observe(1).drawn == Card.parse("YK")
    assert state.observe(2).drawn is None and state.observe(None).drawn is None
    rng = random.Random(1)
    for _ in range(100):
        sample = obs.sample_state(rng)
        assert sample.drawn is not None
        assert sample.drawn in sample.hands[1] and sample.hands[1][-1] == sample.drawn
        assert KEEP in sample.legal_actions(1)
        assert sample.observe(0) == obs
        sample.apply(1, KEEP)  # the sampled state plays on
    # The drawer's own samples keep the real drawn card.
    own = state.observe(1)
    for _ in range(20):
        sample = own.sample_state(rng)
        assert sample.drawn == Card.parse("YK") and sample.hands[1] == state.hands[1]
        assert sample.legal_actions(1) == state.legal_actions(1)


@pytest.mark.parametrize(
    ("low", "high", "since", "left"),
    [(9, 15, 0, 12), (9, 15, 3, 7), (9, 15, 10, 2), (9, 15, 14, 1), (1, 1, 0, 1), (2, 6, 5, 1)],
)
def test_sampled_scepter_is_within_the_feasible_range(low: int, high: int, since: int, left: int) -> None:
    """Seen ``since`` turns without a fanfare, the schedule drew a total in [max(low, since + 1), high]."""
    options = GameOptions(players=3, scepter_turns=(low, high))
    state = three_seats(options=options, scepter_left=left, turns_since_scepter=since)
    assert state.scepter_left == left
    obs = state.observe(2)
    rng = random.Random(11)
    lefts = {obs.sample_state(rng).scepter_left for _ in range(300)}
    first = max(low, since + 1)
    assert lefts == {total - since for total in range(first, high + 1)}
    assert left in lefts


def test_sampled_scepter_when_it_cannot_sound_by_itself() -> None:
    # The schedule is off: a real-time table sends the fanfare; nothing is sampled.
    state = three_seats()
    assert state.options.scepter_turns is None
    assert all(state.observe(0).sample_state(random.Random(k)).scepter_left is None for k in range(5))
    # The fanfare has sounded and waits for the drawer: the schedule is spent.
    options = GameOptions(players=3, scepter_turns=(9, 15))
    waiting = position(
        hands=["R1 R2 W", "G5 G6 B7 YK", "Y3 BJ"],
        discard="B1 R5",
        current=1,
        decision=Decision.DRAWN,
        drawn="YK",
        options=options,
        scepter_left=3,
    )
    waiting.apply(None, FANFARE)
    assert waiting.fanfare_queued
    sample = waiting.observe(0).sample_state(random.Random(0))
    assert sample.fanfare_queued and sample.scepter_left is None
    sample.apply(1, KEEP)
    waiting.apply(1, KEEP)
    assert sample.pending == waiting.pending == (Decision.JESTER, 1)
    assert sample.king == waiting.king == 1


def test_a_spectator_sees_no_hand() -> None:
    state = three_seats()
    obs = state.observe(None)
    assert obs.seat is None and obs.hand == () and obs.drawn is None
    data = obs.to_json()
    assert data["seat"] is None and data["hand"] == [] and data["drawn"] is None
    assert data["hand_sizes"] == [3, 4, 2]
    sample = obs.sample_state(random.Random(0))
    assert [len(hand) for hand in sample.hands] == [3, 4, 2]
    assert sample.observe(None) == obs


def test_an_observation_shows_the_public_facts() -> None:
    state = three_seats(scores=[10, 0, 30], king=2, jester=0)
    obs = state.observe(1)
    data = obs.to_json()
    assert data["hand"] == ["G5", "G6", "B7", "YK"]
    assert data["top"] == "R5" and data["discard_pile"] == ["B1", "B2", "R5"]
    assert data["active_colour"] == "R" and data["draw_pile_size"] == len(state.draw_pile)
    assert data["scores"] == [10, 0, 30] and data["king"] == 2 and data["jester"] == 0
    assert data["pending"] == {"kind": "turn", "seat": 0}
    assert obs.players == 3 and obs.top == Card.parse("R5")


@pytest.mark.parametrize("seat", [3, -1, 6, True, False, "0", 1.0, [0]], ids=repr)
def test_observing_a_seat_that_does_not_exist_fails(seat: object) -> None:
    state = three_seats()
    with pytest.raises(ValueError, match="no seat"):
        state.observe(seat)  # type: ignore[arg-type]


def test_observation_after_a_game_plays_on() -> None:
    """A full game's last observation still samples consistently (round over, game over)."""
    state = GameState.new(GameOptions(players=2, single_round=True, scepter_turns=None), seed=4)
    rng = random.Random(4)
    while not state.is_over():
        seat = state.decider
        legal = state.legal_actions(seat)
        plays = [a for a in legal if isinstance(a, Play)]
        state.apply(seat, rng.choice(plays or legal))
    for seat in (None, 0, 1):
        obs = state.observe(seat)
        assert obs.outcome == state.outcome()
        sample = obs.sample_state(random.Random(0))
        assert sample.is_over() and sample.observe(seat) == obs


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_observation_json_from_the_public_view_equals_each_seats_observation(players: int) -> None:
    # The server builds every seat's view from the spectator's one (observation_json): it must be
    # exactly Observation.of(...).to_json() at every step, round ends and game end included.
    spec = GameSpec(GameOptions(players=players, target_score=150), players * 7, "eager", 0.05, 0.5)
    state = spec.new_state()
    rng = random.Random(players)
    checked = 0
    for _ in drive(state, rng, spec):
        public = observation_json(state, None)
        assert public == Observation.of(state, None).to_json()
        for seat in range(players):
            view = observation_json(state, seat, public)
            assert view == Observation.of(state, seat).to_json()
            assert observation_json(state, seat, public, share=True) == view
            view["discard_pile"].append("XX")  # the result shares nothing with the public view
            view["pending"]["seat"] = -1
            view["options"]["players"] = 0
            checked += 1
        assert public == Observation.of(state, None).to_json()
    assert state.is_over() and checked > 100


@settings(max_examples=40, deadline=None)
@given(spec=game_specs(single_round=False))
def test_the_public_view_made_from_the_one_before_is_the_public_view(spec: GameSpec) -> None:
    # PublicJSON.of makes each view from the previous one, reusing what did not change: it must equal the view
    # made afresh after every action (reshuffles, new rounds, the game's end), and never change one handed out.
    state = spec.new_state()
    views = PublicJSON()
    handed_out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    previous = views.of(state)
    for _ in drive(state, random.Random(spec.seed), spec):
        view = views.of(state)
        assert view == observation_json(state, None)
        differ = sorted(key for key, value in view.items() if value != previous[key])
        assert sorted(views.changes(previous) or ()) == differ  # (the keys that changed, as the view knows them)
        assert views.changes(view) == []
        if view is not previous:
            for key, value in view.items():  # what did not change is the very same object
                if value == previous[key] and isinstance(value, (list, dict)):
                    assert value is previous[key], key
        if len(handed_out) < 50:
            handed_out.append((view, copy.deepcopy(view)))
        previous = view
    assert all(view == snapshot for view, snapshot in handed_out)
    # A new game starts afresh.
    other = GameState.new(spec.options, spec.seed + 1)
    assert views.of(other) == observation_json(other, None)
