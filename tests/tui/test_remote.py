"""The terminal client at a server's table: one game with a scripted WebSocket client and a bot."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from royal_revenge.client import ClientError, RemoteClient, parse_join_target
from royal_revenge.session import Phase
from royal_revenge.tui import RoyalRevengeApp
from royal_revenge.tui.dialogs import ResultsDialog

from ..server.conftest import Client, Server, choose, running_server, settle, step_clock
from .helpers import SIZE, busy, key_for

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def wait_for(pilot: Any, condition: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    """Poll ``condition`` every few milliseconds (real time only bounds a hang)."""
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.002)


async def caught_up(pilot: Any, app: RoyalRevengeApp, remote: RemoteClient, server: Server, code: str,
                    host: Client) -> None:
    """The server is quiet, and the terminal shows its newest view."""
    for _ in range(50):
        table = await settle(server, code, [host])

        def shown(version: int = table.version) -> bool:
            screen = app.table_screen
            return (remote.version == version and screen is not None and screen.view is not None
                    and screen.view["version"] == remote.version and not busy(app))

        await wait_for(pilot, shown, "the terminal to show the newest view")
        if server.table(code).version == table.version:
            return
    raise AssertionError("the table never settled")


async def test_terminal_and_browser_protocol_clients_play_one_game(tmp_path: Path) -> None:
    async with running_server(tmp_path / "tables.db") as server:
        settings = {"players": 3, "single_round": True, "turn_seconds": 600.0, "bot_delay_seconds": 0.0}
        info = await server.create_table("Host", None, settings, bots=["normal"])
        code = info["code"]
        host = await Client.connect(server, code, info["token"], "host")
        base, parsed = parse_join_target(f"{server.http_url}/t/{code}")
        remote = RemoteClient(base, parsed, "Terminal", 9)
        app = RoyalRevengeApp(remote, bell=False)
        rng = random.Random(4)
        pressed: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.view is not None,
                           "the lobby")
            screen = app.table_screen
            assert screen is not None and screen.view is not None
            assert screen.view["phase"] == "lobby" and screen.view["you"] == 2
            assert "Waiting for the host" in str(screen.query_one("#table-info").render())
            assert "Server: connected" in str(screen.query_one("#bar").render())
            assert (await host.host("start"))["type"] == "ack"
            for _ in range(3000):
                await caught_up(pilot, app, remote, server, code, host)
                table = server.table(code)
                if table.phase is Phase.FINISHED:
                    break
                key = key_for(app, rng)
                if key is not None:
                    pressed.append(key)
                    await pilot.press(key)
                    continue
                assert table.game is not None
                state = table.game.state
                if state.decider == 0 and host.view is not None and host.view.get("legal"):
                    answer = await host.act(choose(rng, host.view["legal"]))
                    assert answer["type"] == "ack", answer
                    continue
                await step_clock(server, code, [host])
            else:
                raise AssertionError("the game did not finish")
            await caught_up(pilot, app, remote, server, code, host)
            assert isinstance(app.screen, ResultsDialog) and app.screen.finished
            screen = app.table_screen
            assert screen is not None and screen.view is not None and host.view is not None
            assert screen.view["game"]["scores"] == host.view["game"]["scores"]
            assert screen.view["game"]["top"] == host.view["game"]["top"]
            terminal_moves = [move for move in table.moves if move.move.startswith("2:") and move.by == "player"]
            assert len(terminal_moves) >= 2 and pressed
            # A later frame of the finished game (the host leaves) keeps the results open ...
            shown_version = remote.version
            await host.close()
            await caught_up(pilot, app, remote, server, code, host)
            assert remote.version > shown_version and remote.view is not None
            assert remote.view["seats"][0]["connected"] is False
            assert isinstance(app.screen, ResultsDialog) and app.screen.finished
            # ... until the person closes them; they do not come back.
            await pilot.press("enter")
            await caught_up(pilot, app, remote, server, code, host)
            assert app.screen is app.table_screen
            await pilot.press("q")


async def test_joining_a_missing_table_fails_with_a_reason(tmp_path: Path) -> None:
    async with running_server(tmp_path / "tables.db") as server:
        app = RoyalRevengeApp(RemoteClient(server.http_url, "NOSUCH", "Terminal"), bell=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.failure is not None, "the failure")
        assert app.return_code == 1
        assert app.failure is not None and "no table" in app.failure


async def test_an_unreachable_server_fails_with_a_reason() -> None:
    client = RemoteClient("http://127.0.0.1:9", "ABCDEF", "Terminal")
    with pytest.raises(ClientError, match="cannot reach the server"):
        await client.start()


def test_join_targets() -> None:
    assert parse_join_target("https://rr.example:8443/t/abc234/") == ("https://rr.example:8443", "ABC234")
    assert parse_join_target("abc234", "http://localhost:9000") == ("http://localhost:9000", "ABC234")
    # A 10-letter code as people read it out or copy it: grouped, with spaces, in lower case.
    for typed in ("k7qmp-wxab3", " K7QMP WXAB3 ", "K7QMPWXAB3"):
        assert parse_join_target(typed) == ("http://127.0.0.1:8000", "K7QMPWXAB3")
    assert parse_join_target("http://h:1/t/k7qmp-wxab3") == ("http://h:1", "K7QMPWXAB3")
    for bad in ("http://host/x/ABCD", "ab", "ftp://host/t/ABCD", "AB_CD", "http://host/t/AB!CD", "http://host/t/a/b"):
        with pytest.raises(ClientError):
            parse_join_target(bad)


async def test_the_remote_client_reconnects_after_the_server_restarts(tmp_path: Path) -> None:
    import contextlib
    import socket

    import uvicorn

    from royal_revenge.server.app import create_app
    from royal_revenge.server.hub import FakeClock

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = tmp_path / "tables.db"

    @contextlib.asynccontextmanager
    async def serving() -> Any:
        app = create_app(f"sqlite+aiosqlite:///{db}", clock=FakeClock())
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        task = asyncio.create_task(server.serve())
        try:
            async with asyncio.timeout(20):
                while not server.started:
                    await asyncio.sleep(0.01)
            yield
        finally:
            server.should_exit = True
            await task

    statuses: list[str] = []
    async with serving():
        import httpx

        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            info = (await http.post("/api/tables", json={"name": "Ann", "settings": {"players": 2}})).json()
        client = RemoteClient(f"http://127.0.0.1:{port}", info["code"], token=info["token"], max_delay=0.2)
        client.subscribe(lambda message: statuses.append(message["text"]) if message["type"] == "status" else None)
        await client.start()
        assert client.view is not None and client.view["you"] == 0 and client.connected
        first_version = client.version
    async with asyncio.timeout(20):
        while client.connected or not any(text.startswith("reconnecting") for text in statuses):
            await asyncio.sleep(0.01)
    async with serving():
        async with asyncio.timeout(20):
            while not client.connected or client.version <= first_version:
                await asyncio.sleep(0.01)
        assert client.view is not None and client.view["code"] == info["code"]
        assert statuses[-1] == "connected"
        await client.close()


async def test_the_terminal_stops_when_its_seat_is_opened_elsewhere(tmp_path: Path) -> None:
    async with running_server(tmp_path / "tables.db") as server:
        info = await server.create_table("Ann", settings={"players": 2})
        remote = RemoteClient(server.http_url, info["code"], token=info["token"], max_delay=0.05)
        statuses: list[str] = []
        remote.subscribe(lambda message: statuses.append(message["text"]) if message["type"] == "status" else None)
        await remote.start()
        other = await Client.connect(server, info["code"], info["token"], "elsewhere")
        assert (await other.first_state())["you"] == 0
        task = remote._task
        assert task is not None
        await asyncio.wait_for(task, 20)  # it gives up instead of taking the seat back, and back, ...
        assert statuses[-1] == "this seat was opened on another connection (another window or device)"
        assert not other.closed
        await other.close()
        await remote.close()
