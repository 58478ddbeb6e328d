"""The WebSocket path, through a real uvicorn server: the hello (protocol 4), frames in order whichever way they
come and however slowly the client reads, a client too slow dropped with 4008, one connection per seat token
(the newest; the one before is closed with 4409) and one rate limit per seat."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from websockets.frames import Frame, Opcode

import royal_revenge.server.app as server_app
from royal_revenge.server.protocol import CLOSE_MOVED
from royal_revenge.server.throttle import Limits, Throttle
from royal_revenge.server.websocket import SERVER_OPTIONS
from royal_revenge.session.settings import TableError

from .conftest import RATE_LIMIT, SAFETY, Client, Server, open_game, running_server, settle

pytestmark = pytest.mark.anyio


def test_the_server_runs_uvicorns_websocket_implementation_chosen_by_name() -> None:
    assert SERVER_OPTIONS["ws"] == "websockets-sansio"
    assert SERVER_OPTIONS["ws_per_message_deflate"] is False


async def test_clients_read_states_pongs_errors_and_the_close(server: Server) -> None:
    _, clients, _, _ = await open_game(server, humans=2, bots=[])
    first: Client = clients[0]
    await first.first_state()
    assert first.ws.protocol.extensions == []  # (the client offered permessage-deflate: not taken)
    await first.send_raw(json.dumps({"type": "ping", "id": "p-1"}))
    await first.wait_for(lambda: any(frame == {"type": "pong", "id": "p-1"} for frame in first.frames), "the pong")
    refused = await first.request({"type": "action", "id": "a-x", "action": {"type": "nonsense"}})
    assert refused["type"] == "error" and refused["code"] == "bad_action"
    before = first.version
    await first.send_raw(json.dumps({"type": "sync"}))
    await first.wait_for(lambda: first.frames[-1].get("type") == "state" and first.frames[-1]["full"])
    assert first.version >= before and first.view is not None and first.view["game"]["hand"]
    await first.ws.close()
    await first.wait_closed()
    assert first.close_code == 1000


# ------------------------------------------------------------------ the hello


async def test_a_spectator_says_hello_without_a_token(server: Server) -> None:
    info = await server.create_table()
    watcher = await Client.connect(server, info["code"], None, "watcher")
    assert (await watcher.first_state())["you"] is None


@pytest.mark.parametrize("first, why", [
    ('{"type": "sync"}', "type: Invalid value 'sync'"),
    ('{"type": "hello", "token": 7}', "token: Expected str | null, got int"),
    ('{"type": "hello", "seat": 0}', "unknown field"),
    ("hello", "not valid JSON"),
])
async def test_a_connection_must_begin_with_a_hello(server: Server, first: str, why: str) -> None:
    info = await server.create_table()
    client = await Client.connect_url(server.ws_url(info["code"]), name="rude", hello=False)
    await client.send_raw(first)
    await client.wait_closed()
    assert [frame["code"] for frame in client.frames] == ["bad_hello"]
    assert why in client.frames[0]["message"] and client.close_code == 4400


async def test_a_connection_that_says_nothing_is_closed(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_app, "_HELLO_SECONDS", 0.2)
    info = await server.create_table()
    client = await Client.connect_url(server.ws_url(info["code"]), name="silent", hello=False)
    await client.wait_closed()
    assert client.frames == [{"type": "error", "id": None, "code": "bad_hello",
                              "message": "no hello message within 0.2 seconds"}]
    assert client.close_code == 4400


async def test_a_token_in_the_url_is_refused(server: Server) -> None:
    info = await server.create_table()
    client = await Client.connect_url(f"{server.ws_url(info['code'])}?token={info['token']}", name="v3", hello=False)
    await client.wait_closed()
    assert [frame["code"] for frame in client.frames] == ["bad_hello"]
    assert "never in the URL" in client.frames[0]["message"] and client.close_code == 4400
    table = await settle(server, info["code"])
    assert not table.seats[0].connected


# ------------------------------------------------------------------ frames, at the byte level


class RawClient:
    """A WebSocket client at the byte level: the test writes exactly the frames it wants the server to read, and
    reads (or does not read) the server's frames when it wants."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, server: Server, code: str, token: str | None = None, small_buffers: bool = False
                      ) -> RawClient:
        sock = socket.socket()
        if small_buffers:  # (a slow reader: what the server sends waits on its side, not in this one's buffers)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=2048 if small_buffers else 2**16)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), SAFETY)
        assert head.startswith(b"HTTP/1.1 101"), head
        client = cls(reader, writer)
        client.write(frame(json.dumps({"type": "hello", "token": token}).encode()))
        return client

    def write(self, data: bytes) -> None:
        self.writer.write(data)

    async def frame(self) -> tuple[int, bytes]:
        first, second = await asyncio.wait_for(self.reader.readexactly(2), SAFETY)
        length = second & 0x7F
        if length == 126:
            length = int.from_bytes(await self.reader.readexactly(2), "big")
        elif length == 127:
            length = int.from_bytes(await self.reader.readexactly(8), "big")
        return first & 0x0F, await self.reader.readexactly(length)

    async def messages(self, count: int) -> list[dict[str, Any] | str]:
        """The next ``count`` frames: text frames as JSON, control frames by name."""
        got: list[dict[str, Any] | str] = []
        while len(got) < count:
            opcode, payload = await self.frame()
            got.append(json.loads(payload) if opcode == 0x1 else {0x8: "close", 0xA: "pong"}.get(opcode, str(opcode)))
        return got


