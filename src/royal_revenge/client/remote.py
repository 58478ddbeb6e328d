"""A seat at a table on a running server: join over HTTP, then the WebSocket protocol.

The messages sent are exactly the browser's (``docs/protocol.md``); the connection is
re-opened with a growing delay (0.5 s doubling to 10 s) when it drops, and the server sends a
full snapshot on every (re)connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import Any, Final
from urllib.parse import urlsplit

from ..session.table import display_code, normalize_code
from .base import BaseClient, ClientError
from .seats import SeatStore

__all__ = ["DEFAULT_SERVER", "RemoteClient", "parse_join_target"]

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"
_CODE: Final = re.compile(r"^[A-Z0-9]{4,16}$")
"""A table code once its grouping dashes and spaces are dropped (:func:`normalize_code`)."""
_TABLE_PATH: Final = re.compile(r"^/t/([^/]+)/?$")
_FATAL_CLOSE: Final = {4400: "the server does not speak this client's protocol (update the game)",
                        4403: "your seat token is not valid at this table any more", 4404: "there is no such table",
                        4409: "this seat was opened on another connection (another window or device)",
                        4429: "too many tries from your address; wait a minute and try again"}
"""Close codes after which reconnecting cannot help (docs/protocol.md)."""
CLOSE_MOVED: Final = 4307
"""The close code of a table that moved to another process of a cluster: reconnect at once (docs/protocol.md)."""


def parse_join_target(target: str, server: str = DEFAULT_SERVER) -> tuple[str, str]:
    """The server's base URL and the table's code, from an invite link or a bare code (grouped or not, any case).

    >>> parse_join_target("http://example.org:8000/t/abcd23")
    ('http://example.org:8000', 'ABCD23')
    >>> parse_join_target("k7qmp-wxab3", "http://127.0.0.1:9000/")
    ('http://127.0.0.1:9000', 'K7QMPWXAB3')
    """
    target = target.strip()
    if "://" in target:
        parts = urlsplit(target)
        match = _TABLE_PATH.match(parts.path)
        code = normalize_code(match.group(1)) if match is not None else ""
        if parts.scheme not in ("http", "https") or not parts.netloc or not _CODE.match(code):
            raise ClientError(f"{target!r} is not a table link (expected http://HOST:PORT/t/CODE)")
        return f"{parts.scheme}://{parts.netloc}", code
    code = normalize_code(target)
    if not _CODE.match(code):
        raise ClientError(f"{target!r} is not a table code (letters and digits, with or without dashes) "
                          "or a table link")
    parts = urlsplit(server.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"{server!r} is not a server address (expected http://HOST:PORT)")
    return f"{parts.scheme}://{parts.netloc}", code


class RemoteClient(BaseClient):
    """One seat at a server's table (or a spectator's place), over the same protocol as the browser.

    With ``seats`` (a :class:`SeatStore`), the seat's token is kept there once joined, and a later
    client for the same server and code goes back to that seat instead of asking for a new one
    (``returning`` is then true); a kept token the server refuses is forgotten. With ``watch`` the
    client never takes a seat: it says hello without a token and sees the spectator's view.
    """

    def __init__(self, base_url: str, code: str, name: str = "", age: int | None = None, *,
                 token: str | None = None, max_delay: float = 10.0, seats: SeatStore | None = None,
                 watch: bool = False) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.code = normalize_code(code)
        self.name = name
        self.age = age
        self.token = None if watch else token
        self.max_delay = max_delay
        self.seats = seats
        self.watching = watch
        """A spectator's connection: no seat, no hand, nothing to send but chat."""
        self.returning = False
        """The seat is one this person held before (its token came from :attr:`seats`)."""
        self.connected = False
        self._ws: Any = None
        self._task: asyncio.Task[None] | None = None
        self._first: asyncio.Future[None] | None = None

    @property
    def ws_url(self) -> str:
        """The table's WebSocket (the token goes in the hello message, never in the URL)."""
        scheme = "wss" if self.base_url.startswith("https") else "ws"
        host = self.base_url.split("://", 1)[1]
        return f"{scheme}://{host}/ws/{self.code}"

    @property
    def display_code(self) -> str:
        """The table's code as people read it (``K7QMP-WXAB3``)."""
        return display_code(self.code)

    async def start(self) -> None:
        """Take a seat (the one kept in :attr:`seats`, else a new one, unless a token was given or the
        client only watches), connect, and wait for the first snapshot.

        Raises :class:`ClientError`, with ``watch`` set when the table can be watched instead.
        """
        if self.watching:
            await self._connect()
            return
        if self.token is None and self.seats is not None:
            kept = self.seats.get(self.base_url, self.code)
            if kept is not None:
                self.token, self.returning = kept.token, True
        if self.token is None:
            await self._join()
        try:
            await self._connect()
        except ClientError as error:
            if not self.returning or error.close_code not in (4403, 4404):
                raise
            await self._seat_refused(error.close_code)

    async def _seat_refused(self, close_code: int | None) -> None:
        """The server refused the kept token: forget it, then take a new seat if the lobby has one, or say why not."""
        assert self.seats is not None
        self.seats.forget(self.base_url, self.code)
        self.token, self.returning = None, False
        where = f"table {self.display_code}"
        if close_code == 4404:
            raise ClientError(f"{where} at {self.base_url} is gone (it was closed or has ended long ago); "
                              "the seat kept for it is forgotten", close_code=close_code)
        view = await self._lookup()
        if view is not None and view.get("phase") == "lobby" and not view.get("closed"):
            await self._join()  # the seat was opened again in the lobby: take a new one
            await self._connect()
            return
        watchable = view is not None and not view.get("closed")
        raise ClientError(f"Your seat at {where} is not yours any more (you left it for good, or the host gave "
                          "it to a bot)" + ("; you can still watch the game" if watchable else ""),
                          watch=watchable, close_code=close_code)

    async def _lookup(self) -> dict[str, Any] | None:
        """The spectator's view of the table over HTTP, or ``None`` when there is none (no table, no answer)."""
        import httpx

        try:
            async with httpx.AsyncClient(timeout=15) as http:
                response = await http.get(f"{self.base_url}/api/tables/{self.code}")
            view = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return None
        return view if isinstance(view, dict) else None

    async def _connect(self) -> None:
        self._first = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(), name=f"table-{self.code}")
        try:
            await asyncio.wait_for(asyncio.shield(self._first), 20)
        except TimeoutError:
            await self.close()
            raise ClientError(f"the table {display_code(self.code)} at {self.base_url} did not answer") from None
        except ClientError:
            await self.close()
            raise

    async def _join(self) -> None:
        import httpx

        url = f"{self.base_url}/api/tables/{self.code}/join"
        try:
            async with httpx.AsyncClient(timeout=15) as http:
                response = await http.post(url, json={"name": self.name, "age": self.age})
        except httpx.HTTPError as error:
            raise ClientError(f"cannot reach the server at {self.base_url}: {error or type(error).__name__}") from None
        try:
            data = response.json()
        except ValueError:
            data = {}
        if response.status_code != 200:
            detail = data.get("detail") if isinstance(data, dict) else None
            message = detail.get("message") if isinstance(detail, dict) else None
            code = detail.get("code") if isinstance(detail, dict) else None
            watch = False
            if code in ("wrong_phase", "table_full"):  # (a game that has started, a full table: either can be watched)
                view = await self._lookup()
                watch = view is not None and not view.get("closed")
            raise ClientError(f"cannot join table {display_code(self.code)}: "
                              f"{message or f'HTTP {response.status_code}'}", watch=watch)
        self.token = data["token"]
        self.seat = data["seat"]
        if self.seats is not None and self.token is not None and self.seat is not None:
            try:
                self.seats.put(self.base_url, self.code, self.token, self.seat, self.name)
            except OSError as error:  # (the game goes on; only coming back to this seat later is lost)
                self.status(f"cannot keep the seat for later ({error.strerror or error})", True)

    async def _run(self) -> None:
        import websockets

        retry = 0
        while True:
            self.status("connecting…", False)
            close_code: int | None = None
            try:
                async with websockets.connect(self.ws_url, open_timeout=15, max_size=None) as ws:
                    hello: dict[str, Any] = {"type": "hello", "token": self.token}
                    if self.watching and self.name:
                        hello["name"] = self.name  # (a spectator's chat lines carry it)
                    await ws.send(json.dumps(hello))
                    self._ws, self.connected, retry = ws, True, 0
                    self.status("connected, watching" if self.watching else "connected", True)
                    async for raw in ws:
                        text = raw if isinstance(raw, str) else raw.decode()
                        message = json.loads(text)
                        if isinstance(message, dict):
                            self.deliver(message)
                            if message.get("type") == "state" and self._first is not None and not self._first.done():
                                self._first.set_result(None)
                    close_code = ws.close_code
            except (OSError, websockets.WebSocketException, TimeoutError) as error:
                close_code = getattr(getattr(error, "rcvd", None), "code", None)
                if self._first is not None and not self._first.done() and close_code not in _FATAL_CLOSE:
                    self._first.set_exception(ClientError(f"cannot connect to {self.ws_url}: {error}"))
                    return
            finally:
                self._ws, self.connected = None, False
            if close_code in _FATAL_CLOSE:
                text = _FATAL_CLOSE[close_code]
                self.status(text, False)
                if self._first is not None and not self._first.done():
                    self._first.set_exception(ClientError(f"table {display_code(self.code)}: {text}",
                                                          close_code=close_code))
                return
            if close_code == CLOSE_MOVED:  # (a cluster's table moved to another process: the balancer finds it)
                delay = 0.05
            else:
                delay = min(self.max_delay, 0.5 * 2**retry)
                retry += 1
            self.status(f"reconnecting in {delay:g} s…", False)
            await asyncio.sleep(delay)

    async def _send(self, message: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None:
            self.deliver({"type": "error", "id": message.get("id"), "code": "not_connected",
                          "message": "not connected to the server; reconnecting…"})
            return
        try:
            await ws.send(json.dumps(message))
        except Exception:  # the connection dropped while sending: the run loop reconnects
            self.deliver({"type": "error", "id": message.get("id"), "code": "not_connected",
                          "message": "the connection dropped; reconnecting…"})

    async def act(self, action: dict[str, Any]) -> None:
        await self._send(self.action_message(action))

    async def host(self, command: str, *, level: str | None = None, seat: int | None = None) -> None:
        await self._send(self.host_message(command, level, seat))

    async def back(self) -> None:
        await self._send({"type": "back", "id": self.next_id("b")})

    async def sync(self) -> None:
        await self._send({"type": "sync"})

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._first is not None and not self._first.done():
            self._first.cancel()
