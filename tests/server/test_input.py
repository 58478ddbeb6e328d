"""Hostile input that passes the basic checks: deep nesting, extra action fields, names, one seat per client, kicks."""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest

from royal_revenge.engine import state_digest
from royal_revenge.server.protocol import ProtocolError, message_id_of, parse_client_message
from royal_revenge.session import Table

from .conftest import Client, Driver, Server, open_game, settle

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


def _fingerprint(table: Table) -> tuple[int, int, str, list[str]]:
    assert table.game is not None
    return (table.version, len(table.moves), state_digest(table.game.state),
            [f"{s.kind.value}:{s.name}:{s.autopilot}:{s.timeouts}" for s in table.seats])


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


def _deep(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "array" else ('{"":' * depth + "1" + "}" * depth)


# ---------------------------------------------------------------- defect 4: deep nesting


async def test_deeply_nested_messages_are_refused_in_plain_words_and_log_nothing(
        server: Server, caplog: pytest.LogCaptureFixture) -> None:
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy"])
    me = humans[0]
    table = await _my_turn(server, code, me)
    before = _fingerprint(table)
    messages: list[str] = []
    for kind, depths in (("array", (9, 1000, 1950)), ("object", (9, 300, 780))):
        for depth in depths:
            deep = _deep(depth, kind)
            messages += [
                deep,  # the whole message
                json.dumps({"type": "action", "id": "d1", "action": {"type": "draw"}})[:-1] + f', "x": {deep}}}',
                '{"type": "action", "id": "d2", "action": ' + deep + "}",
                '{"type": "action", "id": "d3", "action": {"type": "play", "card": ' + deep + "}}",
                '{"type": "action", "id": "d4", "action": {"type": "draw", "extra": ' + deep + "}}",
                '{"type": "ping", "id": "d5", "unknown": ' + deep + "}",
                '{"type": "host", "id": "d6", "command": "start", "seat": ' + deep + "}",
                '{"unknown": ' + deep + ', "type": "sync"}',
            ]
    assert all(len(message.encode()) <= 4096 for message in messages)  # under the size limit: depth is the problem
    caplog.set_level(logging.INFO)
    start = len(me.frames)
    for message in messages:
        await me.send_raw(message)
    await me.send_raw(json.dumps({"type": "ping", "id": "after"}))
    await me.wait_for(lambda: {"type": "pong", "id": "after"} in me.frames[start:], "the pong")
    answers = [frame for frame in me.frames[start:] if frame["type"] == "error"]
    assert len(answers) == len(messages)
    for answer in answers:
        assert answer["code"] in ("bad_message", "bad_json"), answer
        assert answer["message"] == "a message must not nest objects and arrays more than 8 levels deep", answer
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not [record for record in caplog.records if record.exc_info]
    table = await settle(server, code, [me])
    assert _fingerprint(table) == before
    assert me.view is not None and (await me.act(me.view["legal"][0]))["type"] == "ack"  # the seat still plays


def test_the_depth_limit_counts_brackets_outside_strings_only() -> None:
    brackets = "[[[[{{{{" * 40  # in a string: no nesting at all
    message = parse_client_message(json.dumps({"type": "action", "id": "s1", "action": {"type": "play",
                                                                                       "card": brackets}}))
    assert message.action == {"type": "play", "card": brackets}  # type: ignore[union-attr]
    assert message_id_of(json.dumps({"type": "ping", "id": "s2", "x": brackets + '\\"]'})) == "s2"
    eight = '{"type": "ping", "id": "s3", "x": ' + "[" * 7 + "]" * 7 + "}"
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(eight)
    assert refused.value.code == "bad_message" and "unknown field" in str(refused.value)  # the schema's refusal
    nine = eight.replace("[" * 7, "[" * 8).replace("]" * 7, "]" * 8)
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(nine)
    assert str(refused.value) == "a message must not nest objects and arrays more than 8 levels deep"
    assert message_id_of(nine) is None and message_id_of('{"id": "x", "a": ' + "[" * 3000 + "}") is None


# ---------------------------------------------------------------- defect 5: extra fields inside an action


async def test_an_action_with_a_field_its_form_does_not_have_is_refused(server: Server) -> None:
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"])
    me = humans[0]
    table = await _my_turn(server, code, me)
    assert me.view is not None and {"type": "draw"} in me.view["legal"]
    before = _fingerprint(table)
    for action, message in (({"type": "draw", "seat": 2}, "a draw action has no field 'seat'"),
                            ({**me.view["legal"][0], "as": "host"}, "has no field 'as'")):
        answer = await me.act(action)
        assert answer["type"] == "error" and answer["code"] == "bad_action", answer
        assert message in answer["message"]
        table = await settle(server, code, [me])
        assert _fingerprint(table) == before
    assert (await me.act({"type": "draw"}))["type"] == "ack"  # the plain form is still the seat's own draw


# ---------------------------------------------------------------- defect 6: names, one seat per client, kicks


def _plain_words(detail: dict[str, str]) -> None:
    """No pydantic wording, no field path, no traceback, nothing of the input's internals."""
    message = detail["message"]
    for leak in ("String should", "Input should", "body", "name:", "Traceback", "loc", "msg", "R-"):
        assert leak not in message, message


@pytest.mark.parametrize(("name", "code", "message"), [
    ("", "bad_request", "Please enter your name"),
    ("x" * 25, "bad_request", "A name may have at most 24 characters"),
    ("  ", "bad_request", "Please enter your name"),
    ("Bob\u200b", "bad_request", "A name must not contain invisible or control characters"),
    ("\u202eboB", "bad_request", "A name must not contain invisible or control characters"),
    ("Easy bot 3", "bad_request", "Easy bot 3 is a name kept for the table's bots; choose another name"),
    ("ANN", "name_taken", "Ann is already at this table; choose another name"),
    (5, "bad_request", "Please enter your name"),
    (None, "bad_request", "Please enter your name"),
], ids=repr)
async def test_a_bad_name_is_refused_in_plain_words_over_http(server: Server, name: Any, code: str,
                                                              message: str) -> None:
    info = await server.create_table("Ann", settings={"players": 3})
    before = server.table(info["code"]).to_json()
    async with server.http() as http:
        for path in ("/api/tables", f"/api/tables/{info['code']}/join"):
            if code == "name_taken" and path == "/api/tables":
                continue  # a new table has nobody to share a name with
            response = await http.post(path, json={"name": name})
            assert 400 <= response.status_code < 500, response.text
            detail = response.json()["detail"]
            assert detail == {"code": code, "message": message}
            _plain_words(detail)
    assert server.table(info["code"]).to_json() == before
    assert len(server.hub._live) == 1  # no table was made


async def test_other_bad_request_bodies_are_answered_in_plain_words(server: Server) -> None:
    cases: list[tuple[Any, str]] = [
        (b"{", "the request body is not valid JSON"),
        (b"[]", "the request body must be a JSON object"),
        (b"", "the request body must be a JSON object"),
        ({}, "Please enter your name"),
        ({"name": "A", "extra": 1}, "the request has a field it does not take: 'extra'"),
        ({"name": "A", "age": 1.5}, "An age must be a whole number from 0 to 150, or left empty"),
        ({"name": "A", "age": -1}, "An age must be a whole number from 0 to 150, or left empty"),
        ({"name": "A", "settings": []}, "The table's settings did not arrive in a form the server reads"),
        ({"name": "A", "bots": ["genius"]},
         "Choose each bot's level (easy, normal, hard or expert) or leave the seat open for a friend "
         "(at most 5 seats)"),
    ]
    async with server.http() as http:
        for body, message in cases:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            response = await http.post("/api/tables", content=content, headers={"content-type": "application/json"})
            assert response.status_code == 422, response.text
            assert response.json()["detail"] == {"code": "bad_request", "message": message}


async def test_one_client_takes_one_seat_at_a_table(server: Server) -> None:
    async with server.http() as browser:  # one cookie jar, as a browser has
        created = await browser.post("/api/tables", json={"name": "Ann", "settings": {"players": 4}})
        assert created.status_code == 201
        cookie = created.headers["set-cookie"]
        assert "rr_client=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict",
                                                                                                       "strict")
        assert "Path=/api/tables" in cookie
        code = created.json()["code"]
        before = server.table(code).to_json()
        for name in ("Bob", "Cy"):
            refused = await browser.post(f"/api/tables/{code}/join", json={"name": name})
            assert refused.status_code == 409
            assert refused.json()["detail"] == {
                "code": "already_seated",
                "message": "You already have a seat at this table, as Ann; each person may take one seat"}
        assert server.table(code).to_json() == before
        # The same browser may sit at another table.
        elsewhere = await server.create_table("Zed", settings={"players": 2})
        joined = await browser.post(f"/api/tables/{elsewhere['code']}/join", json={"name": "Ann"})
        assert joined.status_code == 200 and joined.json()["seat"] == 1
    # Friends on the same address (all of these come from 127.0.0.1), each with a browser of their own, sit down.
    for name in ("Bob", "Cy", "Di"):
        async with server.http() as friend:
            assert (await friend.post(f"/api/tables/{code}/join", json={"name": name})).status_code == 200
    assert [seat.name for seat in server.table(code).seats] == ["Ann", "Bob", "Cy", "Di"]


