"""The server's log lines: JSON, and never a secret (the whole-server check is in test_process.py)."""

from __future__ import annotations

import io
import json
import logging
import secrets
from collections.abc import Iterator

import pytest

from royal_revenge.server.logs import JsonFormatter, RedactSecrets


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
