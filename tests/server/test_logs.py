"""The server's log lines: readable text or JSON, and never a secret (the whole-server check is in test_process.py)."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import click
import httpx
import pytest

from royal_revenge.cli import serve
from royal_revenge.server.logs import LOG_FORMATS, JsonFormatter, RedactSecrets, TextFormatter, configure_logging

from .conftest import SAFETY

TEXT_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) +\S+  .+")
"""A text line: local time to the millisecond, level, logger, then the message and the fields."""


@pytest.fixture
def lines() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger("royal_revenge.test_logs")
    logger.handlers[:], logger.propagate, logger.level = [handler], False, logging.DEBUG
    yield logger, out
    logger.handlers[:] = []


def test_no_token_reaches_a_line_wherever_it_is(lines: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = lines
    token = secrets.token_urlsafe(24)
    logger.info('%s - "WebSocket %s" [accepted]', "127.0.0.1:5000", f"/ws/K7QMPW?token={token}")
    logger.debug("< TEXT %r [62 bytes]", json.dumps({"type": "hello", "token": token}))
    logger.info("connected", extra={"table": "K7QMPW", "seat": 1, "note": f"held by {token}"})
    try:
        raise KeyError(token)
    except KeyError:
        logger.exception("message_failed")
    logger.info("%s and %s", token)  # (arguments that do not fit: the line still goes out, and the caller goes on)
    text = out.getvalue()
    assert token not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert len(records) == 5 and all("[redacted]" in json.dumps(record) for record in records[:4])
    assert records[0]["event"] == '127.0.0.1:5000 - "WebSocket /ws/K7QMPW?token=[redacted]" [accepted]'
    assert records[2]["seat"] == 1 and records[2]["table"] == "K7QMPW"
    assert "KeyError" in records[3]["error"]


def _uvicorn_record(message: str = "Started server process [%d]", *args: object) -> logging.LogRecord:
    """A record as uvicorn makes it: the message for plain formatters, and a copy with colour codes in an extra
    field for its own."""
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, message, args or (4242,), None)
    record.color_message = "Started server process [\x1b[36m%d\x1b[0m]"
    return record


def test_a_json_line_holds_the_message_and_the_fields_but_not_uvicorns_colours() -> None:
    record = _uvicorn_record()
    record.table, record.seat = "K7QMPW", 2
    data = json.loads(JsonFormatter().format(record))
    assert data["event"] == "Started server process [4242]"
    assert (data["level"], data["logger"], data["table"], data["seat"]) == ("info", "uvicorn.error", "K7QMPW", 2)
    assert "color_message" not in data and "\x1b" not in json.dumps(data)


def test_a_text_line_reads_as_time_level_logger_message_and_fields() -> None:
    record = _uvicorn_record()
    record.created, record.msecs = time.mktime((2025, 3, 4, 5, 6, 7, 0, 0, -1)) + 0.25, 250.0
    record.table, record.seat, record.note, record.gone = "K7QMPW", 2, 'said "hi" = hello', None
    line = TextFormatter().format(record)
    assert line == ('2025-03-04 05:06:07.250 INFO    uvicorn.error  Started server process [4242]  '
                    'table=K7QMPW seat=2 note="said \\"hi\\" = hello" gone=null')
    assert TEXT_LINE.fullmatch(line) and "color_message" not in line and "\x1b" not in line
    plain = TextFormatter().format(logging.LogRecord("royal_revenge.server.hub", logging.WARNING, "", 0, "idle",
                                                     None, None))
    assert plain.endswith(" WARNING royal_revenge.server.hub  idle")  # (no fields: nothing after the message)


def test_a_text_line_is_followed_by_its_traceback() -> None:
    try:
        raise KeyError("gone")
    except KeyError:
        record = logging.LogRecord("royal_revenge.server.app", logging.ERROR, "", 0, "message_failed", None,
                                   sys.exc_info())
    first, *rest = TextFormatter().format(record).splitlines()
    assert TEXT_LINE.fullmatch(first) and first.endswith("  message_failed")
    assert rest[0] == "Traceback (most recent call last):" and rest[-1] == "KeyError: 'gone'"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def root_logging() -> Iterator[None]:
    """configure_logging changes the process's root logger: put it back as it was."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)


