"""Harness for the server tests: real uvicorn servers on 127.0.0.1, real WebSocket clients, a FakeClock.

Games are driven step by step: :func:`settle` waits until the table has nothing due at the fake
time, no change is in flight and every connected client has received the newest view; then a
scripted person acts or the clock is moved to the table's next deadline. Nothing sleeps for
real seconds; wall-clock timeouts exist only as safety nets against hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import socket
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

import royal_revenge.server.app as server_app
import royal_revenge.server.throttle as throttle
from royal_revenge.bots import RandomAgent
from royal_revenge.client import merge_state
from royal_revenge.engine import AnyAction, Observation, Play
from royal_revenge.server.app import create_app
from royal_revenge.server.hub import FakeClock, Hub
from royal_revenge.server.websocket import SERVER_OPTIONS
from royal_revenge.session import Phase, Table

from .postgres import PostgresCluster, temporary_cluster

SAFETY = 20.0
"""Seconds of real time after which a wait is a failure (never reached when things work)."""

CARD_RE = re.compile(r"^(?:[RYGB][1-8RSKJ]|W)$")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


RATE_LIMIT = (server_app._RATE_BURST, server_app._RATE_PER_SECOND)
"""The server's real rate limit per seat (or spectator's connection): burst, per second."""


@pytest.fixture(autouse=True)
def no_rate_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scripted players act far faster than people (dozens of moves per real second): lift the per-connection
    rate limit in-process; ``test_a_flood_is_answered_with_rate_limit_errors`` puts it back."""
    monkeypatch.setattr(server_app, "_RATE_BURST", 1e9)
    monkeypatch.setattr(server_app, "_RATE_PER_SECOND", 1e9)


LIFTED_LIMITS = throttle.LIFTED
"""The per-address limits with no rate limits (the idle tables are still let go)."""


@pytest.fixture(autouse=True)
def no_address_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scripted player and bot of a test comes from 127.0.0.1, faster than any family: lift the per-address
    limits of servers started from now on (``test_limits.py`` gives its servers the real ones)."""
    monkeypatch.setattr(throttle, "DEFAULT_LIMITS", LIFTED_LIMITS)


def random_agents(level: str, seed: int) -> RandomAgent:
    return RandomAgent(seed)


class EagerAgent:
    """Random, but plays a card whenever it can (short games): the bots of most tests."""

    name = "eager"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.inner = RandomAgent(self.rng)

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        plays = [action for action in legal_actions if isinstance(action, Play)]
        if observation.pending.seat == observation.seat and plays and self.rng.random() < 0.9:
            return self.rng.choice(plays)
        return self.inner.act(observation, legal_actions)


def eager_agents(level: str, seed: int) -> EagerAgent:
    return EagerAgent(seed)


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A scripted person's choice: a random card when one can be played (mostly), else anything legal."""
    plays = [action for action in legal if action["type"] == "play"]
    if plays and rng.random() < 0.9:
        return rng.choice(plays)
    return rng.choice(legal)


@dataclass
class Server:
    """One running server: its app, hub, fake clock and address."""

    app: Any
    clock: FakeClock
    port: int
    db: Path | str

    @property
    def hub(self) -> Hub:
        hub: Hub = self.app.state.hub
        return hub

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{code}"

    def table(self, code: str) -> Table:
        return self.hub._live[code].table

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.http_url, timeout=SAFETY, verify=False)  # plain http: skip TLS setup

    async def create_table(self, name: str = "Ann", age: int | None = None, settings: dict[str, Any] | None = None,
                           bots: Iterable[str] = ()) -> dict[str, Any]:
        async with self.http() as http:
            body: dict[str, Any] = {"name": name, "settings": settings or {}, "bots": list(bots)}
            if age is not None:
                body["age"] = age
            response = await http.post("/api/tables", json=body)
            assert response.status_code == 201, response.text
            info: dict[str, Any] = response.json()
            return info

    async def join(self, code: str, name: str, age: int | None = None) -> dict[str, Any]:
        async with self.http() as http:
            response = await http.post(f"/api/tables/{code}/join", json={"name": name, "age": age})
            assert response.status_code == 200, response.text
            info: dict[str, Any] = response.json()
            return info


