"""An out-of-process reliability probe of ``royal-revenge serve``: leaks, fuzzing and SIGKILLs.

It starts real server processes (the console script next to ``sys.executable``, a temporary SQLite
database, a free port on 127.0.0.1, ``--log-level info``, standard error captured to a file), attacks
them with its own WebSocket and HTTP clients, and prints one summary table (``--json`` too):

* ``leaks``: whole games at 2-6 seats with people (random legal play), bots, spectators and HTTP
  views. Every frame is checked on arrival (a spectator sees no hand, no other seat's draw is named,
  no secret field), then, once the game's record is out, the record is replayed with the engine and
  every view must be exactly the engine's observation for that seat at some moment, in order.
* ``fuzz``: malformed WebSocket messages and HTTP requests; each must be answered with an error
  (no 5xx, no crash), and the table must be unchanged afterwards.
* ``kills``: tables played by the probe's clients as fast as acknowledgements come, the server
  SIGKILLed at random moments and restarted on the same database; every acknowledged action must be
  in the game's record.

Every server log is scanned for tracebacks and error-level lines. The exit status is 1 if anything failed.

    PYTHONPATH=src python benchmarks/reliability.py --parts leaks,fuzz,kills --rounds 4 --fuzz-messages 500

``--cluster N`` (N >= 2) runs every part against a cluster instead (docs/scaling.md, "Several processes"):
N ``royal-revenge serve --node`` processes behind HAProxy (``royal_revenge.server.cluster.LocalCluster``,
``--lease-seconds``), each part on a database of its own in one throwaway PostgreSQL that the run starts
(Debian's ``postgresql`` and ``haproxy`` packages, and the ``postgres`` extra). Every request and WebSocket
of the probe goes through the balancer, and its clients do what the protocol asks of a cluster's client: an
HTTP ``503`` ``moved`` is tried again after its ``Retry-After``, and a WebSocket closed with 4307 ("moved"),
1012 or by a broken connection is opened again through the balancer and resynced from its snapshot. In
``kills``, each SIGKILL hits one process of the cluster, chosen at random among those running tables at that
moment (any of them if none does), which is then restarted, so that the cluster keeps N processes; a request
the balancer answers itself (502/503/504: it was in flight to the killed process) counts as a broken connection
there, and is tried again. Every acknowledged action must be in the game's record, and no action id may be in
the table's moves twice (read from PostgreSQL); after every new connection each seat also sends its last
acknowledged action again, with its id, which the process running the table now (perhaps one that just took it
over) must answer with a plain ``ack``, not apply. The logs of every process are scanned (a SIGKILL ends a log
without a word, which is no error; warnings such as ``write_refused`` are not errors either). Besides the
balancer, the probe asks only each process's own ``/healthz`` (which of them run tables; in ``fuzz``, that no table
moved or was loaded) and PostgreSQL (the moves' ids). ``--command`` is for one process only.

``--server-src DIR`` runs the servers from another copy of the sources (the probe keeps its own): the
way to see the probe fail, against a copy with a fault put in on purpose (with ``--cluster`` too). "frames
checked" counts the state frames of every WebSocket connection and the HTTP views; "frames replay-checked" those
of them that show a game (lobby frames have nothing to replay).

Protocol specifics (how to connect, create, join, what an answer is) are all in :class:`Wire`.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import hashlib
import json
import os
import random
import re
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from royal_revenge.client import merge_state
from royal_revenge.engine import ALL_CARDS, Action, Decision, GameRecord, GameState, Move
from royal_revenge.narration import card_words

COMMAND = str(Path(sys.executable).with_name("royal-revenge"))
SAFETY = 30.0  # seconds: any single wait longer than this is a failure, not a hang


# ---------------------------------------------------------------------------------------------
# The protocol, in one place (docs/protocol.md, version 3). Adapt here when it changes.
# ---------------------------------------------------------------------------------------------


class Wire:
    """One WebSocket connection to a table, reading every frame in the background.

    Everything the probe assumes about the protocol is in this class: the URL and how a token is
    presented, the create/join bodies, how a state frame is merged, what counts as an answer.
    """

    PROTOCOL = 4
    CLOSE_MOVED = 4307
    """A cluster's table moved to another process: connect again, through the balancer, and resend what was not
    answered (with the same ids). Any close but the final ones below means the same to a client."""
    FINAL_CLOSES = frozenset({4400, 4403, 4404, 4409})
    """Closes after which connecting again is no use: a bad hello, a bad token, no such table, replaced."""

    @staticmethod
    def ws_url(base: str, code: str, token: str | None) -> str:
        # Version 4: never a token in the URL (it goes in the hello).
        return f"{base}/ws/{code}"

    @staticmethod
    def hello(token: str | None) -> str | None:
        """The first message to send after connecting: the hello, with the seat token (none for a spectator)."""
        return json.dumps({"type": "hello", "token": token} if token else {"type": "hello"})

    @staticmethod
    def create_body(name: str, settings: dict[str, Any], bots: list[str], age: int | None = None) -> dict[str, Any]:
        return {"name": name, "age": age, "settings": settings, "bots": bots}

    @staticmethod
    def join_body(name: str, age: int | None = None) -> dict[str, Any]:
        return {"name": name, "age": age}

    @staticmethod
    def action_message(message_id: str, action: Any, game_no: int | None = None) -> dict[str, Any]:
        message = {"type": "action", "id": message_id, "action": action}
        if game_no is not None:
            message["game"] = game_no
        return message

    @staticmethod
    def host_message(message_id: str, command: str, **extra: Any) -> dict[str, Any]:
        return {"type": "host", "id": message_id, "command": command, **extra}

    @staticmethod
    def moved(status: int, body: Any) -> bool:
        """Whether an HTTP answer says the table is moving between a cluster's processes: 503 ``moved``, to be tried
        again after its ``Retry-After``."""
        return status == 503 and isinstance(body, dict) and isinstance(body.get("detail"), dict) and \
            body["detail"].get("code") == "moved"

    @staticmethod
    def answer(frame: dict[str, Any], message_id: str | None) -> str | None:
        """``"ack"``/``"error"`` if this frame answers the message with ``message_id``, else None."""
        kind = frame.get("type")
        if kind in ("ack", "error") and frame.get("id") == message_id:
            return str(kind)
        if kind == "state" and message_id is not None and frame.get("ack") == message_id:
            return "ack"  # (version 3: the acknowledgement rides in the state it caused)
        return None

    def __init__(self, ws: Any, name: str) -> None:
        self.ws = ws
        self.name = name
        self.view: dict[str, Any] | None = None
        self.version = -1
        self.frames: list[dict[str, Any]] = []  # every frame, as received (states: before merging)
        self.closed = False
        self.close_code: int | None = None
        self.changed = asyncio.Event()
        self.on_state: Callable[[Wire, dict[str, Any], str], None] | None = None
        self.problems: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._ids = 0

    @classmethod
    async def connect(cls, base: str, code: str, token: str | None, name: str,
                      on_state: Callable[[Wire, dict[str, Any], str], None] | None = None,
                      keep_frames: bool = True) -> Wire:
        for attempt in range(50):
            try:
                ws = await websockets.connect(cls.ws_url(base, code, token), max_size=None, open_timeout=SAFETY,
                                              compression=None)
                break
            except websockets.InvalidStatus as error:  # 429: too many connections from here; wait as told
                if error.response.status_code != 429 or attempt == 49:
                    raise
                await asyncio.sleep(min(10.0, float(error.response.headers.get("Retry-After", "1") or 1)))
        wire = cls(ws, name)
        wire.on_state = on_state
        wire.keep_frames = keep_frames
        hello = cls.hello(token)
        if hello is not None:
            with contextlib.suppress(websockets.ConnectionClosed):  # (refused at once: its error is read all the same)
                await ws.send(hello)
        wire._task = asyncio.create_task(wire._read())
        return wire

    keep_frames = True

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                message = json.loads(text)
                if self.keep_frames:
                    self.frames.append(message)
                if message.get("type") == "state":
                    if message["version"] < self.version:
                        self.problems.append(f"version went back from {self.version} to {message['version']}")
                    self.version = message["version"]
                    self.view = merge_state(self.view, message)
                    if self.on_state is not None:
                        self.on_state(self, message, text)
                self.changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.close_code = self.ws.close_code
            self.changed.set()

    def next_id(self) -> str:
        self._ids += 1
        return f"{self.name}-{self._ids}"

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = SAFETY) -> bool:
        """Wait until ``predicate()``; False on timeout or when the connection closed first."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while not predicate():
                    if self.closed:
                        return False
                    self.changed.clear()
                    await self.changed.wait()
                return True
        return False

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(json.dumps(message) if isinstance(message, dict) else message)

    async def request(self, message: dict[str, Any], timeout: float = SAFETY) -> dict[str, Any] | None:
        """Send a message with an id; its answer (an ack or an error frame), or None (closed, no answer).

        The frames kept so far are dropped first (a long run would otherwise hold every frame in memory)."""
        self.frames.clear()
        start = 0
        await self.send(message)
        return await self.answer_to(message["id"], start, timeout)

    async def answer_to(self, message_id: str | None, start: int, timeout: float = SAFETY) -> dict[str, Any] | None:
        found: list[dict[str, Any]] = []

        def answered() -> bool:
            for frame in self.frames[start:]:
                kind = Wire.answer(frame, message_id)
                if kind is not None:
                    found.append({**frame, "type": kind})
                    return True
            return False

        await self.wait_for(answered, timeout)
        return found[0] if found else None

    async def sync(self) -> dict[str, Any] | None:
        """A fresh full snapshot of this connection's view."""
        self.frames.clear()
        start = 0
        await self.send({"type": "sync"})
        ok = await self.wait_for(lambda: any(f.get("type") == "state" and f.get("full", True)
                                             for f in self.frames[start:]))
        return self.view if ok else None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        if self._task is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self._task


