"""Restarts: a table comes back as it was dealt and played, a row that cannot come back is refused in plain words,
the clocks resume with the time they had left once people could reconnect, and what the table decided for a
person says so."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
from pathlib import Path

import pytest

from royal_revenge.clock import FakeClock
from royal_revenge.engine import Move
from royal_revenge.server.hub import Hub, Subscriber
from royal_revenge.server.store import Store
from royal_revenge.session import LoggedMove, Phase, SeatKind, Table, TableSettings
from royal_revenge.session.table import RESTART_GRACE_SECONDS

from .conftest import Client, Driver, running_server, settle, step_clock
from .restoring import assert_restored


def _restore_failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.getMessage() == "table_restore_failed"]


# ------------------------------------------------------------------ the deal, as it was dealt


@pytest.mark.anyio
async def test_a_kicked_first_king_and_a_restart_leave_the_table_playable(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Ages 40 / 9 / 30: the youngest, seat 1, is the first King; the host kicks them (a bot takes the seat and
    chooses the Jester); after a restart the table is there, and the game goes on to its end."""
    db = tmp_path / "tables.db"
    async with running_server(db) as first:
        info = await first.create_table("Ann", 40, {"players": 3, "single_round": True, "turn_seconds": 60})
        code = info["code"]
        tokens = {info["seat"]: info["token"]}
        for name, age in (("Bob", 9), ("Cy", 30)):
            joined = await first.join(code, name, age)
            tokens[joined["seat"]] = joined["token"]
        host = await Client.connect(first, code, tokens[0], "ann")
        cy = await Client.connect(first, code, tokens[2], "cy")
        assert (await host.host("start"))["type"] == "ack"
        await settle(first, code, [host, cy])
        table = first.table(code)
        assert table.game is not None and table.game.state.king == 1
        answer = await host.request({"type": "host", "id": "k", "command": "remove", "seat": 1})
        assert answer["type"] == "ack"
        await step_clock(first, code, [host, cy])  # the bot in the King's seat chooses the Jester
        table = first.table(code)
        assert table.seats[1].kind is SeatKind.BOT and table.seats[1].age is None
        assert Move.parse(table.moves[0].move).seat == 1
        await host.close()
        await cy.close()
        while any(seat.connected for seat in table.seats):  # (the hub saves the disconnections)
            await asyncio.sleep(0.01)
        before = (await settle(first, code)).view(None)
    later = FakeClock(first.clock.now() + 40)  # the server was away for 40 s
    async with running_server(db, clock=later) as second:
        async with second.http() as http:
            response = await http.get(f"/api/tables/{code}")
        assert response.status_code == 200, response.text
        watched = response.json()
        assert watched["version"] == before["version"] and watched["game"] == before["game"]
        host = await Client.connect(second, code, tokens[0], "ann")
        cy = await Client.connect(second, code, tokens[2], "cy")
        assert (await host.first_state())["game"]["king"] == 1
        final = await Driver(second, code, {0: host, 2: cy}, random.Random(4)).run()
        assert final.phase is Phase.FINISHED
        await host.close()
        await cy.close()
    assert not _restore_failures(caplog)


def test_a_row_saved_before_the_deal_was_kept_still_restores_after_its_first_king_was_kicked() -> None:
    """Rows written before ``origin`` was kept for every game: the seats' ages now no longer crown the kicked
    first King, whose first move (the Jester) tells who it was."""
    table = Table.open(TableSettings(players=3, single_round=True, bot_delay_seconds=0), code="OLDROW", seed=11)
    _, host = table.join("Ann", 40, 0.0)
    table.join("Bob", 9, 0.0)
    table.join("Cy", 30, 0.0)
    table.start(host, 0.0)
    assert table.game is not None and table.game.state.king == 1
    table.remove(host, 1, 0.0)
    now = 0.0
    while len(table.moves) < 6 and table.phase is Phase.PLAYING:
        now = max(now, table.next_deadline() or now)
        table.tick(now)
    row = json.loads(json.dumps(table.to_json()))
    for key in ("origin", "at", "resume_at", "log_base"):  # (not in rows of that time)
        row.pop(key, None)
    restored = Table.from_json(row, list(table.moves), now + 5)
    assert restored.game is not None and restored.game.state == table.game.state
    assert restored.origin is not None and restored.origin["seed"] == table.origin["seed"]  # type: ignore[index]


