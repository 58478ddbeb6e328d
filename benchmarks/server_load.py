#!/usr/bin/env python3
"""Load test for the online tables server: many tables, every seat a WebSocket client.

This is a load script, not a test. It starts one server process
(``royal-revenge serve --port P --db <temp sqlite file>``) or uses ``--url``, creates
``--tables`` tables over HTTP with every seat taken by a person (``--players`` clients per
table, 4 by default), connects one WebSocket per seat, and has the hosts start the games.
Every client then plays as fast as the rules allow: on each ``state`` frame, if the pending
decision is its own and it has legal actions, it sends one action chosen at random from
``legal`` (plays preferred over drawing and keeping) with a unique ``id``, and measures the
time from sending to receiving the matching ``ack``. When a game ends the host sends
``rematch``, so tables keep playing for ``--seconds``. Clients also pace themselves to the
server's rate limit per seat (20 messages/s, bursts of 40): that is one of the rules.

The clients run in ``--workers`` processes separate from the server so that the load
generator is not what is measured; their CPU use is reported next to the server's. On this
2-core machine they share the cores with the server, so they are written to cost as little as
they can: each connection is an ``asyncio.Protocol`` that reads and writes WebSocket frames
itself (no task, future or coroutine per message) and decodes only the fields a client acts
on (msgspec structs). Only 127.0.0.1 is targeted.

Examples::

    .venv/bin/python benchmarks/server_load.py --tables 250 --seconds 30
    .venv/bin/python benchmarks/server_load.py --tables 250 --seconds 30 --think-ms 1000
    .venv/bin/python benchmarks/server_load.py --tables 500 --seconds 30 --json out.json
    .venv/bin/python benchmarks/server_load.py --url http://127.0.0.1:8000 --server-pid 1234 --tables 10

Clients acting as fast as they can form a closed loop: each table has one action in
flight, so the latency is tables / throughput (Little's law) and grows with ``--tables``
once the server is saturated. ``--think-ms`` gives each client a person's pace instead,
which measures the latency at a given offered load. The first ``--warmup`` seconds (the
game starts) are played but not measured; errors are counted from the start.

Reported: tables, clients, actions/s, p50/p90/p99/max ack latency (ms), errors (error
messages by code, broken connections, actions never acknowledged), and the server's CPU
(percent of one core over the measured window) and resident memory.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import json
import multiprocessing as mp
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

# The load clients share this machine with the server: they encode and decode with msgspec (a few times
# faster than json) so that less of the machine goes to the load generator.
_encode = msgspec.json.Encoder().encode

_RATE_PER_SECOND = 20.0  # the server's limit per seat (server/app.py)
_RATE_BURST = 40.0
_PLAY_FIRST = ("play", "colour", "victim", "jester", "uno")  # anything but draw/keep, when there is a choice


# ---------------------------------------------------------------------------- server side


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_healthy(base: str, timeout: float, process: subprocess.Popen[bytes] | None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise SystemExit(f"the server at {base} did not become healthy within {timeout:g} s")


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _tree_cpu_seconds(pid: int) -> float | None:
    """CPU seconds of a process, its children it waited for, and its live descendants (PostgreSQL's backends are
    processes of their own); None if it is gone."""
    children: dict[int, list[int]] = {}
    times: dict[int, tuple[float, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        number = int(entry.name)
        children.setdefault(int(fields[1]), []).append(number)
        times[number] = ((int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick)
    if pid not in times:
        return None
    total, waiting = times[pid][0] + times[pid][1], list(children.get(pid, ()))
    while waiting:
        child = waiting.pop()
        total += sum(times.get(child, (0.0, 0.0)))
        waiting += children.get(child, ())
    return total


def _machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores (/proc/stat; iowait counts as idle)."""
    values = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = values[3] + values[4]
    total = sum(values[:8])  # (guest time is already inside user time)
    return (total - idle) / tick, total / tick


def _rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


# ---------------------------------------------------------------------------- clients


@dataclass
class _Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    host_commands: int = 0
    games_finished: int = 0
    states: int = 0
    state_bytes: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    broken: int = 0
    unacked: int = 0
    connect_failures: int = 0
    setup_retries: int = 0
    moved_retries: int = 0
    reconnections: list[dict[str, Any]] = field(default_factory=list)
    lost_in_reconnect: int = 0
    error_samples: list[str] = field(default_factory=list)


class _Pending(msgspec.Struct):
    seat: int | None = None


class _Game(msgspec.Struct):
    pending: _Pending | msgspec.UnsetType | None = msgspec.UNSET


class _View(msgspec.Struct):
    """The parts of a view a load client acts on; absent keys (a partial state leaves out what did not change)
    stay ``UNSET``."""

    phase: str | msgspec.UnsetType = msgspec.UNSET
    game_no: int | msgspec.UnsetType = msgspec.UNSET
    game: _Game | msgspec.UnsetType | None = msgspec.UNSET
    legal: list[dict[str, Any]] | msgspec.UnsetType = msgspec.UNSET


