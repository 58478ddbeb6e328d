"""Property tests over thousands of random games: every player count, every option, fanfares and
out-of-turn UNO calls and catches injected at random moments (see ``randomplay``)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from royal_revenge.engine import (
    FULL_DECK,
    Card,
    Decision,
    Game,
    GameRecord,
    GameState,
    Kind,
    Observation,
    Scoring,
    state_digest,
    state_from_json,
    state_to_json,
)

from .randomplay import GameSpec, drive, game_specs

SORTED_DECK = sorted(FULL_DECK)
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def card_points(card: Card) -> int:
    """R-DECK-2, written out again: face value, 20 for a symbol, 50 for a Wild."""
    if card.kind is Kind.WILD:
        return 50
    if card.kind is Kind.NUMBER:
        assert card.number is not None
        return card.number
    return 20


def deck_is_whole(state: GameState) -> bool:
    cards = [*state.draw_pile, *state.discard]
    for hand in state.hands:
        cards += hand
    return sorted(cards) == SORTED_DECK


def check_round_end(state: GameState, before_scores: list[int]) -> None:
    """(d) The round just ended: points, scores and outcome are exactly what R-SCORE says."""
    n = state.players
    options = state.options
    result = state.last_round
    assert result is not None and result.round_no == state.round_no
    hand_points = tuple(sum(card_points(card) for card in hand) for hand in state.hands)
    assert result.hand_points == hand_points
    winner = result.winner
    if result.blocked:
        # R-TURN-6: nothing could be drawn and everyone passed; fewest points wins, ties to who plays soonest.
        assert not state.draw_pile and len(state.discard) == 1
        assert state.passes == (1 << n) - 1
        fewest = min(hand_points)
        order = [(state.current + state.direction * k) % n for k in range(1, n + 1)]
        assert winner == next(seat for seat in order if hand_points[seat] == fewest)
    else:
        assert state.hands[winner] == []
        assert all(state.hands[seat] for seat in range(n) if seat != winner)
    assert result.points == sum(hand_points) - hand_points[winner]
    if options.scoring is Scoring.STANDARD:
        expected = list(before_scores)
        expected[winner] += result.points
    else:
        expected = [before + own for before, own in zip(before_scores, hand_points, strict=True)]
    assert state.scores == expected
    target = options.target_score
    if state.decision is Decision.GAME_OVER:
        outcome = state.outcome()
        assert outcome is not None and outcome.scores == tuple(state.scores)
        if options.scoring is Scoring.STANDARD:
            assert options.single_round or state.scores[winner] >= target
            assert outcome.winners == (winner,)
        else:
            assert options.single_round or max(state.scores) >= target
            lowest = min(state.scores)
            assert outcome.winners == tuple(s for s in range(n) if state.scores[s] == lowest)
    else:
        assert state.decision is Decision.ROUND_OVER and state.outcome() is None
        assert not options.single_round and max(state.scores) < target
        assert state.decider is None and state.uno_seat is None and not state.scepter_running


def check_new_round(state: GameState, king: int, dealer: int, round_no: int) -> None:
    n = state.players
    assert state.round_no == round_no + 1
    assert state.king == (king + 1) % n and state.dealer == (dealer + 1) % n  # R-KING-4, R-SCORE-2
    assert [len(hand) for hand in state.hands] == [7] * n
    assert len(state.discard) == 1 and len(state.draw_pile) == 56 - 7 * n - 1
    assert state.pending == (Decision.JESTER, state.king)


# ---------------------------------------------------------------- (a) (c) (d) (g): the invariants


@settings(SETTINGS, max_examples=1500)
@given(spec=game_specs())
def test_random_games_keep_the_invariants(spec: GameSpec) -> None:
    """Cards always 56, rounds always end, scores add up, the decider always has a legal action."""
    state = spec.new_state()
    rng = random.Random(spec.seed)
    assert deck_is_whole(state)
    scores = list(state.scores)
    king, dealer, round_no = state.king, state.dealer, state.round_no
    playing = True
    rounds = 0
    for seat, _action in drive(state, rng, spec):
        assert deck_is_whole(state)
        if state.decision >= Decision.ROUND_OVER:
            if playing:
                check_round_end(state, scores)
                king, dealer, round_no = state.king, state.dealer, state.round_no
                rounds += 1
                playing = False
        elif not playing:
            assert seat is None
            check_new_round(state, king, dealer, round_no)
            scores = list(state.scores)
            playing = True
        else:
            assert state.scores == scores
            if state.uno_seat is None:
                assert all(not state.legal_actions(s) for s in range(state.players) if s != state.decider)
    assert state.is_over() and rounds == state.round_no
    assert state.legal_actions(None) == []
    assert all(state.legal_actions(seat) == [] for seat in range(state.players))


def test_hoarding_games_end_blocked() -> None:
    """The hoarding policy reaches the stalemate of R-TURN-6, so the properties above cover it."""
    from royal_revenge.engine import GameOptions

    blocked = 0
    for seed in range(12):
        spec = GameSpec(GameOptions(players=2 + seed % 5, single_round=True), seed, "hoard", 0.0, 0.5)
        state = spec.new_state()
        for _ in drive(state, random.Random(seed), spec):
            pass
        assert state.last_round is not None
        blocked += state.last_round.blocked
        check_round_end(state, [0] * state.players)
    assert blocked >= 6


# ---------------------------------------------------------------- (f) (g): copies, JSON, every legal action


@settings(SETTINGS, max_examples=40)
@given(spec=game_specs(policies=("eager", "hoard")))
def test_copies_json_and_every_legal_action_at_every_step(spec: GameSpec) -> None:
    state = spec.new_state()
    rng = random.Random(spec.seed ^ 1)
    steps = 0
    for _move in drive(state, rng, spec):
        steps += 1
        snapshot = state_to_json(state)
        # (f) a copy is equal; the JSON round trip (through text) is equal.
        assert state.copy() == state
        assert state_from_json(json.loads(json.dumps(snapshot))) == state
        # (g) every listed action of every seat and of the table is accepted by a copy, which stays
        # independent of the original.
        for seat in [None, *range(state.players)]:
            for action in state.legal_actions(seat):
                other = state.copy()
                other.apply(seat, action)
                assert deck_is_whole(other)
        assert state_to_json(state) == snapshot
    assert steps > 0


def test_a_copy_is_independent() -> None:
    state = GameState.new(seed=12)
    state.apply(state.decider, state.legal_actions(state.decider)[0])
    snapshot = state_to_json(state)
    other = state.copy()
    assert other == state and other is not state and state_to_json(other) == snapshot
    other.hands[0].append(other.draw_pile.pop())
    other.discard.append(other.hands[1].pop())
    other.scores[2] += 5
    while other.decision < Decision.ROUND_OVER:
        other.apply(other.decider, other.legal_actions(other.decider)[-1])
    assert state_to_json(state) == snapshot and other != state


# ---------------------------------------------------------------- (e): replay


@settings(SETTINGS, max_examples=40)
@given(spec=game_specs())
def test_replay_reproduces_every_state(spec: GameSpec) -> None:
    game = Game.new(spec.options, spec.seed)
    states = [state_to_json(game.state)]
    for _move in drive(game.state, random.Random(spec.seed), spec, game.apply):
        states.append(state_to_json(game.state))
    record = GameRecord.loads(game.record().dumps())
    assert record.to_json() == game.record().to_json()
    assert record.final_digest == state_digest(game.state)
    assert len(record.moves) == len(states) - 1
    # Move by move, the replay passes through the identical states.
    replayed = GameState.new(record.options, record.seed, ages=record.ages, first_king=record.first_king)
    assert state_to_json(replayed) == states[0]
    for index, move in enumerate(record.moves):
        replayed.apply(move.seat, move.action)
        assert state_to_json(replayed) == states[index + 1], f"replay differs after move {index + 1} ({move})"
    assert replayed == game.state
    assert record.replay() == game.state
    assert Game.from_record(record).state == game.state


@settings(SETTINGS, max_examples=25)
@given(spec=game_specs())
def test_same_seed_and_actions_give_identical_states(spec: GameSpec) -> None:
    """Run the same random game twice (once with events, once without): bit-identical states."""
    first = spec.new_state()
    trace = [state_to_json(first)]
    moves = []
    for move in drive(first, random.Random(spec.seed), spec, first.apply):
        moves.append(move)
        trace.append(state_to_json(first))
    second = spec.new_state()
    assert state_to_json(second) == trace[0]
    for index, (seat, action) in enumerate(moves):
        second.step(seat, action)
        assert state_to_json(second) == trace[index + 1]
    # The driver's own choices are reproducible too.
    third = spec.new_state()
    assert list(drive(third, random.Random(spec.seed), spec)) == moves


# ---------------------------------------------------------------- (b): observations hide what they must


def hidden_variant(state: GameState, seat: int | None, rng: random.Random) -> GameState:
    """The same state with everything ``seat`` cannot see changed: other hands, the draw pile's order,
    the scepter's schedule and the generator."""
    other = state.copy()
    others = [s for s in range(state.players) if s != seat]
    pool = [card for s in others for card in state.hands[s]] + state.draw_pile
    rng.shuffle(pool)
    for s in others:
        size = len(state.hands[s])
        other.hands[s] = pool[:size]
        del pool[:size]
    other.draw_pile = pool
    if state.decision is Decision.DRAWN and state.decider != seat:
        assert state.decider is not None
        other.drawn = other.hands[state.decider][-1]
    if state.scepter_left is not None:
        other.scepter_left = rng.randint(1, 50)
    other.rng = rng.getrandbits(64)
    return other


