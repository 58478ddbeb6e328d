"""What drives tables live: the host's commands (:func:`host_command`) and the loop that sleeps until a table's
next deadline and has it ticked (:class:`TableRunner`), shared by the server's hub (every table of the process)
and the terminal's local client (its one table).

The tables never read a clock (:mod:`.table`); the runner does, through an injectable
:class:`~royal_revenge.clock.Clock` (tests move a :class:`~royal_revenge.clock.FakeClock` by hand).
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Awaitable, Callable

from ..clock import Clock, sleep_or_wake
from .settings import TableError
from .table import Table

__all__ = ["HOST_COMMANDS", "TableRunner", "host_command"]

HOST_COMMANDS = ("add_bot", "remove", "start", "rematch", "mute", "unmute")
"""The commands only a table's host may give (a ``host`` message's ``command``)."""


def host_command(table: Table, token: str | None, command: str, now: float, *, level: str | None = None,
                 seat: int | None = None) -> int:
    """Carry out a host's command at ``table``: add a bot (of ``level``, in ``seat`` or the first open seat),
    remove or kick the one in ``seat``, mute or unmute the person in ``seat``, start, or rematch. Returns the
    table's version after it; refused in plain words (:class:`TableError`)."""
    if command == "add_bot":
        table.add_bot(token, level or "normal", now, seat)
    elif command == "remove":
        if seat is None:
            raise TableError("bad_request", "Choose the seat to free")
        table.remove(token, seat, now)
    elif command in ("mute", "unmute"):
        if seat is None:
            raise TableError("bad_request", f"Choose whom to {command}")
        table.mute(token, seat, command == "mute", now)
    elif command == "start":
        table.start(token, now)
    elif command == "rematch":
        table.rematch(token, now)
    else:
        raise TableError("bad_message", f"unknown host command {command!r}")
    return table.version


class TableRunner:
    """Sleeps until the earliest deadline of the tables it is given (:meth:`arm`) and, when one is due, calls
    ``tick(key, table)`` (which ticks the table, commits and sends what changed, and arms it again).

    ``tables(key)`` finds a table by its key (``None``: gone, it is skipped). The heap holds at most one entry
    per table that counts: a later deadline leaves the earlier entry in place, and when it comes up the table is
    armed again for its real deadline. (Most moves push a table's decision clock later; pushing an entry for
    every one filled the heap with tens of thousands of dead entries under load.)
    """

    def __init__(self, clock: Clock, tables: Callable[[str], Table | None],
                 tick: Callable[[str, Table], Awaitable[None]]) -> None:
        self.clock = clock
        self._tables = tables
        self._tick = tick
        self._heap: list[tuple[float, str]] = []
        self._armed: dict[str, float] = {}
        self._wake = asyncio.Event()

    def arm(self, key: str, table: Table) -> None:
        """Make sure ``table`` (known by ``key``) is looked at by its next deadline."""
        deadline = table.next_deadline()
        if deadline is None:
            return  # (an entry already on the heap finds nothing due when it comes up)
        armed = self._armed.get(key)
        if armed is not None and armed <= deadline:
            return
        self._armed[key] = deadline
        heapq.heappush(self._heap, (deadline, key))
        if self._heap[0] == (deadline, key):
            self._wake.set()

    def rearm(self, key: str, table: Table) -> None:
        """:meth:`arm`, even at the deadline it is armed for already (its entry was used up)."""
        self._armed.pop(key, None)
        self.arm(key, table)

    @property
    def entries(self) -> list[tuple[float, str]]:
        """The heap's entries, ``(deadline, key)``, the earliest first (for diagnostics)."""
        return self._heap

    def forget(self, key: str) -> None:
        """Stop looking at a table (its heap entry is skipped when it comes up)."""
        self._armed.pop(key, None)

    async def run(self) -> None:
        """The loop (a task: cancel it to stop)."""
        clock, heap, armed = self.clock, self._heap, self._armed
        while True:
            self._wake.clear()
            if not heap:
                await self._wake.wait()
                continue
            when, key = heap[0]
            delay = when - clock.now()
            if delay > 0:
                await sleep_or_wake(clock, delay, self._wake)
                continue
            heapq.heappop(heap)
            if armed.get(key) != when:
                continue  # superseded by an earlier deadline
            del armed[key]
            table = self._tables(key)
            if table is None:
                continue
            deadline = table.next_deadline()
            if deadline is None or deadline > clock.now():
                self.arm(key, table)
                continue
            await self._tick(key, table)
