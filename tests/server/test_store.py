"""The store: group commits of moves (SQLite file on the event loop, other URLs through SQLAlchemy)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
import threading
from pathlib import Path

import pytest

import royal_revenge.server.store as store_module
from royal_revenge.server.store import Store, StoreError
from royal_revenge.session import LoggedMove


def row(code: str, game_no: int = 1) -> dict[str, object]:
    return {"code": code, "game_no": game_no, "note": "x" * 100}


def move(text: str, at: float = 1.0) -> LoggedMove:
    return LoggedMove(text, "player", None, at)


@pytest.mark.anyio
async def test_writes_made_together_are_committed_in_one_group_and_all_kept(tmp_path: Path) -> None:
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    try:
        commits = 0
        original = store._commit_sqlite

        def counting() -> None:
            nonlocal commits
            commits += 1
            original()

        store._commit_sqlite = counting  # type: ignore[method-assign]
        await asyncio.gather(*(store.save(f"T{index}", row(f"T{index}"), "playing", 1.0,
                                          [(1, seq, move(f"{index} draw")) for seq in range(3)])
                               for index in range(20)))
        assert commits == 1
        for index in range(20):
            found = await store.load_table(f"T{index}")
            assert found is not None
            data, moves = found
            assert data == row(f"T{index}")
            assert [logged.move for logged in moves] == [f"{index} draw"] * 3
    finally:
        await store.close()


@pytest.mark.anyio
async def test_a_refused_group_fails_every_write_in_it_keeps_none_and_the_next_one_works(tmp_path: Path) -> None:
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    try:
        await store.save("A", row("A"), "playing", 1.0, [(1, 0, move("0 draw"))])
        results = await asyncio.gather(
            store.save("B", row("B"), "playing", 2.0, [(1, 0, move("1 draw"))]),
            store.save("A", row("A", 2), "playing", 2.0, [(1, 0, move("0 pass"))]),  # (A, 1, 0) is taken
            return_exceptions=True,
        )
        assert all(isinstance(result, StoreError) for result in results)
        assert "refused" in str(results[0])
        assert await store.load_table("B") is None
        found = await store.load_table("A")
        assert found is not None and found[0] == row("A") and [m.move for m in found[1]] == ["0 draw"]
        await store.save("B", row("B"), "playing", 3.0, [(1, 0, move("1 draw"))])
        found = await store.load_table("B")
        assert found is not None and [m.move for m in found[1]] == ["1 draw"]
    finally:
        await store.close()


@pytest.mark.anyio
async def test_the_log_is_checkpointed_off_the_event_loop_while_moves_go_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_CHECKPOINT_EVERY", 10)
    path = tmp_path / "tables.db"
    store = await Store.connect(f"sqlite+aiosqlite:///{path}")
    started = 0
    original = store_module.Store._checkpoint

    def counting(self: Store) -> None:
        nonlocal started
        started += 1
        original(self)

    monkeypatch.setattr(store_module.Store, "_checkpoint", counting)
    try:
        for seq in range(200):
            await store.save("A", row("A"), "playing", float(seq), [(1, seq, move(f"{seq % 4} draw"))])
        assert store._checkpointer is not None
        store._checkpointer.submit(lambda: None).result()  # wait for the last checkpoint
        assert not store._checkpoint_running
        assert 1 <= started <= 20  # (every 10 moves, but none starts while the previous one runs)
        store._checkpoint()  # one more, now that the moves have stopped, to check where they end up
        store._checkpointer.submit(lambda: None).result()
        # Checkpointed moves are in the database's main file: a reader that ignores the log (immutable) sees them.
        reader = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            (count,) = reader.execute("SELECT count(*) FROM rr_moves").fetchone()
        finally:
            reader.close()
        assert count == 200
    finally:
        await store.close()
    reopened = await Store.connect(f"sqlite+aiosqlite:///{path}")
    try:
        found = await reopened.load_table("A")
        assert found is not None and len(found[1]) == 200
    finally:
        await reopened.close()


@pytest.mark.anyio
async def test_other_urls_commit_through_the_writer_task(tmp_path: Path) -> None:
    store = await Store.connect("sqlite+aiosqlite:///:memory:")
    try:
        assert store._sqlite is None
        await asyncio.gather(*(store.save(f"T{index}", row(f"T{index}"), "playing", 1.0,
                                          [(1, 0, move(f"{index} draw"))]) for index in range(5)))
        for index in range(5):
            found = await store.load_table(f"T{index}")
            assert found is not None and [m.move for m in found[1]] == [f"{index} draw"]
    finally:
        await store.close()


def _version_1_database(path: Path) -> None:
    """A database as schema version 1 wrote it: moves without their version."""
    connection = sqlite3.connect(path)
    connection.executescript("""
        CREATE TABLE rr_meta (key VARCHAR(64) NOT NULL PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE rr_tables (code VARCHAR(16) NOT NULL PRIMARY KEY, data TEXT NOT NULL,
                                phase VARCHAR(16) NOT NULL, updated_at FLOAT NOT NULL);
        CREATE INDEX ix_rr_tables_phase ON rr_tables (phase);
        CREATE TABLE rr_moves (code VARCHAR(16) NOT NULL, game_no INTEGER NOT NULL, seq INTEGER NOT NULL,
                               move VARCHAR(64) NOT NULL, by VARCHAR(16) NOT NULL, client_id VARCHAR(64),
                               at FLOAT NOT NULL, PRIMARY KEY (code, game_no, seq),
                               FOREIGN KEY(code) REFERENCES rr_tables (code) ON DELETE CASCADE);
        INSERT INTO rr_meta VALUES ('schema_version', '1');
        INSERT INTO rr_tables VALUES ('OLD1', '{"code": "OLD1", "game_no": 1}', 'playing', 1.0);
        INSERT INTO rr_moves VALUES ('OLD1', 1, 0, '0:draw', 'player', 'a-1', 2.0);
    """)
    connection.commit()
    connection.close()


@pytest.mark.anyio
async def test_a_version_1_database_is_migrated_on_start_and_keeps_its_moves(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _version_1_database(path)
    store = await Store.connect(f"sqlite+aiosqlite:///{path}")
    try:
        found = await store.load_table("OLD1")
        assert found is not None
        assert found[1] == [LoggedMove("0:draw", "player", "a-1", 2.0, None)]
        await store.save("OLD1", None, "playing", 3.0, [(1, 1, LoggedMove("1:draw", "player", None, 3.0, 7))])
        found = await store.load_table("OLD1")
        assert found is not None and [m.version for m in found[1]] == [None, 7]
        assert await store.public_tables() == []  # (schema 3: the column of the public tables is there)
        await store.save("OLD1", {"code": "OLD1", "game_no": 1}, "lobby", 4.0, listed=4.0)
        assert [data["code"] for data in await store.public_tables()] == ["OLD1"]
    finally:
        await store.close()
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT value FROM rr_meta WHERE key = 'schema_version'").fetchone() == (
        str(store_module.SCHEMA_VERSION),)
    connection.close()
    reopened = await Store.connect(f"sqlite+aiosqlite:///{path}")  # (migrated once: a second start changes nothing)
    await reopened.close()


@pytest.mark.anyio
async def test_a_row_left_as_it_was_still_restores_the_table_exactly(tmp_path: Path) -> None:
    """Moves that change nothing but the game do not rewrite the table's row; the moves carry the versions, so a
    table restored from the database is the very table in memory: views, version, clocks and idempotency ids."""
    import random

    from royal_revenge.clock import FakeClock
    from royal_revenge.server.hub import Hub, Subscriber
    from royal_revenge.session import Table, TableSettings
    from royal_revenge.session.table import RESTART_GRACE_SECONDS

    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    rows = 0
    original = store.save

    async def counting(code: str, data: dict[str, object] | None, *args: object, **kwargs: object) -> None:
        nonlocal rows
        rows += data is not None
        await original(code, data, *args, **kwargs)  # type: ignore[arg-type]

    store.save = counting  # type: ignore[method-assign]
    clock = FakeClock()
    hub = Hub(store, clock)
    await hub.start()
    try:
        table, host, token = await hub.create(TableSettings(players=3, single_round=True), "Ann", 30)
        tokens = {host: token}
        for name in ("Bob", "Cy"):
            seat, joined = await hub.change(table.code, lambda t, now, n=name: t.join(n, 30, now))
            tokens[seat] = joined
        for seat, held in tokens.items():
            await hub.subscribe(table.code, Subscriber(seat, lambda text: None, token=held))
        await hub.change(table.code, lambda t, now: t.start(token, now))
        rng = random.Random(3)
        rows_at_start, moves = rows, 0
        for number in range(60):
            live = hub._live[table.code]
            if live.table.phase.value != "playing":
                break
            state = live.table.game.state  # type: ignore[union-attr]
            seat = state.decider
            action = rng.choice(live.table.legal_view(seat))
            await hub.change(table.code, lambda t, now, s=seat, a=action, n=number: t.act(tokens[s], a, now,
                                                                                        client_id=f"a-{n}"))
            moves += 1
            clock.time += 0.1  # (no clock comes due: the scepter is 45 s or more away)
            found = await store.load_table(table.code)
            assert found is not None
            restored = Table.from_json(found[0], found[1], clock.now())
            assert restored.version == live.table.version
            # The scepter keeps the time it had left when the table last changed, counted from the end of the
            # restart's pause.
            assert live.table.deadlines.scepter is not None and live.table.changed_at is not None
            assert restored.deadlines.scepter == pytest.approx(
                clock.now() + RESTART_GRACE_SECONDS + live.table.deadlines.scepter - live.table.changed_at)
            for viewer in (None, *tokens):
                mine, theirs = restored.view(viewer), live.table.view(viewer)
                for view in (mine, theirs):
                    view["seats"] = [{**seat, "connected": None} for seat in view["seats"]]
                    view.pop("decision_deadline", None)
                assert mine == theirs, viewer
            # A resent id is recognised after a restore, with the version it first produced.
            again = restored.act(tokens[seat], action, clock.now(), client_id=f"a-{number}")
            assert again == live.table.moves[-1].version
        assert moves >= 20
        assert rows - rows_at_start < moves / 2, (rows - rows_at_start, moves)  # most moves left the row alone
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
@pytest.mark.parametrize(("setting", "pragma"), [(None, 2), ("normal", 1), ("FULL", 2)])
async def test_commits_are_synced_to_the_disk_by_default_and_normal_can_be_chosen(
        tmp_path: Path, setting: str | None, pragma: int) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}"
    store = await (Store.connect(url) if setting is None else Store.connect(url, synchronous=setting))
    try:
        assert store._sqlite is not None
        assert store._sqlite.execute("PRAGMA synchronous").fetchone() == (pragma,)
        assert (store._syncer is not None) == (pragma == 2)  # a full sync waits off the event loop
        await store.save("A", row("A"), "playing", 1.0, [(1, 0, move("0 draw"))])
        found = await store.load_table("A")
        assert found is not None and [m.move for m in found[1]] == ["0 draw"]
    finally:
        await store.close()


@pytest.mark.anyio
async def test_an_unknown_durability_setting_is_refused_in_plain_words() -> None:
    with pytest.raises(StoreError, match="synchronous must be one of FULL, NORMAL"):
        Store("sqlite+aiosqlite:///:memory:", synchronous="sometimes")


@pytest.mark.anyio
async def test_writes_made_while_a_group_is_synced_all_go_in_the_next_group_in_order(tmp_path: Path) -> None:
    """A full sync runs off the event loop: the loop goes on, writes made meanwhile wait and are committed together
    as soon as it is done, and each is answered once its own group is on the disk (never before)."""
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    try:
        assert store._syncer is not None
        gate = threading.Event()
        store._syncer.submit(gate.wait)  # the sync thread is busy: the first group's sync waits behind this
        answered: list[str] = []

        def saver(name: str) -> asyncio.Task[None]:
            async def save() -> None:
                await store.save(name, row(name), "playing", 1.0, [(1, 0, move("0 draw"))])
                answered.append(name)
            return asyncio.ensure_future(save())

        first = [saver(f"A{index}") for index in range(3)]
        for _ in range(5):
            await asyncio.sleep(0)
        assert store._syncing is not None and answered == []  # written, not yet synced: nobody is answered
        later = [saver(f"B{index}") for index in range(4)]
        for _ in range(5):
            await asyncio.sleep(0)  # the event loop is not held up by the sync
        assert answered == [] and len(store._pending) == 4
        gate.set()
        await asyncio.wait_for(asyncio.gather(*first, *later), 10)
        assert answered[:3] == ["A0", "A1", "A2"] and sorted(answered[3:]) == ["B0", "B1", "B2", "B3"]
        for name in answered:
            assert await store.load_table(name) is not None
    finally:
        await store.close()


@pytest.mark.anyio
async def test_closing_the_store_waits_for_a_group_being_synced(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    store = await Store.connect(f"sqlite+aiosqlite:///{path}")
    saving = asyncio.ensure_future(store.save("A", row("A"), "playing", 1.0, [(1, 0, move("0 draw"))]))
    await asyncio.sleep(0)
    await store.close()
    await asyncio.wait_for(saving, 5)  # answered, and committed
    reopened = await Store.connect(f"sqlite+aiosqlite:///{path}")
    try:
        found = await reopened.load_table("A")
        assert found is not None and [m.move for m in found[1]] == ["0 draw"]
    finally:
        await reopened.close()


@pytest.mark.anyio
async def test_a_failed_sync_fails_every_write_of_its_group_keeps_none_and_the_next_group_works(
        tmp_path: Path) -> None:
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    try:
        assert store._syncer is not None
        real = store._syncer

        class FailingDisk:
            """The sync thread, with a disk that fails the next sync (as a full disk or an I/O error would)."""

            def submit(self, function: object, *args: object) -> concurrent.futures.Future[object]:
                store._syncer = real  # (once)

                def fail() -> None:
                    raise sqlite3.OperationalError("disk I/O error")
                return real.submit(fail)

        store._syncer = FailingDisk()  # type: ignore[assignment]
        results = await asyncio.gather(*(store.save(name, row(name), "playing", 1.0, [(1, 0, move("0 draw"))])
                                         for name in ("A", "B")), return_exceptions=True)
        assert all(isinstance(result, StoreError) and "disk I/O error" in str(result) for result in results)
        assert await store.load_table("A") is None and await store.load_table("B") is None  # nothing of it kept
        await store.save("C", row("C"), "playing", 2.0, [(1, 0, move("0 draw"))])
        found = await store.load_table("C")
        assert found is not None and [m.move for m in found[1]] == ["0 draw"]
    finally:
        await store.close()