class Http:
    """An HTTP client that paces itself (``rate`` requests/s) and treats 429 as "slow down and retry".

    A cluster's 503 ``moved`` (the table is moving between processes) is tried again after its ``Retry-After``.
    ``balancer_errors_retried``: a 502, 503 or 504 that the balancer made itself (not the server's JSON: the request
    was in flight to a process that was killed) is a broken connection, tried again (the ``kills`` part of a
    cluster); otherwise it is a 5xx like any other."""

    def __init__(self, base: str, rate: float, stats: Counter[str], balancer_errors_retried: bool = False) -> None:
        self.client = httpx.AsyncClient(base_url=base, timeout=SAFETY)
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next_slot = 0.0
        self.stats = stats
        self.balancer_errors_retried = balancer_errors_retried

    async def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        for _ in range(50):
            now = time.monotonic()
            wait, self.next_slot = self.next_slot - now, max(now, self.next_slot) + self.interval
            if wait > 0:
                await asyncio.sleep(wait)
            response = await self.client.request(method, url, **kwargs)
            self.stats["http requests"] += 1
            status = response.status_code
            if status in (502, 503, 504):
                if "json" not in response.headers.get("content-type", ""):
                    if self.balancer_errors_retried:
                        self.stats["http balancer 5xx retried"] += 1
                        await asyncio.sleep(0.2)
                        continue
                elif Wire.moved(status, response.json()):
                    self.stats["http 503 moved retried"] += 1  # (a cluster's table moving: wait as told)
                    await asyncio.sleep(min(10.0, float(response.headers.get("retry-after", "1") or 1)))
                    continue
            if response.status_code != 429:
                if response.status_code >= 500:
                    self.stats["http 5xx"] += 1
                return response
            self.stats["http 429 retried"] += 1  # rate limited: not a failure, wait as told
            await asyncio.sleep(min(10.0, float(response.headers.get("retry-after", "1") or 1)))
        raise RuntimeError(f"{method} {url}: still 429 (or moving) after 50 tries")

    async def create(self, name: str, settings: dict[str, Any], bots: list[str],
                     age: int | None = None) -> dict[str, Any]:
        self.client.cookies.clear()  # (each player is a browser of their own: one seat per client at a table)
        response = await self.request("POST", "/api/tables", json=Wire.create_body(name, settings, bots, age))
        if response.status_code != 201:
            raise RuntimeError(f"create: {response.status_code} {response.text}")
        return dict(response.json())

    async def join(self, code: str, name: str, age: int | None = None) -> dict[str, Any]:
        self.client.cookies.clear()
        response = await self.request("POST", f"/api/tables/{code}/join", json=Wire.join_body(name, age))
        if response.status_code != 200:
            raise RuntimeError(f"join: {response.status_code} {response.text}")
        return dict(response.json())

    async def view(self, code: str) -> dict[str, Any]:
        response = await self.request("GET", f"/api/tables/{code}")
        if response.status_code != 200:
            raise RuntimeError(f"view: {response.status_code} {response.text}")
        return dict(response.json())

    async def close(self) -> None:
        await self.client.aclose()


# ---------------------------------------------------------------------------------------------
# Server processes and their logs
# ---------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Server:
    """``royal-revenge serve`` on a free port; standard error appended to ``log``."""

    def __init__(self, db: Path, log: Path, command: str = COMMAND, pythonpath: str | None = None) -> None:
        self.db, self.log, self.command = db, log, command
        self.env = {**os.environ, "PYTHONPATH": pythonpath} if pythonpath else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def logs(self) -> list[Path]:
        return [self.log]

    async def start(self) -> None:
        self.port = free_port()
        with self.log.open("ab") as stderr:
            self.proc = subprocess.Popen([self.command, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                          "--db", str(self.db), "--log-level", "info",
                                          # (every client here has one address: the per-address limits would make
                                          # the probe wait, not test more; tests/server/test_limits.py tests them)
                                          "--no-rate-limits"],
                                         stdout=subprocess.DEVNULL, stderr=stderr, env=self.env)
        deadline = time.monotonic() + 60
        async with httpx.AsyncClient(timeout=2) as client:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited ({self.proc.returncode}); see {self.log}")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get(f"{self.http}/healthz")).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start in 60 s")
                await asyncio.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=SAFETY)

    def stop(self) -> None:
        """A clean stop (SIGTERM), SIGKILL if it does not end."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


class Cluster:
    """``--cluster N``: N ``royal-revenge serve --node`` processes behind HAProxy (``LocalCluster``), on a database of
    their own in the run's PostgreSQL; logs and the HAProxy configuration in ``folder``. The probe's traffic goes to
    :attr:`http` / :attr:`ws`, the balancer; only :meth:`live_tables` asks the processes themselves."""

    def __init__(self, processes: int, db: str, folder: Path, pythonpath: str | None = None,
                 lease_seconds: float = 2.0) -> None:
        from royal_revenge.server.cluster import LocalCluster

        self.cluster = LocalCluster(processes, db=db, lease_seconds=lease_seconds, log_level="info",
                                    # (as for one server: the per-address limits would make the probe wait)
                                    no_rate_limits=True, folder=folder,
                                    env={"PYTHONPATH": pythonpath} if pythonpath else None)
        self.db = db

    @property
    def http(self) -> str:
        return self.cluster.url

    @property
    def ws(self) -> str:
        return self.cluster.url.replace("http://", "ws://")

    @property
    def logs(self) -> list[Path]:
        return [process.log for process in self.cluster.processes]

    async def start(self) -> None:
        await asyncio.to_thread(self.cluster.start)

    def stop(self) -> None:
        """HAProxy, then every process by SIGTERM (each drains), as ``LocalCluster.stop`` does."""
        self.cluster.stop()

    async def live_tables(self) -> list[int]:
        """How many tables each process runs now (its own ``/healthz``; -1: it does not answer)."""
        found = []
        async with httpx.AsyncClient(timeout=1.0) as client:
            for process in self.cluster.processes:
                try:
                    found.append(int((await client.get(f"{process.url}/healthz")).json()["tables"]))
                except (httpx.HTTPError, ValueError, KeyError, TypeError):
                    found.append(-1)
        return found

    async def kill_one(self, rng: random.Random) -> tuple[int, bool]:
        """SIGKILL one process, at random among those running tables (any, if none does): (its index, whether it
        ran tables)."""
        counts = await self.live_tables()
        busy = [index for index, count in enumerate(counts) if count > 0]
        index = rng.choice(busy or list(range(len(counts))))
        await asyncio.to_thread(self.cluster.kill, index)
        return index, bool(busy)

    async def restart(self, index: int) -> None:
        """Start a killed process again (same name and port); it answers ``/healthz`` when this returns, and the
        balancer puts it back after its checks pass."""
        await asyncio.to_thread(self.cluster.restart, index)

    async def applied_twice(self) -> list[str]:
        """Action ids that are in a table's moves more than once (``code/id``), read from PostgreSQL."""
        import asyncpg  # type: ignore[import-untyped]

        connection = await asyncpg.connect(self.db)
        try:
            rows = await connection.fetch("SELECT code, client_id FROM rr_moves WHERE client_id IS NOT NULL "
                                          "GROUP BY code, client_id HAVING count(*) > 1")
        finally:
            await connection.close()
        return [f"{row['code']}/{row['client_id']}" for row in rows]


async def start_target(args: argparse.Namespace, workdir: Path, part: str) -> Server | Cluster:
    """What a part attacks: one server on SQLite (``{part}.db``, ``{part}.log``), or with ``--cluster`` a cluster on a
    database of its own (logs in the folder ``{part}``), started."""
    target: Server | Cluster
    if args.cluster:
        db = await asyncio.to_thread(args.postgres.new_database, f"rr_probe_{part}")
        target = Cluster(args.cluster, db, workdir / part, args.server_src, args.lease_seconds)
    else:
        target = Server(workdir / f"{part}.db", workdir / f"{part}.log", args.command, args.server_src)
    await target.start()
    return target


def target_logs(workdir: Path, part: str) -> list[Path]:
    """Every server log of a part: one server's, or each process's of a cluster."""
    return [workdir / f"{part}.log", *sorted((workdir / part).glob("p*.log"))]


def scan_logs(paths: list[Path]) -> tuple[int, int, list[str]]:
    """:func:`scan_log` over several logs (a cluster's processes: each example says whose it is)."""
    tracebacks = errors = 0
    examples: list[str] = []
    for path in paths:
        found_tracebacks, found_errors, found = scan_log(path)
        tracebacks += found_tracebacks
        errors += found_errors
        prefix = f"{path.stem}: " if len(paths) > 1 else ""
        examples += [prefix + line for line in found][: max(0, 3 - len(examples))]
    return tracebacks, errors, examples


