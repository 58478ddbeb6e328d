"""Several server processes on one PostgreSQL database (``serve --node``): leases, fencing, hand-over, failover.

These run two servers of a cluster in this test's event loop (each with its own store, leases and hub), so that
what each holds can be looked at directly; ``test_cluster_e2e.py`` runs real processes behind HAProxy.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Collection

import pytest

from royal_revenge.server.leases import Held, Leases
from royal_revenge.server.protocol import CLOSE_MOVED
from royal_revenge.server.store import LeaseLost, Store
from royal_revenge.session import LoggedMove, Phase

from .conftest import Client, Driver, open_game, running_server, settle, step_clock
from .postgres import PostgresCluster

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


def _move(text: str, version: int) -> LoggedMove:
    return LoggedMove(text, "player", f"id-{version}", 1.0, version)


async def test_only_the_holder_of_the_current_epoch_may_write_a_table(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    first, second = await Store.connect(url), await Store.connect(url)
    try:
        a, b = Leases(first, "a", seconds=0.5), Leases(second, "b", seconds=0.5)
        first.fence_owner, second.fence_owner = a.owner, b.owner
        epoch = await a.acquire("T1")
        assert epoch == 1
        assert await b.acquire("T1") is None  # held: b cannot take it
        await first.save("T1", {"code": "T1", "game_no": 1}, "playing", 1.0, [(1, 0, _move("0:draw", 1))],
                         epoch=epoch)
        with pytest.raises(LeaseLost):  # b holds no lease
            await second.save("T1", None, "playing", 1.0, [(1, 1, _move("1:draw", 2))], epoch=epoch)
        with pytest.raises(LeaseLost):  # a write without an epoch is refused in a cluster
            await first.save("T1", None, "playing", 1.0, [(1, 1, _move("1:draw", 2))])

        await asyncio.sleep(0.7)  # a is "paused": its lease runs out, though nobody has taken the table yet
        with pytest.raises(LeaseLost):
            await first.save("T1", None, "playing", 1.0, [(1, 1, _move("1:draw", 2))], epoch=epoch)
        assert await a.renew() == {}  # an expired lease is not renewed: it is lost

        taken = await b.acquire("T1")
        assert taken == 2
        await second.save("T1", None, "playing", 2.0, [(1, 1, _move("1:draw", 2))], epoch=taken)
        with pytest.raises(LeaseLost):  # the stale owner's late write, with its old epoch
            await first.save("T1", None, "playing", 3.0, [(1, 2, _move("0:pass", 3))], epoch=epoch)
        # One group with a fenced write and a good one: only the stale one is refused.
        await a.acquire("T2")
        results = await asyncio.gather(
            first.save("T2", {"code": "T2", "game_no": 1}, "lobby", 3.0, epoch=1),
            first.save("T1", None, "playing", 3.0, [(1, 2, _move("0:pass", 3))], epoch=epoch),
            return_exceptions=True)
        assert results[0] is None and isinstance(results[1], LeaseLost)

        found = await second.load_table("T1")
        assert found is not None and [move.move for move in found[1]] == ["0:draw", "1:draw"]
        renewed = await b.renew()
        assert renewed["T1"].epoch == 2 and not renewed["T1"].wanted
        await a.ask("T1")
        assert (await b.renew())["T1"].wanted  # the owner sees the request at its next renewal too

        await b.release("T1", 2)
        assert await a.acquire("T1") == 3  # handed back: taken at once
    finally:
        await first.close()
        await second.close()


async def test_a_table_moves_to_the_process_its_players_reach_with_nothing_lost(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    async with running_server(url, node="a") as a, running_server(url, node="b") as b:
        async with a.http() as http:
            health = (await http.get("/healthz")).json()
        assert health["node"] == "a" and health["status"] == "ok"
        # The public tables are listed from the database: the same on every process.
        listed = await a.create_table("Zoe", settings={"players": 3, "public": True})
        async with a.http() as on_a, b.http() as on_b:
            seen_a = (await on_a.get("/api/tables")).json()["tables"]
            seen_b = (await on_b.get("/api/tables")).json()["tables"]
        assert seen_a == seen_b and [table["code"] for table in seen_b] == [listed["code"]]
        code, humans, tokens, _ = await open_game(a, humans=2, bots=["normal"])
        rng = random.Random(5)
        await Driver(a, code, humans, rng, think=0).step()
        before = await settle(a, code, humans.values())
        version = before.version
        assert code not in b.hub._live

        # Seat 0's player now reaches b (the balancer routes the table there): b asks a for the table, a finishes
        # what it is doing, hands it over and tells its connections it moved; they reconnect to b.
        moved = await Client.connect(b, code, tokens[0], "p0-on-b")
        view = await moved.first_state()
        assert view["version"] >= version
        for client in humans.values():
            await client.wait_closed()
            assert client.close_code == CLOSE_MOVED
        assert code in b.hub._live and code not in a.hub._live
        # The same game, move for move, dealt from the saved seed.
        assert b.table(code).game.state == before.game.state  # type: ignore[union-attr]

        clients = {0: moved, 1: await Client.connect(b, code, tokens[1], "p1-on-b")}
        table = await Driver(b, code, clients, rng, think=0.1).run()
        assert table.phase is Phase.FINISHED
        async with b.http() as http:
            record = (await http.get(f"/api/tables/{code}/record")).json()
        assert len(record["moves"]) == len(table.moves)
        for client in clients.values():
            await client.close()


async def test_a_process_that_lost_its_lease_cannot_write_and_lets_its_tables_go(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.new_database()
    async with running_server(url, node="a", lease_seconds=1.0) as a, \
            running_server(url, node="b", lease_seconds=1.0) as b:
        code, humans, tokens, _ = await open_game(a, humans=1, bots=["normal", "normal"])
        client = humans[0]
        for _ in range(200):  # the bots play on a's clock until the player has something to do
            await settle(a, code, humans.values())
            if client.view and client.view["legal"]:
                break
            await step_clock(a, code, humans.values())
        # a stops renewing (as a paused or cut-off process does); its lease runs out and b takes the table over.
        for task in a.hub._cluster_tasks:
            task.cancel()
        await asyncio.sleep(1.3)
        async with b.http() as http:
            assert (await http.get(f"/api/tables/{code}")).status_code == 200
        taken = b.table(code)
        # a still has the table in memory and a player connected to it: the player's move is refused by the
        # database (never applied), a lets the table go, and the player is told to reconnect.
        assert client.view is not None and client.view["legal"]
        sent = client.next_id()
        await client.ws.send(json.dumps({"type": "action", "id": sent, "action": client.view["legal"][0]}))
        await client.wait_closed()
        assert client.close_code == CLOSE_MOVED
        assert not any(frame.get("ack") == sent or frame.get("id") == sent for frame in client.frames)
        assert code not in a.hub._live
        assert (await b.hub.store.load_table(code)) is not None
        found = await b.hub.store.load_table(code)
        assert found is not None and len(found[1]) == len(taken.moves)  # nothing of a's late move was kept
        # The player reconnects (to b) and resends the same message: it is applied once, there.
        again = await Client.connect(b, code, tokens[0], "p0-on-b")
        await again.first_state()
        assert again.view is not None
        await again.close()


async def test_a_renewal_that_began_during_a_take_does_not_lose_the_new_lease(
        postgres_cluster: PostgresCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    # Seen under load (benchmarks/cluster_load.py): a process took a table while its renewal was in flight; the
    # renewal, which could not know of the new lease, made it let the table go ("lease_lost") at once.
    url = postgres_cluster.new_database()
    async with running_server(url, node="a") as a, running_server(url, node="b") as b:
        code, humans, _, _ = await open_game(a, humans=1, bots=["normal"])
        leases = b.hub.leases
        assert leases is not None
        original = leases.acquire
        committed: list[float] = []

        async def slow_acquire(table: str) -> int | None:
            await asyncio.sleep(0.05)  # (a busy database)
            epoch = await original(table)
            committed.append(asyncio.get_running_loop().time())
            return epoch

        monkeypatch.setattr(leases, "acquire", slow_acquire)
        async with b.http() as http:
            assert (await http.get(f"/api/tables/{code}")).status_code == 200
        assert code in b.hub._live
        # A renewal that began just before the lease was committed: its answer cannot hold the new lease.
        b.hub._renewed({}, committed[-1] - 0.001)
        assert code in b.hub._live, "the table was let go for a lease the renewal could not have seen"
        for client in humans.values():
            await client.close()


async def test_a_waiting_request_asks_again_when_its_request_is_lost(
        postgres_cluster: PostgresCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    # A process that waits for a table asks its owner for it; a take by any other process in between (an orphan
    # sweep, say) clears that request, and the new owner never hears of it. The waiter must ask again. Here the
    # owner turns down the requests that reach it for a moment and the request is cleared meanwhile, as a take
    # clears it.
    import asyncpg

    url = postgres_cluster.new_database()
    async with running_server(url, node="a", lease_seconds=1.0) as a, \
            running_server(url, node="b", lease_seconds=1.0) as b:
        code, humans, _, _ = await open_game(a, humans=1, bots=["normal"])
        loop = asyncio.get_running_loop()
        deaf_until = loop.time() + 1.0
        leases = a.hub.leases
        assert leases is not None
        heard, renew = leases._on_wanted, leases.renew

        def hears_late(code: str) -> None:
            if loop.time() >= deaf_until:
                heard(code)

        async def renews_deaf(codes: Collection[str] | None = None) -> dict[str, Held]:
            held = await renew(codes)
            if loop.time() < deaf_until:
                held = {code: Held(lease.epoch, False) for code, lease in held.items()}
            return held

        # (both ways a request reaches the owner: the NOTIFY its lease listener hears, and its renewals)
        monkeypatch.setattr(leases, "_on_wanted", hears_late)
        monkeypatch.setattr(leases, "renew", renews_deaf)
        connection = await asyncpg.connect(url)

        async def lose_the_requests() -> None:
            while loop.time() < deaf_until:
                await connection.execute("UPDATE rr_leases SET wanted_by = NULL WHERE code = $1", code)
                await asyncio.sleep(0.02)

        try:
            async with b.http() as http:
                answers = await asyncio.gather(http.get(f"/api/tables/{code}"), lose_the_requests())
        finally:
            await connection.close()
        assert answers[0].status_code == 200, answers[0].text
        assert code in b.hub._live and code not in a.hub._live
        for client in humans.values():
            await client.close()


async def test_a_table_let_go_is_not_kept_from_everyone_by_its_lease(postgres_cluster: PostgresCluster) -> None:
    # A process that lets a table go (here as after a lost lease) must stop renewing its lease, or nobody could take
    # the table: the others would ask it for a table it no longer runs, and it would never hand it over.
    url = postgres_cluster.new_database()
    async with running_server(url, node="a", lease_seconds=1.0) as a, \
            running_server(url, node="b", lease_seconds=1.0) as b:
        code, humans, _, _ = await open_game(a, humans=1, bots=["normal"])
        a.hub._let_go(a.hub._live[code], "lease_lost")
        await asyncio.sleep(0.5)  # (a's renewal loop runs meanwhile)
        async with b.http() as http:
            assert (await http.get(f"/api/tables/{code}")).status_code == 200
        assert code in b.hub._live
        for client in humans.values():
            await client.close()
