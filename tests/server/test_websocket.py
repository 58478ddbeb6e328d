"""The server's WebSocket transport: text frames written directly are exactly the library's frames, and frames
read the short way are the ones the library would have read, in the same order."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from typing import Any

import pytest
from websockets.frames import Frame, Opcode

from royal_revenge.server.websocket import FRAME_PROTOCOL, SERVER_OPTIONS, read_text_frames, text_frame

from .conftest import SAFETY, Client, Server, open_game


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 4_000, 65_535, 65_536, 70_000])
def test_a_text_frame_is_the_one_the_websockets_library_makes(length: int) -> None:
    payload = ("é" * length).encode()[:length]
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


def test_the_server_sends_through_the_direct_frame_protocol() -> None:
    assert FRAME_PROTOCOL is not None and SERVER_OPTIONS["ws"] is FRAME_PROTOCOL
    assert SERVER_OPTIONS["ws_per_message_deflate"] is False  # (the direct path writes uncompressed frames)


@pytest.mark.anyio
async def test_clients_read_the_direct_frames_and_the_library_ones_alike(server: Server) -> None:
    """States (written directly), pongs and errors, and closing (uvicorn's own code) all arrive whole."""
    _, clients, _, _ = await open_game(server, humans=2, bots=[])
    first: Client = clients[0]
    await first.first_state()
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


# ------------------------------------------------------------------ the short way in


def masked_frame(payload: bytes, opcode: int = 0x1, fin: bool = True, mask: bytes = b"\x01\x02\x03\x04",
                 masked: bool = True) -> bytes:
    """A client's frame, as RFC 6455 §5.2 has it (the ``websockets`` library makes the same bytes)."""
    frame = Frame(Opcode(opcode), payload, fin=fin)
    if not masked:
        return frame.serialize(mask=False)
    data = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
    length = len(payload)
    head = bytes(((0x80 if fin else 0) | opcode,))
    if length < 126:
        head += bytes((0x80 | length,))
    elif length < 65536:
        head += bytes((0x80 | 126,)) + length.to_bytes(2, "big")
    else:
        head += bytes((0x80 | 127,)) + length.to_bytes(8, "big")
    return head + mask + data


def read_all(data: bytes, max_size: int = 16384) -> tuple[int, list[str]]:
    got: list[str] = []
    return read_text_frames(data, max_size, got.append), got


@pytest.mark.parametrize("text", ["", "a", "é" * 62, "x" * 125, "x" * 126, "y" * 4000, "z" * 16384])
def test_a_client_text_frame_is_read_whole(text: str) -> None:
    frame = masked_frame(text.encode())
    assert read_all(frame + frame) == (2 * len(frame), [text, text])


@pytest.mark.parametrize("frame, why", [
    (masked_frame(b"hi", opcode=0x2), "binary"),
    (masked_frame(b"hi", opcode=0x9), "ping"),
    (masked_frame(b"hi", opcode=0x8), "close"),
    (masked_frame(b"hi", fin=False), "the first fragment of a message"),
    (masked_frame(b"hi", opcode=0x0), "a continuation"),
    (bytes((0xC1,)) + masked_frame(b"hi")[1:], "a reserved bit"),
    (masked_frame(b"hi", masked=False), "unmasked"),
    (masked_frame(b"\xff\xfe"), "not UTF-8"),
    (masked_frame(b"x" * 16385), "over the size limit"),
    (masked_frame(b"x" * 70000), "a 64-bit length"),
])
def test_anything_but_a_whole_text_frame_is_left_to_the_library(frame: bytes, why: str) -> None:
    first = masked_frame(b"first")
    assert read_all(first + frame + first) == (len(first), ["first"]), why


def test_a_frame_cut_short_is_left_whole_for_the_library() -> None:
    frame = masked_frame(b"x" * 300)
    for cut in (1, 2, 3, 4, 6, 7, 8, 12, len(frame) - 1):
        assert read_all(frame[:cut]) == (0, [])


def test_reading_stops_when_the_application_says_so() -> None:
    got: list[str] = []
    frames = masked_frame(b"a") + masked_frame(b"b")
    assert read_text_frames(frames, 100, got.append, lambda: False) == len(masked_frame(b"a"))
    assert got == ["a"]


class RawClient:
    """A WebSocket client at the byte level: the test writes exactly the bytes it wants the server to read."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, server: Server, code: str) -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), SAFETY)
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

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


def ping(number: int) -> bytes:
    return masked_frame(json.dumps({"type": "ping", "id": f"p-{number}"}).encode())


def pong(number: int) -> dict[str, Any]:
    return {"type": "pong", "id": f"p-{number}"}


@pytest.fixture
def direct_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The messages the server read the short way."""
    read: list[str] = []
    original = FRAME_PROTOCOL._deliver

    def deliver(self: Any, text: str) -> None:
        read.append(text)
        original(self, text)

    monkeypatch.setattr(FRAME_PROTOCOL, "_deliver", deliver)
    return read


@pytest.mark.anyio
async def test_messages_are_answered_in_order_whichever_way_each_was_read(
        server: Server, direct_reads: list[str]) -> None:
    """The short way and the library's way (a fragmented message, a ping) interleave without reordering."""
    info = await server.create_table()
    client = await RawClient.connect(server, info["code"])
    assert (await client.messages(1))[0]["type"] == "state"  # type: ignore[index]
    fragmented = json.dumps({"type": "ping", "id": "p-3"}).encode()
    client.writer.write(ping(1) + masked_frame(b"are you there?", opcode=0x9) + ping(2)
                        + masked_frame(fragmented[:10], fin=False) + masked_frame(fragmented[10:], opcode=0x0)
                        + ping(4))
    client.writer.write(ping(5))
    await client.writer.drain()
    assert await client.messages(6) == [pong(1), "pong", pong(2), pong(3), pong(4), pong(5)]
    assert json.loads(direct_reads[0])["id"] == "p-1"  # (what follows the ping waits behind it, the long way)
    # A frame cut across two reads goes the library's way; the next ones the short way again.
    before = len(direct_reads)
    frame = ping(6)
    client.writer.write(frame[:3])
    await client.writer.drain()
    await asyncio.sleep(0.05)
    client.writer.write(frame[3:])
    await client.writer.drain()
    assert await client.messages(1) == [pong(6)]
    for number in range(7, 10):
        client.writer.write(ping(number))
        await client.writer.drain()
        assert await client.messages(1) == [pong(number)]
    assert len(direct_reads) > before
    client.writer.write(masked_frame(b"\x03\xe8", opcode=0x8))  # close, 1000
    await client.writer.drain()
    assert await client.messages(1) == ["close"]
    client.writer.close()


@pytest.mark.anyio
async def test_a_bad_frame_on_the_short_way_is_judged_by_the_library(server: Server, direct_reads: list[str]) -> None:
    info = await server.create_table()
    client = await RawClient.connect(server, info["code"])
    await client.messages(1)
    client.writer.write(ping(1) + masked_frame(b"\xff\xfe"))  # invalid UTF-8: close 1007 (RFC 6455 §8.1)
    await client.writer.drain()
    assert await client.messages(1) == [pong(1)]
    opcode, payload = await client.frame()
    assert opcode == 0x8 and int.from_bytes(payload[:2], "big") == 1007
    assert [json.loads(text)["id"] for text in direct_reads] == ["p-1"]
    client.writer.close()
