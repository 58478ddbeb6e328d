"""The WebSocket message protocol (documented in ``docs/protocol.md``; its version is ``PROTOCOL_VERSION``).

Client messages are validated here (size and nesting depth first, then JSON, then the schema);
anything that does not pass becomes an ``error`` message with a code, and nothing changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal

import msgspec
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "CLOSE_MOVED",
    "PROTOCOL_VERSION",
    "MAX_MESSAGE_BYTES",
    "MAX_MESSAGE_DEPTH",
    "ProtocolError",
    "ActionMessage",
    "HostMessage",
    "SyncMessage",
    "PingMessage",
    "ChatMessage",
    "ReactMessage",
    "LeaveMessage",
    "BackMessage",
    "RematchMessage",
    "ClientMessage",
    "HelloMessage",
    "parse_client_message",
    "parse_hello",
    "error_message",
    "message_id_of",
    "ack_message",
    "CreateTableRequest",
    "JoinRequest",
    "PublicTable",
    "PublicTables",
    "request_error_message",
]

PROTOCOL_VERSION: Final = 4
CLOSE_MOVED: Final = 4307
"""The WebSocket close code for "this table moved to another server process": reconnect (through the load
balancer, which sends the connection to the table's new owner) and resynchronise from the first state."""
MAX_MESSAGE_BYTES: Final = 4096
MAX_MESSAGE_DEPTH: Final = 8
"""How deeply a message may nest objects and arrays (the protocol needs 2: a message and its action).

Checked before decoding: the decoders recurse, and a message nested 1,000 levels deep (2 KB)
made them raise ``RecursionError``."""


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, message_id: str | None = None) -> None:
        self.code = code
        self.message_id = message_id
        """The refused message's ``id`` when it had a well-formed one, so that the client can match the error."""
        super().__init__(message)


_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class _Message(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """A client message: the ``type`` field names its kind; unknown fields are refused."""


class ActionMessage(_Message, tag="action", frozen=True):
    """A game action for the connection's seat; ``id`` makes a resend harmless (idempotency), and ``game`` (the
    ``game_no`` the client saw) keeps an action meant for one game from being applied to the next."""

    id: _Id
    action: dict[str, Any]
    game: Annotated[int, msgspec.Meta(ge=0)] | None = None


class HostMessage(_Message, tag="host", frozen=True):
    """A host command: add a bot (in ``seat``, or the first open one), remove or kick a seat, start, rematch, mute
    or unmute the person in ``seat``."""

    id: _Id
    command: Literal["add_bot", "remove", "start", "rematch", "mute", "unmute"]
    level: Literal["easy", "normal", "hard", "expert"] | None = None
    seat: Annotated[int, msgspec.Meta(ge=0, le=5)] | None = None


class ChatMessage(_Message, tag="chat", frozen=True):
    """A chat line (the table checks its text: ``Table.say``)."""

    id: _Id
    text: str


class ReactMessage(_Message, tag="react", frozen=True):
    """A reaction, one of ``REACTIONS`` (``Table.react``)."""

    id: _Id
    emoji: str


class LeaveMessage(_Message, tag="leave", frozen=True):
    """Leave the seat for good (``Table.leave``); the connection watches on as a spectator."""

    id: _Id


class RematchMessage(_Message, tag="rematch", frozen=True):
    """Ask for a rematch once the game is over (``Table.ask_rematch``); the host's own starts it."""

    id: _Id


class BackMessage(_Message, tag="back", frozen=True):
    """The person is back: a seat a bot plays for them (``autopilot``) is theirs again (``Table.take_back``)."""

    id: _Id


class SyncMessage(_Message, tag="sync", frozen=True):
    """Ask for a full snapshot again."""


class PingMessage(_Message, tag="ping", frozen=True):
    id: _Id | None = None


ClientMessage = (ActionMessage | HostMessage | SyncMessage | PingMessage | ChatMessage | ReactMessage | LeaveMessage
                 | RematchMessage | BackMessage)
_decode: Final = msgspec.json.Decoder(ClientMessage).decode
"""Parses and checks in one pass (msgspec, strict: no coercion of types); every frame a player sends goes through it."""


class HelloMessage(msgspec.Struct, tag_field="type", tag="hello", forbid_unknown_fields=True, frozen=True):
    """A connection's first message: the seat token (``None``: watch as a spectator). The token travels here,
    not in the URL, because URLs end up in access logs."""

    token: str | None = None
    name: str | None = None
    """A spectator's name in the chat (the rules of people's names); ignored for a seat, which has its own."""


_decode_hello: Final = msgspec.json.Decoder(HelloMessage).decode


def parse_hello(text: str | bytes) -> HelloMessage:
    """Validate a connection's first frame; raises :class:`ProtocolError` (code ``bad_hello``) unless it is a
    ``hello`` message.

    >>> parse_hello('{"type": "hello", "token": "abc"}').token
    'abc'
    >>> try:
    ...     parse_hello('{"type": "sync"}')
    ... except ProtocolError as error:
    ...     print(error.code, "-", error)
    bad_hello - the first message must be a hello, {"type": "hello", "token": "..."} (type: Invalid value 'sync')
    """
    if isinstance(text, bytes):
        reason = "a binary frame"
    elif len(text) > MAX_MESSAGE_BYTES or len(text.encode()) > MAX_MESSAGE_BYTES:
        reason = f"over {MAX_MESSAGE_BYTES} bytes"
    else:
        try:
            return _decode_hello(text)
        except msgspec.ValidationError as error:
            reason = _plain(str(error))
        except msgspec.DecodeError:
            reason = "not valid JSON"
    raise ProtocolError("bad_hello",
                        f'the first message must be a hello, {{"type": "hello", "token": "..."}} ({reason})')


def parse_client_message(text: str | bytes) -> ClientMessage:
    """Validate one frame; raises :class:`ProtocolError` with a code for anything wrong."""
    if isinstance(text, bytes):
        raise ProtocolError("bad_message", "messages are JSON text frames, not binary")
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode()) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    if _too_deep(text):
        raise ProtocolError("bad_message",
                            f"a message must not nest objects and arrays more than {MAX_MESSAGE_DEPTH} levels deep")
    try:
        return _decode(text)
    except msgspec.ValidationError as error:
        if not text.lstrip().startswith("{"):
            raise ProtocolError("bad_message", "a message is a JSON object with a string 'type'") from None
        raise ProtocolError("bad_message", _plain(str(error)), message_id_of(text)) from None
    except msgspec.DecodeError:
        raise ProtocolError("bad_json", "the message is not valid JSON") from None


