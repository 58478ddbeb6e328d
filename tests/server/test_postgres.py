"""The server on PostgreSQL (``--db postgresql://…``): the same store and the same games as on SQLite.

The kill-and-restart test of ``test_process.py`` runs on PostgreSQL too.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from royal_revenge.engine import GameRecord
from royal_revenge.server.store import Store, StoreError
from royal_revenge.session import LoggedMove, Phase

from .conftest import Driver, open_game, running_server, settle
from .postgres import PostgresCluster

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


def row(code: str, game_no: int = 1) -> dict[str, object]:
    return {"code": code, "game_no": game_no, "note": "é" * 100}


def move(text: str, version: int | None = None) -> LoggedMove:
    return LoggedMove(text, "player", f"id-{text}", 1.5, version)


async def test_the_store_commits_groups_refuses_a_conflicting_one_and_keeps_everything(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    store = await Store.connect(url)
    try:
        await asyncio.gather(*(store.save(f"T{index}", row(f"T{index}"), "playing", 1.0,
                                          [(1, seq, move(f"{index}:draw", seq + 1)) for seq in range(3)])
                               for index in range(20)))
        # A group with a move at a place already taken fails as a whole, and the next one works.
        results = await asyncio.gather(
            store.save("NEW", row("NEW"), "playing", 2.0, [(1, 0, move("1:draw"))]),
            store.save("T0", row("T0", 2), "playing", 2.0, [(1, 0, move("0:pass"))]),
            return_exceptions=True)
        assert all(isinstance(result, StoreError) for result in results), results
        assert await store.load_table("NEW") is None
        await store.save("T0", None, "playing", 3.0, [(1, 3, move("0:pass", 4))])  # moves only: the row stays
        found = await store.load_table("T0")
        assert found is not None and found[0] == row("T0") and found[1][-1] == move("0:pass", 4)
        await store.save("T0", row("T0", 2), "finished", 4.0, [(2, 0, move("2:draw", 5))])
        assert await store.ping()
    finally:
        await store.close()
    reopened = await Store.connect(url)  # the schema is there: a second start migrates nothing
    try:
        for index in range(1, 20):
            found = await reopened.load_table(f"T{index}")
            assert found is not None
            assert found[0] == row(f"T{index}")
            assert found[1] == [move(f"{index}:draw", seq + 1) for seq in range(3)]
        found = await reopened.load_table("T0")
        assert found is not None and found[0] == row("T0", 2)
        assert found[1] == [move("2:draw", 5)]  # the moves of the row's game
        playing = await reopened.load_tables(["playing"])
        assert sorted(data["code"] for data, _ in playing) == sorted(f"T{index}" for index in range(1, 20))
    finally:
        await reopened.close()


async def test_a_whole_game_with_people_bots_and_a_spectator_then_a_restart(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    async with running_server(url) as server:
        code, humans, _, observers = await open_game(server, humans=2, bots=["easy", "normal"], spectators=1)
        table = await Driver(server, code, humans, random.Random(3), observers=observers).run()
        assert table.phase is Phase.FINISHED
        async with server.http() as http:
            response = await http.get(f"/api/tables/{code}/record")
            health = (await http.get("/healthz")).json()
        assert health["database"] is True
        assert response.status_code == 200
        assert GameRecord.loads(response.text).replay() == table.game.state  # type: ignore[union-attr]
        for client in [*humans.values(), *observers]:
            await client.close()
        table = await settle(server, code)  # (the people leaving is a change: the seats are disconnected)
        async with server.http() as http:
            before = (await http.get(f"/api/tables/{code}")).json()
    async with running_server(url) as restarted:  # a new process on the same database: the same table
        async with restarted.http() as http:
            after = (await http.get(f"/api/tables/{code}")).json()
            again = await http.get(f"/api/tables/{code}/record")
        assert after["version"] == before["version"] == table.version
        assert after["game"] == before["game"] and after["phase"] == "finished"
        assert again.text == response.text


async def test_closing_the_store_commits_the_writes_already_made_and_refuses_later_ones(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    store = await Store.connect(url)
    answers: dict[str, StoreError | None] = {}
    for index in range(30):  # made, not yet committed, when the server stops
        store.save_then(f"T{index}", row(f"T{index}"), "playing", 1.0, [(1, 0, move(f"{index}:draw", 1))],
                        done=lambda error, code=f"T{index}": answers.__setitem__(code, error))
    await store.close()
    assert answers == {f"T{index}": None for index in range(30)}
    store.save_then("LATE", row("LATE"), "playing", 2.0, done=lambda error: answers.__setitem__("LATE", error))
    assert isinstance(answers["LATE"], StoreError)
    reopened = await Store.connect(url)
    try:
        assert len(await reopened.load_tables()) == 30
    finally:
        await reopened.close()


async def test_public_tables_are_listed_from_postgresql(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    store = await Store.connect(url)
    try:
        await store.save("OLD", row("OLD"), "lobby", 1.0, listed=1.0)
        await store.save("NEW", row("NEW"), "lobby", 2.0, listed=2.0)
        await store.save("HID", row("HID"), "lobby", 3.0)
        assert [data["code"] for data in await store.public_tables()] == ["NEW", "OLD"]
        await store.save("NEW", row("NEW"), "playing", 4.0)  # started: no longer listed
        await store.save("OLD", row("OLD"), "lobby", 5.0, [(1, 0, move("0:draw", 2))], listed=1.0)
        assert [data["code"] for data in await store.public_tables(limit=1)] == ["OLD"]
        assert [data["code"] for data in await store.public_tables()] == ["OLD"]
    finally:
        await store.close()
