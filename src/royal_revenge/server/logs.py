"""The server's logs on standard error, secrets redacted: readable lines on a terminal, JSON lines otherwise.

``royal-revenge serve --log-format auto`` (the default) writes :class:`TextFormatter`'s lines (time, level,
logger, message, then the record's fields as ``key=value``) when standard error is a terminal, and
:class:`JsonFormatter`'s (one JSON object per line, for a log collector) when it is not; ``text`` and ``json``
choose one whatever standard error is.

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
from typing import Any, Final, Protocol, TextIO

__all__ = ["LOG_FORMATS", "ClientFaults", "JsonFormatter", "RedactSecrets", "TextFormatter", "configure_logging",
           "log_format_for", "redact"]

_STANDARD: Final = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

_PRESENTATION: Final = frozenset({"color_message"})
"""Fields that say how to show a record, not what happened: uvicorn gives a copy of its message with terminal
colour codes (for its own formatter) to some of its records."""

LOG_FORMATS: Final = ("auto", "text", "json")
"""The choices of ``royal-revenge serve --log-format``."""

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


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields the caller added to a record (``extra=``), without the ones that only say how to show it."""
    return {key: value for key, value in vars(record).items()
            if key not in _STANDARD and key not in _PRESENTATION and not key.startswith("_")}


def _error_text(formatter: logging.Formatter, record: logging.LogRecord) -> str | None:
    if record.exc_text:
        return record.exc_text
    if record.exc_info:
        return formatter.formatException(record.exc_info)
    return None


_BARE: Final = re.compile(r"[^\s\"'=\\]+")
"""A text value that reads unambiguously without quotes in ``key=value``."""


def _text_value(value: Any) -> str:
    if isinstance(value, str):
        return value if _BARE.fullmatch(value) else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """One line a person reads on a terminal: local time, level, logger, message, then the fields as ``key=value``.

    >>> record = logging.LogRecord("royal_revenge.server.app", logging.INFO, "", 0, "connected", None, None)
    >>> record.created, record.msecs, record.table, record.seat, record.note = 0.0, 0.0, "K7QMPW", 1, "a b"
    >>> TextFormatter().format(record).split(" ", 2)[2]
    'INFO    royal_revenge.server.app  connected  table=K7QMPW seat=1 note="a b"'

    A traceback follows on the lines after it, as Python prints it.
    """

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        line = f"{stamp}.{int(record.msecs):03d} {record.levelname:<7} {record.name}  {record.getMessage()}"
        fields = " ".join(f"{key}={_text_value(value)}" for key, value in _fields(record).items())
        if fields:
            line = f"{line}  {fields}"
        error = _error_text(self, record)
        if error:
            line = f"{line}\n{error}"
        if record.stack_info:
            line = f"{line}\n{self.formatStack(record.stack_info)}"
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``time`` (UTC), ``level``, ``logger``, ``event`` (the message), the
    record's fields, and ``error`` with a traceback's text."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        data.update(_fields(record))
        error = _error_text(self, record)
        if error:
            data["error"] = error
        return json.dumps(data, default=str)


class _Stream(Protocol):
    def isatty(self) -> bool: ...


def log_format_for(choice: str, stream: _Stream) -> str:
    """``"text"`` or ``"json"``: what ``--log-format`` ``choice`` means for lines written to ``stream``.

    >>> import io
    >>> log_format_for("auto", io.StringIO()), log_format_for("text", io.StringIO())
    ('json', 'text')
    """
    if choice not in LOG_FORMATS:
        raise ValueError(f"the log format is one of {', '.join(LOG_FORMATS)}, not {choice!r}")
    if choice == "auto":
        try:
            return "text" if stream.isatty() else "json"
        except ValueError:  # (a closed stream)
            return "json"
    return choice


def configure_logging(level: str = "info", log_format: str = "auto", stream: TextIO | None = None) -> str:
    """Every log line (the server's, uvicorn's, the libraries', Python's warnings) to ``stream`` (standard error),
    in ``log_format`` (see :func:`log_format_for`), secrets redacted. Returns the format chosen."""
    stream = sys.stderr if stream is None else stream
    chosen = log_format_for(log_format, stream)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(TextFormatter() if chosen == "text" else JsonFormatter())
    handler.addFilter(ClientFaults())  # (on the handler: it sees the records of every logger that reaches it)
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.captureWarnings(True)  # (a warning printed as it is would be a line that is not in the format)
    return chosen
