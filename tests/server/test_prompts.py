"""The prompt, hint, uno_called and next_round_deadline over the wire; refusals in plain words (docs/protocol.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from royal_revenge.session import Table

from .conftest import Client, Driver, Server, open_game, settle

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def _my_turn(server: Server, code: str, me: Client) -> Table:
    """Let the bots play until seat 0 must take its turn (with nothing else to decide)."""
    for _ in range(500):
        table = await settle(server, code, [me])
        assert table.game is not None
        state = table.game.state
        if state.decider == 0 and state.pending.kind.name == "TURN" and me.view and me.view["legal"]:
            return table
        await Driver(server, code, {0: me}, random.Random(5), think=0).step()
    raise AssertionError("seat 0 never had its turn")


async def test_every_view_carries_its_own_prompt_and_partial_states_only_a_changed_one(server: Server) -> None:
    code, humans, _, observers = await open_game(server, humans=2, bots=["normal"], spectators=1)
    driver = Driver(server, code, humans, random.Random(3), observers=observers, think=0.1)
    for _ in range(20):
        if not await driver.step():
            break
        table = await settle(server, code, driver.clients)
        for client in driver.clients:
            assert client.view is not None
            seat = client.view["you"]
            whole = table.view(seat)
            for key in ("prompt", "hint", "uno_called", "next_round_deadline"):
                assert client.view[key] == whole[key], (client.name, key)
            assert isinstance(client.view["prompt"], str)
    spectator = observers[0]
    assert spectator.view is not None and not spectator.view["prompt"].startswith(("Your turn", "You are"))
    for client in driver.clients:
        states = [json.loads(raw) for raw in client.raw if json.loads(raw)["type"] == "state"]
        current: Any = None
        hints: Any = None
        for state in states:
            view = state["view"]
            if not state["full"] and "prompt" in view:
                assert view["prompt"] != current, (client.name, view["prompt"])  # sent only when it changed
            if not state["full"] and "hint" in view:
                assert view["hint"] != hints, (client.name, view["hint"])
            current = view.get("prompt", current) if not state["full"] else view["prompt"]
            hints = view.get("hint", hints) if not state["full"] else view["hint"]


async def test_a_play_sent_twice_gets_a_plain_refusal(server: Server) -> None:
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"])
    me = humans[0]
    plays: list[dict[str, Any]] = []
    for _ in range(50):  # until a turn where a card can be played (the deal is not fixed)
        await _my_turn(server, code, me)
        assert me.view is not None
        assert me.view["prompt"] == "Your turn: play a card or draw"
        plays = [action for action in me.view["legal"] if action["type"] == "play" and not action.get("uno")]
        if plays:
            break
        await Driver(server, code, {0: me}, random.Random(5), think=0).step()
    assert plays, "seat 0 never had a card to play"
    first = await me.act(plays[0])
    assert first["type"] == "ack"
    second = await me.act(plays[0])  # a double click: a second message, a new id
    assert second["type"] == "error" and second["code"] == "illegal", second
    message: str = second["message"]
    assert "R-" not in message and "seat" not in message.lower() and "_" not in message, message
    # Whose turn or decision it is now, in words: another player's, the King's (a Wild or a
    # King's Choice just played), or the card is gone from the hand.
    assert message.startswith(("It's ", "King ", "You are the King", "You don't hold that card")), message


@pytest.mark.parametrize(("body", "status", "detail"), [
    ({"name": ""}, 400, {"code": "bad_request", "message": "Please enter your name"}),
    ({"name": "Ann", "settings": {"scepter_min_seconds": 80, "scepter_max_seconds": 40}}, 400,
     {"code": "bad_settings", "message": "The longest time before the fanfare must be at least the shortest"}),
    ({"name": "Ann", "settings": {"turn_seconds": 1}}, 400,
     {"code": "bad_settings", "message": "The time for each decision must be from 3 to 600 seconds"}),
    ({"name": "Ann", "settings": {"players": 9}}, 400,
     {"code": "bad_settings", "message": "A table has 2 to 6 players"}),
], ids=["empty name", "scepter times", "turn time", "players"])
async def test_a_refused_table_is_explained_in_plain_words(server: Server, body: dict[str, Any], status: int,
                                                           detail: dict[str, str]) -> None:
    async with server.http() as http:
        response = await http.post("/api/tables", json=body)
    assert response.status_code == status, response.text
    assert response.json()["detail"] == detail


async def test_a_refused_host_command_names_the_host(server: Server) -> None:
    info = await server.create_table("Ann", settings={"players": 3})
    joined = await server.join(info["code"], "Bob")
    bob = await Client.connect(server, info["code"], joined["token"], "bob")
    answer = await bob.host("start")
    assert (answer["type"], answer["code"], answer["message"]) == (
        "error", "not_host", "Only the host, Ann, can do that")
    ann = await Client.connect(server, info["code"], info["token"], "ann")
    answer = await ann.host("start")
    assert (answer["code"], answer["message"]) == ("seats_open", "Fill every seat with a player or a bot first")
