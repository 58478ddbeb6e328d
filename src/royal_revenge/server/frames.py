"""State frames (docs/protocol.md): a table's version turned into what each connection is sent.

A connection's first state, and its state after a change of phase, game or seat, is its whole
view. Every other state is partial: only the keys that changed since the connection's previous
state. The parts every connection's frame shares (the changes to the shared view, the new log
entries as a spectator sees them) are worked out and encoded once per version, and a frame is
spliced together from encoded parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from ..engine import AnyAction
from ..narration import GLOSSARY
from ..session import Table

__all__ = ["Frames", "Sent"]

_ABSENT: Final[Any] = object()
_encode_json: Final = msgspec.json.Encoder().encode
"""Compact JSON, as ``json.dumps(..., separators=(",", ":"))`` but about ten times faster (frames are the hot path)."""


class Frames:
    """One version of a table, turned into state frames: what every connection's frame shares is built once.

    A partial frame is spliced together from encoded parts: the changes to the shared view since
    a connection's last state (the same for every connection that had the same last state), the
    seat's own changed game keys and legal actions, and the new log entries (the same for every
    seat that sees them as a spectator does).
    """

    __slots__ = ("_head", "_log_from", "_logs", "_plain", "_private", "_shared_parts", "log_after", "now", "shared",
                 "table", "version")

    def __init__(self, table: Table, now: float) -> None:
        self.table = table
        self.shared = table.shared_view()
        self.now = now
        self.version = table.version
        self.log_after = table.log_last
        """The newest log entry number: every connection holds the log up to it once its frame is sent."""
        self._log_from = table.log_first
        self._head: bytes | None = None
        self._shared_parts: dict[int, tuple[bytes, bytes]] = {}
        self._logs: dict[tuple[int, int | None], bytes] = {}
        self._private: dict[int, set[int]] = {}
        self._plain: dict[tuple[int, int, int | None], str] = {}

    def full(self, seat: int | None, own_game: dict[str, Any] | None, legal: list[AnyAction] | None,
             ack: str | None, sent: Sent) -> str:
        """The whole view for ``seat``; ``sent`` is set to this connection's own parts in it."""
        shared = self.shared
        view = shared.copy()
        view["you"] = seat
        if own_game is not None:
            view["game"] = {**shared["game"], **own_game}
            view["legal"] = [action.to_json() for action in legal or ()]
            view["legal_labels"] = labels = self.table.legal_labels(seat, legal or ())
            view["prompt"], view["hint"] = prompts = self.table.prompt_view(seat)
            sent.remember(own_game, _legal_json(legal or (), labels), prompts)
        else:
            sent.forget()
        view["log"] = self.table.log_view(seat, 0)
        if not sent.glossary:
            # (the words never change: a connection is sent them once, and keeps them through later whole views)
            view["glossary"] = GLOSSARY
            sent.glossary = True
        message: dict[str, Any] = {"type": "state", "version": self.version, "server_time": self.now,
                                   "full": True, "view": view}
        if ack is not None:
            message["ack"] = ack
        return _encode_json(message).decode()

    def partial(self, seat: int | None, before: dict[str, Any], log_after: int, own_game: dict[str, Any] | None,
                legal: list[AnyAction] | None, ack: str | None, sent: Sent) -> str:
        """What changed for a connection of ``seat`` since its last state: its shared view was ``before``, it holds
        the log up to ``log_after``, and ``sent`` holds its own parts as last sent (set to the new ones here)."""
        mine: list[bytes] | None = None
        words: list[bytes] = []
        """The seat's own ``prompt`` and ``hint``, when they changed."""
        legal_json = b""
        new_legal = False
        if own_game is not None:
            own_seat: int | None = own_game["seat"]
            hand = _encode_json(own_game["hand"])
            drawn: str | None = own_game["drawn"]
            if not sent.in_game or own_seat != sent.seat or hand != sent.hand or drawn != sent.drawn:
                mine = []
                if not sent.in_game or own_seat != sent.seat:
                    mine.append(b'"seat":' + _encode_json(own_seat))
                if not sent.in_game or hand != sent.hand:
                    mine.append(b'"hand":' + hand)
                if not sent.in_game or drawn != sent.drawn:
                    mine.append(b'"drawn":' + _encode_json(drawn))
            legal_json = _legal_json(legal or (), self.table.legal_labels(seat, legal) if legal else [])
            new_legal = legal_json != sent.legal
            prompt, hint = self.table.prompt_view(seat)
            if prompt != sent.prompt:
                words.append(b'"prompt":' + _encode_json(prompt))
            if hint != sent.hint:
                words.append(b'"hint":' + _encode_json(hint))
            sent.in_game, sent.seat, sent.hand, sent.drawn, sent.legal = True, own_seat, hand, drawn, legal_json
            sent.prompt, sent.hint = prompt, hint
        else:
            sent.forget()
        private = self._private.get(log_after)
        if private is None:
            private = self._private[log_after] = self.table.log_private_seats(log_after)
        variant = seat if seat in private else None
        # Most connections at a table get the very same frame (their own parts are unchanged): made once.
        plain = mine is None and not new_legal and not words and ack is None
        key = (id(before), log_after, variant)  # (every subscriber's ``before`` is alive: ids are unique)
        if plain:
            text = self._plain.get(key)
            if text is not None:
                return text
        parts = self._shared_parts.get(id(before))
        if parts is None:
            parts = self._shared_parts[id(before)] = _shared_changes(before, self.shared, self.table)
        top, game = parts
        members = [top] if top else []
        if mine:
            own = b",".join(mine)
            game = game + b"," + own if game else own
        if new_legal:
            members.append(legal_json)
        members.extend(words)
        if game:
            members.append(b'"game":{' + game + b"}")
        members.append(b'"log":' + self._log(variant, log_after))
        tail = b'},"ack":' + _encode_json(ack) + b"}" if ack is not None else b"}}"
        text = (self._frame_head() + b",".join(members) + tail).decode()
        if plain:
            self._plain[key] = text
        return text

    def _frame_head(self) -> bytes:
        head = self._head
        if head is None:
            head = self._head = _encode_json({"type": "state", "version": self.version, "server_time": self.now,
                                              "full": False, "log_from": self._log_from})[:-1] + b',"view":{'
        return head

    def _log(self, variant: int | None, log_after: int) -> bytes:
        """The log entries after ``log_after`` as seat ``variant`` sees them (``None``: as a spectator does, which
        is how every seat but the few in ``log_private_seats`` sees them), encoded once."""
        key = (log_after, variant)
        text = self._logs.get(key)
        if text is None:
            text = self._logs[key] = _encode_json(self.table.log_view(variant, log_after))
        return text


