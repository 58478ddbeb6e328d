"""A connection's outbox: frames leave in order, and a client that falls too far behind is dropped."""

from __future__ import annotations

import asyncio

import pytest

from royal_revenge.server import app as server_app
from royal_revenge.server.app import _Outbox


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_frames_leave_in_order_and_the_sender_waits_for_the_next() -> None:
    outbox = _Outbox()
    outbox.put("a")
    outbox.put("b")
    assert [await outbox.get(), await outbox.get()] == ["a", "b"]
    waiting = asyncio.ensure_future(outbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    outbox.put("c")
    assert await asyncio.wait_for(waiting, 1) == "c"


@pytest.mark.anyio
async def test_a_client_too_far_behind_is_dropped_and_wakes_its_sender() -> None:
    outbox = _Outbox()
    waiting = asyncio.ensure_future(outbox.get())
    await asyncio.sleep(0)
    for number in range(server_app._SEND_QUEUE):
        outbox.put(str(number))
    assert await waiting == "0" and not outbox.overflowed
    outbox.put("one more")  # (one slot was freed by the get above)
    assert not outbox.overflowed
    outbox.put("too many")
    assert outbox.overflowed
    assert await asyncio.wait_for(outbox.get(), 1) is None  # the sender closes the connection (4008)
