"""Seats are protected and resent actions are harmless: tokens, spectators, kicks, idempotency."""

from __future__ import annotations

import random

import pytest

from royal_revenge.engine import state_digest

from .conftest import Client, Driver, Server, open_game, settle, step_clock

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def _until_pending(server: Server, code: str, client: Client, seat: int, others: list[Client]) -> None:
    """Let the bots play until ``seat`` must decide its turn (the client has the view)."""
    for _ in range(500):
        table = await settle(server, code, [client, *others])
        assert table.game is not None
        if table.game.state.decider == seat and client.view and client.view["legal"]:
            return
        await step_clock(server, code, [client, *others])
    raise AssertionError("the seat never had to decide")


async def test_resending_an_action_id_is_acknowledged_but_applied_once(server: Server) -> None:
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"], ages=[7])
    me = humans[0]
    await _until_pending(server, code, me, 0, [])
    assert me.view is not None
    action = me.view["legal"][0]
    first = await me.act(action, "move-1")
    assert first["type"] == "ack" and first["in_state"]  # the change's state frame carried the acknowledgement
    first = {"type": "ack", "id": "move-1", "version": first["version"]}  # repeats change nothing: a plain ack
    table = await settle(server, code, [me])
    version, moves = table.version, len(table.moves)
    assert table.game is not None
    digest = state_digest(table.game.state)
    for _ in range(3):
        again = await me.act(action, "move-1")
        assert again == first  # the same acknowledgement, the same version
    table = await settle(server, code, [me])
    assert table.game is not None
    assert (table.version, len(table.moves), state_digest(table.game.state)) == (version, moves, digest)
    # Still recognised after more moves have happened.
    await _until_pending(server, code, me, 0, [])
    table = await settle(server, code, [me])
    version, moves = table.version, len(table.moves)
    assert await me.act(action, "move-1") == first
    table = await settle(server, code, [me])
    assert (table.version, len(table.moves)) == (version, moves)
    assert [m.client_id for m in table.moves].count("move-1") == 1


async def test_a_wrong_token_is_refused(server: Server) -> None:
    code, _, tokens, _ = await open_game(server, humans=1, bots=["easy"])
    other = await server.create_table("Bob", settings={"players": 2})
    for token in ("nope", "x" * 500, other["token"], tokens[0] + "x", tokens[0].upper()):
        client = await Client.connect(server, code, token, "intruder")
        await client.wait_closed()
        assert [frame["type"] for frame in client.frames] == ["error"]
        assert client.frames[0]["code"] == "bad_token"
        assert client.close_code == 4403
    # And the right token still works.
    client = await Client.connect(server, code, tokens[0], "owner")
    assert (await client.first_state())["you"] == 0


async def test_a_spectator_cannot_act_or_command(server: Server) -> None:
    code, humans, _, observers = await open_game(server, humans=1, bots=["easy"], spectators=1)
    watcher = observers[0]
    view = await watcher.first_state()
    assert view["you"] is None and view["legal"] == [] and view["game"]["hand"] == []
    table = await settle(server, code, [*humans.values(), watcher])
    before = table.version
    answer = await watcher.act({"type": "draw"})
    assert answer["type"] == "error" and answer["code"] == "spectator"
    answer = await watcher.host("rematch")
    assert answer["type"] == "error" and answer["code"] == "spectator"
    table = await settle(server, code, [*humans.values(), watcher])
    assert table.version == before


async def test_no_connection_can_act_for_another_seat(server: Server) -> None:
    code, humans, _, _ = await open_game(server, humans=2, bots=["easy"], ages=[5, 30])
    first, second = humans[0], humans[1]
    for _ in range(50):
        await _until_pending(server, code, first, 0, [second])
        table = await settle(server, code, [first, second])
        assert table.game is not None and first.view is not None
        version, digest = table.version, state_digest(table.game.state)
        for action in first.view["legal"]:  # seat 0's legal actions, sent by seat 1
            answer = await second.act(action)
            if action["type"] == "catch":
                continue  # a catch may be legal for anyone
            assert answer["type"] == "error" and answer["code"] == "illegal", (action, answer)
        # A seat cannot be named in the message.
        answer = await second.request({"type": "action", "id": "x1", "action": first.view["legal"][0], "seat": 0})
        assert answer["type"] == "error" and answer["code"] == "bad_message"
        table = await settle(server, code, [first, second])
        if table.version == version:
            assert table.game is not None and state_digest(table.game.state) == digest
            break
        # a catch was legal and changed the game; try again at the next turn
    else:
        raise AssertionError("no clean turn found")
    # The seat owner can still play.
    assert (await first.act(first.view["legal"][0]))["type"] == "ack"


