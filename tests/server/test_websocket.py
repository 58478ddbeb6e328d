"""The server's WebSocket transport: text frames written directly are exactly the library's frames."""

from __future__ import annotations

import json

import pytest
from websockets.frames import Frame, Opcode

from royal_revenge.server.websocket import FRAME_PROTOCOL, SERVER_OPTIONS, text_frame

from .conftest import Client, Server, open_game


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