class _Message(msgspec.Struct):
    type: str
    version: int = -1
    full: bool = True
    ack: str | None = None
    id: str | None = None
    code: str | None = None
    view: _View | None = None


_decode_message = msgspec.json.Decoder(_Message).decode
"""Only the fields a client acts on are decoded (msgspec skips the rest of the frame without building it)."""

_CLOSE_MOVED = 4307  # a cluster's table moved to another process: reconnect at once (docs/protocol.md)
_FINAL_CLOSES = (4400, 4403, 4404, 4409, 4429)  # the protocol's closes that a client does not reconnect after


class _Moved(ConnectionError):
    """The WebSocket upgrade was answered 503 (``moved``: on a cluster, the table is moving): try again."""


class _Connection(asyncio.Protocol):
    """One client WebSocket at the byte level (RFC 6455): the upgrade request, then frames.

    The server's frames are read as they arrive and handed to the client (text), answered
    (ping), or end the connection (close); the client's are masked text frames, written at
    once. No task, future or coroutine per message: a load generator that costs the machine
    as little as it can, so that the server is what is measured.
    """

    def __init__(self, client: _Client, path: str, host: str) -> None:
        loop = asyncio.get_running_loop()
        self.client = client
        self.request = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                        f"Sec-WebSocket-Version: 13\r\n\r\n").encode()
        self.transport: Any = None  # (uvloop's transports are not asyncio.Transport subclasses)
        self.buffer = bytearray()
        self.open = False
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.close_code: int | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buffer[:end]).split(b"\r\n", 1)[0]
            del buffer[:end + 4]
            if b" 101 " not in status + b" ":
                kind = _Moved if b" 503 " in status + b" " else ConnectionError
                self._fail(kind(f"upgrade refused: {status.decode(errors='replace')}"))
                return
            self.open = True
            self.opened.set_result(None)
        used, size = 0, len(buffer)
        while size - used >= 2:
            first, length = buffer[used], buffer[used + 1] & 0x7F
            head = used + 2
            if length == 126:
                if size - used < 4:
                    break
                length = int.from_bytes(buffer[head:head + 2], "big")
                head += 2
            elif length == 127:
                if size - used < 10:
                    break
                length = int.from_bytes(buffer[head:head + 8], "big")
                head += 8
            end = head + length
            if end > size:
                break
            opcode = first & 0x0F
            if not first & 0x80 or opcode == 0x0:
                self._fail(ConnectionError("a fragmented frame (the server never sends one)"))
                return
            used = end
            if opcode == 0x1:
                self.client.on_text(bytes(buffer[head:end]))
            elif opcode == 0x9:  # ping: the server drops a connection that does not answer
                self._write(0xA, bytes(buffer[head:end]))
            elif opcode == 0x8:
                self.close_code = int.from_bytes(buffer[head:head + 2], "big") if length >= 2 else 1005
                if self.transport is not None:
                    self._write(0x8, bytes(buffer[head:head + 2]))
                    self.transport.close()
                break
        del buffer[:used]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the upgrade"))
        if not self.closed.done():
            self.closed.set_result(None)
        self.client.on_closed(self)

    def _fail(self, error: Exception) -> None:
        if not self.opened.done():
            self.opened.set_exception(error)
        if self.transport is not None:
            self.transport.close()

    def _write(self, opcode: int, payload: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        mask = random.getrandbits(32).to_bytes(4, "big")
        length = len(payload)
        if length < 126:
            head = bytes((0x80 | opcode, 0x80 | length))
        elif length < 65536:
            head = bytes((0x80 | opcode, 0x80 | 126)) + length.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + length.to_bytes(8, "big")
        transport.write(head + mask + _apply_mask(payload, mask))

    def send_text(self, text: bytes) -> bool:
        if not self.open or self.transport is None or self.transport.is_closing():
            return False
        self._write(0x1, text)
        return True

    def close(self) -> None:
        if self.open and self.transport is not None and not self.transport.is_closing():
            self._write(0x8, (1000).to_bytes(2, "big"))
            self.transport.close()


def _mask_function() -> Any:
    try:
        from websockets.speedups import apply_mask
    except ImportError:
        from websockets.utils import apply_mask
    return apply_mask


_apply_mask = _mask_function()


class _Client:
    """One seat: plays when the decision is its own, and acts as host if it is.

    It follows only what it acts on (phase, game number, whose decision is pending, its legal
    actions) from the full and partial states (docs/protocol.md), and measures the time from
    sending an action to receiving its acknowledgement (which rides in a state, or comes alone).
    """

    def __init__(self, worker: _Worker, code: str, seat: int, token: str, host: bool) -> None:
        self.worker = worker
        self.code = code
        self.seat = seat
        self.token = token
        self.host = host
        self.tag = f"{code}-{seat}"
        self.sent = 0
        self.pending: dict[str, tuple[float, bool]] = {}
        self.acted_version = -1
        self.version = -1  # the newest state's version on this connection
        self.thinking = False  # (a person's pace) an action is decided and waits for its think time
        self.phase: str | None = None
        self.game_no = -1
        self.pending_seat: int | None = None
        self.legal: list[dict[str, Any]] = []
        self.rematched_game = -1
        self.allowance, self.stamp = _RATE_BURST, time.monotonic()
        self.connection: _Connection | None = None
        self.finished = False
        self.generation = 0  # one more at every reconnection: an action decided on an older connection is dropped
        self.reconnection: dict[str, Any] | None = None  # while coming back after a close (worker.reconnect)

    async def _open(self) -> _Connection:
        worker = self.worker
        _, connection = await asyncio.wait_for(asyncio.get_running_loop().create_connection(
            lambda: _Connection(self, f"/ws/{self.code}", worker.netloc), worker.host, worker.port), 30)
        await asyncio.wait_for(connection.opened, 30)
        connection.send_text(_encode({"type": "hello", "token": self.token}))  # (protocol 4: not in the URL)
        return connection

    async def connect(self) -> None:
        """The first connection; an upgrade answered 503 (on a cluster, the table is moving) is tried again."""
        stats = self.worker.stats
        for attempt in range(40):
            try:
                self.connection = await self._open()
                return
            except _Moved as error:
                stats.moved_retries += 1
                if attempt < 39:
                    await asyncio.sleep(0.25)
                    continue
                failure: Exception = error
            except (OSError, TimeoutError, ConnectionError) as error:
                failure = error
            stats.connect_failures += 1
            if len(stats.error_samples) < 5:
                stats.error_samples.append(f"connect {self.tag}: {failure!r}")
            self.finished = True
            return

    def on_closed(self, connection: _Connection) -> None:
        if self.finished or connection is not self.connection:
            return
        self.finished = True
        worker, stats = self.worker, self.worker.stats
        if not worker.stopping and worker.reconnect and connection.close_code not in _FINAL_CLOSES:
            # (a cluster: the table moved, or its process died) come back as docs/protocol.md suggests; what was not
            # acknowledged is dropped, not resent: the client acts again on the state it gets
            stats.lost_in_reconnect += len(self.pending)
            self.pending.clear()
            record = {"code": self.code, "seat": self.seat, "closed_at": time.monotonic(),
                      "close_code": connection.close_code, "attempts": 0, "back_at": None, "ack_at": None}
            stats.reconnections.append(record)
            task = asyncio.get_running_loop().create_task(self._reconnect(record))
            worker.tasks.add(task)
            task.add_done_callback(worker.tasks.discard)
            return
        if not worker.stopping:  # the server closed the connection (or it broke) while playing
            stats.broken += 1
            if len(stats.error_samples) < 5:
                stats.error_samples.append(f"closed {self.tag}: {connection.close_code}")
        stats.unacked += len(self.pending)
        self.pending.clear()

    async def _reconnect(self, record: dict[str, Any]) -> None:
        """At once after 4307, else after 0.5 s, 1 s, 2 s... up to 10 s (docs/protocol.md's suggested policy)."""
        worker = self.worker
        delay = 0.0 if record["close_code"] == _CLOSE_MOVED else 0.5
        while not worker.stopping:
            if delay:
                await asyncio.sleep(delay)
                if worker.stopping:
                    break
            record["attempts"] += 1
            try:
                connection = await self._open()
            except (OSError, TimeoutError, ConnectionError):
                delay = min(10.0, max(0.5, 2 * delay))
                continue
            if connection.closed.done():  # (closed again at once: on_closed ignored it, as it was not ours yet)
                delay = min(10.0, max(0.5, 2 * delay))
                continue
            self.generation += 1
            # act on the new connection's states, whatever was lost with the old one
            self.acted_version, self.version, self.rematched_game, self.thinking = -1, -1, -1, False
            self.reconnection = record
            self.connection = connection
            self.finished = False
            return

    def _send(self, message: dict[str, Any]) -> None:
        now = time.monotonic()
        self.allowance = min(_RATE_BURST, self.allowance + (now - self.stamp) * _RATE_PER_SECOND)
        self.stamp = now
        if self.allowance < 1.5:  # keep a margin below the server's bucket: send when it has refilled
            asyncio.get_running_loop().call_later((1.5 - self.allowance) / _RATE_PER_SECOND, self._send_later,
                                                  message)
            return
        self._send_now(message)

    def _send_later(self, message: dict[str, Any]) -> None:
        if self.worker.stopping:
            return  # play ended while this client waited for its turn to send: the action is not sent
        self._send(message)

    def _send_now(self, message: dict[str, Any]) -> None:
        self.allowance -= 1
        connection = self.connection
        if connection is None:
            return
        self.pending[message["id"]] = (time.perf_counter(), self.worker.measuring)
        if not connection.send_text(_encode(message)):
            self.pending.pop(message["id"], None)

    def _next_id(self, prefix: str) -> str:
        self.sent += 1
        return f"{prefix}{self.tag}-{self.sent}"

    def on_text(self, raw: bytes) -> None:
        worker, stats = self.worker, self.worker.stats
        try:
            message = _decode_message(raw)
        except msgspec.DecodeError as error:
            stats.errors["client_decode"] += 1
            if len(stats.error_samples) < 5:
                stats.error_samples.append(f"{self.tag}: {error}: {raw[:200]!r}")
            return
        kind = message.type
        if self.reconnection is not None and kind == "state" and self.reconnection["back_at"] is None:
            self.reconnection["back_at"] = time.monotonic()  # (the first state on the new connection)
        if kind == "state":
            self.version = message.version
            if message.ack is not None:  # protocol 3: the ack of this connection's message rides in the state
                self._acked(message.ack)
            if worker.measuring:
                stats.states += 1
                stats.state_bytes += len(raw)
            self._follow(message)
            if worker.running:
                self._on_state(message.version)
        elif kind == "ack":
            self._acked(message.id or "")
        elif kind == "error":
            self.pending.pop(message.id or "", None)
            if worker.running or worker.stopping:  # errors count from the start, warm-up included
                stats.errors[message.code or "?"] += 1
                if len(stats.error_samples) < 5:
                    stats.error_samples.append(f"{self.tag}: {raw.decode(errors='replace')}")
        if worker.stopping and not self.pending and self.connection is not None:
            self.finished = True
            self.connection.close()

    def _follow(self, message: _Message) -> None:
        """Take a state's changes (a full state replaces everything; a partial one only what it holds)."""
        view = message.view
        if view is None:
            return
        if message.full:
            self.phase, self.game_no, self.pending_seat, self.legal = None, -1, None, []
        if view.phase is not msgspec.UNSET:
            self.phase = view.phase
        if view.game_no is not msgspec.UNSET:
            self.game_no = view.game_no
        if view.legal is not msgspec.UNSET:
            self.legal = view.legal
        game = view.game
        if game is None:
            self.pending_seat = None
        elif game is not msgspec.UNSET and game.pending is not msgspec.UNSET:
            self.pending_seat = game.pending.seat if game.pending is not None else None

    def _acked(self, message_id: str) -> None:
        sent = self.pending.pop(message_id, None)
        if sent is not None and self.reconnection is not None:
            self.reconnection["ack_at"] = time.monotonic()  # (the first acknowledgement after coming back)
            self.reconnection = None
        if sent is not None and sent[1]:  # sent inside the measured window
            self.worker.stats.latencies.append(time.perf_counter() - sent[0])

    def _on_state(self, version: int) -> None:
        stats = self.worker.stats
        if self.phase == "finished":
            if self.host and self.game_no != self.rematched_game:
                self.rematched_game = self.game_no
                stats.games_finished += 1
                stats.host_commands += 1
                self._send({"type": "host", "id": self._next_id("h"), "command": "rematch"})
            return
        if self.phase != "playing" or version <= self.acted_version or self.thinking:
            return
        legal = self.legal
        if not legal or self.pending_seat != self.seat:
            return
        self.acted_version = version
        plays = [action for action in legal if action.get("type") in _PLAY_FIRST]
        action = self.worker.rng.choice(plays or legal)
        think = self.worker.think
        if think > 0:  # a person's pace: act after a random delay, without holding up this socket's frames
            self.thinking = True  # (one decision at a time: the states that arrive meanwhile do not add another)
            asyncio.get_running_loop().call_later(think * self.worker.rng.uniform(0.5, 1.5), self._act_later, action,
                                                  self.generation)
            return
        stats.actions += int(self.worker.measuring)
        self._send({"type": "action", "id": self._next_id("a"), "action": action})

    def _act_later(self, action: dict[str, Any], generation: int) -> None:
        if generation != self.generation:  # decided on a connection that has closed since
            return
        self.thinking = False
        if not self.worker.running:
            return
        if self.phase == "playing" and self.pending_seat == self.seat and action in self.legal:
            self.worker.stats.actions += int(self.worker.measuring)
            self._send({"type": "action", "id": self._next_id("a"), "action": action})
        elif self.version > self.acted_version:
            # the table moved on while this person thought (a fanfare, or the states of a takeover and of the other
            # seats coming back): decide again on what it shows now, as a person would, instead of sending a move
            # the server must refuse
            self._on_state(self.version)

    def start_game(self) -> None:
        self.worker.stats.host_commands += 1
        self._send({"type": "host", "id": self._next_id("h"), "command": "start"})


class _Worker:
    def __init__(self, config: dict[str, Any], index: int) -> None:
        self.config = config
        self.index = index
        self.base = config["url"]
        parts = urlsplit(self.base)
        self.netloc = parts.netloc
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.think = config["think_ms"] / 1000
        self.rng = random.Random(config["seed"] * 1000 + index)
        self.reconnect = bool(config.get("reconnect", False))
        self.tasks: set[asyncio.Task[None]] = set()
        self.stats = _Stats()
        self.clients: list[_Client] = []
        self.running = False
        self.measuring = False
        self.stopping = False

    async def create_tables(self, count: int) -> None:
        from http.cookiejar import CookieJar, DefaultCookiePolicy

        import httpx

        players = self.config["settings"].get("players", 4)
        limit = asyncio.Semaphore(16)
        # Every seat is a person of its own: keep no cookies (the server gives one client one seat at a table).
        no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
        async with httpx.AsyncClient(base_url=self.base, timeout=60, cookies=no_cookies) as http:
            async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
                transport_errors = 0
                for attempt in range(40):
                    try:
                        response = await http.post(path, json=body)
                    except httpx.TransportError:  # a dropped keep-alive connection is retried, and counted
                        self.stats.setup_retries += 1
                        transport_errors += 1
                        if transport_errors == 3:
                            raise
                        await asyncio.sleep(0.5)
                        continue
                    if response.status_code == 503 and attempt < 39:  # moved: on a cluster, the table is moving
                        self.stats.moved_retries += 1
                        await asyncio.sleep(min(2.0, float(response.headers.get("Retry-After") or 0.5)))
                        continue
                    if response.status_code >= 400:  # (the body says who answered: the server, or HAProxy itself)
                        raise RuntimeError(f"POST {path}: {response.status_code} after {attempt + 1} attempts: "
                                           f"{response.text[:300]!r}")
                    result: dict[str, Any] = response.json()
                    return result
                raise AssertionError("unreachable")

            async def one(number: int) -> None:
                async with limit:
                    info = await post("/api/tables", {"name": f"Host {self.index}.{number}", "age": 30,
                                                      "settings": self.config["settings"]})
                    seats = [(info["seat"], info["token"])]
                    for other in range(1, players):
                        joined = await post(f"/api/tables/{info['code']}/join",
                                            {"name": f"P{other} {self.index}.{number}", "age": 30})
                        seats.append((joined["seat"], joined["token"]))
                for seat, token in seats:
                    self.clients.append(_Client(self, info["code"], seat, token, host=seat == info["seat"]))

            await asyncio.gather(*(one(n) for n in range(count)))


def _worker_main(config: dict[str, Any], index: int, tables: int, results: Any, go: Any) -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    asyncio.run(_worker_async(config, index, tables, results, go))


async def _worker_async(config: dict[str, Any], index: int, tables: int, results: Any, go: Any) -> None:
    worker = _Worker(config, index)
    loop = asyncio.get_running_loop()
    setup_started = time.monotonic()
    try:
        await worker.create_tables(tables)
    except Exception as error:
        results.put(("failed", index, f"creating tables: {error!r}"))
        return
    created = time.monotonic()
    connect_limit = asyncio.Semaphore(64)

    async def connect(client: _Client) -> None:
        async with connect_limit:
            await client.connect()

    await asyncio.gather(*(connect(client) for client in worker.clients))
    results.put(("ready", index, {"create_s": created - setup_started, "connect_s": time.monotonic() - created}))
    await loop.run_in_executor(None, go.wait)
    gc.collect()
    gc.disable()  # the load clients' own collector pauses must not count as the server's latency
    worker.running = True
    for client in worker.clients:
        if client.host and client.connection is not None:
            client.start_game()
    await asyncio.sleep(config["warmup"])
    worker.measuring = True
    cpu_start = time.process_time()
    await asyncio.sleep(config["seconds"])
    worker.measuring = False
    worker.running = False
    worker.stopping = True
    for task in list(worker.tasks):  # (clients still coming back after a close stop trying)
        task.cancel()
    gc.enable()
    cpu = time.process_time() - cpu_start
    # Let outstanding actions be acknowledged (they count), then close everything.
    drain_deadline = time.monotonic() + 5
    while any(c.pending and not c.finished for c in worker.clients) and time.monotonic() < drain_deadline:
        await asyncio.sleep(0.05)
    for client in worker.clients:
        if client.connection is not None and not client.finished:
            client.finished = True
            worker.stats.unacked += len(client.pending)
            client.connection.close()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            await asyncio.gather(*(c.connection.closed for c in worker.clients if c.connection is not None),
                                 return_exceptions=True)
    s = worker.stats
    results.put(("done", index, {
        "latencies": s.latencies, "actions": s.actions, "host_commands": s.host_commands,
        "games_finished": s.games_finished, "states": s.states, "state_bytes": s.state_bytes,
        "errors": dict(s.errors), "broken": s.broken, "unacked": s.unacked,
        "connect_failures": s.connect_failures, "samples": s.error_samples, "cpu": cpu,
        "clients": len(worker.clients), "setup_retries": s.setup_retries, "moved_retries": s.moved_retries,
        "reconnections": s.reconnections, "lost_in_reconnect": s.lost_in_reconnect,
    }))


# ---------------------------------------------------------------------------- driver


def _percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=250, help="tables to create (default 250)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to play (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="seconds of play before the measured window (game starts happen here; default 5)")
    parser.add_argument("--players", type=int, default=4, help="seats per table, all load clients (default 4)")
    parser.add_argument("--settings", default='{"single_round": true}',
                        help="table settings JSON (default: single-round games, so rematches are exercised)")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="mean delay before each action (uniform 0.5x..1.5x), like a person's; default 0: "
                             "as fast as the rules allow, which saturates the server (closed loop)")
    parser.add_argument("--workers", type=int, default=2, help="client processes (default 2)")
    parser.add_argument("--url", help="use a running server at http://127.0.0.1:PORT instead of starting one "
                                      "(started with --no-rate-limits: every simulated player has one address)")
    parser.add_argument("--server-pid", type=int, help="with --url: the server's pid, to report its CPU and memory")
    parser.add_argument("--port", type=int, default=0, help="port for the started server (default: a free one)")
    parser.add_argument("--db", help="SQLite file for the started server (default: a temporary file)")
    parser.add_argument("--server-log-level", default="info", choices=["debug", "info", "warning", "error"],
                        help="the started server's --log-level (default info, as serve; its log goes to a temp file)")
    parser.add_argument("--server-cmd", default=None,
                        help="the server command (default: royal-revenge next to this Python)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for the started server's serve command (repeatable), e.g. "
                             "--server-arg=--sqlite-sync=normal")
    parser.add_argument("--server-nice", type=int, default=0,
                        help="nice increment for the started server (negative needs root): on a machine busy with "
                             "other work, -10 shows what the server does when it gets a core")
    parser.add_argument("--max-tables", type=int, default=2000, help="refuse to run more tables than this")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", dest="json_path", help="also write the figures to this JSON file")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds to run, each with a fresh server (default 1): this machine's speed drifts, so "
                             "the figures of several rounds and their medians say more than one")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)

    if not 1 <= args.tables <= args.max_tables:
        parser.error(f"--tables must be 1..{args.max_tables}")
    if not 0 < args.seconds <= 3600:
        parser.error("--seconds must be in (0, 3600]")
    settings = json.loads(args.settings)
    settings.setdefault("players", args.players)
    workers = max(1, min(args.workers, args.tables))
    if not 1 <= args.repeat <= 100:
        parser.error("--repeat must be 1..100")
    if args.url and args.repeat > 1:
        parser.error("--repeat starts a fresh server for each round: not with --url")
    rounds: list[dict[str, Any]] = []
    failed = False
    for number in range(args.repeat):
        if args.repeat > 1:
            print(f"--- round {number + 1} of {args.repeat}")
        figures = _round(args, parser, settings, workers)
        failed |= figures["total_errors"] > 0
        rounds.append(figures)
    if args.repeat > 1:
        _print_summary(rounds)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rounds[0] if args.repeat == 1 else rounds, indent=2) + "\n")
    return 1 if failed else 0


