"""The hub: one clock entry per table however many moves are made (every deadline still kept), a table's turn
shared by coroutines and callbacks in arrival order, and a player's message carried out by callbacks."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from royal_revenge.clock import FakeClock
from royal_revenge.server.hub import Hub, Subscriber, TableLock
from royal_revenge.server.store import Store
from royal_revenge.session import TableSettings


@pytest.mark.anyio
async def test_moves_do_not_pile_up_clock_entries_and_the_decision_clock_still_fires(tmp_path: Path) -> None:
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    clock = FakeClock()
    hub = Hub(store, clock)
    await hub.start()
    try:
        settings = TableSettings(players=3, single_round=True, turn_seconds=20, scepter_min_seconds=600,
                                 scepter_max_seconds=600)
        codes, tokens = [], {}
        for number in range(3):
            table, host, token = await hub.create(settings, f"Ann {number}", 30)
            seat_tokens = {host: token}
            for name in ("Bob", "Cy"):
                seat, joined = await hub.change(table.code, lambda t, now, n=name: t.join(n, 30, now))
                seat_tokens[seat] = joined
            for seat, held in seat_tokens.items():
                await hub.subscribe(table.code, Subscriber(seat, lambda text: None, token=held))
            await hub.change(table.code, lambda t, now, token=token: t.start(token, now))
            codes.append(table.code)
            tokens[table.code] = seat_tokens
        rng = random.Random(5)
        for _ in range(40):
            for code in codes:
                table = hub._live[code].table
                if table.game is None or table.phase.value != "playing":
                    continue
                seat = table.game.state.decider
                action = rng.choice(table.legal_view(seat))
                await hub.change(code, lambda t, now, s=seat, a=action, c=code: t.act(tokens[c][s], a, now))
                await clock.advance(0.05)
            assert len(hub._runner.entries) <= 2 * len(codes), len(hub._runner.entries)  # (was one entry per move)
        # Nobody moves for a whole turn: each table's decision clock still comes due, and a bot moves for the player.
        moves = {code: len(hub._live[code].table.moves) for code in codes}
        playing = [code for code in codes if hub._live[code].table.phase.value == "playing"]
        assert playing
        await clock.advance(settings.turn_seconds + 1)
        await hub.run_until_idle()
        for code in playing:
            table = hub._live[code].table
            assert len(table.moves) > moves[code] and table.moves[moves[code]].by == "timeout", code
    finally:
        await hub.stop()
        await store.close()


# ------------------------------------------------------------------ the table's turn


@pytest.mark.anyio
async def test_coroutines_and_callbacks_take_the_table_in_arrival_order() -> None:
    lock = TableLock()
    order: list[str] = []

    async def coroutine(name: str) -> None:
        async with lock:
            order.append(name)
            await asyncio.sleep(0)

    def callback(name: str) -> None:
        order.append(name)
        asyncio.get_running_loop().call_soon(lock.release)  # (held over a turn of the loop, as a commit is)

    lock.run(lambda: callback("a"))
    first = asyncio.create_task(coroutine("b"))
    await asyncio.sleep(0)  # (b is waiting now)
    lock.run(lambda: callback("c"))
    second = asyncio.create_task(coroutine("d"))
    await asyncio.gather(first, second)
    for _ in range(5):
        await asyncio.sleep(0)
    assert order == ["a", "b", "c", "d"]
    assert not lock.locked()


@pytest.mark.anyio
async def test_a_waiter_cancelled_as_its_turn_comes_passes_the_turn_on() -> None:
    lock = TableLock()
    order: list[str] = []
    lock.run(lambda: order.append("first"))  # holds the table

    async def waiter() -> None:
        async with lock:
            order.append("never")

    waiting = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    lock.run(lambda: (order.append("last"), lock.release()))
    lock.release()  # the turn goes to the waiter ...
    waiting.cancel()  # ... which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await waiting
    for _ in range(3):
        await asyncio.sleep(0)
    assert order == ["first", "last"] and not lock.locked()


# ------------------------------------------------------------------ a player's message, the short way


class _Seats:
    """A hub with one 3-seat table, a frame list per seat, and a log of the replies to submitted messages."""

    def __init__(self, hub: Hub, code: str, tokens: dict[int, str]) -> None:
        self.hub, self.code, self.tokens = hub, code, tokens
        self.frames: dict[int, list[str]] = {seat: [] for seat in tokens}
        self.subscribers = {seat: Subscriber(seat, self.frames[seat].append, token=token)
                            for seat, token in tokens.items()}
        self.replies: list[tuple[str, Any, bool, str | None]] = []

    def submit(self, seat: int, action: Any, message_id: str) -> None:
        token = self.tokens[seat]

        def reply(result: Any, acked: bool, error: Any) -> None:
            self.replies.append((message_id, result, acked, error.code if error is not None else None))

        self.hub.submit(self.code, lambda t, now: t.act(token, action, now, client_id=message_id),
                        self.subscribers[seat], message_id, reply)


async def _seated_hub(tmp_path: Path) -> tuple[Hub, Store, _Seats]:
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    hub = Hub(store, FakeClock())
    await hub.start()
    settings = TableSettings(players=3, single_round=True, scepter_min_seconds=600, scepter_max_seconds=600)
    table, host, token = await hub.create(settings, "Ann", 30)
    tokens = {host: token}
    for name in ("Bob", "Cy"):
        seat, joined = await hub.change(table.code, lambda t, now, n=name: t.join(n, 30, now))
        tokens[seat] = joined
    seats = _Seats(hub, table.code, tokens)
    for subscriber in seats.subscribers.values():
        await hub.subscribe(table.code, subscriber)
    await hub.change(table.code, lambda t, now: t.start(token, now))
    return hub, store, seats


async def _until(done: Any) -> None:
    async with asyncio.timeout(10):
        while not done():
            await asyncio.sleep(0.001)


def _decider(hub: Hub, code: str) -> tuple[int, Any]:
    table = hub._live[code].table
    assert table.game is not None
    seat = table.game.state.decider
    assert seat is not None
    return seat, table.legal_actions(seat)[0]


@pytest.mark.anyio
async def test_a_submitted_move_is_answered_once_committed_with_its_ack_in_the_state(tmp_path: Path) -> None:
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        seat, action = _decider(hub, seats.code)
        before = len(seats.frames[seat])
        seats.submit(seat, action, "m-1")
        assert seats.replies == []  # (the move is applied, but not answered before its commit)
        assert hub._live[seats.code].lock.locked()
        await hub.run_until_idle()
        table = hub._live[seats.code].table
        assert seats.replies == [("m-1", table.version, True, None)]
        assert '"ack":"m-1"' in seats.frames[seat][before]
        found = await store.load_table(seats.code)
        assert found is not None and found[1][-1].client_id == "m-1"
        assert not hub._live[seats.code].lock.locked()
        # The same id again changes nothing: answered at once, with an ack of its own to send.
        seats.submit(seat, action, "m-1")
        assert seats.replies[-1] == ("m-1", table.version, False, None)
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
async def test_a_refused_move_changes_nothing_and_frees_the_table(tmp_path: Path) -> None:
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        seat, action = _decider(hub, seats.code)
        other = next(s for s in seats.tokens if s != seat)
        table = hub._live[seats.code].table
        version = table.version
        seats.submit(other, action, "out-of-turn")
        assert seats.replies == [("out-of-turn", None, False, "illegal")]
        assert table.version == version and not hub._live[seats.code].lock.locked()
        seats.submit(seat, action, "in-turn")
        await hub.run_until_idle()
        assert seats.replies[-1][0::2] == ("in-turn", True)
    finally:
        await hub.stop()
        await store.close()


class _RefusingConnection:
    """The store's SQLite connection, refusing the next insert of moves."""

    def __init__(self, inner: sqlite3.Connection) -> None:
        self.inner = inner
        self.refuse = True

    def executemany(self, sql: str, rows: Any) -> Any:
        if self.refuse and sql.startswith("INSERT INTO rr_moves"):
            self.refuse = False
            raise sqlite3.OperationalError("disk I/O error")
        return self.inner.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.anyio
