"""A connection's outbox: a table only queues frames; the sender task sends them in order, and a client that
falls too far behind is dropped. (Through a real server: tests/server/test_websocket.py.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from royal_revenge.server import app as server_app
from royal_revenge.server.app import _Outbox


class FakeSend:
    """An ASGI ``send`` that waits while the client's buffer is full (as uvicorn's does)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.broken = False

    async def __call__(self, message: dict[str, Any]) -> None:
        await self.writable.wait()
        if self.broken:
            raise ConnectionResetError("the client went away")
        self.sent.append(message)

    def texts(self) -> list[str]:
        return [message["text"] for message in self.sent if message["type"] == "websocket.send"]


@pytest.mark.anyio
async def test_putting_a_frame_never_waits_for_the_client() -> None:
    send = FakeSend()
    send.writable.clear()  # the client reads nothing
    outbox = _Outbox(send)
    for number in range(server_app._SEND_QUEUE):
        outbox.put(str(number))  # (a plain call: a table's broadcast cannot be held up)
    assert send.sent == [] and outbox.closing is None


@pytest.mark.anyio
async def test_frames_wait_in_order_while_the_client_cannot_take_them() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    sender = asyncio.ensure_future(outbox.run())
    send.writable.clear()
    outbox.put("a")
    await asyncio.sleep(0.01)  # the sender waits in the send of "a"
    outbox.put("b")
    outbox.put("c")
    await asyncio.sleep(0.01)
    assert send.texts() == []
    send.writable.set()
    await asyncio.sleep(0.01)
    assert send.texts() == ["a", "b", "c"]
    outbox.put("d")
    await asyncio.sleep(0.01)
    assert send.texts() == ["a", "b", "c", "d"]
    sender.cancel()


@pytest.mark.anyio
async def test_a_client_too_far_behind_is_dropped() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    sender = asyncio.ensure_future(outbox.run())
    send.writable.clear()
    outbox.put("0")
    await asyncio.sleep(0.01)  # the sender waits in the send of "0"
    for number in range(1, server_app._SEND_QUEUE + 2):  # the queue full, and one too many
        outbox.put(str(number))
    assert outbox.overflowed and outbox.closing == 4008
    send.writable.set()
    await asyncio.wait_for(sender, 1)  # the sender closes the connection and ends
    assert send.sent[-1] == {"type": "websocket.close", "code": 4008}
    assert send.texts() == ["0"]  # (the begun send is finished; the queued frames are dropped with the connection)


@pytest.mark.anyio
async def test_closing_sends_what_was_queued_then_the_last_word_then_the_close() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    outbox.put("a")
    outbox.close(4409, "bye")
    outbox.put("late")  # (nothing is queued after the close)
    await asyncio.wait_for(outbox.run(), 1)
    assert send.texts() == ["a", "bye"] and send.sent[-1] == {"type": "websocket.close", "code": 4409}


@pytest.mark.anyio
async def test_a_failed_send_ends_the_connection_without_troubling_the_table() -> None:
    send = FakeSend()
    send.broken = True
    outbox = _Outbox(send)
    outbox.put("a")  # raises nothing here (the broadcast goes on for everyone else)
    with pytest.raises(ConnectionResetError):
        await asyncio.wait_for(outbox.run(), 1)


@pytest.mark.anyio
async def test_a_cancelled_sender_stops_a_waiting_send() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    sender = asyncio.ensure_future(outbox.run())
    send.writable.clear()
    outbox.put("a")
    await asyncio.sleep(0.01)
    sender.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sender
    send.writable.set()
    await asyncio.sleep(0.01)
    assert send.texts() == []
