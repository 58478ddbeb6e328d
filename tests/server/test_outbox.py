"""A connection's outbox: frames go out at once when the client can take them, in order when it cannot, and a
client that falls too far behind is dropped."""

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
async def test_a_frame_is_sent_at_once_when_the_client_can_take_it() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    outbox.put("a")
    outbox.put("b")
    assert send.texts() == ["a", "b"]  # (no turn of the event loop in between: no hand-over to the sender task)


@pytest.mark.anyio
async def test_frames_wait_in_order_while_the_client_cannot_take_them() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    sender = asyncio.ensure_future(outbox.run())
    send.writable.clear()
    outbox.put("a")  # begun, and waits
    outbox.put("b")
    outbox.put("c")
    await asyncio.sleep(0.01)
    assert send.texts() == []
    send.writable.set()
    await asyncio.sleep(0.01)
    assert send.texts() == ["a", "b", "c"]
    outbox.put("d")  # nothing waits any more: at once again
    assert send.texts() == ["a", "b", "c", "d"]
    sender.cancel()


@pytest.mark.anyio
async def test_a_frame_put_while_a_queued_one_is_being_sent_waits_behind_it() -> None:
    # The sender task's send of a queued frame waits (the client's buffer filled again); the buffer drains
    # and, before the sender runs again, a broadcast puts the next frame: it must not overtake.
    send = FakeSend()
    outbox = _Outbox(send)
    sender = asyncio.ensure_future(outbox.run())
    send.writable.clear()
    outbox.put("a")  # begun, and waits
    outbox.put("b")  # queued
    send.writable.set()
    await asyncio.sleep(0)  # the sender finishes "a" ...
    send.writable.clear()  # ... and its send of "b" has to wait
    await asyncio.sleep(0.01)
    assert send.texts() == ["a"]
    send.writable.set()
    outbox.put("c")  # in the same turn as the buffer drains
    await asyncio.sleep(0.01)
    assert send.texts() == ["a", "b", "c"]
    sender.cancel()


@pytest.mark.anyio
async def test_a_client_too_far_behind_is_dropped() -> None:
    send = FakeSend()
    outbox = _Outbox(send)
    sender = asyncio.ensure_future(outbox.run())
    send.writable.clear()
    for number in range(server_app._SEND_QUEUE + 2):  # one begun, the queue full, one too many
        outbox.put(str(number))
    assert outbox.overflowed
    send.writable.set()
    await asyncio.wait_for(sender, 1)  # the sender closes the connection and ends
    assert send.sent[-1] == {"type": "websocket.close", "code": 4008}
    assert send.texts() == ["0"]  # (the begun send is finished; the queued frames are dropped with the connection)


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
