"""The WebSocket message protocol (documented in ``docs/protocol.md``; its version is ``PROTOCOL_VERSION``).

Client messages are validated here (size first, then JSON, then the schema); anything that
does not pass becomes an ``error`` message with a code, and nothing changes.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Final, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

__all__ = [
    "PROTOCOL_VERSION",
    "MAX_MESSAGE_BYTES",
    "ProtocolError",
    "ActionMessage",
    "HostMessage",
    "SyncMessage",
    "PingMessage",
    "ClientMessage",
    "parse_client_message",
    "error_message",
    "message_id_of",
    "ack_message",
    "CreateTableRequest",
    "JoinRequest",
]

PROTOCOL_VERSION: Final = 3
MAX_MESSAGE_BYTES: Final = 4096


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, message_id: str | None = None) -> None:
        self.code = code
        self.message_id = message_id
        """The refused message's ``id`` when it had a well-formed one, so that the client can match the error."""
        super().__init__(message)


_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ActionMessage(_Strict):
    """A game action for the connection's seat; ``id`` makes a resend harmless (idempotency)."""

    type: Literal["action"]
    id: _Id
    action: dict[str, Any]


class HostMessage(_Strict):
    """A host command: add a bot, remove or kick a seat, start, rematch."""

    type: Literal["host"]
    id: _Id
    command: Literal["add_bot", "remove", "start", "rematch"]
    level: Literal["easy", "normal", "hard"] | None = None
    seat: Annotated[int, Field(ge=0, le=5)] | None = None


class SyncMessage(_Strict):
    """Ask for a full snapshot again."""

    type: Literal["sync"]


class PingMessage(_Strict):
    type: Literal["ping"]
    id: _Id | None = None


ClientMessage = Annotated[ActionMessage | HostMessage | SyncMessage | PingMessage, Field(discriminator="type")]
_adapter: TypeAdapter[ActionMessage | HostMessage | SyncMessage | PingMessage] = TypeAdapter(ClientMessage)


def parse_client_message(text: str | bytes) -> ActionMessage | HostMessage | SyncMessage | PingMessage:
    """Validate one frame; raises :class:`ProtocolError` with a code for anything wrong."""
    if isinstance(text, bytes):
        raise ProtocolError("bad_message", "messages are JSON text frames, not binary")
    if len(text.encode()) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError("bad_message", "a message is a JSON object with a string 'type'")
    try:
        return _adapter.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "message"
        message_id = data.get("id")
        if not isinstance(message_id, str) or not _ID_PATTERN.fullmatch(message_id):
            message_id = None
        raise ProtocolError("bad_message", f"{where}: {first.get('msg', 'invalid')}", message_id) from None


def message_id_of(text: str | bytes) -> str | None:
    """The well-formed ``id`` of a message, if it has one: to answer a message refused unread (rate limit)."""
    if not isinstance(text, str) or len(text) > MAX_MESSAGE_BYTES:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    message_id = data.get("id") if isinstance(data, dict) else None
    return message_id if isinstance(message_id, str) and _ID_PATTERN.fullmatch(message_id) else None


def error_message(code: str, message: str, message_id: str | None = None) -> str:
    return json.dumps({"type": "error", "id": message_id, "code": code, "message": message})


_encode_json: Final = msgspec.json.Encoder().encode


def ack_message(message_id: str, version: int) -> str:
    return _encode_json({"type": "ack", "id": message_id, "version": version}).decode()


class CreateTableRequest(BaseModel):
    """``POST /api/tables``: the creator's name and age, and the table's settings."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=24)]
    age: Annotated[int, Field(ge=0, le=150)] | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    bots: list[Literal["easy", "normal", "hard"]] = Field(default_factory=list, max_length=5)


class JoinRequest(BaseModel):
    """``POST /api/tables/{code}/join``."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=24)]
    age: Annotated[int, Field(ge=0, le=150)] | None = None
