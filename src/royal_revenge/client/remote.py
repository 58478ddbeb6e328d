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
    """One seat at a server's table, over the same protocol as the browser."""

    def __init__(self, base_url: str, code: str, name: str = "", age: int | None = None, *,
                 token: str | None = None, max_delay: float = 10.0) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.code = normalize_code(code)
        self.name = name
        self.age = age
        self.token = token
        self.max_delay = max_delay
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

    async def start(self) -> None:
        """Join (unless a token was given), connect, and wait for the first snapshot."""
        if self.token is None:
            await self._join()
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
            raise ClientError(f"cannot join table {display_code(self.code)}: "
                              f"{message or f'HTTP {response.status_code}'}")
        self.token = data["token"]
        self.seat = data["seat"]

    async def _run(self) -> None:
        import websockets

        retry = 0
        while True:
            self.status("connecting…", False)
            close_code: int | None = None
            try:
                async with websockets.connect(self.ws_url, open_timeout=15, max_size=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    self._ws, self.connected, retry = ws, True, 0
                    self.status("connected", True)
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
                    self._first.set_exception(ClientError(f"table {display_code(self.code)}: {text}"))
                return
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