RUNNING: list[Server] = []
"""The servers of this process, for diagnostics when a wait fails."""


def server_state(server: Server) -> dict[str, Any]:
    hub = server.hub
    store: Any = hub.store
    writer = getattr(store, "_writer", None)
    queue = getattr(store, "_queue", None)
    return {
        "now": server.clock.now(),
        "scheduler_done": hub._scheduler.done() if hub._scheduler else None,
        "writer_done": writer.done() if writer is not None else None,
        "store_queue": queue.qsize() if queue is not None else None,
        "tables": {code: {"locked": live.lock.locked(), "version": live.table.version,
                          "deadline": live.table.next_deadline(), "subscribers": len(live.subscribers)}
                   for code, live in hub._live.items() if live.table.phase is Phase.PLAYING},
    }


@contextlib.asynccontextmanager
async def running_server(db: Path | str, *, clock: FakeClock | None = None,
                         agent_factory: Callable[[str, int], Any] | None = eager_agents,
                         limits: throttle.Limits | None = None,
                         send_buffer: int | None = None, node: str | None = None,
                         lease_seconds: float = 2.0) -> AsyncIterator[Server]:
    """A uvicorn server in this event loop on a free port of 127.0.0.1, with a fake clock.

    ``db`` is an SQLite file, or a database URL (PostgreSQL: :func:`postgres_cluster`); ``limits`` the per-address
    limits (by default lifted: :func:`no_address_limits`). ``send_buffer`` sets the
    kernel's send buffer of its connections (``SO_SNDBUF``), so that a client that does not read soon makes the
    server wait to write (the kernel grows it to megabytes on loopback otherwise). ``node``: one process of a
    cluster (a PostgreSQL ``db`` shared with others), with leases of ``lease_seconds``.
    """
    clock = clock or FakeClock()
    app = create_app(db if isinstance(db, str) else f"sqlite+aiosqlite:///{db}", clock=clock,
                     agent_factory=agent_factory, limits=limits, node=node, lease_seconds=lease_seconds)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **SERVER_OPTIONS)
    server = uvicorn.Server(config)
    sockets = None
    if send_buffer is not None:
        listening = socket.socket()
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)  # (accepted sockets inherit it)
        listening.bind(("127.0.0.1", 0))
        sockets = [listening]
    task = asyncio.create_task(server.serve(sockets))
    try:
        async with asyncio.timeout(SAFETY):
            while not server.started:
                if task.done():
                    task.result()
                    raise RuntimeError("the server stopped while starting")
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        running = Server(app, clock, port, db)
        RUNNING.append(running)
        try:
            yield running
        finally:
            RUNNING.remove(running)
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            async with asyncio.timeout(SAFETY):
                await task


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One throwaway PostgreSQL server for the session; each test takes a new database of it."""
    with temporary_cluster() as cluster:
        yield cluster


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path / "tables.db") as running:
        yield running


@dataclass(eq=False)
class Client:
    """A scripted WebSocket client: reads every frame in the background and keeps the newest view."""

    ws: Any
    name: str = ""
    frames: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    view: dict[str, Any] | None = None
    version: int = -1
    closed: bool = False
    close_code: int | None = None
    _task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: int = 0
    problems: list[str] = field(default_factory=list)
    """Protocol violations seen by the reader (checked by :func:`settle`)."""

    @classmethod
    async def connect(cls, server: Server, code: str, token: str | None = None, name: str = "") -> Client:
        return await cls.connect_url(server.ws_url(code), token, name)

    @classmethod
    async def connect_url(cls, url: str, token: str | None = None, name: str = "", hello: bool = True) -> Client:
        """Connect and say hello with ``token`` (protocol 4; ``hello=False``: say nothing)."""
        ws = await websockets.connect(url, max_size=None, open_timeout=SAFETY, compression=None)
        if hello:
            # (a server that refuses the connection at once, e.g. an address over its limits, may have closed it
            # already: its error and close are there to read all the same)
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(json.dumps({"type": "hello", "token": token}))
        client = cls(ws, name)
        client._task = asyncio.create_task(client._read())
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.raw.append(text)
                message = json.loads(text)
                self.frames.append(message)
                if message.get("type") == "state":
                    if message["version"] < self.version:
                        self.problems.append(f"version went back from {self.version} to {message['version']}")
                    self.version = message["version"]
                    # Partial views are merged; the frame then holds the whole view (its text stays in raw).
                    self.view = message["view"] = merge_state(self.view, message)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.close_code = self.ws.close_code
            self._changed.set()

    async def wait_for(self, predicate: Callable[[], bool], what: str = "a frame") -> None:
        try:
            async with asyncio.timeout(SAFETY):
                while not predicate():
                    if self.closed:
                        raise AssertionError(f"{self.name}: the connection closed while waiting for {what}")
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"{self.name}: no {what} in {SAFETY} s; last frames {self.raw[-2:]}; "
                                 f"servers: {[server_state(server) for server in RUNNING]}") from None

    async def wait_closed(self) -> None:
        async with asyncio.timeout(SAFETY):
            while not self.closed:
                self._changed.clear()
                await self._changed.wait()

    async def first_state(self) -> dict[str, Any]:
        await self.wait_for(lambda: self.view is not None, "the first snapshot")
        assert self.view is not None
        return self.view

    def next_id(self) -> str:
        self._ids += 1
        return f"{self.name or 'c'}-{self._ids}"

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message with an id and wait for the ack or error that names it (an ack that rode in a state
        frame is returned as an ack, with ``"in_state": true``)."""
        start = len(self.frames)
        await self.ws.send(json.dumps(message))
        return await self.reply(message["id"], start)

    async def reply(self, message_id: str, start: int) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def answered() -> bool:
            for frame in self.frames[start:]:
                if frame.get("type") in ("ack", "error") and frame.get("id") == message_id:
                    found.append(frame)
                    return True
                if frame.get("type") == "state" and frame.get("ack") == message_id:  # (protocol 3: it rides along)
                    found.append({"type": "ack", "id": message_id, "version": frame["version"], "in_state": True})
                    return True
            return False

        await self.wait_for(answered, f"the answer to {message_id}")
        return found[0]

    async def act(self, action: dict[str, Any], message_id: str | None = None,
                  game: Any = None) -> dict[str, Any]:
        """Send an action (with ``game``, the game number it is meant for, if given) and wait for its answer."""
        message = {"type": "action", "id": message_id or self.next_id(), "action": action}
        if game is not None:
            message["game"] = game
        return await self.request(message)

    async def host(self, command: str, **extra: Any) -> dict[str, Any]:
        return await self.request({"type": "host", "id": self.next_id(), "command": command, **extra})

    async def close(self) -> None:
        await self.ws.close()
        if self._task is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(SAFETY):
                    await self._task