def scan_log(path: Path) -> tuple[int, int, list[str]]:
    """(lines with a traceback, error-level lines, a few examples) in one server log (all its runs)."""
    tracebacks = errors = 0
    examples: list[str] = []
    if not path.exists():
        return 0, 0, []
    for line in path.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if isinstance(entry, dict):
            bad_trace = "Traceback" in str(entry.get("error", "")) or "Traceback" in str(entry.get("event", ""))
            bad_level = str(entry.get("level", "")).lower() in ("error", "critical")
        else:  # not one of the server's JSON lines: a bare traceback or a message printed by something else
            bad_trace = "Traceback" in line
            bad_level = bool(re.search(r"\b(ERROR|CRITICAL)\b", line))
        tracebacks += bad_trace
        errors += bad_level
        if (bad_trace or bad_level) and len(examples) < 3:
            examples.append(line[:300])
    return tracebacks, errors, examples


# ---------------------------------------------------------------------------------------------
# Part 1: leaks
# ---------------------------------------------------------------------------------------------

CARD_RE = re.compile(r"^(?:[RYGB][1-8RSKJ]|W)$")
WORD_TO_CARD = {card_words(card): str(card) for card in ALL_CARDS}
CARD_WORDS = re.compile("|".join(sorted(map(re.escape, WORD_TO_CARD), key=len, reverse=True)))
HIDDEN_DRAW = r" draws (?:a card|no card|\d+ cards)(?: for the \+1| as the UNO penalty)?"
SECRET_KEYS = {"hands", "draw_pile", "rng", "seed", "token", "tokens", "ages", "age", "token_hash", "scepter_at",
               "scepter_deadline", "record", "moves"}
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"]


def cards_in(value: Any, skip: str = "log") -> set[str]:
    """Every string in a JSON value that is exactly a card's notation (the log is checked on its own)."""
    found: set[str] = set()
    if isinstance(value, str):
        if CARD_RE.match(value):
            found.add(value)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item, skip)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != skip:
                found |= cards_in(item, skip)
    return found


def secret_keys(value: Any) -> set[str]:
    if isinstance(value, list):
        return set().union(*(secret_keys(item) for item in value)) if value else set()
    if isinstance(value, dict):
        return {key for key in value if key in SECRET_KEYS} | (
            set().union(*(secret_keys(item) for item in value.values())) if value else set())
    return set()


def digest(game: dict[str, Any]) -> bytes:
    return hashlib.sha1(json.dumps(game, sort_keys=True, separators=(",", ":")).encode()).digest()


@dataclass
class Seen:
    """What the probe keeps of one frame (a view) for the check against the replayed record."""

    game_no: int
    digest: bytes
    hand: tuple[str, ...]
    shown: frozenset[str]  # cards anywhere in the view but the log
    logged: frozenset[str]  # cards named in the log entries new in this frame


@dataclass
class Watcher:
    """Everything one observer (a seat, or None: a spectator or the HTTP view) was shown at one table."""

    seat: int | None
    kind: str  # "seat", "spectator", "http"
    seen: list[Seen] = field(default_factory=list)


class LeakStats:
    def __init__(self) -> None:
        self.c: Counter[str] = Counter()
        self.failures: list[str] = []

    def fail(self, what: str, detail: str) -> None:
        self.c[what] += 1
        if len(self.failures) < 20:
            self.failures.append(f"{what}: {detail[:400]}")


def check_on_arrival(stats: LeakStats, watcher: Watcher, view: dict[str, Any], raw_view: dict[str, Any]) -> None:
    """The checks that need no truth: who the view is for, no hand for a spectator, no secret field,
    no other seat's drawn card named in the log. Then keep what the replay check needs."""
    stats.c["frames checked"] += 1
    where = f"{watcher.kind} {watcher.seat} v{view.get('version')}"
    if secret := secret_keys(raw_view):
        stats.fail("leaks", f"{where}: secret fields {sorted(secret)}")
    if view.get("you") != watcher.seat:
        stats.fail("leaks", f"{where}: the view is for seat {view.get('you')}")
    game = view.get("game")
    if game is None:
        if cards_in(view):
            stats.fail("leaks", f"{where}: cards outside a game: {cards_in(view)}")
        return
    hand = tuple(game.get("hand") or ())
    if game.get("seat") != watcher.seat:
        stats.fail("leaks", f"{where}: the observation is seat {game.get('seat')}'s")
    if watcher.seat is None and (hand or view.get("legal") or game.get("drawn")):
        stats.fail("leaks", f"{where}: a spectator sees a hand {hand}, legal {view.get('legal')}")
    if watcher.seat is not None and len(hand) != game["hand_sizes"][watcher.seat]:
        stats.fail("leaks", f"{where}: hand {hand} but hand size {game['hand_sizes'][watcher.seat]}")
    names = [seat.get("name") or "" for seat in view.get("seats", [])]
    logged: set[str] = set()
    for entry in raw_view.get("log") or ():
        text = str(entry.get("text", ""))
        logged |= {WORD_TO_CARD[word] for word in CARD_WORDS.findall(text)}
        if entry.get("kind") != "Drew":
            continue
        drawers = [i for i, name in enumerate(names) if name and text.startswith(f"{name} draws")]
        drawer = max(drawers, key=lambda i: len(names[i])) if drawers else None
        if drawer is None:
            stats.fail("unparsed draw lines", f"{where}: {text!r}")
        elif drawer != watcher.seat and (not re.fullmatch(re.escape(names[drawer]) + HIDDEN_DRAW, text)
                                         or CARD_WORDS.search(text[len(names[drawer]):])):
            stats.fail("leaks", f"{where}: another seat's draw named: {text!r}")
    watcher.seen.append(Seen(int(view.get("game_no", 0)), digest(game), hand, frozenset(cards_in(view)),
                             frozenset(logged)))


def check_against_record(stats: LeakStats, watchers: Iterable[Watcher], record: GameRecord, game_no: int) -> None:
    """Replay the record; each view of this game must be the engine's observation at some moment, in order."""
    state = GameState.new(record.options, record.seed, ages=record.ages, first_king=record.first_king)
    states = [state.copy()]
    for move in record.moves:
        state.apply(move.seat, move.action)
        states.append(state.copy())
    record.replay()  # and the digest must check out
    stats.c["moves replayed"] += len(record.moves)
    for watcher in watchers:
        s = watcher.seat
        observations = [st.observe(s).to_json() for st in states]
        index: dict[bytes, list[int]] = {}
        for m, observation in enumerate(observations):
            index.setdefault(digest(observation), []).append(m)
        allowed: list[set[str]] = []
        # Cards this observer has seen so far in this game, in its hand or the discard: a log entry may name only
        # those. (The game's log keeps its last 60 entries, which may reach back several short rounds: an HTTP
        # view, which has the whole log, named cards of rounds before the last one.)
        lately: list[set[str]] = []
        seen_so_far: set[str] = set()
        for st in states:
            visible = {str(c) for c in st.discard}
            if s is not None:
                visible |= {str(c) for c in st.hands[s]}
                if st.decision is Decision.DRAWN and st.decider == s and st.drawn is not None:
                    visible.add(str(st.drawn))
            allowed.append(visible)
            seen_so_far |= visible
            lately.append(set(seen_so_far))
        at = 0
        for seen in watcher.seen:
            if seen.game_no != game_no:
                continue
            stats.c["frames replay-checked"] += 1
            where = f"{watcher.kind} {s} frame of game {game_no}"
            options = index.get(seen.digest, [])
            k = bisect.bisect_left(options, at)
            if k < len(options):
                at = options[k]
                true_hand = [str(c) for c in states[at].hands[s]] if s is not None else []
                if sorted(seen.hand) != sorted(true_hand) or not seen.shown <= allowed[at]:
                    stats.fail("leaks", f"{where}: shows {sorted(seen.shown - allowed[at])}")
            else:  # not the engine's view at any later moment: a wrong view; and a leak if no moment explains it
                stats.fail("views unlike the engine's", f"{where} (after move {at}): hand {seen.hand}")
                if not any(seen.shown <= allowed[m] and (s is None or sorted(seen.hand) ==
                           sorted(str(c) for c in states[m].hands[s])) for m in range(at, len(states))):
                    stats.fail("leaks", f"{where}: hand {seen.hand} is never the true hand")
            if not seen.logged <= lately[at]:
                stats.fail("leaks", f"{where}: the log names {sorted(seen.logged - lately[at])}")


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal action, a card when one can be played (mostly): uniform choice makes endless games."""
    plays = [action for action in legal if action["type"] == "play"]
    if plays and rng.random() < 0.9:
        return rng.choice(plays)
    return rng.choice(legal)


async def play_seat(wire: Wire, rng: random.Random, stats: Counter[str], pace: float, stop: asyncio.Event) -> None:
    """Random legal play for one person's seat, at most one message per ``pace`` seconds."""
    while not stop.is_set():
        view = wire.view
        if view is not None and view.get("phase") == "finished":
            return
        if view is not None and view.get("phase") == "playing" and view.get("legal"):
            version = wire.version
            answer = await wire.request(Wire.action_message(wire.next_id(), choose(rng, view["legal"])))
            stats["actions sent"] += 1
            if answer is None:
                raise RuntimeError(f"{wire.name}: no answer to an action")
            if answer["type"] == "ack":
                stats["actions acked"] += 1
            elif answer.get("code") == "rate_limited":
                await asyncio.sleep(1.0)
            elif answer.get("code") not in ("illegal", "wrong_phase"):  # (a bot's catch may beat us to it)
                raise RuntimeError(f"{wire.name}: unexpected answer {answer}")
            await asyncio.sleep(pace)
            await wire.wait_for(lambda v=version: wire.version != v or wire.closed, 2.0)  # type: ignore[misc]
        else:
            if wire.closed:
                raise RuntimeError(f"{wire.name}: connection closed (code {wire.close_code})")
            wire.changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await wire.changed.wait()


