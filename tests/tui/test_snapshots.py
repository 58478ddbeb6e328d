"""SVG screenshots of the main screens (pytest-textual-snapshot), with fixed seeds and a fake clock.

They change only deliberately: after a change to the screens, look at the new pictures and
run ``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

import pytest

from royal_revenge.client import LocalClient, LocalGame
from royal_revenge.client.clock import FakeClock
from royal_revenge.engine import GameRecord
from royal_revenge.session import Table, TableSettings
from royal_revenge.tui import RoyalRevengeApp

from .helpers import catch_moment, fast_settings, local_app, settle

pytestmark = pytest.mark.timeout(60)


SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@SIZES
def test_settings_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    game = LocalGame(TableSettings(players=3), "Ann", 9, ("easy", "hard"), seed=1)
    assert snap_compare(RoyalRevengeApp(game=game, clock=FakeClock(), bell=False), terminal_size=size)


@SIZES
def test_the_kings_choice_above_the_hand(snap_compare: Any, size: tuple[int, int]) -> None:
    app, client, _ = local_app(fast_settings(players=4), bots=("easy", "normal", "hard"), seed=3)

    async def run_before(pilot: Any) -> None:
        await settle(pilot, app, client)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@SIZES
def test_table_mid_game(snap_compare: Any, size: tuple[int, int]) -> None:
    app, client, _ = local_app(fast_settings(players=6), bots=("easy", "normal", "hard", "easy", "normal"), seed=3)

    async def run_before(pilot: Any) -> None:
        await settle(pilot, app, client)
        await pilot.press("3")
        await settle(pilot, app, client)
        await pilot.press("right", "right")
        await settle(pilot, app, client)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@SIZES
def test_a_catch_moment(snap_compare: Any, size: tuple[int, int]) -> None:
    """A bot played its next-to-last card without calling UNO: the Catch shows on it and in the action bar."""
    app, client = catch_moment()

    async def run_before(pilot: Any) -> None:
        await settle(pilot, app, client)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def played_round(settings: TableSettings, seed: int) -> GameRecord:
    """A record up to the end of round 1: every seat played by the table's bots (the person times out)."""
    table = Table.open(settings, code="LOCAL", seed=seed)
    now = 1000.0
    _, token = table.join("Ann", 9, now)
    for _ in range(settings.players - 1):
        table.add_bot(token, "normal", now)
    table.start(token, now)
    for _ in range(5000):
        assert table.game is not None
        if table.game.state.decision.name == "ROUND_OVER":
            return table.record()
        deadline = table.next_deadline()
        assert deadline is not None
        now = deadline
        table.tick(now)
    raise AssertionError("the round did not end")


@SIZES
def test_round_results(snap_compare: Any, size: tuple[int, int]) -> None:
    settings = fast_settings(players=3, turn_seconds=3.0, max_timeouts=100)
    record = played_round(settings, seed=2)
    clock = FakeClock()
    client = LocalClient(LocalGame(settings, "Ann", 9, ("normal", "normal"), seed=2), clock=clock, record=record)
    app = RoyalRevengeApp(client, clock=clock, bell=False)

    async def run_before(pilot: Any) -> None:
        await settle(pilot, app, client)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@SIZES
def test_help_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    app, client, _ = local_app(fast_settings(), seed=1)

    async def run_before(pilot: Any) -> None:
        await settle(pilot, app, client)
        await pilot.press("2")
        await settle(pilot, app, client)
        await pilot.press("question_mark")

    assert snap_compare(app, terminal_size=size, run_before=run_before)