async def settle(server: Server, code: str, clients: Iterable[Client] = ()) -> Table:
    """Wait until nothing is due or in flight at the table and every open client has the newest view."""
    live = server.hub._live[code]
    clients = list(clients)
    try:
        async with asyncio.timeout(SAFETY):
            while True:
                table = live.table
                deadline = table.next_deadline()
                for client in clients:
                    assert not client.problems, (client.name, client.problems)
                quiet = (not live.lock.locked() and (deadline is None or deadline > server.clock.now())
                         and all(c.closed or c.version == table.version for c in clients))
                if quiet:
                    version = table.version
                    for _ in range(3):
                        await asyncio.sleep(0)
                    if live.table is table and table.version == version and not live.lock.locked():
                        return table
                await asyncio.sleep(0.001)
    except TimeoutError:
        table = live.table
        scheduler = server.hub._scheduler
        raise AssertionError(
            f"the table never settled: version {table.version}, "
            f"clients at {[(c.name, c.version, c.closed) for c in clients]}, "
            f"locked {live.lock.locked()}, now {server.clock.now()}, deadlines {table.deadlines}, "
            f"heap {server.hub._runner.entries[:3]}, scheduler done {scheduler.done() if scheduler else None}, "
            f"sleepers {server.clock._sleepers[:3]}, phase {table.phase}, "
            f"pending {table.game.state.pending if table.game else None}") from None


