"""The generator's two ways of computing the same SplitMix64 stream (64-bit integers, 32-bit halves)."""

from __future__ import annotations

import random

import pytest

from royal_revenge.engine import FULL_DECK, GameOptions, GameState
from royal_revenge.engine import rng as engine_rng

MASK64 = (1 << 64) - 1


def reference_shuffle(rng: int, cards: list[int]) -> int:
    """The shuffle as written in 64-bit arithmetic (GameState._shuffle, interpreted); returns the new state."""
    state = rng
    z = left = 0
    for i in range(len(cards) - 1, 0, -1):
        if not left:
            state = (state + 0x9E3779B97F4A7C15) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            left = 3
        z *= i + 1
        j = z >> 64
        z &= MASK64
        left -= 1
        cards[i], cards[j] = cards[j], cards[i]
    return state


EDGE_STATES = [0, 1, MASK64, 1 << 63, (1 << 32) - 1, 1 << 32, 0x9E3779B97F4A7C15, MASK64 - 0x9E3779B97F4A7C15]


@pytest.mark.parametrize("rng", EDGE_STATES)
def test_halves_match_the_64_bit_arithmetic_at_the_edges(rng: int) -> None:
    for size in range(60):
        expected = list(range(size))
        got = list(range(size))
        assert engine_rng._shuffle_halves(rng, got) == reference_shuffle(rng, expected)
        assert got == expected


def test_halves_match_the_64_bit_arithmetic_at_random() -> None:
    draw = random.Random(20261201)
    for _ in range(3000):
        rng = draw.getrandbits(64)
        size = draw.randrange(60)
        expected = list(range(size))
        got = list(range(size))
        assert engine_rng._shuffle_halves(rng, got) == reference_shuffle(rng, expected)
        assert got == expected


def test_the_state_shuffles_as_the_reference() -> None:
    """Whichever way this build computes it (compiled: the halves), a state's shuffle is the reference."""
    state = GameState.new(GameOptions(players=4), seed=3)
    for seed in (0, 1, 2**64 - 1, 12345678901234567):
        state.rng = seed
        cards = list(FULL_DECK)
        expected = list(FULL_DECK)
        state._shuffle(cards)
        assert state.rng == reference_shuffle(seed, expected)
        assert cards == expected


def reference_rand_below(rng: int, bound: int) -> tuple[int, int]:
    """GameState._rand_below in 64-bit arithmetic: (new state, value)."""
    state = (rng + 0x9E3779B97F4A7C15) & MASK64
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    return state, (z * bound) >> 64


def test_rand_below_halves_match_the_64_bit_arithmetic() -> None:
    draw = random.Random(7)
    bounds = [1, 2, 3, 6, 7, 56, 1000, (1 << 16) + 1, (1 << 30) - 1]
    for rng in EDGE_STATES + [draw.getrandbits(64) for _ in range(2000)]:
        for bound in bounds:
            assert engine_rng._rand_below_halves(rng, bound) == reference_rand_below(rng, bound)


def test_the_state_draws_as_the_reference() -> None:
    state = GameState.new(GameOptions(players=4), seed=3)
    for seed in (0, 1, 2**64 - 1, 12345678901234567):
        for bound in (1, 6, 7, 1 << 29, 1 << 30, 1 << 40):
            state.rng = seed
            expected_state, expected = reference_rand_below(seed, bound)
            assert state._rand_below(bound) == expected
            assert state.rng == expected_state


def test_the_stream_is_splitmix64() -> None:
    """The published first outputs of SplitMix64 for seed 1234567 (Vigna's reference splitmix64.c)."""
    generator = engine_rng.SplitMix64(1234567)
    assert [generator.next64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_the_table_uses_the_engine_generator() -> None:
    """One SplitMix64 for every layer: the session table's generator is the engine's."""
    from royal_revenge.session import Table, TableSettings, schedule

    assert schedule.SplitMix64 is engine_rng.SplitMix64  # (the table's clocks and bots draw from it)
    assert type(Table.open(TableSettings(), seed=1).scheduler.rng) is engine_rng.SplitMix64
