"""Leaving an online table and coming back: the confirm dialog, the kept seat, a bot meanwhile, watching.

A terminal player (the Textual app with a RemoteClient, as ``royal-revenge play --join`` makes it) and a
scripted WebSocket player share a table on a real server (uvicorn in the test's event loop, a fake clock).
"""

from __future__ import annotations

import random
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from royal_revenge.client import RemoteClient
from royal_revenge.client.seats import DATA_DIR_ENV, SeatStore
from royal_revenge.session import Phase, Table
from royal_revenge.session.table import display_code
from royal_revenge.tui import RoyalRevengeApp
from royal_revenge.tui.dialogs import ConfirmDialog, HelpScreen
from royal_revenge.tui.render import WATCHING_TEXT
from royal_revenge.tui.table_screen import TableScreen

from ..server.conftest import Client, Server, choose, running_server, settle, step_clock
from .helpers import key_for
from .test_remote import caught_up, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

SMALL = (80, 24)
SETTINGS = {"players": 2, "turn_seconds": 600.0, "bot_delay_seconds": 0.0, "grace_seconds": 0.0,
            "next_round_seconds": 1.0, "target_score": 2000}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data folder, moved to a temporary one as ``ROYAL_REVENGE_DATA_DIR`` moves it."""
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return folder


def joining(server: Server, code: str) -> RemoteClient:
    """The client ``royal-revenge play --join CODE --server URL --name Tess`` makes."""
    return RemoteClient(server.http_url, code.lower(), "Tess", seats=SeatStore())


async def play_host_until(server: Server, code: str, host: Client, rng: random.Random,
                          done: Callable[[Table], bool]) -> Table:
    """The scripted player plays its decisions and the clock moves on the others until ``done``."""
    for _ in range(2000):
        table = await settle(server, code, [host])
        if done(table):
            return table
        assert table.phase is Phase.PLAYING and table.game is not None
        if table.game.state.decider == 0 and host.view is not None and host.view.get("legal"):
            assert (await host.act(choose(rng, host.view["legal"])))["type"] == "ack"
        else:
            await step_clock(server, code, [host])
    raise AssertionError("it never happened")


async def close_dialogs(pilot: Any, app: RoyalRevengeApp, remote: RemoteClient, server: Server, code: str,
                        host: Client, rng: random.Random) -> None:
    """Answer the dialogs the table opened (a King's decision; q works at the table itself)."""
    for _ in range(20):
        await caught_up(pilot, app, remote, server, code, host)
        if app.screen is app.table_screen:
            return
        key = key_for(app, rng)
        assert key is not None
        await pilot.press(key)
    raise AssertionError("the dialogs never closed")


def asking(app: RoyalRevengeApp) -> bool:
    """A question is open, and drawn (its text is there to read)."""
    return isinstance(app.screen, ConfirmDialog) and bool(app.screen.query("#confirm-text"))


def text_of(app: RoyalRevengeApp, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_leave_come_back_to_the_same_seat_and_watch(tmp_path: Path, data: Path) -> None:
    rng = random.Random(7)
    async with running_server(tmp_path / "tables.db") as server:
        info = await server.create_table("Host", None, SETTINGS)
        code = info["code"]
        host = await Client.connect(server, code, info["token"], "host")
        store = SeatStore()

        # 1. Tess joins from the terminal; her seat's token is kept, for her eyes only.
        remote = joining(server, code)
        app = RoyalRevengeApp(remote, bell=False)
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.view is not None,
                           "the lobby")
            kept = store.get(server.http_url, code)
            assert kept is not None and kept.seat == 1 and kept.name == "Tess" and kept.token == remote.token
            path = store.path(server.http_url, code)
            assert path.parent == data / "seats" and stat.S_IMODE(path.stat().st_mode) == 0o600
            assert (await host.host("start"))["type"] == "ack"
            await caught_up(pilot, app, remote, server, code, host)
            assert app.table_screen is not None and app.table_screen.view is not None
            assert app.table_screen.view["phase"] == "playing"

            # 2. q asks first, with the command that comes back (the code grouped as the game shows it).
            await close_dialogs(pilot, app, remote, server, code, host, rng)
            await pilot.press("q")
            await wait_for(pilot, lambda: asking(app), "the confirm dialog")
            assert text_of(app, "#confirm-title") == "Leave the table?"
            question = text_of(app, "#confirm-text")
            assert f"royal-revenge play --join {display_code(code)} --server {server.http_url}" in question
            assert "A bot plays your seat until you come back" in question
            assert "-" in display_code(code)
            # Esc stays at the table ...
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.table_screen, "the table again")
            assert app.is_running
            # ... n too, and y (or Enter) leaves.
            await pilot.press("q")
            await wait_for(pilot, lambda: asking(app), "the confirm dialog")
            await pilot.press("n")
            await wait_for(pilot, lambda: app.screen is app.table_screen, "the table again")
            await pilot.press("q")
            await wait_for(pilot, lambda: asking(app), "the confirm dialog")
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.is_running, "the app to stop")
        assert app.return_code in (0, None)

        # 3. Meanwhile a bot plays her seat (her decision times out at once: grace_seconds is 0).
        await host.wait_for(lambda: host.view is not None and host.view["seats"][1]["connected"] is False,
                            "Tess's seat to show her gone")
        await play_host_until(server, code, host, rng, lambda table: table.seats[1].autopilot)
        assert host.view is not None and host.view["seats"][1]["autopilot"] is True
        assert host.view["seats"][1]["name"] == "Tess"
        bot_moves = len([move for move in server.table(code).moves if move.move.startswith("1:")])
        assert bot_moves >= 1

        # 4. --join again (the same data folder): the same seat, hers again, her moves accepted.
        back = joining(server, code)
        app = RoyalRevengeApp(back, bell=False)
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.view is not None,
                           "the table")
            assert back.returning and back.seat == 1
            view = back.view
            assert view is not None and view["you"] == 1 and view["game"]["hand"]
            assert view["seats"][1]["name"] == "Tess"
            assert view["seats"][1]["autopilot"] is False and view["seats"][1]["connected"] is True
            assert any(text.startswith("Welcome back, Tess: you are in seat 2 again") for text in app.notices)
            assert server.table(code).seats[1].autopilot is False
            for _ in range(500):
                await caught_up(pilot, app, remote=back, server=server, code=code, host=host)
                moves = [move for move in server.table(code).moves if move.move.startswith("1:")]
                if any(move.by == "player" for move in moves[bot_moves:]):
                    break
                key = key_for(app, rng)
                if key is not None:
                    await pilot.press(key)
                    continue
                table = server.table(code)
                assert table.game is not None and table.phase is Phase.PLAYING
                if table.game.state.decider == 0 and host.view is not None and host.view.get("legal"):
                    assert (await host.act(choose(rng, host.view["legal"])))["type"] == "ack"
                else:
                    await step_clock(server, code, [host])
            else:
                raise AssertionError("Tess's moves never reached the table")
            assert server.table(code).seats[1].autopilot is False
            # Ctrl+C quits at once, without asking.
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: not app.is_running, "the app to stop")

        # 5. Someone else watches: the table without a hand, nothing to do but help and quit.
        await settle(server, code, [host])
        watcher = RemoteClient(server.http_url, code, "Zed", watch=True)
        app = RoyalRevengeApp(watcher, bell=False)
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.view is not None,
                           "the spectator's table")
            screen = app.screen
            assert isinstance(screen, TableScreen) and screen.view is not None
            assert screen.view["you"] is None and screen.view["game"]["hand"] == []
            assert screen.view["game"]["hand_sizes"][1] > 0
            assert WATCHING_TEXT in text_of(app, "#hand")
            assert "Server: connected, watching" in text_of(app, "#bar")
            actions = text_of(app, "#actions")
            assert "Help" in actions and "Quit" in actions and "Draw" not in actions
            version = server.table(code).version
            for key in ("d", "enter", "1", "u", "c"):
                await pilot.press(key)
            assert screen.banner_text == ""  # (no "you cannot draw now": the keys do nothing at all)
            assert not [m for m in watcher.messages if m.get("type") == "error"]
            assert server.table(code).version == version
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, "the table again")
            await pilot.press("q")  # (a spectator loses nothing: no question)
            await wait_for(pilot, lambda: not app.is_running, "the app to stop")
        await host.close()


