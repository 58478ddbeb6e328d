"""The fake clock the server tests run on."""

from __future__ import annotations

import asyncio

import pytest

from royal_revenge.server.hub import FakeClock

pytestmark = pytest.mark.anyio


async def test_a_sleep_counts_from_the_moment_it_is_asked_for() -> None:
    """The hub computes a delay and sleeps in one step; if the clock moves before the sleeping task first
    runs, the wake-up must not come late (it did: the scheduler then missed deadlines and tables stalled)."""
    clock = FakeClock(100.0)
    sleeper = asyncio.ensure_future(clock.sleep(5))
    await clock.advance(10)  # no chance for the sleeping task to run before the clock moves
    assert sleeper.done()
    assert clock.now() == 110.0


async def test_sleepers_wake_in_order_and_time_only_moves_forward() -> None:
    clock = FakeClock(0.0)
    woke: list[tuple[str, float]] = []

    async def nap(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.now()))

    tasks = [asyncio.create_task(nap(name, seconds)) for name, seconds in (("b", 3.0), ("a", 1.0), ("c", 7.0))]
    await asyncio.sleep(0)
    await clock.advance(5)
    assert woke == [("a", 1.0), ("b", 3.0)]
    await clock.advance(5)
    assert woke[-1] == ("c", 7.0) and clock.now() == 10.0
    await asyncio.gather(*tasks)
    assert clock.sleep(0).done()  # nothing to wait for
