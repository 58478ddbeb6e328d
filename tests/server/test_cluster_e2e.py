"""A cluster as it runs for real: three ``royal-revenge serve --node`` processes, HAProxy in front, PostgreSQL.

Scripted people (``cluster_players.py``) play through the balancer while one process is killed with SIGKILL and
another is drained (SIGTERM), or one is paused (SIGSTOP) past its lease. Afterwards: every table went on on
another process within 5 s, every acknowledged action is in the table's moves exactly once (no id at all twice),
every record replays, no frame showed another seat's cards, and no process logged a traceback.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from collections import Counter
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
import pytest
import websockets

from royal_revenge.engine import GameRecord
from royal_revenge.server.cluster import LocalCluster
from royal_revenge.server.protocol import CLOSE_MOVED

from .cluster_players import Player, open_table, probe
from .postgres import PostgresCluster

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

TAKEOVER_LIMIT = 5.0
"""Seconds within which every table of a process that died or drained answers again on another (the issue's bar)."""


async def _rows(db: str, query: str, *args: object) -> list[Any]:
    """The rows of one query on the cluster's database, on a connection of its own."""
    connection = await asyncpg.connect(db)
    try:
        return list(await connection.fetch(query, *args))
    finally:
        await connection.close()


async def _owners(db: str) -> dict[str, str]:
    """Each table's owning process (``p1``...), from the leases (handed-back ones have none)."""
    rows = await _rows(db, "SELECT code, owner FROM rr_leases WHERE owner IS NOT NULL")
    return {row["code"]: row["owner"].split(":")[0] for row in rows}


async def _live_leases(db: str, process: str) -> list[str]:
    """The tables whose lease ``process`` holds unexpired (by the database's clock)."""
    rows = await _rows(db, "SELECT code FROM rr_leases WHERE split_part(owner, ':', 1) = $1"
                           " AND expires_at > extract(epoch FROM clock_timestamp())", process)
    return [row["code"] for row in rows]


async def _games_in_play_of(db: str, process: str) -> list[str]:
    """The tables with a game in play whose lease is still ``process``'s (expired or not)."""
    rows = await _rows(db, "SELECT t.code FROM rr_tables t JOIN rr_leases l ON l.code = t.code"
                           " WHERE t.phase = 'playing' AND split_part(l.owner, ':', 1) = $1", process)
    return [row["code"] for row in rows]


async def _moves_by_id(db: str, code: str) -> Counter[str]:
    rows = await _rows(db, "SELECT client_id FROM rr_moves WHERE code = $1 AND client_id IS NOT NULL", code)
    return Counter(row["client_id"] for row in rows)


async def _until(predicate: Any, timeout: float, what: str, players: list[Player] = (),  # type: ignore[assignment]
                 since: float | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            if since is None:
                stuck = [p for p in players if not (p.finished and not p.unacked)]
            else:  # the players not back since ``since``
                stuck = [p for p in players if _back_within([p], since) == float("inf")]
            shown = [(p.code, p.seat, p.finished, len(p.unacked), p.reconnections[-3:], p.final_close)
                     for p in stuck[:5]]
            raise AssertionError(f"not within {timeout:g} s: {what}; {len(stuck)} players, for instance {shown}"
                                 + ("" if since is None else f" (since {since})"))
        await asyncio.sleep(0.05)


def _back_within(players: list[Player], since: float) -> float:
    """How long after ``since`` the last of ``players`` had its first state on a new connection (inf: not yet)."""
    worst = 0.0
    for player in players:
        # (a connection cut at about ``since``, or one still coming back then: cut a moment before by a move)
        returns = [r.back_at for r in player.reconnections
                   if r.closed_at >= since - 0.5 or r.back_at is None or r.back_at >= since]
        if not returns and player.finished and not player.unacked:
            continue  # (its game ended just after ``since``, before the cut reached it: nothing to come back for)
        if not returns or returns[0] is None:
            return float("inf")
        worst = max(worst, returns[0] - since)
    return worst


async def _check_tables(cluster: LocalCluster, db: str, tables: dict[str, list[Player]]) -> None:
    """Every acknowledged action once in the moves, none twice; every record replays; no leak, no final close."""
    leaks = next(iter(tables.values()))[0].leaks
    assert leaks.c["leaks"] == 0, leaks.failures
    assert leaks.c["frames checked"] > 300, leaks.c  # (hundreds of frames: about 1,000 for 9 tables, more for 60)
    async with httpx.AsyncClient(base_url=cluster.url, timeout=30) as http:
        for code, players in tables.items():
            counted = await _moves_by_id(db, code)
            twice = [message_id for message_id, count in counted.items() if count > 1]
            assert not twice, f"{code}: applied twice: {twice}"
            for player in players:
                assert player.final_close is None, (code, player.seat, player.final_close)
                moves = {message_id for message_id in player.acked if not message_id.endswith("-start")}
                missing = moves - set(counted)
                assert not missing, f"{code} seat {player.seat}: acknowledged but not in the moves: {missing}"
            response = await http.get(f"/api/tables/{code}/record")
            for _ in range(40):  # (503: the table is moving; try again)
                if response.status_code != 503:
                    break
                await asyncio.sleep(0.25)
                response = await http.get(f"/api/tables/{code}/record")
            assert response.status_code == 200, (code, response.text)
            GameRecord.loads(response.text).replay()
    for name, text in cluster.logs().items():
        scanned = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        bad = [line for line in scanned if "Traceback" in str(line.get("error", ""))
               or str(line.get("level", "")).lower() in ("error", "critical")]
        assert not bad, (name, bad[:3])


async def _play(cluster: LocalCluster, rng: random.Random, count: int, stop: asyncio.Event
                ) -> tuple[dict[str, list[Player]], list[asyncio.Task[None]]]:
    leaks = probe().LeakStats()
    ws_base = cluster.url.replace("http://", "ws://")
    tables: dict[str, list[Player]] = {}
    async with httpx.AsyncClient(base_url=cluster.url, timeout=30) as http:
        for _ in range(count):
            code, tokens = await open_table(http, rng)
            tables[code] = [Player(ws_base, code, seat, token, random.Random(rng.random()), leaks)
                            for seat, token in tokens.items()]
    tasks = [asyncio.create_task(player.run(stop)) for players in tables.values() for player in players]
    return tables, tasks


async def test_sixty_tables_go_on_through_a_sigkill_and_a_drain(postgres_cluster: PostgresCluster) -> None:
    db = postgres_cluster.new_database()
    rng = random.Random(18)
    with LocalCluster(3, db=db, no_rate_limits=True, lease_seconds=2.0) as cluster:
        stop = asyncio.Event()
        tables, tasks = await _play(cluster, rng, 60, stop)
        players = [player for group in tables.values() for player in group]
        try:
            await _until(lambda: all(len(p.acked) >= 2 for p in players), 60, "every player has played twice")
            owners = await _owners(db)
            by_process = Counter(owners[code] for code in tables if code in owners)
            assert len(by_process) == 3, by_process  # (the balancer spread the tables over the three)
            victim = max(by_process, key=lambda name: by_process[name])
            index = int(victim[1:]) - 1
            killed_tables = [code for code in tables if owners.get(code) == victim]

            killed_at = time.monotonic()
            cluster.kill(index)
            killed_players = [p for code in killed_tables for p in tables[code] if not p.finished]
            await _until(lambda: _back_within(killed_players, killed_at) < float("inf"), 30,
                         "the killed process's tables answer again", killed_players, killed_at)
            after_kill = _back_within(killed_players, killed_at)
            assert after_kill < TAKEOVER_LIMIT, after_kill
            # Every table still in play left the dead process (a table whose game ended just before the kill,
            # its last frames read after it, needs nobody: its lease stays the dead process's).
            owners = await _owners(db)
            in_play = [code for code in tables if not all(p.finished for p in tables[code])]
            assert not any(owners.get(code) == victim for code in in_play)

            await asyncio.sleep(2.0)
            owners = await _owners(db)
            left = Counter(owners[code] for code in tables if code in owners and owners[code] != victim)
            drained = max(left, key=lambda name: left[name])
            drained_tables = [code for code in tables if owners.get(code) == drained]
            drained_players = [p for code in drained_tables for p in tables[code]
                               if not p.finished]
            drained_at = time.monotonic()
            # SIGTERM: it hands its tables over and exits (uvicorn ends by raising the signal it caught again).
            assert cluster.drain(int(drained[1:]) - 1) in (0, -signal.SIGTERM)
            await _until(lambda: _back_within(drained_players, drained_at) < float("inf"), 30,
                         "the drained process's tables answer again", drained_players, drained_at)
            after_drain = _back_within(drained_players, drained_at)
            assert after_drain < TAKEOVER_LIMIT, after_drain
            log = [json.loads(line) for line in cluster.logs()[drained].splitlines() if line.startswith("{")]
            handed = {line["table"] for line in log if line.get("event") == "table_let_go"
                      and line.get("reason") == "handed_over"}
            assert set(drained_tables) <= handed, (drained_tables, handed)

            await _until(lambda: all(p.finished and not p.unacked for p in players), 180, "every game finishes",
                         players)
            print(f"\n{len(killed_tables)} tables of the killed process answered again within {after_kill:.2f} s, "
                  f"{len(drained_tables)} of the drained one within {after_drain:.2f} s; "
                  f"{sum(len(p.acked) for p in players)} acknowledged actions, "
                  f"{players[0].leaks.c['frames checked']} frames checked")
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        print("close codes seen:", Counter(r.close_code for p in players for r in p.reconnections))
        await _check_tables(cluster, db, tables)


async def test_a_paused_process_loses_its_leases_and_its_late_writes_are_refused(
        postgres_cluster: PostgresCluster) -> None:
    db = postgres_cluster.new_database()
    rng = random.Random(19)
    with LocalCluster(3, db=db, no_rate_limits=True, lease_seconds=2.0) as cluster:
        stop = asyncio.Event()
        tables, tasks = await _play(cluster, rng, 9, stop)
        players = [player for group in tables.values() for player in group]
        try:
            await _until(lambda: all(len(p.acked) >= 1 for p in players), 60, "every player has played")
            paused = cluster.processes[0]
            # One more table, whose only person is connected straight to the process that will be paused (not
            # through the balancer, which cuts the connections of a process it marks down).
            async with httpx.AsyncClient(base_url=cluster.url, timeout=30) as http:
                code, tokens = await open_table(http, rng, humans=1, bots=3)
            direct = await websockets.connect(f"{paused.url.replace('http://', 'ws://')}/ws/{code}")
            await direct.send(json.dumps({"type": "hello", "token": tokens[0]}))
            await direct.send(json.dumps({"type": "host", "id": "start", "command": "start"}))
            view: dict[str, Any] | None = None
            from royal_revenge.client import merge_state
            while not (view and view.get("phase") == "playing" and view.get("legal")):
                message = json.loads(await asyncio.wait_for(direct.recv(), 30))
                if message["type"] == "state":
                    view = merge_state(view, message)
            owners = await _owners(db)
            held = [c for c, owner in owners.items() if owner == "p1"]
            assert code in held

            cluster.pause(0)
            paused_at = time.monotonic()
            # (the players of its tables whose game had not ended: those have to come back elsewhere)
            paused_players = [p for c in held if c in tables for p in tables[c] if not p.finished]
            await asyncio.sleep(2.0 + 0.5)  # past its lease (renewed every third of it, so at most 2 s ahead)
            assert not await _live_leases(db, "p1")  # it holds no lease it could still write under
            # Every game in play leaves it within the takeover limit. (A table whose game ended before the pause
            # keeps p1's expired lease: nobody needs it, and another process takes it when someone asks.)
            left_behind = await _games_in_play_of(db, "p1")
            while left_behind and time.monotonic() < paused_at + 2.0 + TAKEOVER_LIMIT:
                await asyncio.sleep(0.1)
                left_behind = await _games_in_play_of(db, "p1")
            assert not left_behind, left_behind
            # The balancer marks it down (its health checks time out) and cuts its players' connections.
            await _until(lambda: cluster.balancer_states().get("p1") == "DOWN", 10, "the balancer marks p1 down")
            late = {"type": "action", "id": "late-move", "action": view["legal"][0]}
            await direct.send(json.dumps(late))  # (waits in the socket until the process runs again)
            cluster.resume(0)
            frames = []
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    frames.append(json.loads(await asyncio.wait_for(direct.recv(), 15)))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_MOVED
            assert not any(frame.get("ack") == "late-move"
                           or (frame.get("id") == "late-move" and frame.get("type") == "ack") for frame in frames)
            await _until(lambda: _back_within(paused_players, paused_at) < float("inf"), 30,
                         "the paused process's tables answer again", paused_players, paused_at)
            assert _back_within(paused_players, paused_at) < 2.0 + TAKEOVER_LIMIT, [
                (p.code, p.seat, p.finished, len(p.unacked), p.reconnections[-3:], paused_at, time.monotonic())
                for p in paused_players if _back_within([p], paused_at) >= 2.0 + TAKEOVER_LIMIT]

            await _until(lambda: all(p.finished and not p.unacked for p in players), 180, "every game finishes",
                         players)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        assert "late-move" not in await _moves_by_id(db, code)
        log = [json.loads(line) for line in cluster.logs()["p1"].splitlines() if line.startswith("{")]
        let_go = {line["table"] for line in log if line.get("event") == "table_let_go"
                  and line.get("reason") in ("lease_lost", "lease_expired")}
        assert set(held) <= let_go, (held, let_go)
        await _check_tables(cluster, db, tables)