def frame(payload: bytes, opcode: Opcode = Opcode.TEXT, fin: bool = True) -> bytes:
    """A client's frame (masked), made by the websockets library."""
    return Frame(opcode, payload, fin=fin).serialize(mask=True)


def ping(number: int) -> bytes:
    return frame(json.dumps({"type": "ping", "id": f"p-{number}"}).encode())


def pong(number: int) -> dict[str, Any]:
    return {"type": "pong", "id": f"p-{number}"}


async def test_messages_are_answered_in_order_whatever_frames_carry_them(server: Server) -> None:
    info = await server.create_table()
    client = await RawClient.connect(server, info["code"])
    assert (await client.messages(1))[0]["type"] == "state"  # type: ignore[index]
    fragmented = json.dumps({"type": "ping", "id": "p-3"}).encode()
    client.write(ping(1) + frame(b"are you there?", Opcode.PING) + ping(2)
                 + frame(fragmented[:10], fin=False) + frame(fragmented[10:], Opcode.CONT) + ping(4))
    client.write(ping(5))
    got = await client.messages(6)
    # (the library answers a control ping as it reads it, ahead of the application's frames)
    assert "pong" in got and [message for message in got if message != "pong"] == [pong(n) for n in range(1, 6)]
    whole = ping(6)  # a frame cut across two reads
    client.write(whole[:3])
    await client.writer.drain()
    await asyncio.sleep(0.05)
    client.write(whole[3:])
    assert await client.messages(1) == [pong(6)]
    client.write(frame((1000).to_bytes(2, "big"), Opcode.CLOSE))
    assert await client.messages(1) == ["close"]
    client.writer.close()


async def test_a_bad_frame_is_judged_by_the_library(server: Server) -> None:
    info = await server.create_table()
    client = await RawClient.connect(server, info["code"])
    await client.messages(1)
    client.write(ping(1) + frame(b"\xff\xfe"))  # invalid UTF-8: close 1007 (RFC 6455 §8.1)
    while True:  # (the ping's answer may or may not be out before the library closes)
        opcode, payload = await client.frame()
        if opcode == 0x8:
            break
        assert json.loads(payload) == pong(1)
    assert int.from_bytes(payload[:2], "big") == 1007
    client.writer.close()


