"""The social side of a table over HTTP and the WebSocket: seats kept for friends, chat and reactions, muting,
leaving, rematch requests and the list of public tables (issue 16, docs/protocol.md)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Client, Server, settle

pytestmark = pytest.mark.anyio


async def _create(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    async with server.http() as http:
        response = await http.post("/api/tables", json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created


async def test_bots_seat_by_seat_keep_the_seat_chosen_for_a_friend(server: Server) -> None:
    created = await _create(server, {"name": "Ann", "settings": {"players": 4}, "bots": [None, "hard", "easy"]})
    table = server.table(created["code"])
    assert [seat.kind.value for seat in table.seats] == ["human", "open", "bot", "bot"]
    assert [seat.level for seat in table.seats] == [None, None, "hard", "easy"]
    joined = await server.join(created["code"], "Bob")
    assert joined["seat"] == 1  # the friend sits where the host kept a seat


async def test_the_short_form_of_bots_still_seats_them_after_the_host(server: Server) -> None:
    created = await _create(server, {"name": "Ann", "settings": {"players": 4}, "bots": ["normal"]})
    assert [seat.kind.value for seat in server.table(created["code"]).seats] == ["human", "bot", "open", "open"]
    async with server.http() as http:
        refused = await http.post("/api/tables", json={"name": "Ann", "bots": ["expert"]})
    assert refused.status_code == 422
    assert refused.json()["detail"]["message"] == ("bots must be a list of at most 5 entries, each a bot level "
                                                  "(easy, normal or hard) or null for an open seat")


async def test_add_bot_takes_an_optional_seat(server: Server) -> None:
    created = await _create(server, {"name": "Ann", "settings": {"players": 3}})
    host = await Client.connect(server, created["code"], created["token"], "ann")
    await host.first_state()
    assert (await host.host("add_bot", level="easy", seat=2))["type"] == "ack"
    refused = await host.host("add_bot", level="easy", seat=2)
    assert refused["code"] == "bad_request" and refused["message"] == ("Easy bot 3 already sits there: "
                                                                       "choose an open seat")
    table = await settle(server, created["code"], [host])
    assert host.view is not None and host.view["seats"][2]["name"] == "Easy bot 3"
    assert table.seats[1].kind.value == "open"
    await host.close()