@pytest.mark.usefixtures("root_logging")
@pytest.mark.parametrize(("choice", "stream", "chosen"), [
    ("auto", _Terminal, "text"), ("auto", io.StringIO, "json"), ("text", io.StringIO, "text"),
    ("json", _Terminal, "json")])
def test_auto_writes_text_to_a_terminal_and_json_elsewhere(choice: str, stream: type[io.StringIO], chosen: str) -> None:
    out = stream()
    assert configure_logging("info", choice, stream=out) == chosen
    logging.getLogger("uvicorn.error").handle(_uvicorn_record())
    logging.getLogger("royal_revenge.server.app").info("connected", extra={"table": "K7QMPW", "seat": 0})
    logging.getLogger("royal_revenge.server.app").debug("not at info")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "color_message" not in out.getvalue()
    if chosen == "json":
        assert [json.loads(line)["event"] for line in lines] == ["Started server process [4242]", "connected"]
    else:
        assert all(TEXT_LINE.fullmatch(line) for line in lines), lines
        assert lines[1].endswith("  connected  table=K7QMPW seat=0")


def test_the_command_offers_the_formats_the_logs_know() -> None:
    option = next(param for param in serve.params if param.name == "log_format")
    assert isinstance(option.type, click.Choice)
    assert tuple(option.type.choices) == LOG_FORMATS and option.default == "auto"


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve_and_stop(tmp_path: Path, *args: str) -> str:
    """Run ``royal-revenge serve ARGS`` (standard error to a file: not a terminal), open a table, then stop it as
    an operator does (SIGTERM: uvicorn logs its shutdown too); its standard error."""
    port, log = _free_port(), tmp_path / "stderr.log"
    command = [str(Path(sys.executable).with_name("royal-revenge")), "serve", "--port", str(port),
               "--db", str(tmp_path / "tables.db"), "--log-level", "info", *args]
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr,
                                   env={**os.environ, "PYTHONWARNINGS": "default"})
    try:
        deadline = time.monotonic() + SAFETY
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        created = httpx.post(f"http://127.0.0.1:{port}/api/tables", json={"name": "Ann"}, timeout=SAFETY)
        assert created.status_code == 201, created.text
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=SAFETY)
    return log.read_text(encoding="utf-8")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("args", [("--log-format", "json"), ()], ids=["json", "auto"])
def test_serve_writes_only_json_lines_when_asked_or_not_on_a_terminal(tmp_path: Path, args: tuple[str, ...]) -> None:
    lines = _serve_and_stop(tmp_path, *args).splitlines()
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
    events = [record["event"] for record in records]
    assert any(event.startswith("UNO Royal Revenge: open http://127.0.0.1:") for event in events), events
    assert any(record["logger"] == "uvicorn.access" and "POST /api/tables" in record["event"] for record in records)
    assert any(record["logger"].startswith("royal_revenge.server") and record["event"] == "table_created"
               for record in records), events
    assert any(event.startswith("Finished server process") for event in events), events  # (the clean stop)
    assert not [record for record in records if "color_message" in record or "\x1b" in json.dumps(record)]


@pytest.mark.timeout(120)
def test_serve_writes_readable_lines_with_text(tmp_path: Path) -> None:
    text = _serve_and_stop(tmp_path, "--log-format", "text")
    lines = text.splitlines()
    assert lines[0].startswith("UNO Royal Revenge: open http://127.0.0.1:")  # (what a person reads first)
    assert all(TEXT_LINE.fullmatch(line) for line in lines[1:]), text
    assert any(" uvicorn.access  " in line and "POST /api/tables" in line for line in lines), text
    assert any("  table_created  table=" in line for line in lines), text
    assert "color_message" not in text and "\x1b" not in text and "{" not in text