def outbox_of(server: Server, code: str, seat: int | None) -> Any:
    """The server's outbox for the connection of ``seat`` (the one connection of that seat or spectator)."""
    (subscriber,) = [s for s in server.hub._live[code].subscribers if s.seat == seat]
    return subscriber.send.__self__  # type: ignore[attr-defined]


@pytest.fixture
async def tight_server(tmp_path: Path) -> AsyncIterator[Server]:
    """A server whose connections have small kernel send buffers: what a client does not read waits in the server."""
    async with running_server(tmp_path / "tables.db", send_buffer=4096) as running:
        yield running


async def test_a_slow_reader_gets_every_frame_in_order(tight_server: Server) -> None:
    server = tight_server
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy", "easy"])
    await settle(server, code, humans.values())
    client = await RawClient.connect(server, code, small_buffers=True)
    assert (await client.messages(1))[0]["type"] == "state"  # type: ignore[index]
    outbox = outbox_of(server, code, None)
    count = 100  # (a snapshot is about 2 kB: far more than the buffers hold, and fewer frames than the queue holds)
    client.write(b"".join(frame(b'{"type": "sync"}') + ping(number) for number in range(count)))
    await client.writer.drain()
    async with asyncio.timeout(SAFETY):
        while outbox._queue.qsize() < count:  # the frames wait in the server for the client
            await asyncio.sleep(0.01)
    got = await client.messages(2 * count)
    assert [message["type"] for message in got] == ["state", "pong"] * count  # type: ignore[index]
    assert [message for message in got if message["type"] == "pong"] == [pong(n) for n in range(count)]  # type: ignore[index]
    client.writer.close()


async def test_a_client_too_slow_is_dropped_with_4008(tight_server: Server) -> None:
    server = tight_server
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy", "easy"])
    await settle(server, code, humans.values())
    client = await RawClient.connect(server, code, small_buffers=True)
    await client.messages(1)
    outbox = outbox_of(server, code, None)
    client.write(b"".join(frame(b'{"type": "sync"}') for _ in range(server_app._SEND_QUEUE + 100)))
    await client.writer.drain()
    async with asyncio.timeout(SAFETY):
        while not outbox.overflowed:
            await asyncio.sleep(0.01)
    while True:  # it reads again: what had been sent, then the close
        opcode, payload = await client.frame()
        if opcode == 0x8:
            break
        assert json.loads(payload)["type"] == "state"
    assert int.from_bytes(payload[:2], "big") == 4008
    client.writer.close()
    await settle(server, code, humans.values())
    assert not humans[0].closed  # (only the slow connection was dropped)


# ------------------------------------------------------------------ one connection per seat token


async def test_a_new_connection_for_a_seat_replaces_the_old_one(server: Server) -> None:
    code, humans, tokens, _ = await open_game(server, humans=2, bots=[])
    old = humans[0]
    await old.first_state()
    new = await Client.connect(server, code, tokens[0], "p0-new")
    await new.first_state()
    await old.wait_closed()
    assert old.close_code == 4409
    replaced = old.frames[-1]
    assert replaced["code"] == "replaced" and "another window or device" in replaced["message"]
    table = await settle(server, code, [new, humans[1]])
    assert table.seats[0].connected
    assert [s.seat for s in server.hub._live[code].subscribers].count(0) == 1
    await new.send_raw(json.dumps({"type": "ping", "id": "p-new"}))
    await new.wait_for(lambda: {"type": "pong", "id": "p-new"} in new.frames, "the pong")
    assert not humans[1].closed  # the other seat's connection is untouched