async def test_a_seat_given_away_is_said_plainly_and_watching_is_offered(tmp_path: Path, data: Path) -> None:
    rng = random.Random(3)
    async with running_server(tmp_path / "tables.db") as server:
        info = await server.create_table("Host", None, SETTINGS)
        code = info["code"]
        host = await Client.connect(server, code, info["token"], "host")
        first = joining(server, code)
        await first.start()
        assert (await host.host("start"))["type"] == "ack"
        await settle(server, code, [host])
        await first.close()
        await host.wait_for(lambda: host.view is not None and host.view["seats"][1]["connected"] is False,
                            "Tess's seat to show her gone")
        # The host hands her seat to a bot for good: her token no longer holds a seat.
        assert (await host.host("remove", seat=1))["type"] == "ack"
        await play_host_until(server, code, host, rng, lambda table: True)
        assert SeatStore().get(server.http_url, code) is not None

        back = joining(server, code)
        app = RoyalRevengeApp(back, bell=False)
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: asking(app), "the offer to watch")
            assert text_of(app, "#confirm-title") == "Watch the game instead?"
            said = text_of(app, "#confirm-text")
            assert f"Your seat at table {display_code(code)} is not yours any more" in said
            assert "Traceback" not in said and "token" not in said
            assert SeatStore().get(server.http_url, code) is None  # (the refused token is forgotten)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.view is not None,
                           "the spectator's table")
            assert isinstance(app.screen, TableScreen) and app.screen.view is not None
            assert app.screen.view["you"] is None
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, "the app to stop")

        # Declining says how to watch later, and ends with status 1 (no seat was taken).
        app = RoyalRevengeApp(joining(server, code), bell=False)
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: asking(app), "the offer to watch")
            assert "The game has started" in text_of(app, "#confirm-text")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.is_running, "the app to stop")
        assert app.return_code == 1 and app.failure is not None
        assert f"royal-revenge play --watch {display_code(code)} --server {server.http_url}" in app.failure
        assert len(server.table(code).seats) == 2
        await host.close()


