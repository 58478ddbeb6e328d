"""Property: whatever happened at a table, a restart brings back the very table (tests/server/restoring.py says what
"the very table" means; the clocks resume with the time they had left).

Random sequences of joins, host commands (add_bot, remove, start, rematch, mute, unmute), connections and
disconnections, people's moves, chat lines and reactions (of people and spectators), people leaving, rematch
requests, clock ticks (bots, timeouts, autopilot, fanfares, deals) and restarts at random points. The fast run restores
from :meth:`Table.to_json` as a server saves it (the row rewritten only when :meth:`Hub._persist_then` would rewrite
it); a smaller run goes through the hub, a real SQLite store and a FakeClock.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from royal_revenge.bots import RandomAgent
from royal_revenge.clock import FakeClock
from royal_revenge.server.hub import Hub, Subscriber
from royal_revenge.server.store import Store
from royal_revenge.session import BOT_LEVELS, LoggedMove, Phase, SeatKind, Table, TableError, TableSettings
from royal_revenge.session.table import MoveRow

from .restoring import assert_restored

OPS = (["join"] * 3 + ["bot"] * 2 + ["start"] * 3 + ["act"] * 8 + ["tick"] * 6 + ["wait"] * 2 + ["restart"] * 3
       + ["connect", "disconnect", "remove", "rematch"] + ["chat"] * 2 + ["react", "mute", "leave"]
       + ["ask_rematch"] * 2)

SETTINGS = [
    TableSettings(players=2, single_round=True, turn_seconds=3, grace_seconds=0, max_timeouts=1,
                  scepter_min_seconds=5, scepter_max_seconds=8, bot_delay_seconds=0, next_round_seconds=0),
    TableSettings(players=3, single_round=True, turn_seconds=10, grace_seconds=5, max_timeouts=2,
                  scepter_min_seconds=5, scepter_max_seconds=20, bot_delay_seconds=1.2, next_round_seconds=5),
    TableSettings(players=3, target_score=60, turn_seconds=30, grace_seconds=30,
                  scepter_min_seconds=45, scepter_max_seconds=75),
    TableSettings(players=4, single_round=True, turn_seconds=5, grace_seconds=60, max_timeouts=3,
                  scepter_min_seconds=5, scepter_max_seconds=5, bot_delay_seconds=0.5),
]

sequences = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2**16)), min_size=1, max_size=100)
lobbies = st.lists(st.tuples(st.sampled_from(["join", "bot"]), st.integers(0, 2**16)), min_size=3, max_size=5).map(
    lambda seats: [*seats, ("start", 0)])
"""Most sequences fill the seats and start first (else few would get far into a game)."""
PROFILE = settings(max_examples=1000, derandomize=True, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def agents(level: str, seed: int) -> RandomAgent:
    return RandomAgent(seed)


@dataclass
class Saved:
    """The table as a server's database holds it: its row, rewritten only when the hub would, and its moves."""

    row: dict[str, Any] | None = None
    key: tuple[Any, ...] | None = None
    version: int = -1
    game_no: int = 0
    moves: list[MoveRow] = field(default_factory=list)

    def persist(self, table: Table) -> None:
        # As Hub._persist_then: the row is written only if row_key changed or the version moved by more than the
        # new moves; the moves are written one by one, per game.
        if table.game_no != self.game_no:
            self.game_no, self.moves = table.game_no, []
        new = table.moves.rows(len(self.moves))
        key = table.row_key()
        if self.key is None or self.key != key or table.version - self.version != len(new):
            self.row, self.key = json.loads(json.dumps(table.to_json())), key
        self.moves.extend(new)
        self.version = table.version

    def restore(self, now: float) -> Table:
        assert self.row is not None
        restored = Table.from_json(json.loads(json.dumps(self.row)), [LoggedMove(*row) for row in self.moves], now,
                                   agent_factory=agents)
        self.key = None  # (a hub rewrites a restored table's row with its first change)
        return restored