async def leak_table(server: Server | Cluster, http: Http, rng: random.Random, stats: LeakStats,
                     args: argparse.Namespace, seq: int) -> None:
    players = 2 + seq % 5  # (every size in turn)
    people = rng.randint(1, players)
    bots = [rng.choice(["easy", "normal", "hard"]) for _ in range(players - people)]
    settings: dict[str, Any] = {"players": players, "single_round": True, "bot_delay_seconds": 0.05,
                                "turn_seconds": 600, "grace_seconds": 600, "next_round_seconds": 0.2,
                                "scepter_min_seconds": 5, "scepter_max_seconds": 15}
    if seq % 3 == 2:  # now and then a game of several rounds
        settings |= {"single_round": False, "target_score": args.target_score}
    watchers: list[Watcher] = []

    def watch(watcher: Watcher) -> Callable[[Wire, dict[str, Any], str], None]:
        def on_state(wire: Wire, message: dict[str, Any], text: str) -> None:
            assert wire.view is not None
            check_on_arrival(stats, watcher, wire.view, message["view"])
        return on_state

    host = await http.create(NAMES[0], settings, bots, age=rng.choice([None, 9, 40]))
    code = host["code"]
    tokens = {0: host["token"]}
    for i in range(1, people):
        joined = await http.join(code, NAMES[i], age=rng.choice([None, 7, 30]))
        tokens[joined["seat"]] = joined["token"]
    wires: dict[int, Wire] = {}
    for seat, token in tokens.items():
        watcher = Watcher(seat, "seat")
        watchers.append(watcher)
        wires[seat] = await Wire.connect(server.ws, code, token, f"t{seq}s{seat}", watch(watcher), keep_frames=True)
    spectators = []
    for i in range(rng.randint(1, 2)):
        watcher = Watcher(None, "spectator")
        watchers.append(watcher)
        spectators.append(await Wire.connect(server.ws, code, None, f"t{seq}v{i}", watch(watcher), keep_frames=False))
    http_watcher = Watcher(None, "http")
    watchers.append(http_watcher)
    stats.c["rounds"] += 0
    stats.c["tables"] += 1
    stats.c[f"seats {players}"] += 1
    answer = await wires[0].request(Wire.host_message(wires[0].next_id(), "start"))
    if answer is None or answer["type"] != "ack":
        raise RuntimeError(f"start: {answer}")
    stop = asyncio.Event()

    async def look() -> None:
        early = False
        while not stop.is_set():
            view = await http.view(code)
            check_on_arrival(stats, http_watcher, view, view)
            stats.c["http views"] += 1
            if view.get("phase") == "playing" and not early:  # the record must not be out before the end
                early = True
                for what in ("record", "replay"):
                    response = await http.request("GET", f"/api/tables/{code}/{what}")
                    stats.c["early record/replay refused"] += response.status_code == 409
                    if response.status_code != 409:
                        stats.fail("leaks", f"GET {what} during the game: {response.status_code}")
            await asyncio.sleep(args.http_interval)

    players_tasks = [asyncio.create_task(play_seat(wire, random.Random(rng.random()), stats.c, args.pace, stop))
                     for wire in wires.values()]
    looker = asyncio.create_task(look())
    try:
        async with asyncio.timeout(args.game_timeout):
            await asyncio.gather(*players_tasks)
            await wires[0].wait_for(lambda: wires[0].view is not None and wires[0].view["phase"] == "finished")
    finally:
        stop.set()
        for task in players_tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await looker
    await asyncio.sleep(0.2)  # (the spectators' last frames)
    final = await http.view(code)
    check_on_arrival(stats, http_watcher, final, final)
    response = await http.request("GET", f"/api/tables/{code}/record")
    if response.status_code != 200:
        raise RuntimeError(f"record: {response.status_code} {response.text}")
    record = GameRecord.loads(response.text)
    replay = await http.request("GET", f"/api/tables/{code}/replay")
    if replay.status_code != 200:
        raise RuntimeError(f"replay: {replay.status_code}")
    state = GameState.new(record.options, record.seed, ages=record.ages, first_king=record.first_king)
    frames = replay.json()["frames"]
    if len(frames) != len(record.moves) + 1:
        stats.fail("replay unlike the record", f"{len(frames)} frames for {len(record.moves)} moves")
    for m, frame in enumerate(frames):  # the replay's open hands must be the true ones
        if m:
            state.apply(record.moves[m - 1].seat, record.moves[m - 1].action)
        if frame["hands"] != [[str(c) for c in hand] for hand in state.hands]:
            stats.fail("replay unlike the record", f"table {code} move {m}")
            break
    stats.c["rounds"] += state.round_no
    check_against_record(stats, watchers, record, int(final["game_no"]))
    for wire in [*wires.values(), *spectators]:
        for problem in wire.problems:
            stats.fail("protocol problems", f"{wire.name}: {problem}")
        await wire.close()
    stats.c["seats played"] += players
    stats.c["people"] += people
    stats.c["spectators"] += len(spectators)


async def part_leaks(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    stats = LeakStats()
    server = await start_target(args, workdir, "leaks")
    http = Http(server.http, args.http_rate, stats.c)
    rng = random.Random(args.seed)
    queue = list(range(args.rounds))
    started = time.monotonic()

    async def worker() -> None:
        while queue:
            seq = queue.pop(0)
            await leak_table(server, http, random.Random(rng.random()), stats, args, seq)

    try:
        await asyncio.gather(*(worker() for _ in range(max(1, args.tables_at_once))))
    finally:
        await http.close()
        server.stop()
    tracebacks, errors, examples = scan_logs(server.logs)
    c = stats.c
    return {"part": "leaks", "seconds": round(time.monotonic() - started, 1),
            "games": c["tables"], "rounds": c["rounds"], "seats": c["seats played"], "people": c["people"],
            "spectators": c["spectators"], "frames checked": c["frames checked"],
            "frames replay-checked": c["frames replay-checked"], "http views": c["http views"],
            "moves replayed": c["moves replayed"], "actions acked": c["actions acked"],
            "early record/replay refused": c["early record/replay refused"],
            "seat counts": {k: v for k, v in sorted(c.items()) if re.fullmatch(r"seats \d", k)},
            "leaks": c["leaks"], "views unlike the engine's": c["views unlike the engine's"],
            "replay unlike the record": c["replay unlike the record"],
            "protocol problems": c["protocol problems"], "unparsed draw lines": c["unparsed draw lines"],
            "http 5xx": c["http 5xx"], "http 429 retried": c["http 429 retried"],
            **({"processes": args.cluster, "http 503 moved retried": c["http 503 moved retried"]}
               if args.cluster else {}),
            "log tracebacks": tracebacks, "log errors": errors, "log examples": examples,
            "failures": stats.failures}


# ---------------------------------------------------------------------------------------------
# Part 2: fuzz
# ---------------------------------------------------------------------------------------------

CARDS = sorted({str(card) for card in ALL_CARDS})
BAD_IDS: list[Any] = ["", "x" * 65, "a b", "é", "a/b", None, 7, [], {}, True, "\u0000", "id\n"]


def _text(rng: random.Random, size: int) -> str:
    alphabet = string.printable + "éß漢字🂡\u0000\u0007\u001b\u202e\u2028\ufeff"
    return "".join(rng.choice(alphabet) for _ in range(size))


def _junk(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 1, 7, 2**70, -(2**63), 10**400 if rng.random() < 0.1 else 3])
    if choice == 3:
        return rng.choice([0.5, -3.25, 1e300, 1e-300])
    if choice == 4:
        return _text(rng, rng.randrange(0, 12))
    if choice == 5:
        return rng.choice([*CARDS, "", "Z9", "r0", "W!", "RR", "draw"])
    if choice == 6:
        return [_junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_text(rng, 3): _junk(rng, depth + 1) for _ in range(rng.randrange(4))}


def _nested(rng: random.Random, depth: int) -> str:
    if rng.random() < 0.5:
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def _action(rng: random.Random, players: int) -> dict[str, Any]:
    kind = rng.choice(["play", "play", "draw", "keep", "colour", "victim", "jester", "uno", "catch", "fanfare",
                       "deal", "pass", "PLAY", ""])
    action: dict[str, Any]
    if kind == "play":
        action = {"type": "play", "card": rng.choice(CARDS), "uno": rng.choice([True, False])}
    elif kind == "colour":
        action = {"type": "colour", "colour": rng.choice("RYGBX")}
    elif kind in ("victim", "jester", "catch"):
        action = {"type": kind, "seat": rng.randrange(-1, players + 1)}
    else:
        action = {"type": kind}
    if rng.random() < 0.4:  # a wrong value, a missing or an extra field
        key = rng.choice([*action, "extra"])
        if rng.random() < 0.3 and key in action:
            del action[key]
        else:
            action[key] = _junk(rng)
    return action