class Sent:
    """What one connection was last sent of the parts of its view that are its own: its seat, hand, drawn card,
    legal actions (with their labels), prompt and hint, encoded (strings and bytes, which the garbage collector does
    not track: a connection keeps them from one move to the next, and a busy server has thousands of connections),
    and whether it has the glossary."""

    __slots__ = ("drawn", "glossary", "hand", "hint", "in_game", "legal", "prompt", "seat")

    def __init__(self) -> None:
        self.glossary = False
        """Whether the connection was sent the ``glossary`` (in its first whole view)."""
        self.in_game = False
        self.seat: int | None = None
        self.hand = b""
        self.drawn: str | None = None
        self.legal = b""
        self.prompt: str | None = None
        self.hint: str | None = None

    def remember(self, own_game: dict[str, Any], legal_json: bytes, prompts: tuple[str | None, str | None]) -> None:
        self.in_game, self.seat, self.drawn = True, own_game["seat"], own_game["drawn"]
        self.hand, self.legal = _encode_json(own_game["hand"]), legal_json
        self.prompt, self.hint = prompts

    def forget(self) -> None:
        self.in_game, self.seat, self.hand, self.drawn, self.legal = False, None, b"", None, b""
        self.prompt = self.hint = None


_NO_LEGAL: Final = b'"legal":[],"legal_labels":[]'


def _legal_json(actions: Sequence[AnyAction], labels: list[str]) -> bytes:
    """``"legal":[...],"legal_labels":[...]``, the actions' JSON forms (each encoded once: the engine's actions are
    shared instances) and their words."""
    if not actions:
        return _NO_LEGAL  # (every seat but the one deciding, most of the time)
    pieces = []
    for action in actions:
        cached = _ACTION_JSON.get(id(action))
        if cached is None or cached[0] is not action:
            if len(_ACTION_JSON) > 4096:  # (only if actions are not the engine's shared ones)
                _ACTION_JSON.clear()
            cached = _ACTION_JSON[id(action)] = (action, _encode_json(action.to_json()))
        pieces.append(cached[1])
    return b'"legal":[' + b",".join(pieces) + b'],"legal_labels":' + _encode_json(labels)


_ACTION_JSON: Final[dict[int, tuple[AnyAction, bytes]]] = {}
"""Encoded actions by ``id``, each with its action (kept alive, so an id is never reused for another one)."""


def _shared_changes(sent: dict[str, Any], view: dict[str, Any], table: Table) -> tuple[bytes, bytes]:
    """The keys of ``view`` whose values differ from ``sent``'s, encoded as the inside of a JSON object: the
    top-level ones but ``game``, and ``game``'s own changed keys (one level deep)."""
    top: dict[str, Any] = {}
    game: dict[str, Any] = {}
    for name, value in view.items():
        if name == "game":
            # (typed as dicts: the compiled build then iterates them natively)
            current: dict[str, Any] = value
            previous_game: dict[str, Any] | None = sent.get("game")
            if previous_game is None:
                game = current
            elif current is not previous_game:
                known = table.game_changes(previous_game)
                if known is not None:  # (the usual case: the game's view knows what changed since the one before)
                    for key in known:
                        game[key] = current[key]
                else:
                    # (consecutive public views share every value that did not change: engine.PublicJSON)
                    for key, item in current.items():
                        before = previous_game.get(key, _ABSENT)
                        if item is not before and before != item:
                            game[key] = item
        else:
            previous = sent.get(name, _ABSENT)
            if value is not previous and previous != value:  # (the cached parts are often the very same objects)
                top[name] = value
    return _encode_json(top)[1:-1], _encode_json(game)[1:-1] if game else b""