class Run:
    """One sequence of operations on a table, with its tokens and fake time."""

    def __init__(self, table_settings: TableSettings) -> None:
        self.now = 1000.0
        self.table = Table.open(table_settings, code="PROP", seed=7, agent_factory=agents)
        self.tokens: dict[int, str] = {}
        seat, token = self.table.join("Host", 40, self.now)
        self.tokens[seat] = token
        self.host = token
        self.restarts = 0

    def people(self) -> list[int]:
        return [seat for seat, token in self.tokens.items() if self.table.holds(seat, token)]

    def apply(self, op: str, x: int) -> bool:
        """Carry out one operation; a refused one must change nothing. Returns whether the table changed."""
        table = self.table
        before = table.version
        try:
            if op == "join":
                seat, token = table.join(f"P{x % 97}", (x % 80) if x % 3 else None, self.now)
                self.tokens[seat] = token
            elif op == "bot":
                table.add_bot(self.host, BOT_LEVELS[x % len(BOT_LEVELS)], self.now)
            elif op == "remove":
                table.remove(self.host, x % len(table.seats), self.now)
            elif op == "start":
                table.start(self.host, self.now)
            elif op == "rematch":
                table.rematch(self.host, self.now)
            elif op in ("connect", "disconnect"):
                table.set_connected(x % len(table.seats), op == "connect", self.now)
            elif op in ("chat", "react", "mute", "leave", "ask_rematch"):
                self.social(op, x)
            elif op == "act":
                movers = [seat for seat in self.people() if table.legal_actions(seat)]
                if movers:
                    seat = movers[x % len(movers)]
                    legal = table.legal_view(seat)
                    table.act(self.tokens[seat], legal[(x // 7) % len(legal)], self.now, client_id=f"c{x % 50}")
            elif op == "tick":
                deadline = table.next_deadline()
                if deadline is not None:
                    self.now = max(self.now, deadline)
                table.tick(self.now)
            elif op == "wait":
                self.now += x % 40
                table.tick(self.now)
        except TableError:
            assert table.version == before, op  # refused: nothing changed
        host = self.tokens.get(table.host) if table.host is not None else None
        if host is not None:
            self.host = host  # (the host left: the role passed to the next person)
        return table.version != before

    def social(self, op: str, x: int) -> None:
        """A chat line, a reaction, a mute, a leave or a rematch request: of someone seated (or a token that no
        longer holds a seat, which is refused), or of a spectator."""
        table = self.table
        seat = x % len(table.seats)
        token = self.tokens.get(seat)
        if op == "chat":
            if x % 4 == 0:
                table.say(None, f"watching {x}", self.now, spectator=None if x % 8 else f"Fan{x % 7}")
            elif token is not None:
                table.say(token, f"line {x} <b>", self.now)
        elif op == "react" and token is not None:
            table.react(token if x % 3 else None, "👑", self.now)
        elif op == "mute":
            table.mute(self.host, seat, x % 3 != 0, self.now)
        elif op == "leave" and token is not None:
            table.leave(token, self.now)
        elif op == "ask_rematch" and token is not None:
            table.ask_rematch(token, self.now)


def _describe(table: Table) -> None:
    """What the restarts covered (``pytest --hypothesis-show-statistics``)."""
    event(f"restart in phase {table.phase.value}")
    if table.phase is Phase.PLAYING:
        event(f"restart after {'no' if not table.moves else 'over 20' if len(table.moves) > 20 else 'a few'} moves")
        by = {move.by for move in table.moves}
        for kind in ("timeout", "autopilot", "bot", "table"):
            if kind in by:
                event(f"restart after {kind} moves")
        if any(not seat.connected and seat.kind is SeatKind.HUMAN for seat in table.seats):
            event("restart with a person disconnected")
        if table.resume_at is not None:
            event("restart during a restart's pause")


@PROFILE
@given(st.one_of(lobbies, st.just([])), sequences, st.sampled_from(SETTINGS))
def test_a_restart_at_any_point_brings_back_the_same_table(lobby: list[tuple[str, int]],
                                                           ops: Sequence[tuple[str, int]],
                                                           table_settings: TableSettings) -> None:
    run = Run(table_settings)
    saved = Saved()
    saved.persist(run.table)
    for op, x in [*lobby, *ops, ("restart", 0)]:
        if op == "restart":
            run.now += x % 120  # the server is away for a while
            restored = saved.restore(run.now)
            assert_restored(run.table, restored, run.now)
            _describe(run.table)
            run.table = restored
            continue
        if run.apply(op, x):
            saved.persist(run.table)


# ------------------------------------------------------------------ through the hub


HUB_OPS = [op for op in OPS if op not in ("wait",)]


async def _hub_run(path: Path, ops: Sequence[tuple[str, int]], table_settings: TableSettings) -> None:
    store = await Store.connect(f"sqlite+aiosqlite:///{path}")
    clock = FakeClock(1000.0)
    hub = Hub(store, clock, agent_factory=agents)
    await hub.start()
    try:
        table, host_seat, host = await hub.create(table_settings, "Host", 40)
        code = table.code
        tokens = {host_seat: host}
        subscribers: dict[int, Subscriber] = {}

        def change(operation: Any) -> Any:
            return hub.change(code, operation)

        for op, x in [*ops, ("restart", 0)]:
            live = hub._live[code]
            table = live.table
            try:
                if op == "join":
                    seat, token = await change(lambda t, now, x=x: t.join(f"P{x % 97}", x % 80 or None, now))
                    tokens[seat] = token
                elif op == "bot":
                    await change(lambda t, now, x=x: t.add_bot(host, ("easy", "normal")[x % 2], now))  # (no thread)
                elif op == "remove":
                    await change(lambda t, now, x=x: t.remove(host, x % len(t.seats), now))
                elif op in ("start", "rematch"):
                    await change(lambda t, now, op=op: getattr(t, op)(host, now))
                elif op == "connect":
                    seat = x % len(table.seats)
                    token = tokens.get(seat)
                    if seat not in subscribers and token is not None and table.holds(seat, token):
                        subscribers[seat] = Subscriber(seat, lambda text: None, token=token)
                        await hub.subscribe(code, subscribers[seat])
                elif op == "disconnect":
                    subscriber = subscribers.pop(x % len(table.seats), None)
                    if subscriber is not None:
                        await hub.unsubscribe(code, subscriber)
                elif op in ("chat", "react", "mute", "leave", "ask_rematch"):
                    seat = x % len(table.seats)
                    token = tokens.get(seat)
                    boss = tokens.get(table.host) if table.host is not None else None
                    if op == "chat":
                        await change(lambda t, now, token=token, x=x: t.say(
                            token if x % 2 else None, f"line {x}", now, spectator=f"Fan{x % 5}" if x % 3 else None))
                    elif op == "react":
                        await change(lambda t, now, token=token: t.react(token, "🎉", now))
                    elif op == "mute" and boss is not None:
                        await change(lambda t, now, seat=seat, boss=boss, x=x: t.mute(boss, seat, x % 3 != 0, now))
                    elif op == "leave" and token is not None:
                        await change(lambda t, now, token=token: t.leave(token, now))
                        subscriber = subscribers.pop(seat, None)
                        if subscriber is not None:
                            await hub.unsubscribe(code, subscriber)
                    elif op == "ask_rematch" and token is not None:
                        await change(lambda t, now, token=token: t.ask_rematch(token, now))
                elif op == "act":
                    movers = [seat for seat, token in tokens.items()
                              if table.holds(seat, token) and table.legal_actions(seat)]
                    if movers:
                        seat = movers[x % len(movers)]
                        legal = table.legal_view(seat)
                        action = legal[(x // 7) % len(legal)]
                        await change(lambda t, now, seat=seat, action=action, x=x: t.act(
                            tokens[seat], action, now, client_id=f"c{x % 50}"))
                elif op == "tick":
                    deadline = table.next_deadline()
                    await clock.advance(max(0.0, (deadline or clock.now()) - clock.now()) + 0.001)
                    await hub.run_until_idle()
                elif op == "restart":
                    while hub._live[code].lock.locked():
                        await asyncio.sleep(0)
                    before = hub._live[code].table
                    await hub.stop()  # (a SIGKILL: connections are not told; everything said is committed)
                    await clock.advance(x % 120)
                    hub = Hub(store, clock, agent_factory=agents)
                    await hub.start()
                    if before.phase is Phase.FINISHED or before.closed:
                        await hub.get(code)  # (finished and closed tables are loaded when asked for)
                    assert_restored(before, hub._live[code].table, clock.now())
                    _describe(before)
                    subscribers.clear()
            except TableError as error:
                assert error.code != "storage", error
        final = hub._live[code].table
        assert any(seat.kind is SeatKind.HUMAN for seat in final.seats) or final.closed or final.game_no
    finally:
        await hub.stop()
        await store.close()


@settings(max_examples=200, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lobbies, st.lists(st.tuples(st.sampled_from(HUB_OPS), st.integers(0, 2**16)), min_size=1, max_size=40),
       st.sampled_from(SETTINGS))
def test_through_the_hub_and_its_database_a_restart_brings_back_the_same_table(
        lobby: list[tuple[str, int]], ops: Sequence[tuple[str, int]], table_settings: TableSettings) -> None:
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_hub_run(Path(folder) / "tables.db", [*lobby, *ops], table_settings))