@pytest.mark.anyio
async def test_a_table_that_cannot_be_restored_is_refused_in_plain_words_and_logged_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """One table breaks at start (playing), one when first asked for (finished tables are loaded on demand):
    HTTP answers 503 with a plain message, never 500; the WebSocket gets an error and 4404; the traceback is
    logged once per table, not with every request."""
    db = tmp_path / "tables.db"
    codes = []
    async with running_server(db) as first:
        for _ in range(2):
            info = await first.create_table("Ann", 30, {"players": 2, "single_round": True}, bots=["easy"])
            host = await Client.connect(first, info["code"], info["token"], "ann")
            assert (await host.host("start"))["type"] == "ack"
            await settle(first, info["code"], [host])
            assert host.view is not None
            assert (await host.act(host.view["legal"][0]))["type"] == "ack"  # Ann, the King, chooses the Jester
            await host.close()
            codes.append(info["code"])
    with sqlite3.connect(db) as connection:  # a move that does not replay (the King must choose the Jester first)
        connection.execute("UPDATE rr_moves SET move = '0:draw' WHERE seq = 0")
        connection.execute("UPDATE rr_tables SET phase = 'finished' WHERE code = ?", (codes[1],))
    async with running_server(db) as second:
        assert [record.exc_info is not None for record in _restore_failures(caplog)] == [True]
        async with second.http() as http:
            for code in (*codes, *codes):
                response = await http.get(f"/api/tables/{code}")
                assert response.status_code == 503, response.text
                detail = response.json()["detail"]
                assert detail["code"] == "storage"
                assert detail["message"] == (f"table {code} cannot be opened: its saved game could not be restored "
                                             "(the server has logged why)")
        client = await Client.connect(second, codes[1])
        await client.wait_closed()
        assert client.close_code == 4404
        assert [frame["code"] for frame in client.frames] == ["storage"]
    assert len(_restore_failures(caplog)) == 2  # once for each table


# ------------------------------------------------------------------ the clocks across a restart


async def _table_at_a_persons_turn(hub: Hub, clock: FakeClock) -> tuple[str, dict[int, str], list[Subscriber]]:
    """Ann (host) and Bob, both connected, with a bot; played until it is a person's turn."""
    settings = TableSettings(players=3, single_round=True, turn_seconds=20, grace_seconds=30, bot_delay_seconds=1,
                             scepter_min_seconds=60, scepter_max_seconds=60)
    table, seat, host = await hub.create(settings, "Ann", 30)
    code = table.code
    bob_seat, bob = await hub.change(code, lambda t, now: t.join("Bob", 31, now))
    tokens = {seat: host, bob_seat: bob}
    await hub.change(code, lambda t, now: t.add_bot(host, "normal", now))
    subscribers = [Subscriber(index, lambda text: None, token=token) for index, token in tokens.items()]
    for subscriber in subscribers:
        await hub.subscribe(code, subscriber)
    await hub.change(code, lambda t, now: t.start(host, now))
    for _ in range(200):
        table = hub._live[code].table
        assert table.game is not None and table.phase is Phase.PLAYING
        decider = table.game.state.decider
        if decider in tokens and table.deadlines.decision is not None and table.deadlines.catch is None:
            return code, tokens, subscribers
        if decider in tokens:
            action = table.legal_view(decider)[0]
            await hub.change(code, lambda t, now, d=decider, a=action: t.act(tokens[d], a, now))
        else:
            await clock.advance(max(0.0, (table.next_deadline() or clock.now()) - clock.now()) + 0.01)
            await hub.run_until_idle()
    raise AssertionError("no person's turn")


@pytest.mark.anyio
@pytest.mark.parametrize("graceful", [True, False], ids=["stopped", "killed"])
async def test_after_a_long_restart_no_person_is_played_for_before_the_grace_and_their_time_left(
        tmp_path: Path, graceful: bool) -> None:
    """The server is away for 100 s, five times a decision's 20 s. Nothing is played for anyone until the
    reconnection grace and the time the decision had left have passed; then the table decides, and says so."""
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    clock = FakeClock()
    hub = Hub(store, clock)
    await hub.start()
    try:
        code, _tokens, subscribers = await _table_at_a_persons_turn(hub, clock)
        await clock.advance(5)  # (the person thinks for 5 s before the server goes away)
        if graceful:
            for subscriber in subscribers:  # (as uvicorn closes the connections on a graceful stop)
                await hub.unsubscribe(code, subscriber)
        before = hub._live[code].table
        assert before.changed_at is not None and before.deadlines.decision is not None
        left = before.deadlines.decision - before.changed_at
        scepter_left = (before.deadlines.scepter or 0) - before.changed_at
        moves = len(before.moves)
        await hub.stop()

        await clock.advance(100)
        restarted = clock.now()
        hub = Hub(store, clock)
        await hub.start()
        table = hub._live[code].table
        assert_restored(before, table, restarted)
        assert table.deadlines.decision == pytest.approx(restarted + RESTART_GRACE_SECONDS + left)
        if before.deadlines.scepter is not None:
            assert table.deadlines.scepter == pytest.approx(restarted + RESTART_GRACE_SECONDS + scepter_left)
        await clock.advance(RESTART_GRACE_SECONDS + left - 0.01)
        await hub.run_until_idle()
        assert len(table.moves) == moves  # nothing was played: not for the people, not by the bot, no fanfare
        await clock.advance(0.02)
        await hub.run_until_idle()
        assert len(table.moves) > moves and table.moves[moves].by == "timeout"
        entries = [entry for entry in table.log_view(None) if entry.get("by") == "timeout"]
        assert len(entries) == 1
        seat = Move.parse(table.moves[moves].move).seat
        assert entries[0]["text"].startswith("Time ran out: the table ")
        assert entries[0]["text"].endswith(f" for {'King ' if entries[0]['kind'].endswith('Chosen') else ''}"
                                           f"{table.seats[seat].name}")  # type: ignore[index]
    finally:
        await hub.stop()
        await store.close()