HIDDEN_FIELDS = {"hands", "draw_pile", "rng", "scepter_left", "draw_pile_order"}


def test_observation_has_no_hidden_field() -> None:
    fields = set(Observation.__dataclass_fields__)
    assert not fields & HIDDEN_FIELDS
    state = GameState.new(seed=1)
    assert not set(state.observe(0).to_json()) & HIDDEN_FIELDS


@settings(SETTINGS, max_examples=40)
@given(spec=game_specs(policies=("eager", "eager", "hoard"), single_round=True))
def test_observations_reveal_no_hidden_card(spec: GameSpec) -> None:
    state = spec.new_state()
    rng = random.Random(spec.seed)
    variant_rng = random.Random(spec.seed + 1)
    seats: list[int | None] = [None, *range(state.players)]
    for _move in drive(state, rng, spec):
        json_seat = variant_rng.choice(seats)
        for seat in seats:
            obs = state.observe(seat)
            assert obs.seat == seat
            assert obs.hand == (tuple(state.hands[seat]) if seat is not None else ())
            assert obs.hand_sizes == tuple(len(hand) for hand in state.hands)
            drawer = state.decision is Decision.DRAWN and state.decider == seat
            assert obs.drawn == (state.drawn if drawer else None)
            variant = hidden_variant(state, seat, variant_rng)
            assert variant.observe(seat) == obs
            if seat == json_seat:  # the JSON is a function of the fields; check it on one seat a step
                assert variant.observe(seat).to_json() == obs.to_json()