async def step_clock(server: Server, code: str, clients: Iterable[Client] = ()) -> None:
    """Move the fake clock to the table's next deadline, then settle."""
    table = server.table(code)
    deadline = table.next_deadline()
    assert deadline is not None, "nothing is due and nobody scripted acts: the table would stall"
    await server.clock.advance(max(deadline - server.clock.now(), 0.0) + 0.001)
    await settle(server, code, clients)


@dataclass
class Driver:
    """Plays a table to its end: scripted people choose at random among their legal actions, bots play on the clock.

    ``think`` is the chance that a person lets some fake time pass (up to ``think_seconds``) before
    acting, so that fanfares and bot catches happen while people are deciding.
    """

    server: Server
    code: str
    humans: dict[int, Client]
    rng: random.Random
    observers: list[Client] = field(default_factory=list)
    think: float = 0.2
    think_seconds: float = 10.0
    on_step: Callable[[Table], Any] | None = None
    actions: int = 0

    @property
    def clients(self) -> list[Client]:
        return [*self.humans.values(), *self.observers]

    async def step(self) -> bool:
        """One step; returns False once the game is over."""
        table = await settle(self.server, self.code, self.clients)
        # The table caches its seats' JSON until a seat changes: the cache must always be the seats as they are.
        assert table.seats_view() == [seat.public() for seat in table.seats]
        assert table.to_json()["seats"] == [seat.to_json() for seat in table.seats]
        if self.on_step is not None:
            result = self.on_step(table)
            if asyncio.iscoroutine(result):
                await result
            table = await settle(self.server, self.code, self.clients)
        if table.phase is not Phase.PLAYING:
            return False
        assert table.game is not None
        state = table.game.state
        movers = [(seat, client) for seat, client in self.humans.items()
                  if not client.closed and client.view is not None and client.view.get("legal")]
        decider = state.decider
        chosen: tuple[int, Client] | None = None
        for seat, client in movers:
            if seat == decider:
                chosen = (seat, client)
        if chosen is None and movers and self.rng.random() < 0.5:
            chosen = self.rng.choice(movers)  # an UNO call or a catch out of turn
        if chosen is None:
            await step_clock(self.server, self.code, self.clients)
            return True
        if self.rng.random() < self.think:
            await self.server.clock.advance(self.rng.uniform(0, self.think_seconds))
            table = await settle(self.server, self.code, self.clients)
            if table.phase is not Phase.PLAYING:
                return False
        seat, client = chosen
        assert client.view is not None
        legal = client.view["legal"]
        if not legal:
            return True
        action = choose(self.rng, legal)
        answer = await client.act(action)
        self.actions += 1
        assert answer["type"] == "ack", (action, answer)
        return True

    async def run(self, max_steps: int = 20_000) -> Table:
        for _ in range(max_steps):
            if not await self.step():
                return await settle(self.server, self.code, self.clients)
        raise AssertionError("the game did not finish")


async def open_game(server: Server, *, humans: int = 1, bots: Iterable[str] = ("normal", "normal"),
                    settings: dict[str, Any] | None = None, ages: Iterable[int | None] = (),
                    spectators: int = 0) -> tuple[str, dict[int, Client], dict[int, str], list[Client]]:
    """Open a table with ``humans`` people (seat 0 first, the host) and ``bots``; start it; connect everyone."""
    bots = list(bots)
    ages = list(ages) + [None] * humans
    players = humans + len(bots)
    all_settings = {"players": players, "single_round": True, "turn_seconds": 60.0, **(settings or {})}
    info = await server.create_table("Host", ages[0], all_settings)
    code = info["code"]
    tokens = {info["seat"]: info["token"]}
    for index in range(1, humans):
        joined = await server.join(code, f"Person{index}", ages[index])
        tokens[joined["seat"]] = joined["token"]
    clients = {seat: await Client.connect(server, code, token, f"p{seat}") for seat, token in tokens.items()}
    host = clients[info["seat"]]
    for level in bots:
        assert (await host.host("add_bot", level=level))["type"] == "ack"
    assert (await host.host("start"))["type"] == "ack"
    observers = [await Client.connect(server, code, None, f"spectator{i}") for i in range(spectators)]
    await settle(server, code, [*clients.values(), *observers])
    return code, clients, tokens, observers