@pytest.mark.anyio
async def test_the_pause_ends_as_soon_as_everyone_is_back(tmp_path: Path) -> None:
    store = await Store.connect(f"sqlite+aiosqlite:///{tmp_path / 'tables.db'}")
    clock = FakeClock()
    hub = Hub(store, clock)
    await hub.start()
    try:
        code, tokens, _subscribers = await _table_at_a_persons_turn(hub, clock)
        await hub.stop()
        await clock.advance(100)
        hub = Hub(store, clock)
        await hub.start()
        table = hub._live[code].table
        assert table.resume_at == clock.now() + RESTART_GRACE_SECONDS
        await clock.advance(2)
        for seat, token in tokens.items():
            await hub.subscribe(code, Subscriber(seat, lambda text: None, token=token))
        assert table.resume_at is None
        assert table.deadlines.decision == clock.now() + table.settings.turn_seconds
    finally:
        await hub.stop()
        await store.close()


# ------------------------------------------------------------------ decisions the table made for a person


def test_a_timed_out_decision_and_autopilot_say_in_the_log_that_the_table_made_them() -> None:
    settings = TableSettings(players=2, single_round=True, turn_seconds=10, max_timeouts=1, bot_delay_seconds=0,
                             scepter_min_seconds=600, scepter_max_seconds=600)
    table = Table.open(settings, code="MARKS", seed=5)
    _, ann = table.join("Ann", 9, 0.0)
    table.add_bot(ann, "easy", 0.0)
    table.set_connected(0, True, 0.0)
    table.start(ann, 0.0)
    assert table.game is not None and table.game.state.decider == 0  # Ann, the youngest, chooses the Jester
    table.tick(10.0)
    assert table.moves[0].by == "timeout"
    jester = [entry for entry in table.log_view(0) if entry["kind"] == "JesterChosen"]
    assert jester == [{"n": jester[0]["n"], "kind": "JesterChosen", "by": "timeout", "seat": 1, "from": 0,
                       "text": "Time ran out: the table made Easy bot 2 the Jester for King Ann"}]
    now = 10.0
    while table.phase is Phase.PLAYING and not any(move.by == "autopilot" for move in table.moves):
        now = max(now, table.next_deadline() or now)
        table.tick(now)
    assert table.seats[0].autopilot  # one timeout (max_timeouts) puts the seat on autopilot
    autopilot = [entry for entry in table.log_view(None) if entry.get("by") == "autopilot"]
    assert autopilot and all(entry["text"].startswith("On autopilot: the table ") and "for" in entry["text"]
                             for entry in autopilot)
    for entry in table.log_view(None):
        assert ("by" in entry) == entry["text"].startswith(("Time ran out: ", "On autopilot: ")), entry
    # The marks come back with a restore (they are the moves' ``by``).
    restored = Table.from_json(json.loads(json.dumps(table.to_json())),
                               [LoggedMove(*row) for row in table.moves.rows()], now)
    assert restored.log_view(None) == table.log_view(None)
    assert restored.log_view(0) == table.log_view(0)


def test_a_restart_right_after_a_bots_catch_brings_back_the_same_clocks() -> None:
    """A bot's catch is a move like any other: the clocks are worked out afresh after it, as a restore does."""
    from royal_revenge.bots import RandomAgent
    from royal_revenge.engine import Catch, Play

    settings = TableSettings(players=3, single_round=True, turn_seconds=30, bot_delay_seconds=0.5,
                             scepter_min_seconds=3000, scepter_max_seconds=3000)
    catches = 0
    for seed in range(40):
        table = Table.open(settings, code="CATCH", seed=seed, agent_factory=lambda level, s: RandomAgent(s))
        _, ann = table.join("Ann", 9, 0.0)
        table.set_connected(0, True, 0.0)
        table.add_bot(ann, "easy", 0.0)
        table.add_bot(ann, "easy", 0.0)
        table.start(ann, 0.0)
        now, rng = 0.0, random.Random(seed)
        thought = False
        while table.phase is Phase.PLAYING and table.game is not None:
            moves = len(table.moves)
            if table.game.state.decider == 0 and thought:  # Ann never calls UNO: the bots may catch her
                legal = table.legal_actions(0)
                plays = [action for action in legal if isinstance(action, Play) and not action.uno]
                table.act(ann, rng.choice(plays or legal), now)
                thought = False
                continue
            if table.game.state.decider == 0:
                now += 5  # Ann thinks (her clock has 30 s), and the bots look at her cards meanwhile
                thought = True
            else:
                now = max(now, table.next_deadline() or now)
            table.tick(now)
            caught = [move for move in table.moves[moves:] if isinstance(Move.parse(move.move).action, Catch)]
            if caught and Move.parse(table.moves[-1].move).action == Move.parse(caught[-1].move).action:
                catches += 1
                restored = Table.from_json(json.loads(json.dumps(table.to_json())),
                                           [LoggedMove(*row) for row in table.moves.rows()], now + 50)
                assert_restored(table, restored, now + 50)
    assert catches >= 3
