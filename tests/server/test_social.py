"""The social side of a table over HTTP and the WebSocket: seats kept for friends, chat and reactions, muting,
leaving, rematch requests and the list of public tables (issue 16, docs/protocol.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import websockets

from royal_revenge.server.throttle import Limits
from royal_revenge.session import Phase

from .conftest import Client, Driver, Server, open_game, running_server, settle

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
        refused = await http.post("/api/tables", json={"name": "Ann", "bots": ["grandmaster"]})
    assert refused.status_code == 422
    assert refused.json()["detail"]["message"] == ("Choose each bot's level (easy, normal, hard or expert) or leave "
                                                  "the seat open for a friend (at most 5 seats)")


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


# ---------------------------------------------------------------- chat and reactions


async def _lobby(server: Server, *names: str, players: int = 4) -> tuple[str, list[Client]]:
    created = await _create(server, {"name": "Ann", "settings": {"players": players}})
    code = created["code"]
    tokens = [created["token"]] + [(await server.join(code, name))["token"] for name in names]
    TOKENS[code] = tokens
    clients = [await Client.connect(server, code, token, name)
               for token, name in zip(tokens, ["ann", *names], strict=True)]
    for client in clients:
        await client.first_state()
    return code, clients


TOKENS: dict[str, list[str]] = {}


def server_tokens(server: Server, code: str) -> list[str]:
    return TOKENS[code]


async def _say(client: Client, text: str) -> dict[str, Any]:
    return await client.request({"type": "chat", "id": client.next_id(), "text": text})


async def test_chat_and_reactions_reach_everyone_and_a_reconnect_shows_them(server: Server) -> None:
    code, (ann, bob) = await _lobby(server, "Bob")
    watcher = await Client.connect(server, code, None, "watcher")
    await watcher.first_state()
    assert (await _say(ann, "hi <i>Bob</i>"))["type"] == "ack"
    assert (await bob.request({"type": "react", "id": "r-1", "emoji": "👏"}))["type"] == "ack"
    assert (await _say(watcher, "hello from the stands"))["type"] == "ack"
    await settle(server, code, [ann, bob, watcher])
    expected = [("Ann", 0, "hi <i>Bob</i>", "chat"), ("Bob", 1, "👏", "reaction"),
                ("Spectator", None, "hello from the stands", "chat")]
    for client in (ann, bob, watcher):
        assert client.view is not None
        assert [(line["name"], line["seat"], line["text"], line["kind"]) for line in client.view["chat"]] == expected
        assert client.view == server.table(code).view(client.view["you"])  # merged partial states: the whole view
    await bob.close()
    again = await Client.connect(server, code, None, "again")  # (a new connection gets the chat whole)
    assert [line["text"] for line in (await again.first_state())["chat"]] == ["hi <i>Bob</i>", "👏",
                                                                            "hello from the stands"]
    for client in (ann, watcher, again):
        await client.close()


async def test_a_spectator_may_give_a_name_in_the_hello(server: Server) -> None:
    code, (ann,) = await _lobby(server)
    ws = await websockets.connect(server.ws_url(code))
    await ws.send(json.dumps({"type": "hello", "name": "  Zed  "}))
    assert json.loads(await ws.recv())["type"] == "state"
    await ws.send(json.dumps({"type": "chat", "id": "c-1", "text": "hi"}))
    answer = json.loads(await ws.recv())
    assert answer["type"] == "state" and answer["ack"] == "c-1"
    assert answer["view"]["chat"][-1]["name"] == "Zed"
    await ws.close()
    ws = await websockets.connect(server.ws_url(code))
    await ws.send(json.dumps({"type": "hello", "name": "Z\u202ed"}))
    refused = json.loads(await ws.recv())
    assert refused["code"] == "bad_hello" and "invisible" in refused["message"]
    with pytest.raises(websockets.ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 4400
    await ann.close()


async def test_bad_chat_is_refused_in_plain_words_and_changes_nothing(server: Server) -> None:
    code, (ann, bob) = await _lobby(server, "Bob")
    version = server.table(code).version
    for text, message in [("x" * 201, "A chat message can have at most 200 characters"),
                          ("  ", "Write something before sending"),
                          ("a\nb", "A chat message must not contain invisible or control characters "
                                   "(nor line breaks)")]:
        refused = await _say(ann, text)
        assert (refused["code"], refused["message"]) == ("bad_request", message)
    refused = await ann.request({"type": "react", "id": "r-1", "emoji": "x"})
    assert refused["code"] == "bad_request"
    refused = await ann.request({"type": "chat", "id": "c-9", "text": 7})
    assert refused["code"] == "bad_message"
    assert server.table(code).version == version and server.table(code).chat == type(server.table(code).chat)()
    await ann.close()
    await bob.close()


async def test_the_host_mutes_a_seat(server: Server) -> None:
    code, (ann, bob) = await _lobby(server, "Bob")
    assert (await ann.host("mute", seat=1))["type"] == "ack"
    await settle(server, code, [ann, bob])
    assert bob.view is not None and bob.view["muted"] == [1]
    refused = await _say(bob, "let me talk")
    assert (refused["code"], refused["message"]) == ("muted", "The host has muted you")
    refused = await bob.host("mute", seat=0)
    assert refused["code"] == "not_host"
    assert (await ann.host("unmute", seat=1))["type"] == "ack"
    assert (await _say(bob, "thanks"))["type"] == "ack"
    await ann.close()
    await bob.close()


async def test_a_seat_may_send_5_lines_in_10_seconds(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(create="", join="", lookup="", miss="")) as server:
        code, (ann, bob) = await _lobby(server, "Bob")
        for number in range(5):
            assert (await _say(ann, f"line {number}"))["type"] == "ack"
        refused = await ann.request({"type": "react", "id": "r-1", "emoji": "🎉"})
        assert (refused["code"], refused["message"]) == ("rate_limited",
                                                         "You are sending messages too fast; wait a moment")
        assert len(server.table(code).chat) == 5
        assert (await _say(bob, "my own five"))["type"] == "ack"  # per seat
        await ann.close()
        ann = await Client.connect(server, code, server_tokens(server, code)[0], "ann-again")
        await ann.first_state()
        refused = await _say(ann, "a new connection")  # the allowance is the seat's, not the connection's
        assert refused["code"] == "rate_limited"
        await ann.close()
        await bob.close()


async def test_chat_during_a_game_merges_to_the_whole_view(server: Server) -> None:
    code, humans, _, observers = await open_game(server, humans=2, bots=["normal"], spectators=1)
    rng = random.Random(3)

    async def chat(table: Any) -> None:
        if rng.random() < 0.3:
            speaker = rng.choice([*humans.values(), *observers])
            assert (await _say(speaker, f"move {table.version}"))["type"] == "ack"

    driver = Driver(server, code, humans, random.Random(5), observers=observers, on_step=chat)
    for _ in range(30):
        if not await driver.step():
            break
        table = await settle(server, code, driver.clients)
        for client in driver.clients:
            assert client.view is not None
            assert client.view == table.view(client.view["you"]), client.name
    assert server.table(code).chat


# ---------------------------------------------------------------- leaving


async def test_leaving_the_lobby_opens_the_seat_and_the_connection_watches_on(server: Server) -> None:
    code, (ann, bob) = await _lobby(server, "Bob")
    answer = await bob.request({"type": "leave", "id": "l-1"})
    assert answer["type"] == "ack"
    await settle(server, code, [ann, bob])
    assert not any(frame.get("code") == "kicked" for frame in bob.frames)
    last = [frame for frame in bob.frames if frame["type"] == "state"][-1]
    assert last["full"] is True and last["view"]["you"] is None
    assert server.table(code).seats[1].kind.value == "open"
    refused = await bob.request({"type": "rematch", "id": "m-1"})
    assert refused["code"] == "spectator"
    assert (await _say(bob, "watching now"))["type"] == "ack"
    await settle(server, code, [ann, bob])
    assert bob.view is not None and bob.view["chat"][-1]["name"] == "Bob" and bob.view["chat"][-1]["seat"] is None
    await ann.close()
    await bob.close()


async def test_the_host_leaving_the_lobby_hands_over_and_the_last_closes_it(server: Server) -> None:
    code, (ann, bob) = await _lobby(server, "Bob")
    assert (await ann.request({"type": "leave", "id": "l-1"}))["type"] == "ack"
    await settle(server, code, [ann, bob])
    assert bob.view is not None and bob.view["host"] == 1
    assert (await bob.host("add_bot", level="easy"))["type"] == "ack"
    assert (await bob.request({"type": "leave", "id": "l-2"}))["type"] == "ack"
    await settle(server, code, [ann, bob])
    assert bob.view is not None and bob.view["closed"] is True and bob.view["host"] is None
    async with server.http() as http:
        refused = await http.post(f"/api/tables/{code}/join", json={"name": "Cy"})
    assert refused.status_code == 409 and refused.json()["detail"]["code"] == "wrong_phase"
    await ann.close()
    await bob.close()


async def test_leaving_a_game_hands_the_seat_to_a_bot_and_the_token_stops_working(server: Server) -> None:
    code, humans, tokens, _ = await open_game(server, humans=2, bots=["normal"])
    person = humans[1]
    assert (await person.request({"type": "leave", "id": "l-1"}))["type"] == "ack"
    table = await settle(server, code, humans.values())
    assert table.seats[1].kind.value == "bot" and person.view is not None and person.view["you"] is None
    assert person.view["game"]["hand"] == []
    assert not any(frame.get("code") == "kicked" for frame in person.frames)
    back = await Client.connect(server, code, tokens[1], "back")
    await back.wait_closed()
    assert back.close_code == 4403
    await person.close()
    await humans[0].close()


# ---------------------------------------------------------------- rematch requests


async def test_rematch_requests_then_the_host_starts_it(server: Server) -> None:
    code, humans, _, _ = await open_game(server, humans=2, bots=["normal"])
    refused = await humans[1].request({"type": "rematch", "id": "m-0"})
    assert (refused["code"], refused["message"]) == ("wrong_phase", "You can ask for a rematch once the game is over")
    table = await Driver(server, code, humans, random.Random(2)).run()
    assert table.phase is Phase.FINISHED
    assert (await humans[1].request({"type": "rematch", "id": "m-1"}))["type"] == "ack"
    await settle(server, code, humans.values())
    assert humans[0].view is not None and humans[0].view["rematch_requests"] == [1]
    game_no = table.game_no
    assert (await humans[0].request({"type": "rematch", "id": "m-2"}))["type"] == "ack"
    table = await settle(server, code, humans.values())
    assert table.phase is Phase.PLAYING and table.game_no == game_no + 1
    assert humans[0].view is not None and humans[0].view["rematch_requests"] == []
    for client in humans.values():
        await client.close()


# ---------------------------------------------------------------- public tables


async def test_public_tables_in_their_lobbies_are_listed_newest_first(server: Server) -> None:
    first = await _create(server, {"name": "Ann", "settings": {"players": 3, "public": True}})
    await server.clock.advance(1)
    await _create(server, {"name": "Bob", "settings": {"players": 3}})  # private
    await server.clock.advance(1)
    second = await _create(server, {"name": "Cy", "settings": {"players": 4, "public": True}, "bots": ["easy"]})
    await server.clock.advance(1)
    full = await _create(server, {"name": "Di", "settings": {"players": 2, "public": True}, "bots": ["easy"]})
    async with server.http() as http:
        listed = (await http.get("/api/tables")).json()["tables"]
        assert [table["code"] for table in listed] == [second["code"], first["code"]]  # (a full table is not)
        assert listed[0] == {"code": second["code"], "host": "Cy", "seats": 4, "taken": 2,
                             "settings": server.table(second["code"]).settings_view()}
        assert listed[0]["settings"]["public"] is True
        assert full["code"] not in {table["code"] for table in listed}
        await server.join(first["code"], "Eve")
        await server.join(first["code"], "Fay")  # full now
        listed = (await http.get("/api/tables")).json()["tables"]
        assert [table["code"] for table in listed] == [second["code"]]
        host = await Client.connect(server, second["code"], second["token"], "cy")
        await host.first_state()
        await host.host("add_bot", level="easy")
        await host.host("add_bot", level="easy")
        assert (await host.host("start"))["type"] == "ack"
        await settle(server, second["code"], [host])
        assert (await http.get("/api/tables")).json() == {"tables": []}  # playing: no longer waiting
        await host.close()
        refused = await http.post("/api/tables", json={"name": "Gus", "settings": {"public": "yes"}})
        assert refused.status_code == 400
        assert refused.json()["detail"] == {"code": "bad_settings",
                                            "message": "Choose whether the table is public: yes or no"}


async def test_a_closed_lobby_is_not_listed_and_the_list_holds_50(server: Server) -> None:
    created = await _create(server, {"name": "Ann", "settings": {"players": 2, "public": True}})
    ann = await Client.connect(server, created["code"], created["token"], "ann")
    await ann.first_state()
    assert (await ann.request({"type": "leave", "id": "l-1"}))["type"] == "ack"
    await settle(server, created["code"], [ann])
    await ann.close()
    async with server.http() as http:
        assert (await http.get("/api/tables")).json() == {"tables": []}
        for number in range(52):
            await _create(server, {"name": f"P{number}", "settings": {"players": 2, "public": True}})
            await server.clock.advance(1)
        listed = (await http.get("/api/tables")).json()["tables"]
    assert len(listed) == 50 and listed[0]["host"] == "P51" and listed[-1]["host"] == "P2"


async def test_the_public_list_is_counted_as_a_lookup(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", limits=Limits(lookup="2/minute")) as server, server.http() as http:
        assert (await http.get("/api/tables")).status_code == 200
        assert (await http.get("/api/tables")).status_code == 200
        refused = await http.get("/api/tables")
        assert refused.status_code == 429 and refused.json()["detail"]["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1


async def test_a_restarted_server_lists_the_same_public_tables(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db") as server:
        created = await _create(server, {"name": "Ann", "settings": {"players": 3, "public": True}})
    async with running_server(tmp_path / "t.db") as server, server.http() as http:
        listed = (await http.get("/api/tables")).json()["tables"]
        assert [table["code"] for table in listed] == [created["code"]]


async def test_a_kicked_connection_chats_as_a_spectator(server: Server) -> None:
    code, (ann, bob) = await _lobby(server, "Bob")
    assert (await ann.host("remove", seat=1))["type"] == "ack"
    await bob.wait_for(lambda: any(frame.get("code") == "kicked" for frame in bob.frames), "the kick")
    assert (await _say(bob, "bye"))["type"] == "ack"
    await settle(server, code, [ann, bob])
    assert ann.view is not None
    assert (ann.view["chat"][-1]["seat"], ann.view["chat"][-1]["name"]) == (None, "Spectator")
    await ann.close()
    await bob.close()


def _bad_social(rng: random.Random, number: int) -> dict[str, Any]:
    """A chat, reaction or mute message that must be refused (by its shape, its text, or who sends it)."""
    mid = f"bad-{number}"
    kind = rng.randrange(4)
    if kind == 0:
        text = rng.choice(["", "   ", "x" * 201, "a\nb", "\u202eevil", "zero\u200bwidth", "\x00", "\u3164", "tab\there",
                           "\u2028", "\ue000", 7, None, ["hi"], {"text": "hi"}, True])
        return {"type": "chat", "id": mid, "text": text}
    if kind == 1:
        return {"type": "react", "id": mid, "emoji": rng.choice(["💩", "", "👍👍", "<b>", 1, None, "😀"])}
    if kind == 2:
        return {"type": rng.choice(["chat", "react"]), "id": mid, rng.choice(["seat", "name", "token"]): "x",
                "text": "hi", "emoji": "👍"}
    return {"type": "host", "id": mid, "command": rng.choice(["mute", "unmute"]),
            "seat": rng.choice([-1, 6, "1", 0, 2, 3, None, 1.5])}


async def test_bad_chat_reactions_and_mutes_each_get_an_error_and_change_nothing(server: Server) -> None:
    code, humans, _, observers = await open_game(server, humans=2, bots=["easy", "easy"], spectators=1,
                                                 settings={"turn_seconds": 600.0})
    clients = [*humans.values(), *observers]
    table = await settle(server, code, clients)
    before = (table.version, list(table.chat), table.muted)
    rng = random.Random(16)
    codes = set()
    for client in clients:
        for number in range(150):
            message = _bad_social(rng, number)
            answer = await client.request(message)
            assert answer["type"] == "error", (message, answer)
            assert answer["code"] not in ("server_error", "storage"), (message, answer)
            assert "Traceback" not in answer["message"]
            codes.add(answer["code"])
    table = await settle(server, code, clients)
    assert (table.version, list(table.chat), table.muted) == before
    assert {"bad_request", "bad_message", "not_host", "spectator"} <= codes, codes
