"""Hostile input that passes the basic checks: deep nesting, extra action fields, names, one seat per client, kicks."""

from __future__ import annotations

import json
import logging
import random

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
