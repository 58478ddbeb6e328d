"""Per-address limits, codes that cannot be guessed, and idle tables let go of (and read back intact)."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import httpx
import pytest

from royal_revenge.server.throttle import RATE_LIMITED_CLOSE, Limits
from royal_revenge.session import Phase, Table, TableSettings
from royal_revenge.session.table import CODE_LENGTH

from .conftest import Client, Driver, Server, open_game, running_server, settle, step_clock

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

NO_RATES = Limits(create="", join="", lookup="", miss="")
"""No rate limits; the real live tables per address and idle times."""

CODE_RE = re.compile(rf"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{{{CODE_LENGTH}}}$")


def _assert_rate_limited(response: httpx.Response, window: float = 60.0) -> None:
    assert response.status_code == 429, response.text
    assert 1 <= int(response.headers["Retry-After"]) <= window
    detail = response.json()["detail"]
    assert detail["code"] == "rate_limited" and "wait" in detail["message"]
    assert set(detail) == {"code", "message"}


async def _create(http: httpx.AsyncClient, name: str = "Ann") -> httpx.Response:
    return await http.post("/api/tables", json={"name": name, "settings": {"players": 3}})


async def test_creating_tables_is_limited_per_address(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(create="3/minute")) as server, server.http() as http:
        for _ in range(3):
            assert (await _create(http)).status_code == 201
        refused = await _create(http)
        _assert_rate_limited(refused)
        assert "new tables" in refused.json()["detail"]["message"]
        assert server.hub.table_count == 3  # the refused request opened nothing


async def test_joining_is_limited_per_address(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(join="2/minute")) as server, server.http() as http:
        code = (await _create(http)).json()["code"]
        for name in ("Bob", "Cy"):
            http.cookies.clear()  # (each friend joins from a browser of their own)
            assert (await http.post(f"/api/tables/{code}/join", json={"name": name})).status_code == 200
        http.cookies.clear()
        _assert_rate_limited(await http.post(f"/api/tables/{code}/join", json={"name": "Di"}))
        assert [seat.name for seat in server.table(code).seats] == ["Ann", "Bob", "Cy"]  # (3 players: full anyway)


async def test_looking_tables_up_is_limited_per_address(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(lookup="3/minute")) as server, server.http() as http:
        code = (await _create(http)).json()["code"]
        for path in ("", "/replay", "/record"):
            assert (await http.get(f"/api/tables/{code}{path}")).status_code in (200, 409)
        for path in ("", "/replay", "/record"):
            _assert_rate_limited(await http.get(f"/api/tables/{code}{path}"))


async def test_guessing_codes_is_stopped_even_when_a_guess_would_hit(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(miss="3/minute")) as server, server.http() as http:
        code = (await _create(http)).json()["code"]
        for guess in ("AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC"):
            response = await http.get(f"/api/tables/{guess}")
            assert response.status_code == 404 and response.json()["detail"]["code"] == "no_table"
        refused = await http.get(f"/api/tables/{code}")  # a right guess now: refused all the same
        _assert_rate_limited(refused)
        assert "do not exist" in refused.json()["detail"]["message"]
        _assert_rate_limited(await http.post(f"/api/tables/{code}/join", json={"name": "Bob"}))
        # A WebSocket to a code is refused too: an error in plain words, then the documented close code.
        client = await Client.connect(server, code, None, "guesser")
        await client.wait_closed()
        assert client.close_code == RATE_LIMITED_CLOSE
        assert [(frame["type"], frame["code"]) for frame in client.frames] == [("error", "rate_limited")]
        assert len(server.table(code).seats) == 3 and server.table(code).seats[1].name == ""


async def test_websocket_connections_to_unknown_codes_count_as_guesses(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(miss="2/minute")) as server, server.http() as http:
        for guess in ("DDDDDDDDDD", "EEEEEEEEEE"):
            client = await Client.connect(server, guess, None, "guesser")
            await client.wait_closed()
            assert client.close_code == 4404
        _assert_rate_limited(await http.get("/api/tables/FFFFFFFFFF"))


async def test_new_codes_are_long_and_accepted_grouped_and_in_lower_case(server: Server) -> None:
    info = await server.create_table("Ann", settings={"players": 3})
    code = info["code"]
    assert CODE_RE.match(code) and info["url"] == f"/t/{code}"
    typed = f"{code[:5]}-{code[5:]}".lower()
    async with server.http() as http:
        assert (await http.get(f"/api/tables/{typed}")).json()["code"] == code
        joined = await http.post(f"/api/tables/{code[:5].lower()} {code[5:]}/join", json={"name": "Bob"})
        assert joined.status_code == 200 and joined.json()["code"] == code and joined.json()["url"] == f"/t/{code}"
    client = await Client.connect(server, typed, joined.json()["token"], "bob")
    view = await client.first_state()
    assert view["code"] == code and view["you"] == 1
    await client.close()


async def test_an_old_six_letter_code_keeps_working(server: Server) -> None:
    old = Table.open(TableSettings(players=3), code="K7QMPW")
    _, token = old.join("Ann", 30, server.clock.now())
    await server.hub.store.save(old.code, old.to_json(), old.phase.value, server.clock.now())
    async with server.http() as http:
        assert (await http.get("/api/tables/k7qmpw")).json()["code"] == "K7QMPW"
        joined = await http.post("/api/tables/K7QMPW/join", json={"name": "Bob"})
        assert joined.status_code == 200 and joined.json()["code"] == "K7QMPW"
    host = await Client.connect(server, "k7qmpw", token, "ann")
    assert (await host.first_state())["you"] == 0
    await host.close()


async def test_an_idle_lobby_is_let_go_and_comes_back_intact(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=NO_RATES) as server, server.http() as http:
        created = (await _create(http)).json()
        code = created["code"]
        http.cookies.clear()  # (Bob joins from a browser of his own)
        bob = (await http.post(f"/api/tables/{code}/join", json={"name": "Bob", "age": 40})).json()
        before = (await http.get(f"/api/tables/{code}")).json()
        await server.clock.advance(NO_RATES.lobby_idle_seconds - 120)
        assert code in server.hub._live  # not idle long enough yet
        await server.clock.advance(240)
        assert code not in server.hub._live and server.hub.table_count == 0
        assert (await http.get(f"/api/tables/{code}")).json() == before  # read back from the database, unchanged
        host = await Client.connect(server, code, created["token"], "ann")  # the seats' tokens still hold
        assert (await host.first_state())["you"] == 0
        http.cookies.clear()  # (a third friend, in a browser of their own)
        assert (await http.post(f"/api/tables/{code}/join", json={"name": "Cy"})).json()["seat"] == 2
        guest = await Client.connect(server, code, bob["token"], "bob")
        assert (await guest.first_state())["you"] == 1
        for client in (host, guest):
            await client.close()


async def test_a_table_with_anyone_connected_stays(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=NO_RATES) as server, server.http() as http:
        code = (await _create(http)).json()["code"]
        watcher = await Client.connect(server, code, None, "watcher")
        await watcher.first_state()
        await server.clock.advance(3 * NO_RATES.lobby_idle_seconds)
        assert code in server.hub._live
        await watcher.close()
        await settle(server, code)
        await server.clock.advance(NO_RATES.lobby_idle_seconds + 120)
        assert code not in server.hub._live


async def test_a_finished_game_is_let_go_and_its_record_comes_back_intact(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=NO_RATES) as server, server.http() as http:
        info = await server.create_table("Ann", 30, {"players": 3, "single_round": True, "turn_seconds": 60.0})
        code = info["code"]
        ann = await Client.connect(server, code, info["token"], "ann")
        for level in ("easy", "easy"):
            assert (await ann.host("add_bot", level=level))["type"] == "ack"
        assert (await ann.host("start"))["type"] == "ack"
        driver = Driver(server, code, {0: ann}, random.Random(5))
        while await driver.step():
            pass
        table = await settle(server, code, [ann])
        assert table.phase is Phase.FINISHED
        record, replay = (await http.get(f"/api/tables/{code}/record")).content, (
            await http.get(f"/api/tables/{code}/replay")).json()
        await ann.close()
        await settle(server, code)  # (the disconnection is written before the clock moves on)
        await server.clock.advance(NO_RATES.finished_idle_seconds + 120)
        assert code not in server.hub._live
        assert (await http.get(f"/api/tables/{code}/record")).content == record
        assert (await http.get(f"/api/tables/{code}/replay")).json() == replay
        again = await Client.connect(server, code, info["token"], "ann")  # the host may still ask for a rematch
        assert (await again.first_state())["phase"] == "finished"
        assert (await again.host("rematch"))["type"] == "ack"
        await again.close()


async def test_live_tables_are_bounded_per_address(tmp_path: Path) -> None:
    limits = Limits(create="", join="", lookup="", miss="", tables_per_address=5)
    async with running_server(tmp_path / "t.db", limits=limits) as server, server.http() as http:
        for round_no in range(3):
            for _ in range(5):
                assert (await _create(http)).status_code == 201
            refused = await _create(http)
            assert refused.status_code == 409, refused.text
            assert refused.json()["detail"] == {
                "code": "too_many_tables",
                "message": "your address already has 5 open tables; please finish or leave one of them first"}
            assert server.hub.table_count == 5  # memory holds at most this address's 5, however many it opens
            await server.clock.advance(limits.lobby_idle_seconds + 120)
            assert server.hub.table_count == 0, round_no



async def test_a_game_nobody_watches_plays_on_and_is_let_go_once_over(tmp_path: Path) -> None:
    # A short idle time, so that every game (at least a dozen moves 30 s apart) outlasts it many times over.
    limits = dataclasses.replace(NO_RATES, playing_idle_seconds=240.0)
    async with running_server(tmp_path / "t.db", limits=limits) as server:
        code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"],
                                             settings={"bot_delay_seconds": 30.0})  # (one round: see open_game)
        await humans[0].close()  # everyone leaves: the grace time runs out, a bot plays the seat
        start = server.clock.now()
        while server.table(code).phase is Phase.PLAYING:  # (the table is still in memory, or this fails)
            await step_clock(server, code)
        assert server.clock.now() - start > limits.playing_idle_seconds  # it played on, unwatched, all along
        await server.clock.advance(limits.finished_idle_seconds + 120)
        assert code not in server.hub._live