async def test_a_refused_write_is_answered_storage_and_the_table_is_what_the_database_holds(tmp_path: Path) -> None:
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        seat, action = _decider(hub, seats.code)
        before = hub._live[seats.code].table
        version, moves = before.version, len(before.moves)
        store._sqlite = _RefusingConnection(store._sqlite)  # type: ignore[assignment, arg-type]
        seats.submit(seat, action, "lost")
        await _until(lambda: bool(seats.replies))
        assert seats.replies == [("lost", None, False, "storage")]
        table = hub._live[seats.code].table
        assert table is not before and (table.version, len(table.moves)) == (version, moves)  # reloaded
        assert seats.subscribers[seat].ack is None and not hub._live[seats.code].lock.locked()
        seats.submit(seat, action, "again")  # the next try goes through
        await hub.run_until_idle()
        assert seats.replies[-1] == ("again", table.version, True, None) and table.version == version + 1
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
async def test_a_refused_write_while_the_database_cannot_be_read_keeps_the_table_until_it_can(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The table in memory holds the refused move: nothing may use it (nor ack a resent id as saved) before the
    # database's state is read back.
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        seat, action = _decider(hub, seats.code)
        live = hub._live[seats.code]
        version, moves = live.table.version, len(live.table.moves)
        reads = 0
        real_load = store.load_table

        async def unreachable(code: str) -> Any:
            nonlocal reads
            reads += 1
            if reads < 3:
                raise OSError("database unreachable")
            return await real_load(code)

        monkeypatch.setattr(store, "load_table", unreachable)
        store._sqlite = _RefusingConnection(store._sqlite)  # type: ignore[assignment, arg-type]
        seats.submit(seat, action, "lost")
        await asyncio.sleep(0.02)
        assert reads >= 1 and seats.replies == [] and live.lock.locked()  # still reading: the table waits
        seats.submit(seat, action, "lost")  # the client's retry of the same id waits its turn ...
        await _until(lambda: len(seats.replies) == 2)
        assert reads == 3
        assert seats.replies[0] == ("lost", None, False, "storage")
        assert (live.table.version, len(live.table.moves)) == (version + 1, moves + 1)  # ... and is applied for real
        assert seats.replies[1][0::2] == ("lost", True)
        found = await real_load(seats.code)
        assert found is not None and found[1][-1].client_id == "lost"
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
async def test_a_write_that_cannot_be_made_is_answered_storage_and_the_table_reloaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        seat, action = _decider(hub, seats.code)
        live = hub._live[seats.code]
        version = live.table.version
        real_save = store.save_then

        def broken(*args: Any, **kwargs: Any) -> None:
            monkeypatch.setattr(store, "save_then", real_save)
            raise TypeError("cannot encode")

        monkeypatch.setattr(store, "save_then", broken)
        seats.submit(seat, action, "m-1")
        await _until(lambda: bool(seats.replies))
        assert seats.replies == [("m-1", None, False, "storage")]
        assert live.table.version == version and not live.lock.locked()
        assert seats.subscribers[seat].ack is None
        seats.submit(seat, action, "m-2")
        await hub.run_until_idle()
        assert seats.replies[-1][0::2] == ("m-2", True)
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
async def test_a_failing_operation_that_waited_its_turn_is_answered_and_frees_the_table(tmp_path: Path) -> None:
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        live = hub._live[seats.code]
        replies: list[Any] = []

        def buggy(table: Any, now: float) -> None:
            raise KeyError("a bug")

        assert live.lock.try_take()
        hub.submit(seats.code, buggy, seats.subscribers[0], "x", lambda *answer: replies.append(answer))
        live.lock.release()  # its turn comes from the lock, not from the message's own call
        await _until(lambda: bool(replies))
        assert replies[0][:2] == (None, False) and replies[0][2].code == "server_error"
        assert not live.lock.locked()
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
async def test_a_committed_move_whose_frames_fail_is_still_answered(tmp_path: Path) -> None:
    hub, store, seats = await _seated_hub(tmp_path)
    try:
        seat, action = _decider(hub, seats.code)

        def broken(table: Any, subscriber: Subscriber) -> None:
            raise RuntimeError("a bug in the frames")

        hub.view_listeners.append(broken)  # (called for every view the broadcast makes; the hub may be compiled)
        seats.submit(seat, action, "m-1")
        await _until(lambda: bool(seats.replies))
        assert seats.replies[0][0] == "m-1" and seats.replies[0][2:] == (False, None)  # (a plain ack to send)
        assert not hub._live[seats.code].lock.locked() and seats.subscribers[seat].ack is None
        found = await store.load_table(seats.code)
        assert found is not None and found[1][-1].client_id == "m-1"
    finally:
        await hub.stop()
        await store.close()
