"""The ``royal-revenge serve`` process: health, start-up errors, and a SIGKILL in the middle of a game."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from royal_revenge.engine import GameRecord

from .conftest import SAFETY, Client, Server, choose

pytestmark = pytest.mark.timeout(120)

COMMAND = str(Path(sys.executable).with_name("royal-revenge"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Process:
    """``royal-revenge serve`` on a port, its standard error in a file."""

    def __init__(self, db: Path | str, log: Path, log_level: str = "warning") -> None:
        self.port = free_port()
        self.log = log
        self.stderr = log.open("ab")
        self.proc = subprocess.Popen([COMMAND, "serve", "--port", str(self.port), "--db", str(db),
                                      "--log-level", log_level], stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + SAFETY
        while True:
            assert self.proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def ws_url(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{code}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=SAFETY)
        self.stderr.close()


@pytest.fixture
def processes() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in started:
        process.kill()


def _mine(view: dict[str, Any] | None, seat: int = 0) -> bool:
    return bool(view and view["phase"] == "playing" and view["game"]["pending"]["seat"] == seat and view["legal"])


async def _play(client: Client, rng: random.Random, moves: int | None, seat: int = 0) -> str | None:
    """Act for ``seat`` whenever it must decide, ``moves`` times (``None``: to the end). Returns the last acked id."""
    last = None
    while moves is None or moves > 0:
        await client.wait_for(lambda: _mine(client.view, seat)
                              or bool(client.view and client.view["phase"] == "finished"))
        assert client.view is not None
        if client.view["phase"] == "finished":
            return last
        message_id = client.next_id()
        answer = await client.act(choose(rng, client.view["legal"]), message_id)
        if answer["type"] == "ack":
            last = message_id
            moves = None if moves is None else moves - 1
        elif answer["code"] == "rate_limited":  # faster than a person: back off a little
            await asyncio.sleep(0.5)
        else:  # a bot's (or another player's) move may have changed the hand under our feet: look again
            assert answer["code"] == "illegal", answer
    return last


async def _sync(client: Client) -> None:
    """Ask for a snapshot and wait for it."""
    start = len(client.frames)
    await client.ws.send(json.dumps({"type": "sync"}))
    await client.wait_for(lambda: any(f["type"] == "state" for f in client.frames[start:]), "a snapshot")


async def _stable_turn(client: Client) -> dict[str, Any]:
    """Wait until seat 0 must play and nothing else can happen before it does; the snapshot then."""
    for _ in range(200):
        await client.wait_for(lambda: _mine(client.view))
        assert client.view is not None
        game = client.view["game"]
        if game["pending"]["kind"] == "turn" and game["uno_seat"] is None:
            version = client.version
            await asyncio.sleep(0.3)
            await _sync(client)
            if client.version == version:
                return client.view
        await _play(client, random.Random(0), 1)
    raise AssertionError("no quiet moment")


@pytest.mark.anyio
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
async def test_sigkill_in_the_middle_of_a_game_loses_nothing(tmp_path: Path, processes: list[Process], database: str,
                                                             request: pytest.FixtureRequest) -> None:
    log = tmp_path / "server.log"
    db: Path | str = (tmp_path / "tables.db" if database == "sqlite"
                      else request.getfixturevalue("postgres_cluster").new_database())
    first = Process(db, log)
    processes.append(first)
    health = httpx.get(f"{first.url}/healthz", timeout=SAFETY)
    assert health.status_code == 200 and health.json()["status"] == "ok" and health.json()["database"] is True
    settings = {"players": 3, "single_round": True, "bot_delay_seconds": 0.02, "turn_seconds": 600,
                "grace_seconds": 600, "scepter_min_seconds": 3000, "scepter_max_seconds": 3600}
    async with httpx.AsyncClient(base_url=first.url, verify=False, timeout=SAFETY) as http:
        response = await http.post("/api/tables", json={"name": "Ann", "age": 8, "settings": settings,
                                                        "bots": ["easy", "normal"]})
        assert response.status_code == 201, response.text
    info = response.json()
    code, token = info["code"], info["token"]
    rng = random.Random(7)
    client = await Client.connect_url(first.ws_url(code), token, "ann")
    assert (await client.host("start"))["type"] == "ack"
    last_id = await _play(client, rng, 6)
    assert last_id is not None
    before = await _stable_turn(client)
    await asyncio.to_thread(first.kill)
    await client.wait_closed()

    second = Process(db, log)
    processes.append(second)
    async with httpx.AsyncClient(base_url=second.url, verify=False, timeout=SAFETY) as http:
        watched = (await http.get(f"/api/tables/{code}")).json()
    assert watched["version"] == before["version"]  # the table comes back exactly as it was last saved
    for key in ("discard_pile", "hand_sizes", "pending", "king", "jester", "current", "scores", "active_colour"):
        assert watched["game"][key] == before["game"][key], key

    client = await Client.connect_url(second.ws_url(code), token, "ann-again")
    after = await client.first_state()
    assert after["you"] == 0
    assert after["game"] == before["game"]  # same hand, same discard pile, same everything
    assert after["legal"] == before["legal"]
    assert after["version"] == before["version"] + 1  # reconnecting is itself a change (the seat is connected)
    # The last action, resent after the restart, is recognised and not applied again.
    answer = await client.act({"type": "draw"}, last_id)
    assert answer["type"] == "ack"
    await _sync(client)
    assert client.version == after["version"] and client.view is not None and client.view["game"] == before["game"]

    await _play(client, rng, None)
    final = client.view
    assert final is not None and final["phase"] == "finished"
    async with httpx.AsyncClient(base_url=second.url, verify=False, timeout=SAFETY) as http:
        response = await http.get(f"/api/tables/{code}/record")
    assert response.status_code == 200
    state = GameRecord.loads(response.text).replay()  # checks the final state's digest too
    assert state.is_over()
    assert list(state.scores) == final["game"]["scores"]
    assert state.outcome() is not None and state.outcome().to_json() == final["game"]["outcome"]  # type: ignore[union-attr]
    await client.close()
    second.kill()
    assert "Traceback" not in log.read_text()


@pytest.mark.anyio
async def test_no_token_ever_reaches_the_log_even_at_debug_level(tmp_path: Path, processes: list[Process]) -> None:
    """A whole game (two people, a bot, a spectator, a reconnect, a seat opened twice, an old client with its token
    in the URL) against ``serve --log-level debug``: the log has the libraries' request lines, headers and frames,
    and no token the server handed out."""
    log = tmp_path / "server.log"
    server = Process(tmp_path / "tables.db", log, log_level="debug")
    processes.append(server)
    settings = {"players": 3, "single_round": True, "bot_delay_seconds": 0.02, "turn_seconds": 600,
                "grace_seconds": 600}
    async with httpx.AsyncClient(base_url=server.url, verify=False, timeout=SAFETY) as http:
        created = (await http.post("/api/tables", json={"name": "Ann", "settings": settings})).json()
        code = created["code"]
        http.cookies.clear()  # (Bob and Cy each from a browser of their own)
        joined = (await http.post(f"/api/tables/{code}/join", json={"name": "Bob"})).json()
        http.cookies.clear()
        other = (await http.post("/api/tables", json={"name": "Cy", "settings": {"players": 2}})).json()
    tokens = [created["token"], joined["token"], other["token"]]
    url = server.ws_url(code)
    old_style = await Client.connect_url(f"{url}?token={other['token']}", name="v3", hello=False)
    await old_style.wait_closed()
    assert old_style.close_code == 4400
    ann = await Client.connect_url(url, created["token"], "ann")
    bob = await Client.connect_url(url, joined["token"], "bob")
    watcher = await Client.connect_url(url, None, "watcher")
    assert (await ann.host("add_bot", level="easy"))["type"] == "ack"
    assert (await ann.host("start"))["type"] == "ack"
    rng = random.Random(5)

    async def bob_plays() -> Client:
        await _play(bob, rng, 2, seat=1)
        await bob.close()  # Bob reconnects
        again = await Client.connect_url(url, joined["token"], "bob-again")
        assert (await again.first_state())["you"] == 1
        await _play(again, rng, None, seat=1)
        return again

    async def ann_plays() -> Client:
        await _play(ann, rng, 1)
        again = await Client.connect_url(url, created["token"], "ann-again")  # Ann opens her seat again
        await ann.wait_closed()
        assert ann.close_code == 4409
        await _play(again, rng, None)
        return again

    players = await asyncio.gather(ann_plays(), bob_plays())
    await watcher.wait_for(lambda: bool(watcher.view and watcher.view["phase"] == "finished"), "the end")
    for client in (*players, watcher):
        await client.close()
    await asyncio.to_thread(server.kill)

    text = log.read_text()
    lines = text.splitlines()
    assert len(lines) > 100 and '"level": "debug"' in text  # (the test could see a leak: the log is all there)
    assert "WebSocket /ws/" in text and "< TEXT" in text and "< GET /ws/" in text and "sec-websocket-key" in text
    for token in tokens:
        assert token not in text, [line for line in lines if token in line][:3]
        assert quote(token) not in text
    assert "[redacted]" in text  # (the hellos and the old client's URL were there, redacted)
    assert "Traceback" not in text


@pytest.mark.anyio
async def test_a_text_frame_that_is_not_utf8_closes_the_connection_without_a_traceback(
        tmp_path: Path, processes: list[Process]) -> None:
    """The library closes such a connection with 1007 (RFC 6455 §8.1) and would log a traceback each time: a client
    could fill the server's logs with them. One warning line instead (server/logs.py, ClientFaults)."""
    log = tmp_path / "server.log"
    server = Process(tmp_path / "tables.db", log, log_level="info")
    processes.append(server)
    async with httpx.AsyncClient(base_url=server.url, verify=False, timeout=SAFETY) as http:
        code = (await http.post("/api/tables", json={"name": "Ann"})).json()["code"]
    for _ in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        assert b" 101 " in await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), SAFETY)
        payload = b"\xff\xfe not UTF-8"
        writer.write(bytes((0x81, 0x80 | len(payload))) + bytes(4) + payload)  # (a text frame, masked with zeros)
        answer = await asyncio.wait_for(reader.read(64), SAFETY)
        assert answer[:1] == b"\x88" and answer[2:4] == (1007).to_bytes(2, "big")  # a close frame: 1007
        writer.close()
    await asyncio.sleep(0.2)
    await asyncio.to_thread(server.kill)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    invalid = [line for line in lines if "UTF-8" in line["event"]]
    assert len(invalid) == 3 and all(line["level"] == "warning" and "error" not in line for line in invalid)
    assert not [line for line in lines if line["level"] == "error" or "Traceback" in json.dumps(line)]


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([COMMAND, "serve", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "XDG_DATA_HOME": os.environ.get("TMPDIR", "/tmp")})


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _serve("--port", str(port), "--db", str(tmp_path / "t.db"))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(port) in lines[0] and "in use" in lines[0]


@pytest.mark.parametrize("db", ["postgresql://nobody@127.0.0.1:1/x", "sqlite:////proc/no/such/folder/t.db",
                                "nosuchdb://x"])
def test_serve_with_an_unusable_database_says_so_without_a_traceback(db: str) -> None:
    result = _serve("--port", str(free_port()), "--db", db)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Error" in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "database" in lines[0]


@pytest.mark.anyio
async def test_healthz_in_process(server: Server) -> None:
    async with server.http() as http:
        response = await http.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": True, "tables": 0, "protocol": 4}
