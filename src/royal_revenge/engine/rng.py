"""SplitMix64: the one seeded generator of the whole project (the engine's shuffles and draws,
the tables' scepter delays and bot seeds).

Its whole state is one 64-bit integer, so a game's or a table's generator is saved as a
single number. The stream is Steele, Lea and Flood's SplitMix64 (2014): add the golden gamma,
then mix.

>>> rng = SplitMix64(7)
>>> [rng.below(6) for _ in range(5)]
[2, 0, 5, 3, 2]
>>> state, value = rand_below(7, 6)
>>> value, state == SplitMix64(7).advanced(1).state
(2, True)

The functions work on the state as a number and return the new one, for callers that keep
the state in a field of their own (:class:`~royal_revenge.engine.GameState` does).
:func:`shuffle` and :func:`rand_below` are the reference arithmetic; compiled with mypyc they
run the same arithmetic on 32-bit halves, which stays in machine words (see
:func:`_mix_halves`; tests/engine/test_rng.py checks both forms give the same numbers).
"""

from __future__ import annotations

from types import FunctionType
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mypy_extensions import i64  # (compiled: a machine word; only annotations use it)

__all__ = ["SplitMix64", "MASK64", "next_output", "rand_below", "shuffle"]

MASK64: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15


def next_output(state: int) -> tuple[int, int]:
    """One step of the stream: (the new state, a 64-bit output)."""
    state = (state + _GAMMA) & MASK64
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def rand_below(state: int, bound: int) -> tuple[int, int]:
    """A uniform integer in ``[0, bound)``: (the new state, the integer), by one multiply (Lemire)."""
    if _COMPILED and 0 < bound < 1 << 30:
        return _rand_below_halves(state, bound)
    state, z = next_output(state)
    return state, (z * bound) >> 64


def shuffle(state: int, cards: list[Any]) -> int:
    """Fisher-Yates in place; returns the new state. Each output serves three swaps.

    An index below ``bound`` is the high part of ``z * bound``, and the low 64 bits carry on as
    a fresh fraction for the next swap (bias below 2**-40 for three indices of at most 56).
    """
    if _COMPILED:
        return _shuffle_halves(state, cards)
    z = left = 0
    for i in range(len(cards) - 1, 0, -1):
        if not left:
            state, z = next_output(state)
            left = 3
        z *= i + 1
        j = z >> 64
        z &= MASK64
        left -= 1
        cards[i], cards[j] = cards[j], cards[i]
    return state


class SplitMix64:
    """The generator as an object, for code that keeps it in one place (a table, a bot)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next64(self) -> int:
        self.state, value = next_output(self.state)
        return value

    def getrandbits(self, bits: int) -> int:
        """``bits`` (1 to 64) random bits."""
        return self.next64() >> (64 - bits)

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``."""
        self.state, value = rand_below(self.state, bound)
        return value

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * (self.getrandbits(53) / (1 << 53))

    def shuffle(self, cards: list[Any]) -> None:
        self.state = shuffle(self.state, cards)

    def advanced(self, steps: int) -> SplitMix64:
        """A copy moved on by ``steps`` outputs."""
        other = SplitMix64(self.state)
        for _ in range(steps):
            other.next64()
        return other


# ---------------------------------------------------------------------- the compiled form
# The same arithmetic with every 64-bit value a pair of 32-bit halves and every product a half
# times a 16-bit part of a constant (below 2**48): compiled, it stays in machine words (``i64``,
# which never overflows here), where the 64-bit arithmetic makes a Python integer at almost every
# operation. Interpreted, the three times as many operations are slower, so it is used compiled only.


def _mix_halves(s_hi: i64, s_lo: i64) -> tuple[i64, i64, i64, i64]:
    """:func:`next_output` on halves: the new state (high, low) and the output (high, low)."""
    m32: i64 = 0xFFFFFFFF
    # state = (state + gamma) mod 2**64
    s_lo += 0x7F4A7C15
    s_hi = (s_hi + 0x9E3779B9 + (s_lo >> 32)) & m32
    s_lo &= m32
    # z = state ^ (state >> 30)
    lo: i64 = s_lo ^ (((s_hi << 2) | (s_lo >> 30)) & m32)
    hi: i64 = s_hi ^ (s_hi >> 30)
    # z = z * 0xBF58476D_1CE4E5B9 mod 2**64: the low half times the low word (in 16-bit parts),
    # plus the cross products mod 2**32 in the high half
    a: i64 = lo * 0xE5B9
    b: i64 = lo * 0x1CE4
    t: i64 = (a & m32) + ((b & 0xFFFF) << 16)
    hi = (
        (a >> 32)
        + (b >> 16)
        + (t >> 32)
        + hi * 0xE5B9
        + (((hi * 0x1CE4) & 0xFFFF) << 16)
        + lo * 0x476D
        + (((lo * 0xBF58) & 0xFFFF) << 16)
    ) & m32
    lo = t & m32
    # z ^= z >> 27
    lo ^= ((hi << 5) | (lo >> 27)) & m32
    hi ^= hi >> 27
    # z = z * 0x94D049BB_133111EB mod 2**64
    a = lo * 0x11EB
    b = lo * 0x1331
    t = (a & m32) + ((b & 0xFFFF) << 16)
    hi = (
        (a >> 32)
        + (b >> 16)
        + (t >> 32)
        + hi * 0x11EB
        + (((hi * 0x1331) & 0xFFFF) << 16)
        + lo * 0x49BB
        + (((lo * 0x94D0) & 0xFFFF) << 16)
    ) & m32
    lo = t & m32
    # z ^= z >> 31
    return s_hi, s_lo, hi ^ (hi >> 31), lo ^ (((hi << 1) | (lo >> 31)) & m32)


def _shuffle_halves(rng: int, cards: list[Any]) -> int:
    """:func:`shuffle` on halves; returns the new state."""
    m32: i64 = 0xFFFFFFFF
    s_hi: i64 = rng >> 32
    s_lo: i64 = rng & 0xFFFFFFFF
    z_hi: i64 = 0
    z_lo: i64 = 0
    left: i64 = 0
    i: i64 = len(cards) - 1
    while i > 0:
        if left == 0:
            s_hi, s_lo, z_hi, z_lo = _mix_halves(s_hi, s_lo)
            left = 3
        # z *= i + 1; j = z >> 64; z mod 2**64 carries on
        low: i64 = z_lo * (i + 1)
        high: i64 = z_hi * (i + 1) + (low >> 32)
        j: i64 = high >> 32
        z_hi = high & m32
        z_lo = low & m32
        left -= 1
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1
    return (int(s_hi) << 32) | int(s_lo)


def _rand_below_halves(rng: int, bound: int) -> tuple[int, int]:
    """:func:`rand_below` on halves, for ``0 < bound < 2**30``: (new state, value)."""
    s_hi, s_lo, z_hi, z_lo = _mix_halves(rng >> 32, rng & 0xFFFFFFFF)
    m: i64 = bound
    high: i64 = z_hi * m + ((z_lo * m) >> 32)
    return (int(s_hi) << 32) | int(s_lo), int(high >> 32)


# Whether this module runs compiled (mypyc): its functions are then built-in functions.
_COMPILED: Final = not isinstance(_mix_halves, FunctionType)