def _too_deep(text: str) -> bool:
    """Whether ``text`` opens more than ``MAX_MESSAGE_DEPTH`` objects and arrays inside each other (outside strings).

    The nesting cannot be deeper than the number of brackets, so the scan is skipped for almost every message.
    """
    if text.count("{") + text.count("[") <= MAX_MESSAGE_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{" or char == "[":
            depth += 1
            if depth > MAX_MESSAGE_DEPTH:
                return True
        elif char == "}" or char == "]":
            depth -= 1
    return False


def _plain(reason: str) -> str:
    """msgspec's reason in the protocol's words: ``Expected `int`, got `str` - at `$.seat``` -> ``seat: ...``."""
    what, _, where = reason.partition(" - at `")
    where = where.rstrip("`").removeprefix("$").lstrip(".")
    return f"{where or 'message'}: {what.replace('`', '')}"


def message_id_of(text: str | bytes) -> str | None:
    """The well-formed ``id`` of a message, if it has one: to answer a message refused unread (rate limit)."""
    if not isinstance(text, str) or len(text) > MAX_MESSAGE_BYTES or _too_deep(text):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    message_id = data.get("id") if isinstance(data, dict) else None
    return message_id if isinstance(message_id, str) and _ID_PATTERN.fullmatch(message_id) else None


def error_message(code: str, message: str, message_id: str | None = None) -> str:
    return json.dumps({"type": "error", "id": message_id, "code": code, "message": message})


_encode_json: Final = msgspec.json.Encoder().encode


def ack_message(message_id: str, version: int) -> str:
    return _encode_json({"type": "ack", "id": message_id, "version": version}).decode()


def _whole_number(value: object) -> object:
    """A JSON number with no fraction (``9`` or ``9.0``, as JSON Schema's ``integer``), never ``true`` or ``"9"``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number")
    return value


Age = Annotated[int, Field(ge=0, le=150), BeforeValidator(_whole_number)]
"""A person's age in years (it only decides who deals first)."""


class CreateTableRequest(BaseModel):
    """``POST /api/tables``: the creator's name and age, and the table's settings.

    A name is only checked to be text here: the table checks the rest (``Table.join``), for every front end.
    """

    model_config = ConfigDict(extra="forbid")
    name: str
    age: Age | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    bots: list[Literal["easy", "normal", "hard", "expert"] | None] = Field(default_factory=list, max_length=5)
    """The other seats' bots, seat by seat after the host's: a level, or ``None`` to keep the seat open for a
    friend (a list shorter than the table leaves the seats after it open too)."""


class PublicTable(BaseModel):
    """A public table waiting in its lobby (``GET /api/tables``)."""

    code: str
    host: str | None
    """The host's name."""
    seats: int
    taken: int
    """Seats taken by people or bots."""
    settings: dict[str, Any]


class PublicTables(BaseModel):
    """``GET /api/tables``: the public tables in their lobbies with a seat open, newest first (at most 50)."""

    tables: list[PublicTable]


class JoinRequest(BaseModel):
    """``POST /api/tables/{code}/join``."""

    model_config = ConfigDict(extra="forbid")
    name: str
    age: Age | None = None


_FIELD_RULES: Final = {
    "name": "Please enter your name",
    "age": "An age must be a whole number from 0 to 150, or left empty",
    "settings": "The table's settings did not arrive in a form the server reads",
    "bots": ("Choose each bot's level (easy, normal, hard or expert) or leave the seat open for a friend "
             "(at most 5 seats)"),
}
"""What each request field must be, in plain words for the person who filled the form (docs/protocol.md)."""


def request_error_message(errors: Sequence[Any]) -> str:
    """A request body's first validation error (FastAPI's ``RequestValidationError.errors()``) in plain words.

    FastAPI's own words name pydantic's types and echo the input; these say what the field must be.
    """
    first = errors[0] if errors and isinstance(errors[0], Mapping) else {}
    kind = first.get("type")
    where = [part for part in first.get("loc", ()) if part != "body"]
    if kind == "json_invalid":
        return "the request body is not valid JSON"
    if not where or not isinstance(where[0], str):
        return "the request body must be a JSON object"
    field = where[0]
    if kind == "extra_forbidden":
        return f"the request has a field it does not take: '{field[:24]}'"
    return _FIELD_RULES.get(field, f"'{field[:24]}' is not valid")