async def test_a_malformed_client_cookie_is_replaced(server: Server) -> None:
    async with server.http() as http:
        http.cookies.set("rr_client", "x" * 5000, domain="127.0.0.1", path="/api/tables")
        response = await http.post("/api/tables", json={"name": "Ann"})
        assert response.status_code == 201
        assert response.cookies["rr_client"] != "x" * 5000 and len(response.cookies["rr_client"]) == 32


async def test_a_host_may_hand_a_seat_to_a_bot_only_once_its_player_has_left(server: Server) -> None:
    code, humans, _, _ = await open_game(server, humans=3, bots=[])
    host, bob, cy = humans[0], humans[1], humans[2]
    table = await settle(server, code, humans.values())
    before = _fingerprint(table)
    refused = await host.host("remove", seat=1)
    assert refused["type"] == "error" and refused["code"] == "still_playing"
    assert refused["message"] == ("Person1 is still playing; a seat can be handed to a bot only when its player "
                                  "has left or timed out")
    table = await settle(server, code, humans.values())
    assert _fingerprint(table) == before
    await cy.close()
    for _ in range(100):
        if not server.table(code).seats[2].connected:
            break
        await settle(server, code, [host, bob])
    answer = await host.host("remove", seat=2)
    assert answer["type"] == "ack", answer
    table = await settle(server, code, [host, bob])
    assert (table.seats[2].kind.value, table.seats[2].name) == ("bot", "Normal bot 3")
