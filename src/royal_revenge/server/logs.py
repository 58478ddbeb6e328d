"""Structured logs: one JSON object per line on standard error, with secrets redacted.

A seat token is the seat: whoever reads it in a log can play it. Clients send it in their first
WebSocket message (protocol 4), never in a URL, but the libraries' debug logs print request
lines, headers and frames as they are, and an old client may still put a token in its URL; so
every line goes through :class:`RedactSecrets` on its way out.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any, Final

__all__ = ["ClientFaults", "JsonFormatter", "RedactSecrets", "configure_logging", "redact"]

_STANDARD: Final = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

REDACTED: Final = "[redacted]"

_NAMED_SECRET: Final = re.compile(
    r"""(?P<name>token|secret|password|passwd)(?P<sep>\\?["']?\s*[:=]\s*\\?["']?)"""
    r"""(?P<value>[^"'\\&\s,;}\]]+)""", re.IGNORECASE)
"""A value given under a secret's name: ``token=...`` in a URL, ``"token": "..."`` in JSON or a frame's repr."""
_SECRET_HEADER: Final = re.compile(r"^(?P<head>[<>]?\s*(?:proxy-)?(?:authorization|cookie|set-cookie)\s*:\s*).+$",
                                   re.IGNORECASE | re.MULTILINE)
"""A header that carries credentials, whole (the websockets library's debug log prints ``< cookie: ...``)."""
_TOKEN_SHAPED: Final = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])")
"""Anything shaped like a seat token (``secrets.token_urlsafe(24)``: 32 URL-safe base64 characters), wherever
it appears without its name."""


def redact(text: str) -> str:
    """``text`` with every secret in it replaced by ``[redacted]``.

    >>> print(redact('"WebSocket /ws/K7QMPW?token=abc" [accepted]'))
    "WebSocket /ws/K7QMPW?token=[redacted]" [accepted]
    >>> frame = "< TEXT '" + '{"type": "hello", "token": "x1"}' + "' [33 bytes]"  # (a websockets debug line)
    >>> print(redact(frame))
    < TEXT '{"type": "hello", "token": "[redacted]"}' [33 bytes]
    >>> print(redact("< Cookie: session=abc; theme=dark"))
    < Cookie: [redacted]
    >>> print(redact("seat 2 of K7QMPW: 0123456789abcdefABCDEF_-01234567 left"))
    seat 2 of K7QMPW: [redacted] left
    """
    text = _SECRET_HEADER.sub(lambda match: f"{match['head']}{REDACTED}", text)
    text = _NAMED_SECRET.sub(lambda match: f"{match['name']}{match['sep']}{REDACTED}", text)
    return _TOKEN_SHAPED.sub(REDACTED, text)


class RedactSecrets(logging.Filter):
    """Rewrites a record so that no secret reaches any handler: its message (with its arguments), its extra
    fields, and its exception and stack text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # (arguments that do not fit the format: the format alone, rather than fail the caller)
            message = str(record.msg)
        record.msg, record.args = redact(message), None
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and isinstance(value, str):
                setattr(record, key, redact(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class ClientFaults(logging.Filter):
    """A client's bad input that a library logs as an error with a traceback becomes one warning line.

    uvicorn's WebSocket protocol answers a text frame that is not UTF-8 correctly (it closes the connection with
    1007) but logs it with ``logger.exception``: any client could fill the logs with tracebacks, and an operator
    would read a server fault where there is none. The record keeps the library's words, without the traceback.
    """

    MESSAGES: Final = frozenset({"Invalid UTF-8 sequence received from client."})

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info is not None and record.name.startswith("uvicorn") and record.msg in self.MESSAGES:
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                data[key] = value
        if record.exc_info or record.exc_text:
            data["error"] = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
        return json.dumps(data, default=str)


def configure_logging(level: str = "info") -> None:
    """Every log line (the server's, uvicorn's, the libraries') as JSON on standard error, secrets redacted."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ClientFaults())  # (on the handler: it sees the records of every logger that reaches it)
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