def fuzz_message(rng: random.Random, players: int, seq: int, legal: list[dict[str, Any]]) -> tuple[str, str | bytes]:
    """(category, one message that must be refused). ``legal``: what this connection's seat may do now (never
    sent, not even with extra fields, which a lenient server might ignore)."""
    mid = f"fz{seq}"
    kind = rng.randrange(20)
    if kind == 0:
        return "binary", bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
    if kind == 1:
        return "text", _text(rng, rng.randrange(0, 200))
    if kind == 2:
        return "bad json", rng.choice(['{', '{"type":', '[1,2', 'nul', '{"type":"action"', "{'type': 'action'}", '"',
                                       '', ' ', 'NaN', '{"type":"sync",}', '\ufeff{"type":"ping"}', '{"a":1}{"b":2}'])
    if kind == 3:
        return "not an object", json.dumps(rng.choice([[], 1, "sync", None, True, [{"type": "sync"}]]))
    if kind == 4:
        return "wrong types", json.dumps({"type": rng.choice([1, None, [], {}, True, "SYNC", "Action", ""]),
                                          "id": mid})
    if kind == 5:
        return "unknown fields", json.dumps({"type": rng.choice(["sync", "ping", "action", "host"]), "id": mid,
                                             _text(rng, 4) or "x": _junk(rng)})
    if kind == 6:
        size = rng.choice([rng.randrange(4097, 16000), rng.randrange(17000, 40000)])  # (over 16 KiB: closed)
        return "huge", json.dumps({"type": "ping", "id": mid, "pad": "x" * size})
    if kind == 7:
        depth = rng.randrange(1000, 1900)
        inner = _nested(rng, depth)
        return "deeply nested", rng.choice([inner, f'{{"type":"action","id":"{mid}","action":{inner}}}'])
    if kind == 8:
        return "control characters", '{"type":"ping","id":"' + rng.choice(["\u0000", "\n", "\u0007", "\\ud800"]) + '"}'
    if kind == 9:
        return "wrong ids", json.dumps({"type": rng.choice(["action", "host", "ping"]), "id": rng.choice(BAD_IDS),
                                        "action": {"type": "draw"}, "command": "start"})
    if kind == 10:
        extra: dict[str, Any] = rng.choice([{}, {"seat": 0}, {"seat": 9}, {"seat": "1"}, {"level": "god"}])
        command = rng.choice(["start", "rematch", "add_bot", "nuke", "", "remove"])
        return "host commands", json.dumps(Wire.host_message(mid, command, **extra))
    if kind == 11:
        bad: list[Any] = [None, [], "draw", 3, {"type": None}, {}, {"type": "play"}, {"card": "W"}]
        return "bad action objects", json.dumps(Wire.action_message(mid, rng.choice(bad)))
    if kind == 12:
        return "missing fields", json.dumps(rng.choice([{"type": "action", "id": mid}, {"type": "host", "id": mid},
                                                        {"type": "action", "action": {"type": "draw"}},
                                                        {"id": mid}]))
    if kind == 13:
        return "surrogates and escapes", rng.choice(['{"type":"ping","id":"\\udfff"}', '{"type":"\\u0000"}',
                                                     '{"type":"ping","id":"' + "\\" * 3 + '"}'])
    if kind == 14:
        return "duplicate keys", f'{{"type":"ping","type":"action","id":"{mid}"}}'
    # An action that looks like one; never one this seat could take now (it must be refused).
    for _ in range(50):
        action = _action(rng, players)
        if not any(_looks_like(action, option) for option in legal):
            return "out-of-turn or illegal actions", json.dumps(Wire.action_message(mid, action))
    return "bad action objects", json.dumps(Wire.action_message(mid, None))


def _differences(before: tuple[Any, ...], now: tuple[Any, ...]) -> list[tuple[str, Any, Any]]:
    """Which keys of two snapshots differ (to say what changed)."""
    found: list[tuple[str, Any, Any]] = []
    for index, (a, b) in enumerate(zip(before, now, strict=True)):
        if a == b:
            continue
        if isinstance(a, tuple) and isinstance(b, tuple):
            found.extend((f"{index}.{key}", x, y) for key, x, y in _differences(a, b))
            continue
        try:
            left, right = json.loads(a), json.loads(b)
        except (TypeError, ValueError):
            found.append((str(index), a, b))
            continue
        if isinstance(left, dict) and isinstance(right, dict):
            found.extend((f"{index}.{key}", left.get(key), right.get(key)) for key in sorted(set(left) | set(right))
                         if left.get(key) != right.get(key))
        else:
            found.append((str(index), left, right))
    return found


def _looks_like(action: dict[str, Any], option: dict[str, Any]) -> bool:
    """Whether ``action`` is the legal ``option`` itself (one with a field more must be refused: protocol 4)."""
    return action == option


def expected_id(message: str | bytes) -> str | None:
    """The id the error answer should carry (the message's own when well-formed, else None)."""
    if len(message) > 4096:  # (the server does not read a message over its limit, so it cannot know the id)
        return None
    try:
        data = json.loads(message)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict) and isinstance(data.get("id"), str) and re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}",
                                                                                    data["id"]):
        return str(data["id"])
    return None


