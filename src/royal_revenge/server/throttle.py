"""Per-address limits: how often one client address may create, look up and join tables.

The counting is the ``limits`` library's (sliding-window counters kept in this process's memory),
the library slowapi wraps; it is used directly because the limits here are not one per route:
a lookup that finds no table counts against a stricter budget than one that does, and WebSocket
connections (raw ASGI, ``SocketRoute``) are counted by the same rules as HTTP requests.

The numbers and why they are what they are: ``docs/protocol.md`` (Rate limits).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter

from ..session import TableError
from .protocol import error_message

__all__ = ["DEFAULT_LIMITS", "LIFTED", "RATE_LIMITED_CLOSE", "Limits", "RateLimited", "Throttle", "address_of",
           "refuse_socket"]

RATE_LIMITED_CLOSE: Final = 4429
"""The WebSocket close code after a ``rate_limited`` error (as HTTP 429)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The per-address limits of one server process (``limits`` notation: ``"10/minute;30/hour"``; empty: none)."""

    create: str = "10/minute;30/hour"
    """New tables."""
    join: str = "30/minute;120/hour"
    """Seats taken (``POST /api/tables/{code}/join``)."""
    lookup: str = "120/minute"
    """``GET /api/tables/{code}``, ``/record`` and ``/replay``, found or not."""
    miss: str = "10/minute;60/hour"
    """Lookups of a code that names no table (HTTP 404, WebSocket close 4404): once spent, every lookup waits."""
    chat: str = "5/10 seconds"
    """Chat lines and reactions of one seat at a table (or one spectator's connection): counted per seat, not per
    address."""
    tables_per_address: int = 20
    """Tables one address may have open in the server's memory at once (see ``Hub``: idle tables are let go)."""
    lobby_idle_seconds: float = 15 * 60.0
    playing_idle_seconds: float = 30 * 60.0
    finished_idle_seconds: float = 5 * 60.0
    """How long a table with nobody connected and no move stays in memory, by phase (then the database keeps it)."""


DEFAULT_LIMITS = Limits()
"""The limits a server gets unless told otherwise (the tests' harness lifts the rate limits here)."""

LIFTED: Final = Limits(create="", join="", lookup="", miss="", chat="", tables_per_address=1_000_000_000)
"""No rate limits and no bound on live tables per address (``serve --no-rate-limits``: load tests); idle tables
are still let go."""


class RateLimited(Exception):
    """An address went over one of its limits: answered 429 with ``Retry-After`` (seconds)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_MESSAGES: Final = {
    "create": "too many new tables from your address; please wait a little",
    "join": "too many seats taken from your address; please wait a little",
    "lookup": "too many requests from your address; please wait a little",
    "miss": "too many tries at table codes that do not exist; please wait and check the code",
    "chat": "You are sending messages too fast; wait a moment",
}


class Throttle:
    """Counts each address's requests against :class:`Limits` (one per server process)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._limiter = SlidingWindowCounterRateLimiter(MemoryStorage())
        self._items: dict[str, list[RateLimitItem]] = {
            kind: parse_many(text) if text else [] for kind, text in
            (("create", limits.create), ("join", limits.join), ("lookup", limits.lookup), ("miss", limits.miss),
             ("chat", limits.chat))}

    async def hit(self, kind: str, address: str) -> None:
        """Count one ``kind`` of request (``create``, ``join``) from ``address``; :class:`RateLimited` if over."""
        await self._refuse_if_spent(kind, address)
        for item in self._items[kind]:
            await self._limiter.hit(item, kind, address)

    async def chat_line(self, key: str) -> None:
        """Count one chat line or reaction of ``key`` (a seat at a table, or a spectator's connection);
        :class:`RateLimited` (and nothing counted) if it is over :attr:`Limits.chat`."""
        await self._refuse_if_spent("chat", key)
        for item in self._items["chat"]:
            await self._limiter.hit(item, "chat", key)

    async def lookup(self, address: str) -> None:
        """Count a lookup of a table; refused while the address has spent its lookups of unknown codes."""
        await self.refuse_if_missing_too_often(address)
        await self.hit("lookup", address)

    async def refuse_if_missing_too_often(self, address: str) -> None:
        """:class:`RateLimited` while the address has spent its lookups of unknown codes (counts nothing)."""
        await self._refuse_if_spent("miss", address)

    async def missed(self, address: str) -> None:
        """Count a lookup that found no table."""
        for item in self._items["miss"]:
            await self._limiter.hit(item, "miss", address)

    async def _refuse_if_spent(self, kind: str, address: str) -> None:
        # Every window is tested before any is counted: a refused request counts against none of them.
        for item in self._items[kind]:
            if not await self._limiter.test(item, kind, address):
                stats = await self._limiter.get_window_stats(item, kind, address)
                raise RateLimited(_MESSAGES[kind], max(1, math.ceil(stats.reset_time - time.time())))


def address_of(scope: Mapping[str, Any]) -> str:
    """The client's address, ``request.client.host`` (behind a trusted proxy, uvicorn's ``--proxy-headers`` and
    ``--forwarded-allow-ips`` put the forwarded address here)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def refuse_socket(scope: dict[str, Any], receive: Any, send: Any, code: str) -> bool:
    """Before a WebSocket connection to table ``code`` is served: if its address has spent its lookups of
    unknown codes, answer ``rate_limited``, close with :data:`RATE_LIMITED_CLOSE` and return ``True``; if the
    code names no table, count the miss (the connection is then answered ``no_table`` as before)."""
    app = scope["app"]
    throttle: Throttle = app.state.throttle
    address = address_of(scope)
    try:
        await throttle.refuse_if_missing_too_often(address)
    except RateLimited as limited:
        opening = await receive()
        if opening["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": error_message("rate_limited", str(limited))})
            await send({"type": "websocket.close", "code": RATE_LIMITED_CLOSE})
        return True
    try:
        await app.state.hub.get(code)
    except TableError as error:
        if error.code == "no_table":
            await throttle.missed(address)
    return False