async def test_host_commands_from_others_are_refused(server: Server) -> None:
    info = await server.create_table("Host", settings={"players": 3})
    code = info["code"]
    guest_info = await server.join(code, "Guest")
    host = await Client.connect(server, code, info["token"], "host")
    guest = await Client.connect(server, code, guest_info["token"], "guest")
    for command, extra in (("add_bot", {"level": "easy"}), ("remove", {"seat": 0}), ("start", {}), ("rematch", {})):
        answer = await guest.host(command, **extra)
        assert answer["type"] == "error" and answer["code"] == "not_host", (command, answer)
    table = await settle(server, code, [host, guest])
    assert [seat.kind.value for seat in table.seats] == ["human", "human", "open"]


async def test_a_kicked_player_in_the_lobby_loses_the_seat(server: Server) -> None:
    info = await server.create_table("Host", settings={"players": 3})
    code = info["code"]
    guest_info = await server.join(code, "Guest")
    host = await Client.connect(server, code, info["token"], "host")
    guest = await Client.connect(server, code, guest_info["token"], "guest")
    await guest.first_state()
    assert (await host.host("remove", seat=guest_info["seat"]))["type"] == "ack"
    answer = await guest.host("add_bot", level="easy")
    assert answer["type"] == "error"
    again = await Client.connect(server, code, guest_info["token"], "guest-again")
    await again.wait_closed()
    assert again.frames[0]["code"] == "bad_token" and again.close_code == 4403
    # Somebody else takes the freed seat: the kicked connection must not see their view.
    newcomer = await server.join(code, "Newcomer")
    assert newcomer["seat"] == guest_info["seat"]
    fresh = await Client.connect(server, code, newcomer["token"], "newcomer")
    await fresh.first_state()
    await settle(server, code, [host, fresh])
    for frame in guest.frames:
        if frame["type"] == "state" and frame["view"]["seats"][guest_info["seat"]]["name"] == "Newcomer":
            assert frame["view"]["you"] is None, "the kicked connection still speaks for the seat"
    assert any(frame.get("code") == "kicked" for frame in guest.frames)
    # When the kicked connection goes, the newcomer stays connected.
    await guest.close()
    table = await settle(server, code, [host, fresh])
    assert table.seats[guest_info["seat"]].connected


async def test_a_kicked_player_in_play_loses_the_seat_and_its_cards(server: Server) -> None:
    code, humans, tokens, _ = await open_game(server, humans=2, bots=["easy"], ages=[5, 30])
    host, guest = humans[0], humans[1]
    driver = Driver(server, code, humans, random.Random(3), think=0)
    for _ in range(6):
        await driver.step()
    table = await settle(server, code, [host, guest])
    refused = await host.host("remove", seat=1)  # (a seat goes to a bot only once its player has left or timed out)
    assert refused["type"] == "error" and refused["code"] == "still_playing", refused
    # The guest sits still until a decision of theirs times out; they stay connected, and can be kicked now.
    waiting = Driver(server, code, {0: host}, random.Random(4), think=0, observers=[guest])
    while not table.seats[1].timeouts:
        assert await waiting.step()
        table = await settle(server, code, [host, guest])
    assert table.seats[1].connected
    assert (await host.host("remove", seat=1))["type"] == "ack"
    table = await settle(server, code, [host, guest])
    assert table.seats[1].kind.value == "bot"
    kicked_at = len(guest.frames)
    answer = await guest.act({"type": "draw"})
    assert answer["type"] == "error" and answer["code"] == "bad_token"
    again = await Client.connect(server, code, tokens[1], "guest-again")
    await again.wait_closed()
    assert again.frames[0]["code"] == "bad_token"
    # The game goes on with a bot in seat 1; the kicked connection sees no hand any more.
    del driver.humans[1]
    await driver.run()
    assert any(frame.get("code") == "kicked" for frame in guest.frames)
    for frame in guest.frames[kicked_at:]:
        if frame["type"] == "state":
            assert frame["view"]["you"] is None and frame["view"]["game"]["hand"] == [], frame["view"]["you"]