async def part_fuzz(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    c: Counter[str] = Counter()
    failures: list[str] = []
    categories: Counter[str] = Counter()
    http_examples: list[str] = []

    def fail(what: str, detail: str) -> None:
        c[what] += 1
        if len(failures) < 20:
            failures.append(f"{what}: {detail[:300]}")

    server = await start_target(args, workdir, "fuzz")
    http = Http(server.http, args.http_rate, c)
    started = time.monotonic()
    rng = random.Random(args.seed + 1)
    quiet = {"players": 3, "single_round": True, "turn_seconds": 600, "grace_seconds": 3600,
             "scepter_min_seconds": 3000, "scepter_max_seconds": 3600, "bot_delay_seconds": 0}
    try:
        host = await http.create("Host", quiet, [])
        code = host["code"]
        tokens = [host["token"], (await http.join(code, "Bea"))["token"], (await http.join(code, "Cal"))["token"]]
        holders = [await Wire.connect(server.ws, code, token, f"hold{i}") for i, token in enumerate(tokens)]
        await holders[0].request(Wire.host_message("start-1", "start"))
        # Play people's moves until every seat has had an action accepted (its id is resent below) and the table
        # is quiet: a turn, nobody to catch (nothing can then happen by itself).
        accepted: dict[int, list[str]] = {0: [], 1: [], 2: []}
        for _ in range(200):
            await asyncio.sleep(0.1)
            view = await holders[0].sync()
            assert view is not None and view["phase"] == "playing"
            game = view["game"]
            if game["pending"]["kind"] == "turn" and game["uno_seat"] is None and all(accepted.values()):
                break
            seat = game["pending"]["seat"]
            decider = holders[seat]
            await decider.wait_for(lambda d=decider: bool(d.view and d.view.get("legal")), 5)
            assert decider.view is not None
            message_id = decider.next_id()
            answer = await decider.request(Wire.action_message(message_id, rng.choice(decider.view["legal"])))
            if answer is not None and answer["type"] == "ack":
                accepted[seat].append(message_id)
        await asyncio.sleep(0.3)

        # A seat has one connection at a time (protocol 4: a second one takes it over), so each seat's messages are
        # fuzzed on its holder's connection, and the table is watched through a spectator's.
        watcher = await Wire.connect(server.ws, code, None, "watcher")

        async def snapshot() -> tuple[Any, ...]:
            views = [await watcher.sync()]
            public = await http.view(code)
            if isinstance(server, Cluster):  # (each process's own count: the balancer's /healthz is any process's)
                tables: Any = tuple(await server.live_tables())
            else:
                tables = (await http.request("GET", "/healthz")).json().get("tables")
            return (tuple(json.dumps({k: v for k, v in (view or {}).items() if k != "log"}, sort_keys=True)
                          for view in views), json.dumps({k: v for k, v in public.items() if k != "log"},
                                                         sort_keys=True), tables)

        before = await snapshot()
        players = 3
        legal = {i: list((holder.view or {}).get("legal") or []) for i, holder in enumerate(holders)}
        per_worker = max(1, args.fuzz_messages // args.fuzz_connections)

        async def worker(w: int) -> None:
            seat: int | None = w if w < 3 else None  # the three seats (on their holders' connections), then spectators
            token = tokens[seat] if seat is not None else None
            wrng = random.Random(args.seed * 1000 + w)
            if seat is not None:
                wire = holders[seat]
            else:
                wire = await Wire.connect(server.ws, code, token, f"fz{w}")
            await wire.wait_for(lambda: wire.view is not None)
            interval = 1.0 / args.ws_rate
            for i in range(per_worker):
                if wire.closed:  # (a frame over 16 KiB closes the connection, as documented)
                    wire = await Wire.connect(server.ws, code, token, f"fz{w}")
                    await wire.wait_for(lambda w=wire: w.view is not None)  # type: ignore[misc]
                    if seat is not None:
                        holders[seat] = wire
                repeated = seat is not None and wrng.random() < 0.05
                message: str | bytes
                want: str | None
                if repeated:  # an accepted id again, with another action: acknowledged, not applied again
                    assert seat is not None
                    category, want = "repeated ids", wrng.choice(accepted[seat])
                    message = json.dumps(Wire.action_message(want, _action(wrng, players)))
                else:
                    category, message = fuzz_message(wrng, players, w * per_worker + i,
                                                     legal[seat] if seat is not None else [])
                    if seat is not None and len(message) > 16384:
                        # (a frame over the socket's limit closes the connection, and closing a seat's only
                        # connection is a change at the table: the spectators send those)
                        message = message[:8192]
                    want = expected_id(message)
                categories[category] += 1
                wire.frames.clear()  # (only this message's answer matters)
                start = 0
                sent = time.monotonic()
                try:
                    await wire.send(message)
                except websockets.ConnectionClosed:
                    wire.closed = True
                c["ws messages"] += 1

                def answered(wire: Wire = wire, start: int = start) -> bool:
                    return any(f.get("type") in ("error", "ack", "pong") or
                               (f.get("type") == "state" and f.get("ack")) for f in wire.frames[start:])

                got = await wire.wait_for(answered, 10)
                answers = [f for f in wire.frames[start:] if f.get("type") != "state"]
                if not got:
                    if wire.closed and category == "huge" and len(message) > 16384 and wire.close_code == 1009:
                        c["closed as documented (frame over 16 KiB)"] += 1
                        c[f"close {wire.close_code}"] += 1
                    elif wire.closed:
                        fail("connections dropped", f"{category}: close {wire.close_code} after {message[:80]!r}")
                    else:
                        fail("unanswered", f"{category}: {message[:120]!r}")
                elif repeated:
                    if answers and answers[0].get("type") == "ack" and answers[0].get("id") == want:
                        c["repeated ids acked, not applied"] += 1
                    else:
                        fail("repeated ids mishandled", f"{message[:120]!r} -> {answers[:1]}")
                elif answers and answers[0].get("type") == "error":
                    code_ = answers[0].get("code")
                    c["error answers"] += 1
                    c[f"code {code_}"] += 1
                    if code_ == "server_error":
                        fail("server errors", f"{category}: {message[:120]!r}")
                    if answers[0].get("id") != want and code_ != "rate_limited":
                        fail("answers with a wrong id", f"{answers[0]} for {message[:80]!r}")
                else:
                    fail("accepted", f"{category}: {message[:200]!r} -> {wire.frames[start:][:1]}")
                await asyncio.sleep(max(0.0, interval - (time.monotonic() - sent)))
            if seat is None:  # (a seat's holder stays, and is checked at the end: its leaving would be a change)
                for problem in wire.problems:
                    fail("protocol problems", problem)
                await wire.close()

        async def bad_connections(n: int) -> None:
            """Unknown codes and bad tokens: one error, then the documented close code."""
            for i in range(n):
                bad_code, token, want = rng.choice([("ZZZZZZ", None, 4404), (code, "x" * 32, 4403),
                                                    (code, "%00", 4403), ("Q" * 40, "t", 4404)])
                wire = await Wire.connect(server.ws, bad_code, token, f"bad{i}")
                await wire.wait_for(lambda w=wire: w.closed, 10)  # type: ignore[misc]
                c["bad connections"] += 1
                errors = [f for f in wire.frames if f.get("type") == "error"]
                if wire.close_code != want or len(errors) != 1:
                    fail("bad connections mishandled", f"{bad_code} {token}: close {wire.close_code}, {errors}")
                await wire.close()

        async def http_fuzz(n: int, hrng: random.Random) -> None:
            for _ in range(n):
                method, url, kwargs = http_case(hrng, code)
                try:
                    response = await http.request(method, url, **kwargs)
                except httpx.TransportError as error:
                    fail("http failures", f"{method} {url}: {error!r}")
                    continue
                c[f"http {response.status_code}"] += 1
                if response.status_code < 400 and len(http_examples) < 8:  # (what was not refused, for the report)
                    http_examples.append(f"{method} {url[:60]} -> {response.status_code}")
                if response.status_code in (200, 201) and method in ("POST", "PUT", "PATCH", "DELETE"):
                    fail("http accepted", f"{method} {url} {kwargs}: {response.status_code}")

        fuzzing = asyncio.Event()

        async def watch_state() -> None:
            """Compare the table with the first snapshot now and then while the fuzzing goes on."""
            nonlocal before
            while True:
                ended = fuzzing.is_set()
                await asyncio.sleep(0.3 if ended else args.state_check_interval)
                now = await snapshot()
                c["state checks"] += 1
                if now != before:
                    diff = [f"{key}: {a!r:.200} -> {b!r:.200}" for key, a, b in _differences(before, now)][:3]
                    fail("state changes", f"the table's views changed (check {c['state checks']}): {diff}")
                    before = now  # (count each change once)
                if ended:
                    return

        async def attack() -> None:
            try:
                await asyncio.gather(*(worker(w) for w in range(args.fuzz_connections)),
                                     bad_connections(args.fuzz_bad_connections),
                                     http_fuzz(args.fuzz_requests, random.Random(args.seed + 2)))
            finally:
                fuzzing.set()

        await asyncio.gather(attack(), watch_state())
        for holder in holders:
            for problem in holder.problems:
                fail("protocol problems", problem)
            await holder.close()
    finally:
        await http.close()
        server.stop()
    tracebacks, errors, examples = scan_logs(server.logs)
    statuses = {k[5:]: v for k, v in sorted(c.items()) if re.fullmatch(r"http \d+", k)}
    counts = ["repeated ids acked, not applied", "repeated ids mishandled", "unanswered", "accepted", "server errors",
              "connections dropped", "answers with a wrong id", "bad connections mishandled", "http accepted",
              "http failures", "state checks", "state changes", "protocol problems"]
    return {"part": "fuzz", "seconds": round(time.monotonic() - started, 1),
            "ws messages": c["ws messages"], "error answers": c["error answers"],
            "closed as documented (frame over 16 KiB)": c["closed as documented (frame over 16 KiB)"],
            "close codes": {k[6:]: v for k, v in sorted(c.items()) if k.startswith("close ")},
            "error codes": {k[5:]: v for k, v in sorted(c.items()) if k.startswith("code ")},
            "categories": dict(sorted(categories.items())),
            "bad connections": c["bad connections"], "http requests": c["http requests"],
            "http statuses": statuses, "http not refused (examples)": http_examples, "http 5xx": c["http 5xx"],
            "http 429 retried": c["http 429 retried"], **{key: c[key] for key in counts},
            **({"processes": args.cluster, "http 503 moved retried": c["http 503 moved retried"]}
               if args.cluster else {}),
            "log tracebacks": tracebacks, "log errors": errors, "log examples": examples, "failures": failures}


def http_case(rng: random.Random, code: str) -> tuple[str, str, dict[str, Any]]:
    """One bad HTTP request (never one that could create or change a table: the fuzz table is playing)."""
    bad_codes = ["", "ZZZZZZ", "z" * 300, "%00", "..%2F..%2Fetc", "漢字", "K7QMPW%20", "-1", code + "X", " "]
    kind = rng.randrange(8)
    if kind == 0:  # create with a bad body
        name: Any = rng.choice([None, 5, [], {}, True, 1.5, "", " \t "])
        body = rng.choice([_junk(rng), {"name": name}, {"name": "A", "age": rng.choice([-1, 151, "9", 1.5])},
                           {"name": "A", "settings": {"players": rng.choice([1, 7, "4", None])}},
                           {"name": "A", "settings": {_text(rng, 5): 1}}, {"name": "A", "bots": ["god"]},
                           {"name": "A", "bots": ["easy"] * 9}, {"name": ""}, {"name": "x" * 30},
                           {"name": "A\u0000B"}])
        if rng.random() < 0.3:  # not JSON, or JSON that Python's json module would not write
            text = rng.choice([_text(rng, 40), '{"name":"A","settings":{"turn_seconds":1e999}}',
                               '{"name":"A","age":NaN}', '{"name":"A","age":Infinity}'])
            return "POST", "/api/tables", {"content": text.encode(), "headers": {"content-type": "application/json"}}
        return "POST", "/api/tables", {"json": body}
    if kind == 1:  # join the playing table, or a bad code, with good or bad bodies
        target = rng.choice([code, code.lower(), *bad_codes])
        return "POST", f"/api/tables/{target}/join", {"json": rng.choice([{"name": "Zed"}, _junk(rng), {}])}
    if kind == 2:
        return "GET", f"/api/tables/{rng.choice(bad_codes)}", {}
    if kind == 3:
        what = rng.choice(["record", "replay"])
        return "GET", f"/api/tables/{rng.choice([code, *bad_codes])}/{what}", {}
    if kind == 4:  # wrong methods
        method = rng.choice(["PUT", "PATCH", "DELETE"])
        return method, rng.choice(["/api/tables", f"/api/tables/{code}", f"/api/tables/{code}/join", "/healthz"]), {}
    if kind == 5:
        return "POST", rng.choice([f"/api/tables/{code}", "/healthz", f"/api/tables/{code}/record"]), {"json": {}}
    if kind == 6:  # deep nesting and a huge body
        depth = rng.randrange(1000, 5000)
        body = rng.choice(["[" * depth + "]" * depth, '{"name":' * depth + '"a"' + "}" * depth,
                           json.dumps({"name": "A", "pad": "x" * 200_000})])
        return "POST", "/api/tables", {"content": body.encode(), "headers": {"content-type": "application/json"}}
    return "GET", rng.choice(["/api/nothing", "/ws/" + code, "/t/%00", "/static/../../etc/passwd", "/api/tables"]), {}


# ---------------------------------------------------------------------------------------------
# Part 3: kills
# ---------------------------------------------------------------------------------------------


@dataclass
class Acked:
    seat: int
    move: str  # the action as a move in notation, "2:R7"
    message_id: str
    version: int
    game_no: int


class KillSeat:
    """A person's seat played as fast as acknowledgements come, across restarts (reconnect, resend).

    Any close is followed by a new connection (in a cluster, through the balancer: 4307 when the table moved to
    another process, 1012 when a process drains, 1006 or a refused connection when one was killed), whose first
    state is the whole view; an action sent and not answered is sent again on it, with the same id.

    ``resend_acked`` (a cluster): after each new connection, the seat's last acknowledged action of the game is sent
    again too, with its id: the process that runs the table now (perhaps one that just took it over from the
    database) must acknowledge it with a plain ``ack`` and not apply it again. (A kill seldom falls between a
    change's commit and its acknowledgement, which is when a client resends an id that was applied.)"""

    def __init__(self, code: str, seat: int, token: str, rng: random.Random, stats: Counter[str],
                 acked: list[Acked], pace: float, resend_acked: bool = False) -> None:
        self.code, self.seat, self.token, self.rng, self.stats = code, seat, token, rng, stats
        self.acked, self.pace = acked, pace
        self.wire: Wire | None = None
        self.pending: tuple[str, dict[str, Any], int] | None = None  # (id, action, game_no) not yet answered
        self.ids = 0
        self.resend_acked = resend_acked
        self.last_acked: tuple[str, dict[str, Any], int] | None = None  # (id, action, game_no)
        self.problems: list[str] = []

    async def run(self, server_url: Callable[[], str], done: asyncio.Event) -> None:
        while not done.is_set():
            try:
                if self.wire is None or self.wire.closed:
                    if self.wire is not None:
                        self.stats[f"close {self.wire.close_code}"] += 1
                    self.wire = await Wire.connect(server_url(), self.code, self.token, f"k{self.code}{self.seat}",
                                                   keep_frames=True)
                    if not await self.wire.wait_for(lambda: self.wire is not None and self.wire.view is not None, 10):
                        if self.wire.closed:  # (closed before its first state: the table is moving, or the server
                            await asyncio.sleep(0.1)  # went away; try again shortly)
                        continue
                    self.stats["reconnections"] += 1
                    if self.pending is not None:  # resend what was not answered, with the same id
                        await self.send(*self.pending)
                        continue
                    if self.resend_acked and self.last_acked is not None:
                        await self.send_acked_again(*self.last_acked)
                view = self.wire.view
                if view and view.get("phase") == "playing" and view.get("legal"):
                    self.ids += 1
                    await self.send(f"s{self.seat}-{self.ids}", choose(self.rng, view["legal"]),
                                    int(view["game_no"]))
                    continue
                self.wire.changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(1.0):
                        await self.wire.changed.wait()
            except (OSError, websockets.WebSocketException, TimeoutError):
                self.wire = None  # the server is down: try again shortly
                await asyncio.sleep(0.1)

    async def send(self, message_id: str, action: dict[str, Any], game_no: int) -> None:
        assert self.wire is not None
        self.pending = (message_id, action, game_no)
        self.wire.frames.clear()  # (only answers from now on matter)
        start = 0
        sent = time.monotonic()
        await self.wire.send(Wire.action_message(message_id, action, game_no))
        self.stats["actions sent"] += 1
        answer = await self.wire.answer_to(message_id, start, SAFETY)
        if answer is None:
            if not self.wire.closed:
                self.stats["unanswered"] += 1
            return  # closed (the server died): resent after the reconnection
        self.pending = None
        if answer["type"] == "ack":
            self.last_acked = (message_id, action, game_no)
            move = str(Move(self.seat, Action.from_json(action)))
            self.acked.append(Acked(self.seat, move, message_id, int(answer["version"]), game_no))
            self.stats["acks"] += 1
        elif answer.get("code") == "rate_limited":
            self.stats["rate limited"] += 1
            await asyncio.sleep(1.0)
        else:
            self.stats[f"refused {answer.get('code')}"] += 1
        await asyncio.sleep(max(0.0, self.pace - (time.monotonic() - sent)))


    async def send_acked_again(self, message_id: str, action: dict[str, Any], game_no: int) -> None:
        """Send an acknowledged action again with its id (``resend_acked``): a plain ``ack`` must answer it, also
        once a rematch has begun (the last ids of a game are kept into the next; an action older than those is
        refused with ``wrong_game``, never applied to the new game)."""
        assert self.wire is not None
        self.wire.frames.clear()
        await self.wire.send(Wire.action_message(message_id, action, game_no))
        answer = await self.wire.answer_to(message_id, 0, SAFETY)
        if answer is None:
            return  # (closed: sent again after the next reconnection)
        if answer["type"] == "error" and answer.get("code") == "moved":
            # (a cluster: the table moved off this process meanwhile; nothing was applied, and the connection is
            # being closed with 4307: the id is sent again after the next reconnection, as for a close)
            self.stats["resends met a move"] += 1
            return
        if answer["type"] == "error" and answer.get("code") == "wrong_game":
            self.stats["resends met a new game"] += 1  # (refused: not applied to the new game, as documented)
            return
        self.stats["acked ids resent"] += 1
        if answer["type"] != "ack" or "view" in answer:  # (an ack riding in a state: the action was applied again)
            self.stats["resent ids mishandled"] += 1
            if len(self.problems) < 5:
                how = "an ack in a state" if "view" in answer else f"{answer['type']} {answer.get('code', '')}"
                self.problems.append(f"{self.code} seat {self.seat}: {message_id} sent again -> {how}")


async def part_kills(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    c: Counter[str] = Counter()
    failures: list[str] = []

    def fail(what: str, detail: str) -> None:
        c[what] += 1
        if len(failures) < 20:
            failures.append(f"{what}: {detail[:300]}")

    server = await start_target(args, workdir, "kills")
    cluster = server if isinstance(server, Cluster) else None
    rng = random.Random(args.seed + 3)
    started = time.monotonic()
    quiet = {"single_round": True, "turn_seconds": 600, "grace_seconds": 3600, "bot_delay_seconds": 0,
             "scepter_min_seconds": 3000, "scepter_max_seconds": 3600, "next_round_seconds": 0}
    tables: list[tuple[str, list[KillSeat], list[Acked]]] = []
    done = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    checked_games: set[tuple[str, int]] = set()
    try:
        http = Http(server.http, args.http_rate, c)
        for t in range(args.kill_tables):
            players = rng.randint(2, args.kill_max_players)
            host = await http.create("P0", {**quiet, "players": players}, [])
            code = host["code"]
            tokens = [host["token"]] + [(await http.join(code, f"P{i}"))["token"] for i in range(1, players)]
            acked: list[Acked] = []
            seats = [KillSeat(code, i, token, random.Random(rng.random()), c, acked, args.pace,
                              resend_acked=cluster is not None) for i, token in enumerate(tokens)]
            starter = await Wire.connect(server.ws, code, tokens[0], f"start{t}")
            answer = await starter.request(Wire.host_message("go", "start"))
            await starter.close()
            if answer is None or answer["type"] != "ack":
                raise RuntimeError(f"start: {answer}")
            tables.append((code, seats, acked))
        await http.close()
        tasks = [asyncio.create_task(seat.run(lambda: server.ws, done)) for _, seats, _ in tables for seat in seats]

        async def check_finished(http: Http) -> None:
            """Each finished game: every acked action is in its record (then a rematch)."""
            for code, seats, acked in tables:
                view = await http.view(code)
                max_acked = max((a.version for a in acked if a.game_no == view["game_no"]), default=0)
                if view["version"] < max_acked:
                    fail("lost", f"{code}: version {view['version']} < acked {max_acked}")
                if view["phase"] != "finished":
                    continue
                if (code, view["game_no"]) in checked_games:
                    if c["kills"] < args.kills and seats[0].wire is not None and not seats[0].wire.closed:
                        with contextlib.suppress(websockets.ConnectionClosed):  # (closed meanwhile: asked next time)
                            await seats[0].wire.send(Wire.host_message(f"rematch-{view['game_no']}", "rematch"))
                    continue
                checked_games.add((code, view["game_no"]))
                response = await http.request("GET", f"/api/tables/{code}/record")
                record = GameRecord.loads(response.text)
                record.replay()
                game_acks = [a for a in acked if a.game_no == view["game_no"]]
                c["games checked"] += 1
                c["acks checked"] += len(game_acks)
                for seat in range(len(seats)):
                    theirs = [str(m) for m in record.moves if m.seat == seat]
                    mine = [a for a in game_acks if a.seat == seat]
                    at = matched = 0
                    for a in mine:  # the acked moves must be the seat's moves, in order
                        found = theirs.index(a.move, at) if a.move in theirs[at:] else None
                        if found is None:
                            fail("lost", f"{code} game {view['game_no']}: acked {a.message_id} {a.move} not recorded")
                        else:
                            at, matched = found + 1, matched + 1
                    c["moves not acked"] += len(theirs) - matched
                    # Stricter: every move of these seats is the probe's, and an action whose answer was lost in a
                    # kill is resent with its id and acknowledged then, so the acks are exactly the seat's moves.
                    if theirs != [a.move for a in mine]:
                        fail("records unlike the acks", f"{code} game {view['game_no']} seat {seat}: "
                             f"{len(theirs)} moves, {len(mine)} acks")

        for k in range(args.kills + 1):
            deadline = time.monotonic() + rng.uniform(args.kill_min, args.kill_max)
            while time.monotonic() < deadline:
                await asyncio.sleep(0.25)
                async with contextlib.AsyncExitStack() as stack:
                    http = Http(server.http, args.http_rate, c, balancer_errors_retried=cluster is not None)
                    stack.push_async_callback(http.close)
                    with contextlib.suppress(httpx.TransportError):
                        await check_finished(http)
            if k == args.kills:
                break
            if cluster is None:
                assert isinstance(server, Server)
                await asyncio.to_thread(server.kill)
                c["kills"] += 1
                await server.start()
            else:  # one process of the cluster, restarted at once: the cluster keeps its N processes
                victim, busy = await cluster.kill_one(rng)
                c["kills"] += 1
                c[f"killed p{victim + 1}"] += 1
                c["kills of a process running tables"] += busy
                await cluster.restart(victim)
            c["restarts"] += 1
        # Last: play every table's game to its end, then check them all.
        end = time.monotonic() + args.game_timeout
        http = Http(server.http, args.http_rate, c)
        while time.monotonic() < end:
            await check_finished(http)
            views = [await http.view(code) for code, _, _ in tables]
            if all(view["phase"] == "finished" and (code, view["game_no"]) in checked_games
                   for (code, _, _), view in zip(tables, views, strict=True)):
                break
            await asyncio.sleep(0.3)
        else:
            fail("games unfinished", "the last games did not end in time")
        await http.close()
        if cluster is not None:  # (no id twice in a table's moves: a resent action is acknowledged, not applied)
            for twice in await cluster.applied_twice():
                fail("applied twice", twice)
    finally:
        done.set()
        for task in tasks:
            task.cancel()
        for _, seats, _ in tables:
            for seat in seats:
                for problem in seat.problems:
                    if len(failures) < 20:
                        failures.append(f"resent ids mishandled: {problem}")
                if seat.wire is not None:
                    for problem in seat.wire.problems:
                        fail("protocol problems", problem)
                    await seat.wire.close()
        server.stop()
    tracebacks, errors, examples = scan_logs(server.logs)
    return {"part": "kills", "seconds": round(time.monotonic() - started, 1), "kills": c["kills"],
            "restarts": c["restarts"], "tables": len(tables), "games checked": c["games checked"],
            "actions sent": c["actions sent"], "acks": c["acks"], "acks checked": c["acks checked"],
            "acks unchecked": c["acks"] - c["acks checked"],  # (acks of a game whose record never came)
            "lost": c["lost"], "records unlike the acks": c["records unlike the acks"],
            "moves not acked": c["moves not acked"], "unanswered": c["unanswered"], "reconnections": c["reconnections"],
            "close codes": {k[6:]: v for k, v in sorted(c.items()) if k.startswith("close ")},
            **({"processes": args.cluster,
                "killed": {k[7:]: v for k, v in sorted(c.items()) if k.startswith("killed ")},
                "kills of a process running tables": c["kills of a process running tables"],
                "applied twice": c["applied twice"], "acked ids resent": c["acked ids resent"],
                "resent ids mishandled": c["resent ids mishandled"],
                "resends met a move": c["resends met a move"],
                "resends met a new game": c["resends met a new game"],
                "http 503 moved retried": c["http 503 moved retried"],
                "http balancer 5xx retried": c["http balancer 5xx retried"]} if cluster is not None else {}),
            "refused": {k[8:]: v for k, v in sorted(c.items()) if k.startswith("refused ")},
            "games unfinished": c["games unfinished"], "protocol problems": c["protocol problems"],
            "http 5xx": c["http 5xx"], "http 429 retried": c["http 429 retried"],
            "log tracebacks": tracebacks, "log errors": errors, "log examples": examples, "failures": failures}


# ---------------------------------------------------------------------------------------------

FAILURE_KEYS = ("crashed", "leaks", "views unlike the engine's", "replay unlike the record", "protocol problems",
                "unanswered", "accepted", "server errors", "connections dropped", "answers with a wrong id",
                "bad connections mishandled", "repeated ids mishandled", "http accepted", "http failures",
                "state changes", "lost", "applied twice", "resent ids mishandled", "acks unchecked",
                "records unlike the acks", "games unfinished", "http 5xx", "log tracebacks", "log errors")


def failed(result: dict[str, Any]) -> bool:
    return any(result.get(key) for key in FAILURE_KEYS) or "crashed" in result


def print_table(results: list[dict[str, Any]]) -> None:
    for result in results:
        print(f"\n== {result['part']} ({result.get('seconds', '?')} s) ==")
        for key, value in result.items():
            if key in ("part", "seconds", "failures", "log examples") or value in ({}, []):
                continue
            flag = "  <-- FAIL" if key in FAILURE_KEYS and value else ""
            print(f"  {key:<42} {value}{flag}")
        for line in result.get("failures", []):
            print(f"  ! {line}")
        for line in result.get("log examples", []):
            print(f"  log: {line}")
    verdict = "FAILED" if any(failed(r) for r in results) else "OK: 0 leaks, 0 lost, 0 5xx, 0 tracebacks"
    print(f"\n{verdict}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--parts", default="leaks,fuzz,kills", help="comma-separated: leaks, fuzz, kills")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-': standard output)")
    parser.add_argument("--command", default=COMMAND,
                        help="the royal-revenge console script to serve with (one process only: a cluster's are "
                             "the one beside this Python)")
    parser.add_argument("--server-src", metavar="DIR",
                        help="PYTHONPATH for the servers only (to probe a patched copy of the sources)")
    parser.add_argument("--cluster", type=int, default=0, metavar="N",
                        help="probe a cluster of N >= 2 processes behind HAProxy on a throwaway PostgreSQL "
                             "instead of one process on SQLite (0: one process)")
    parser.add_argument("--lease-seconds", type=float, default=2.0, help="with --cluster: each process's leases")
    parser.add_argument("--workdir", help="where to keep the databases and logs (default: a temporary folder)")
    parser.add_argument("--http-rate", type=float, default=50.0, help="HTTP requests per second per client")
    parser.add_argument("--pace", type=float, default=0.06,
                        help="seconds between one connection's actions (the server allows 20 messages/s)")
    parser.add_argument("--game-timeout", type=float, default=300.0, help="seconds a game may take")
    leaks = parser.add_argument_group("leaks")
    leaks.add_argument("--games", "--rounds", dest="rounds", type=int, default=6,
                       help="games (one table each) to play; every third has several rounds")
    leaks.add_argument("--tables-at-once", type=int, default=2)
    leaks.add_argument("--target-score", type=int, default=500,
                       help="the target of every third game, which has several rounds (the others have one)")
    leaks.add_argument("--http-interval", type=float, default=0.5, help="seconds between HTTP views of a table")
    fuzz = parser.add_argument_group("fuzz")
    fuzz.add_argument("--fuzz-messages", type=int, default=1000, help="malformed WebSocket messages")
    fuzz.add_argument("--fuzz-connections", type=int, default=8, help="WebSocket connections sending them")
    fuzz.add_argument("--ws-rate", type=float, default=15.0, help="messages per second per connection")
    fuzz.add_argument("--fuzz-requests", type=int, default=300, help="bad HTTP requests")
    fuzz.add_argument("--state-check-interval", type=float, default=2.0,
                      help="seconds between checks that the table did not change")
    fuzz.add_argument("--fuzz-bad-connections", type=int, default=20, help="connections with bad codes or tokens")
    kills = parser.add_argument_group("kills")
    kills.add_argument("--kills", type=int, default=3, help="SIGKILLs (each followed by a restart)")
    kills.add_argument("--kill-tables", type=int, default=2, help="tables played during the kills")
    kills.add_argument("--kill-max-players", type=int, default=4, help="seats at those tables: 2 to this")
    kills.add_argument("--kill-min", type=float, default=0.5, help="shortest play between kills (s)")
    kills.add_argument("--kill-max", type=float, default=3.0, help="longest play between kills (s)")
    args = parser.parse_args(argv)
    if args.cluster and args.cluster < 2:
        parser.error("--cluster takes 2 processes or more (0: one process)")
    if args.cluster and args.command != COMMAND:
        parser.error("--command is for one process: a cluster runs the royal-revenge beside this Python")
    return args


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    parts = {"leaks": part_leaks, "fuzz": part_fuzz, "kills": part_kills}
    results = []
    with contextlib.ExitStack() as stack:
        workdir = Path(args.workdir) if args.workdir else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        workdir.mkdir(parents=True, exist_ok=True)
        args.postgres = None
        if args.cluster:  # one throwaway PostgreSQL for the run; each part's cluster takes a database of it
            from royal_revenge.server.localdb import LocalPostgres

            postgres = LocalPostgres(max_connections=40 + 30 * args.cluster)
            stack.callback(postgres.stop)
            try:
                await asyncio.to_thread(postgres.start)
                args.postgres = postgres
            except Exception as error:  # (PostgreSQL missing: every part fails, saying why)
                return [{"part": name.strip(), "crashed": f"{type(error).__name__}: {error}"}
                        for name in args.parts.split(",")]
        for name in args.parts.split(","):
            try:
                results.append(await parts[name.strip()](args, workdir))
            except Exception as error:  # a part that cannot finish is a failure, reported with the others
                where = traceback.extract_tb(error.__traceback__)[-1]
                results.append({"part": name, "crashed": f"{type(error).__name__}: {error} (line {where.lineno})",
                                "log tracebacks": scan_logs(target_logs(workdir, name.strip()))[0]})
    return results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = asyncio.run(run(args))
    print_table(results)
    if args.json:
        text = json.dumps(results, indent=1)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 1 if any(failed(r) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