# ---------------------------------------------------------------- (h): determinization


@settings(SETTINGS, max_examples=40)
@given(spec=game_specs(policies=("eager", "eager", "hoard"), single_round=True), k=st.integers(0, 2**32))
def test_sampled_states_agree_with_their_observation(spec: GameSpec, k: int) -> None:
    """Every step, one seat (or the spectator) samples a determinization; every third step, in depth."""
    state = spec.new_state()
    rng = random.Random(spec.seed)
    sample_rng = random.Random(k)
    seats: list[int | None] = [None, *range(state.players)]
    for step, _move in enumerate(drive(state, rng, spec)):
        seat = sample_rng.choice(seats)
        obs = state.observe(seat)
        sample = obs.sample_state(sample_rng)
        assert deck_is_whole(sample)
        assert sample.observe(seat) == obs
        if seat is not None:
            assert sample.legal_actions(seat) == state.legal_actions(seat)
        assert sample.legal_actions(None) == state.legal_actions(None)
        if step % 3 == 0:
            assert sample.observe(seat).to_json() == obs.to_json()
            assert state_from_json(state_to_json(sample)) == sample  # a consistent state
            if sample.decision < Decision.ROUND_OVER:
                decider = sample.decider
                assert decider is not None
                legal = sample.legal_actions(decider)
                assert legal
                sample.apply(decider, sample_rng.choice(legal))  # and a playable one