async def test_a_seats_connections_share_one_rate_limit(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_app, "_RATE_BURST", RATE_LIMIT[0])
    monkeypatch.setattr(server_app, "_RATE_PER_SECOND", RATE_LIMIT[1])
    code, humans, tokens, _ = await open_game(server, humans=1, bots=["easy"])
    burst = int(RATE_LIMIT[0])
    first = humans[0]
    start = len(first.frames)
    for number in range(burst):  # the whole burst on the first connection (or what the start left of it)
        await first.send_raw(json.dumps({"type": "ping", "id": f"a{number}"}))
    await first.wait_for(lambda: len([f for f in first.frames[start:] if str(f.get("id")).startswith("a")]) == burst)
    second = await Client.connect(server, code, tokens[0], "p0-second")
    await second.first_state()
    for number in range(burst):
        await second.send_raw(json.dumps({"type": "ping", "id": f"b{number}"}))

    def answers() -> list[dict[str, Any]]:
        return [f for f in second.frames if str(f.get("id")).startswith("b")]

    await second.wait_for(lambda: len(answers()) == burst)
    # The new connection goes on with what the first left (20 come back a second): with an allowance of its own
    # it would have a fresh burst, and every one of these would be answered.
    assert any(f["type"] == "error" and f["code"] == "rate_limited" for f in answers()), answers()


async def test_a_second_hello_is_refused_and_changes_nothing(server: Server) -> None:
    _, humans, tokens, _ = await open_game(server, humans=2, bots=[])
    first = humans[0]
    await first.first_state()
    await first.send_raw(json.dumps({"type": "hello", "token": tokens[1]}))
    await first.wait_for(lambda: first.frames[-1].get("type") == "error")
    assert first.frames[-1]["code"] == "bad_message" and not first.closed
    await first.send_raw(json.dumps({"type": "sync"}))
    await first.wait_for(lambda: first.frames[-1].get("type") == "state")
    assert first.view is not None and first.view["you"] == 0  # (still seat 0's connection)


async def test_a_seat_is_forgotten_once_its_connection_is_gone(server: Server) -> None:
    info = await server.create_table()
    lines = server.app.state.seat_lines
    client = await Client.connect(server, info["code"], info["token"], "ann")
    await client.first_state()
    assert len(lines) == 1
    await client.close()
    async with asyncio.timeout(SAFETY):  # (as soon as its allowance would have refilled: at once, unlimited here)
        while len(lines):
            await asyncio.sleep(0.01)


async def test_a_table_that_moves_while_a_connection_subscribes_is_refused_with_moved() -> None:
    """A cluster: the table may move to another process between a connection's hello and its subscription (the
    seat's "connected" cannot be written once the lease is lost). The client is told "moved" and closed with the
    code that makes it reconnect through the balancer, nothing escapes as an error of the server, and the
    connection leaves no subscriber behind."""

    class MovingHub:
        def __init__(self) -> None:
            self.unsubscribed: list[object] = []

        async def get(self, code: str) -> Any:
            return SimpleNamespace(table=SimpleNamespace(code=code, seat_of=lambda token: 0))

        async def subscribe(self, code: str, subscriber: object) -> None:
            raise TableError("moved", "This table moved to another server; try again")

        async def unsubscribe(self, code: str, subscriber: object) -> None:
            self.unsubscribed.append(subscriber)

    hub = MovingHub()
    scope = {"type": "websocket", "path": "/ws/ABCDEFGHJK", "query_string": b"", "client": ("127.0.0.1", 5000),
             "headers": [], "app": SimpleNamespace(state=SimpleNamespace(throttle=Throttle(Limits()), hub=hub))}
    incoming = [{"type": "websocket.connect"},
                {"type": "websocket.receive", "text": json.dumps({"type": "hello", "token": "seat-token"})}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await server_app.serve_socket(scope, receive, send, "ABCDEFGHJK", hub, server_app._SeatLines())  # type: ignore[arg-type]
    assert sent[0] == {"type": "websocket.accept"}
    error = json.loads(sent[1]["text"])
    assert (error["type"], error["code"]) == ("error", "moved")
    assert sent[2] == {"type": "websocket.close", "code": CLOSE_MOVED}
    assert len(sent) == 3 and len(hub.unsubscribed) == 1
