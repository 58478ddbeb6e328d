"""The hub's clocks: one heap entry per table however many moves are made, and every deadline still kept."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from royal_revenge.clock import FakeClock
from royal_revenge.server.hub import Hub, Subscriber
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
            assert len(hub._heap) <= 2 * len(codes), len(hub._heap)  # (was one entry per move)
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
