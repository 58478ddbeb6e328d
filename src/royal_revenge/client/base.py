"""The one table interface shared by the local game and the online client.

A client holds the newest ``view`` (:meth:`royal_revenge.session.Table.view`, put together by
:func:`merge_state` from the server's whole and partial ``state`` messages) and tells its
listeners about every message in the server's protocol shapes, each ``state`` message carrying
the whole merged view:

* ``{"type": "state", "version", "server_time", "full", "view"}`` (with ``"ack": id`` when it is the
  change this client's own message caused: protocol 3)
* ``{"type": "ack", "id", "version"}``
* ``{"type": "error", "id", "code", "message"}``
* ``{"type": "status", "text", "ok"}``: the connection's state, from the client itself.

Front ends render the view and send actions taken from ``view["legal"]``; they hold no rules.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

__all__ = ["BaseClient", "ClientError", "Listener", "TableClient", "merge_state"]

Listener = Callable[[dict[str, Any]], None]


def merge_state(previous: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The whole view after a ``state`` message (protocol 2, docs/protocol.md).

    A whole view (``"full": true``, or no ``full`` key) replaces the previous one. A partial
    view holds only what changed: its keys replace the previous ones, its ``game`` keys
    replace the previous game's, and its ``log`` entries are appended to the previous ones,
    dropping those numbered below ``log_from``. Every other key, ``chat`` (the table's last 50 chat
    lines, sent whole whenever a line is added), ``muted`` and ``rematch_requests`` included, is
    simply replaced. The ``glossary`` (the words of the cards and buttons) comes in a connection's first
    whole view only, and is kept through the later ones.

    >>> first = {"full": True, "view": {"seats": ["A"], "game": {"top": "R1", "king": 0}, "log": [{"n": 1}]}}
    >>> view = merge_state(None, first)
    >>> merge_state(view, {"full": False, "log_from": 1, "view": {"game": {"top": "R2"}, "log": [{"n": 2}]}})
    {'seats': ['A'], 'game': {'top': 'R2', 'king': 0}, 'log': [{'n': 1}, {'n': 2}]}
    >>> chat = {"n": 1, "seat": 0, "name": "A", "text": "hi", "at": 0.0, "kind": "chat"}
    >>> merge_state(view, {"full": False, "log_from": 1, "view": {"chat": [chat], "log": []}})["chat"][0]["text"]
    'hi'
    """
    view: dict[str, Any] = message["view"]
    if message.get("full", True) or previous is None:
        if "glossary" not in view and previous is not None and "glossary" in previous:
            view["glossary"] = previous["glossary"]  # (sent once per connection: the words never change)
        return view
    merged = {**previous, **view}
    game, before = view.get("game"), previous.get("game")
    if game is not None and before is not None:
        merged["game"] = {**before, **game}
    log = [*(previous.get("log") or ()), *(view.get("log") or ())]
    start = message.get("log_from", 0)
    drop = 0  # (entries are in order: the ones to drop are at the front, usually one or two)
    while drop < len(log) and log[drop]["n"] < start:
        drop += 1
    merged["log"] = log[drop:] if drop else log
    return merged


class ClientError(RuntimeError):
    """A table cannot be reached or joined; the message says why, in plain words.

    ``watch`` says that the table can still be watched as a spectator (its game has started, its
    seats are taken, or the seat kept for it is not this person's any more); ``close_code`` is the
    WebSocket close code that ended the connection, when one did.
    """

    def __init__(self, message: str, *, watch: bool = False, close_code: int | None = None) -> None:
        super().__init__(message)
        self.watch = watch
        self.close_code = close_code


@runtime_checkable
class TableClient(Protocol):
    """What a front end needs from a table, whatever the transport."""

    view: dict[str, Any] | None
    seat: int | None
    local: bool
    """Whether the table lives in this process (a local game can be saved)."""

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every message; returns a function that unsubscribes."""
        ...

    def now(self) -> float:
        """The table's time, to count down ``view["decision_deadline"]``."""
        ...

    async def start(self) -> None: ...

    async def act(self, action: dict[str, Any]) -> None: ...

    async def host(self, command: str, *, level: str | None = None, seat: int | None = None) -> None: ...

    async def back(self) -> None:
        """Take the seat back from the bot that plays it (``autopilot``): the person is at the keyboard."""
        ...

    async def sync(self) -> None: ...

    async def close(self) -> None: ...


class BaseClient:
    """Listeners, message ids and the newest view: what both transports share."""

    local = False

    def __init__(self) -> None:
        self.view: dict[str, Any] | None = None
        self.seat: int | None = None
        self.version = -1
        self.offset = 0.0
        """The server's clock minus ours, from the last ``state`` message."""
        self.messages: list[dict[str, Any]] = []
        """Every message delivered (the last few hundred), for tests and debugging."""
        self.last_status: dict[str, Any] | None = None
        """The connection's newest ``status`` message (``None``: a local table, always there)."""
        self._listeners: list[Listener] = []
        self._ids = itertools.count(1)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def now(self) -> float:
        return time.time() + self.offset

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{int(time.time() * 1000):x}-{next(self._ids)}"

    def action_message(self, action: dict[str, Any]) -> dict[str, Any]:
        """An action for the game on screen (refused in a later one, e.g. one a rematch began meanwhile)."""
        message: dict[str, Any] = {"type": "action", "id": self.next_id("a"), "action": action}
        game_no = self.view.get("game_no") if isinstance(self.view, dict) else None
        if isinstance(game_no, int):
            message["game"] = game_no
        return message

    def host_message(self, command: str, level: str | None = None, seat: int | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "host", "id": self.next_id("h"), "command": command}
        if level is not None:
            message["level"] = level
        if seat is not None:
            message["seat"] = seat
        return message

    def deliver(self, message: dict[str, Any]) -> None:
        """Take in one message from the table and pass it to every listener."""
        if message.get("type") == "state":
            version = message.get("version", -1)
            if isinstance(version, int) and version < self.version:
                return  # an older snapshot overtaken by a newer one
            self.version = version if isinstance(version, int) else self.version
            self.view = message["view"] = merge_state(self.view, message)
            you = self.view.get("you") if isinstance(self.view, dict) else None
            self.seat = you if isinstance(you, int) else None
            server_time = message.get("server_time")
            if isinstance(server_time, (int, float)):
                self.offset = server_time - self._own_time()
        self.messages.append(message)
        del self.messages[:-500]
        for listener in list(self._listeners):
            listener(message)

    def status(self, text: str, ok: bool) -> None:
        self.last_status = {"type": "status", "text": text, "ok": ok}
        self.deliver(self.last_status)

    def _own_time(self) -> float:
        return time.time()