def _cpu_probe() -> float:
    """Milliseconds of CPU a fixed pure-Python loop takes now: how fast this (shared) machine is running."""
    started = time.process_time()
    total = 0
    for number in range(2_000_000):
        total += number * number
    return 1000 * (time.process_time() - started)


def _print_summary(rounds: list[dict[str, Any]]) -> None:
    def median(values: list[float]) -> float:
        ordered = sorted(values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    print(f"--- {len(rounds)} rounds: actions/s, ack p50 / p99 ms, errors, CPU probe ms (lower: a faster machine)")
    for number, figures in enumerate(rounds, 1):
        ack = figures["ack_ms"]
        print(f"  {number}: {figures['actions_per_s']:8.1f}  {ack['p50']:6.1f} / {ack['p99']:6.1f}  "
              f"{figures['total_errors']}  {figures['cpu_probe_ms']:.0f}")
    print(f"  median: {median([f['actions_per_s'] for f in rounds]):8.1f}  "
          f"{median([f['ack_ms']['p50'] for f in rounds]):6.1f} / {median([f['ack_ms']['p99'] for f in rounds]):6.1f}"
          f"  {sum(f['total_errors'] for f in rounds)} errors in all")


def _round(args: argparse.Namespace, parser: argparse.ArgumentParser, settings: dict[str, Any],
           workers: int, *, watch: dict[str, list[int]] | None = None,
           during: Callable[[], dict[str, Any]] | None = None, reconnect: bool = False) -> dict[str, Any]:
    """One round: start a server (unless ``--url``), play, print the figures and return them.

    ``watch`` names processes (with their descendants) whose CPU is reported over the measured window, besides the
    started server's or ``--server-pid``'s (``benchmarks/cluster_load.py``: each server process, HAProxy,
    PostgreSQL). ``during`` is called in a thread when the measured window starts (a failover while the tables
    play); what it returns is in the figures as ``during``. ``reconnect``: the clients come back after a closed
    connection as docs/protocol.md suggests (a cluster), instead of counting it as broken.
    """
    probe = _cpu_probe()
    temp_dir = Path(tempfile.mkdtemp(prefix="rr-load-"))
    process: subprocess.Popen[bytes] | None = None
    server_pid = args.server_pid
    log_path = temp_dir / "server.log"
    try:
        if args.url:
            netloc = urlsplit(args.url).hostname
            if netloc not in ("127.0.0.1", "localhost"):
                parser.error("only 127.0.0.1 is targeted")
            base = args.url.rstrip("/").replace("localhost", "127.0.0.1")
        else:
            port = args.port or _free_port()
            db = args.db or str(temp_dir / "load.db")
            command = (args.server_cmd.split() if args.server_cmd else
                       [str(Path(sys.executable).with_name("royal-revenge"))])
            # (every simulated player comes from 127.0.0.1: the per-address limits would stop the load at once)
            command += ["serve", "--host", "127.0.0.1", "--port", str(port), "--db", db,
                        "--log-level", args.server_log_level, "--no-rate-limits", *args.server_arg]
            with log_path.open("wb") as log_file:
                nice = args.server_nice
                process = subprocess.Popen(command, stdout=log_file, stderr=log_file, start_new_session=True,
                                           preexec_fn=(lambda: os.nice(nice)) if nice else None)
            server_pid = process.pid
            base = f"http://127.0.0.1:{port}"
        _wait_healthy(base, 30, process)

        config = {"url": base, "settings": settings, "seconds": args.seconds,
                  "seed": args.seed, "think_ms": args.think_ms, "warmup": args.warmup, "reconnect": reconnect}
        context = mp.get_context("spawn")
        results = context.Queue()
        go = context.Event()
        shares = [args.tables // workers + (1 if i < args.tables % workers else 0) for i in range(workers)]
        procs = [context.Process(target=_worker_main, args=(config, i, shares[i], results, go), daemon=True)
                 for i in range(workers)]
        setup_start = time.monotonic()
        for proc in procs:
            proc.start()
        ready: list[dict[str, Any]] = []
        while len(ready) < workers:
            try:
                kind, index, payload = results.get(timeout=1)
            except queue.Empty:  # (a load client process that crashed says nothing: do not wait for it)
                crashed = [proc.exitcode for proc in procs if proc.exitcode not in (None, 0)]
                if crashed:
                    raise SystemExit(f"a load client process exited with status {crashed[0]} in its setup") from None
                if time.monotonic() - setup_start > 600:
                    raise SystemExit("the load clients were not ready within 600 s") from None
                continue
            if kind == "failed":
                raise SystemExit(f"worker {index} failed: {payload}")
            ready.append(payload)
        setup_seconds = time.monotonic() - setup_start
        go.set()
        time.sleep(args.warmup)
        rss_before = _rss_mib(server_pid) if server_pid else None
        cpu_before = _cpu_seconds(server_pid) if server_pid else None
        watched_before = {name: [_tree_cpu_seconds(pid) for pid in pids] for name, pids in (watch or {}).items()}
        machine_before = _machine_busy_seconds()
        driver_before = time.process_time()
        load_before = os.getloadavg()[0]
        wall_start = time.monotonic()
        during_result: dict[str, Any] = {}
        during_thread = threading.Thread(target=lambda: during_result.update(during()), daemon=True) \
            if during is not None else None
        if during_thread is not None:
            during_thread.start()
        peak_rss = rss_before
        while time.monotonic() - wall_start < args.seconds:
            time.sleep(min(1.0, max(0.0, args.seconds - (time.monotonic() - wall_start))))
            if server_pid:
                rss = _rss_mib(server_pid)
                if rss is not None and (peak_rss is None or rss > peak_rss):
                    peak_rss = rss
        cpu_after = _cpu_seconds(server_pid) if server_pid else None
        watched_after = {name: [_tree_cpu_seconds(pid) for pid in pids] for name, pids in (watch or {}).items()}
        machine_after = _machine_busy_seconds()
        driver_cpu = time.process_time() - driver_before
        wall = time.monotonic() - wall_start
        if during_thread is not None:
            during_thread.join()
        done: list[dict[str, Any]] = []
        while len(done) < workers:
            kind, index, payload = results.get(timeout=120)
            if kind == "done":
                done.append(payload)
        for proc in procs:
            proc.join(timeout=10)
    finally:
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    latencies = sorted(x * 1000 for d in done for x in d["latencies"])
    errors: Counter[str] = Counter()
    for d in done:
        errors.update(d["errors"])
    actions = sum(d["actions"] for d in done)
    acks = len(latencies)
    broken = sum(d["broken"] for d in done)
    unacked = sum(d["unacked"] for d in done)
    connect_failures = sum(d["connect_failures"] for d in done)
    clients = sum(d["clients"] for d in done)
    client_cpu = sum(d["cpu"] for d in done)
    figures: dict[str, Any] = {
        "tables": args.tables,
        "clients": clients,
        "workers": workers,
        "seconds": round(wall, 1),
        "setup_seconds": round(setup_seconds, 1),
        "actions": actions,
        "actions_per_s": round(actions / wall, 1),
        "acks_per_s": round(acks / wall, 1),
        "games_finished": sum(d["games_finished"] for d in done),
        "state_frames_per_s": round(sum(d["states"] for d in done) / wall, 1),
        "mean_state_bytes": round(sum(d["state_bytes"] for d in done) / max(1, sum(d["states"] for d in done))),
        "ack_ms": {name: round(_percentile(latencies, q), 1) for name, q in
                   (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))} | {"max": round(latencies[-1], 1) if latencies
                                                                    else None},
        "errors": dict(errors),
        "broken_connections": broken,
        "connect_failures": connect_failures,
        "unacked": unacked,
        "setup_http_retries": sum(d["setup_retries"] for d in done),
        "server_cpu_percent": round(100 * (cpu_after - cpu_before) / wall, 1)
        if cpu_after is not None and cpu_before is not None else None,
        "server_rss_mib": {"before": round(rss_before, 1) if rss_before else None,
                           "peak": round(peak_rss, 1) if peak_rss else None},
        "server_cpu_ms_per_action": round(1000 * (cpu_after - cpu_before) / max(1, acks), 2)
        if cpu_after is not None and cpu_before is not None else None,
        "clients_cpu_percent": round(100 * client_cpu / wall, 1),
        "cpu_percent": {name: round(100 * sum(a - b for a, b in zip(watched_after[name], before, strict=True)
                                              if a is not None and b is not None) / wall, 1)
                        for name, before in watched_before.items()},
        "machine_busy_percent": round(100 * (machine_after[0] - machine_before[0]) / wall, 1),
        "machine_cores": os.cpu_count(),
        "driver_cpu_percent": round(100 * driver_cpu / wall, 1),
        "moved_retries": sum(d["moved_retries"] for d in done),
        "reconnections": sum(len(d["reconnections"]) for d in done),
        "lost_in_reconnect": sum(d["lost_in_reconnect"] for d in done),
        "load_average": {"before": load_before, "after": os.getloadavg()[0]},
        "think_ms": args.think_ms,
        "server_nice": args.server_nice,
        "cpu_probe_ms": round(probe, 1),
    }
    total_errors = sum(errors.values()) + broken + connect_failures + unacked
    print(f"tables {figures['tables']}, clients {clients} in {workers} process(es), think {args.think_ms:g} ms, "
          f"{figures['seconds']} s measured after {args.warmup:g} s warm-up (setup {figures['setup_seconds']} s)")
    print(f"actions {actions} = {figures['actions_per_s']}/s (acks {figures['acks_per_s']}/s), "
          f"games finished {figures['games_finished']}, state frames {figures['state_frames_per_s']}/s "
          f"of {figures['mean_state_bytes']} bytes")
    ack = figures["ack_ms"]
    print(f"ack latency ms: p50 {ack['p50']}  p90 {ack['p90']}  p99 {ack['p99']}  max {ack['max']}")
    print(f"errors {total_errors}: messages {dict(errors) or 0}, broken connections {broken}, "
          f"connect failures {connect_failures}, unacknowledged {unacked} (HTTP retries during setup: "
          f"{figures['setup_http_retries']})")
    for d in done:
        for sample in d["samples"][:3]:
            print(f"  e.g. {sample}")
    if server_pid:
        print(f"server CPU {figures['server_cpu_percent']}% of one core, RSS {figures['server_rss_mib']['before']} "
              f"MiB before, {figures['server_rss_mib']['peak']} MiB peak; {figures['server_cpu_ms_per_action']} ms CPU "
              f"per acknowledged message")
    print(f"load clients CPU {figures['clients_cpu_percent']}% (all worker processes); machine load average "
          f"{load_before:.1f} before, {figures['load_average']['after']:.1f} after on {os.cpu_count()} CPUs")
    print(f"CPU probe before the round: {probe:.0f} ms (a fixed pure-Python loop; this machine's speed drifts)")
    if watch:
        print("CPU, % of one core: " + ", ".join(f"{name} {value}" for name, value in figures["cpu_percent"].items())
              + f"; the machine {figures['machine_busy_percent']}% of {100 * (os.cpu_count() or 1)}%")
    if figures["moved_retries"] or figures["reconnections"]:
        print(f"on a cluster: {figures['moved_retries']} requests or upgrades answered 503 moved and tried again, "
              f"{figures['reconnections']} reconnections ({figures['lost_in_reconnect']} unacknowledged actions "
              f"dropped with their connections)")
    if during is not None:
        figures["during"] = during_result
    if reconnect:
        figures["reconnection_records"] = [record for d in done for record in d["reconnections"]]
    figures["total_errors"] = total_errors
    shutil.rmtree(temp_dir, ignore_errors=True)
    return figures


if __name__ == "__main__":
    sys.exit(main())
