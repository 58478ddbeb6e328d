"""The store: group commits of moves (SQLite file on the event loop, other URLs through SQLAlchemy)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

import royal_revenge.server.store as store_module
from royal_revenge.server.store import Store, StoreError
from royal_revenge.session import LoggedMove


def row(code: str, game_no: int = 1) -> dict[str, object]:
    return {"code": code, "game_no": game_no, "note": "x" * 100}


def move(text: str, at: float = 1.0) -> LoggedMove:
    return LoggedMove(text, "player", None, at)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


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
    try:
        for seq in range(200):
            await store.save("A", row("A"), "playing", float(seq), [(1, seq, move(f"{seq % 4} draw"))])
        assert store._checkpointer is not None
        store._checkpointer.submit(lambda: None).result()  # wait for the last checkpoint
        assert not store._checkpoint_running
        # Checkpointed moves are in the database's main file: a reader that ignores the log (immutable) sees them.
        reader = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            (count,) = reader.execute("SELECT count(*) FROM rr_moves").fetchone()
        finally:
            reader.close()
        assert 100 < count <= 200  # (a checkpoint is skipped while the previous one runs)
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
