"""Clocks for the real-time layers: the wall clock, or a fake one that tests move by hand.

The tables themselves never read a clock (every session method takes ``now``); the server's hub
and the terminal game's local client read one of these and sleep until the next deadline.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Awaitable
from typing import Protocol

__all__ = ["Clock", "FakeClock", "SystemClock", "sleep_or_wake"]


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> Awaitable[None]: ...


class SystemClock:
    """Wall-clock seconds (deadlines survive a restart)."""

    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class FakeClock:
    """A clock that moves only when :meth:`advance` is called (for tests)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.time = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._count = 0

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> asyncio.Future[None]:
        """Wake ``seconds`` after the time of this call.

        The sleeper is registered now, not when the awaiting task first runs: by then :meth:`advance`
        may have moved the time, and the wake-up would come late (the scheduler would miss deadlines).
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if seconds <= 0:
            future.set_result(None)
            return future
        self._count += 1
        heapq.heappush(self._sleepers, (self.time + seconds, self._count, future))
        return future

    async def advance(self, seconds: float) -> None:
        """Move time forward, waking sleepers in order and letting the loop run after each."""
        target = self.time + seconds
        while self._sleepers and self._sleepers[0][0] <= target:
            when, _, future = heapq.heappop(self._sleepers)
            self.time = max(self.time, when)
            if not future.done():
                future.set_result(None)
            for _ in range(20):
                await asyncio.sleep(0)
        self.time = target
        for _ in range(20):
            await asyncio.sleep(0)


async def sleep_or_wake(clock: Clock, seconds: float, wake: asyncio.Event) -> None:
    """Sleep ``seconds`` on ``clock``, or less if ``wake`` is set first (a new, earlier deadline)."""
    sleeper = asyncio.ensure_future(clock.sleep(seconds))
    waker = asyncio.ensure_future(wake.wait())
    try:
        await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sleeper.cancel()
        waker.cancel()
