"""Clocks for the local table: the wall clock, or a fake one that tests move by hand.

The same shape as :class:`royal_revenge.server.hub.Clock` (either kind works in both places);
kept here so that the terminal game does not import the server's web stack.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from typing import Protocol

__all__ = ["Clock", "FakeClock", "SystemClock"]


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Wall-clock seconds."""

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

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._count += 1
        heapq.heappush(self._sleepers, (self.time + seconds, self._count, future))
        await future

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
