"""End-to-end games over real WebSockets: scripted people, bots, reconnects, the King out of turn,
fanfares during a pending decision, timeouts and autopilot."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from royal_revenge.engine import Decision, GameRecord
from royal_revenge.session import Phase, Table

from .conftest import Client, Driver, Server, open_game, settle, step_clock

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_whole_game_two_people_two_bots_and_a_spectator(server: Server) -> None:
    code, humans, _, observers = await open_game(server, humans=2, bots=["easy", "normal"], spectators=1)
    driver = Driver(server, code, humans, random.Random(1), observers=observers)
    table = await driver.run()
    assert table.phase is Phase.FINISHED
    assert driver.actions > 0
    for client in [*humans.values(), *observers]:
        assert client.view is not None and client.view["phase"] == "finished"
        assert client.version == table.version
    async with server.http() as http:
        response = await http.get(f"/api/tables/{code}/record")
    assert response.status_code == 200
    record = GameRecord.loads(response.text)
    assert record.replay() == table.game.state  # type: ignore[union-attr]


async def _play_until(driver: Driver, condition: Callable[[Table], bool], max_games: int = 30) -> Table:
    """Drive the game (rematches included) until ``condition(table)`` holds after a settle."""
    server, code = driver.server, driver.code
    host = driver.humans[0]
    for _ in range(max_games):
        while True:
            table = await settle(server, code, driver.clients)
            if table.phase is Phase.PLAYING and condition(table):
                return table
            if not await driver.step():
                break
        assert (await host.host("rematch"))["type"] == "ack"
    raise AssertionError("the situation never came up")


async def test_reconnect_mid_turn_gets_a_full_snapshot_and_continues(server: Server) -> None:
    code, humans, tokens, _ = await open_game(server, humans=1, bots=["easy", "normal"], ages=[6])
    driver = Driver(server, code, humans, random.Random(5), think=0)

    def my_turn(table: Table) -> bool:
        assert table.game is not None
        state = table.game.state
        return state.decider == 0 and state.decision is Decision.TURN and len(table.moves) > 8

    table = await _play_until(driver, my_turn)
    old = humans[0]
    assert old.view is not None
    before = old.view
    await old.close()
    table = await settle(server, code)
    assert not table.seats[0].connected
    new = await Client.connect(server, code, tokens[0], "p0-again")
    view = await new.first_state()
    table = await settle(server, code, [new])
    assert new.frames[0]["type"] == "state"  # a full snapshot first
    assert view["you"] == 0 and table.seats[0].connected
    assert view["version"] == before["version"] + 2  # one change for leaving, one for coming back
    for key in ("hand", "discard_pile", "pending", "hand_sizes", "king", "jester", "current", "active_colour"):
        assert view["game"][key] == before["game"][key], key
    assert sorted(view["game"]["hand"]) == sorted(str(card) for card in table.game.state.hands[0])  # type: ignore[union-attr]
    assert view["legal"] == before["legal"] and view["legal"]
    driver.humans[0] = new
    moves, actions = len(table.moves), driver.actions
    table = await driver.run()
    assert table.phase is Phase.FINISHED
    assert driver.actions > actions  # the reconnected client played on (it was its turn)
    assert table.moves[moves].move.startswith("0:") and table.moves[moves].by == "player"


async def test_the_king_decides_out_of_turn(server: Server) -> None:
    """Seat 0 is King (the youngest); seat 1, a person, plays a Wild or King's Choice; seat 0 chooses."""
    code, humans, _, _ = await open_game(server, humans=2, bots=["normal"], ages=[5, 40],
                                         settings={"scepter_min_seconds": 3000, "scepter_max_seconds": 3600})
    king, player = humans[0], humans[1]
    driver = Driver(server, code, humans, random.Random(11), think=0)

    def others_card_awaits_the_king(table: Table) -> bool:
        assert table.game is not None
        state = table.game.state
        return state.decision in (Decision.COLOUR, Decision.VICTIM) and state.decider == 0 and state.resolving == 1

    table = await _play_until(driver, others_card_awaits_the_king)
    assert table.game is not None
    assert table.game.state.king == 0
    assert king.view is not None and player.view is not None
    assert king.view["game"]["pending"]["seat"] == 0 and king.view["game"]["resolving"] == 1
    assert player.view["game"]["pending"]["seat"] == 0
    assert all(action["type"] in ("uno", "catch") for action in player.view["legal"])
    assert {action["type"] for action in king.view["legal"]} <= {"colour", "victim", "uno", "catch"}
    # The player whose card it was may not choose for the King.
    choice = next(action for action in king.view["legal"] if action["type"] in ("colour", "victim"))
    refused = await player.act(choice)
    assert refused["type"] == "error" and refused["code"] == "illegal"
    version = table.version
    assert (await king.act(choice))["type"] == "ack"
    table = await settle(server, code, driver.clients)
    assert table.version == version + 1
    line = player.view["log"][-1]["text"] if player.view["log"] else ""
    assert any(entry["text"].startswith("King Host ") for entry in player.view["log"][-4:]), line
    # And the game goes on to its end.
    table = await driver.run()
    assert table.phase is Phase.FINISHED


async def test_an_action_names_its_game_and_is_refused_in_another(server: Server) -> None:
    """``game`` in an action: the game on screen; in any other game the action is refused (``wrong_game``) and
    nothing changes; a ``game`` that is not a game number is a malformed message."""
    code, humans, _, _ = await open_game(server, humans=2, bots=["normal"], ages=[5, 40],
                                         settings={"scepter_min_seconds": 3000, "scepter_max_seconds": 3600})
    people = list(humans.values())
    table = await settle(server, code, people)
    assert table.game is not None
    mover = next(client for client in people if client.view is not None and client.view["legal"])
    assert mover.view is not None
    action, game_no = mover.view["legal"][0], mover.view["game_no"]
    version = table.version
    refused = await mover.act(action, game=game_no + 1)
    assert refused["type"] == "error" and refused["code"] == "wrong_game", refused
    assert refused["message"] == "That move was meant for the game before this one, so it was not made"
    for bad in (-1, "1", 1.5, True):
        malformed = await mover.act(action, game=bad)
        assert malformed["type"] == "error" and malformed["code"] == "bad_message", (bad, malformed)
    assert (await settle(server, code, people)).version == version
    assert (await mover.act(action, game=game_no))["type"] == "ack"
    assert (await settle(server, code, people)).version > version


async def test_the_new_king_chooses_the_jester_out_of_turn(server: Server) -> None:
    """After a fanfare the seat to the King's left must choose the Jester: a person does it from their socket."""
    code, humans, _, _ = await open_game(server, humans=2, bots=["easy", "easy"], ages=[5, 40],
                                         settings={"scepter_min_seconds": 5, "scepter_max_seconds": 8})
    driver = Driver(server, code, humans, random.Random(2), think=0)

    def jester_for_seat_1(table: Table) -> bool:
        assert table.game is not None
        state = table.game.state
        return state.decision is Decision.JESTER and state.decider == 1 and not state.jester_for_setup

    await _play_until(driver, jester_for_seat_1)
    new_king = humans[1]
    assert new_king.view is not None
    assert new_king.view["game"]["king"] == 1
    assert sorted(a["seat"] for a in new_king.view["legal"] if a["type"] == "jester") == [0, 2, 3]
    refused = await humans[0].act({"type": "jester", "seat": 2})
    assert refused["type"] == "error" and refused["code"] == "illegal"
    assert (await new_king.act({"type": "jester", "seat": 0}))["type"] == "ack"
    table = await settle(server, code, driver.clients)
    assert table.game is not None and table.game.state.jester == 0 and table.deadlines.scepter is not None
    assert (await driver.run()).phase is Phase.FINISHED


async def test_a_fanfare_during_a_pending_choice_waits_for_it(server: Server) -> None:
    """R-KING-3: the scepter sounds while the King chooses a colour or victim; the Crown passes only after."""
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"], ages=[5],
                                         settings={"turn_seconds": 600})
    king = humans[0]
    driver = Driver(server, code, humans, random.Random(4), think=0)

    def king_choosing_with_the_scepter_running(table: Table) -> bool:
        assert table.game is not None
        state = table.game.state
        return (state.decision in (Decision.COLOUR, Decision.VICTIM) and state.decider == 0 == state.king
                and table.deadlines.scepter is not None)

    table = await _play_until(driver, king_choosing_with_the_scepter_running)
    assert king.view is not None
    pending = dict(king.view["game"]["pending"])
    scepter = table.deadlines.scepter
    assert scepter is not None and table.deadlines.decision is not None and scepter < table.deadlines.decision
    assert repr(scepter) not in json.dumps(king.frames)  # nobody is told when the scepter will sound
    await server.clock.advance(scepter - server.clock.now() + 0.5)
    table = await settle(server, code, driver.clients)
    view = king.view
    assert view is not None
    assert view["game"]["fanfare_queued"] is True
    assert view["game"]["king"] == 0 and view["game"]["pending"] == pending  # nothing moved yet
    assert view["log"][-1]["text"] == "FANFARE! The scepter sounds (once the pending choice is made)"
    choice = next(action for action in view["legal"] if action["type"] in ("colour", "victim"))
    assert (await king.act(choice))["type"] == "ack"
    table = await settle(server, code, driver.clients)
    view = king.view
    assert view is not None
    texts = [entry["text"] for entry in view["log"]]
    chosen = max(i for i, text in enumerate(texts) if text.startswith("King Host "))
    crowned = max(i for i, text in enumerate(texts) if text.startswith("The Crown passes to"))
    assert chosen < crowned  # the choice by the old King, then the Crown
    assert view["game"]["king"] == 1 and view["game"]["fanfare_queued"] is False
    assert view["game"]["pending"] == {"kind": "jester", "seat": 1}  # the new King chooses a Jester
    assert (await driver.run()).phase is Phase.FINISHED


async def test_a_timed_out_player_is_replaced_by_a_bot(server: Server) -> None:
    settings = {"turn_seconds": 20, "max_timeouts": 2, "scepter_min_seconds": 3000, "scepter_max_seconds": 3600}
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"], ages=[5], settings=settings)
    me = humans[0]
    clients = [me]

    async def until_mine() -> Table:
        for _ in range(500):
            table = await settle(server, code, clients)
            assert table.phase is Phase.PLAYING and table.game is not None
            if table.game.state.decider == 0:
                return table
            await step_clock(server, code, clients)
        raise AssertionError("seat 0 never had to decide")

    for timeouts in (1, 2):
        table = await until_mine()
        assert me.view is not None and me.view["decision_deadline"] == table.deadlines.decision
        moves = len(table.moves)
        await server.clock.advance(20.5)  # the decision clock runs out
        table = await settle(server, code, clients)
        timed_out = [m for m in table.moves[moves:] if m.move.startswith("0:")]
        assert timed_out and timed_out[0].by == "timeout"
        # The player's frames say that the table decided for them, in words and by a mark.
        assert me.view is not None
        told = [entry for entry in me.view["log"] if entry.get("by") == "timeout"]
        assert len(told) == timeouts and told[-1]["text"].startswith("Time ran out: the table ")
        assert told[-1]["text"].endswith(f"for {'King ' if told[-1]['kind'].endswith('Chosen') else ''}Host")
        assert table.seats[0].timeouts == timeouts
        assert me.view is not None and me.view["seats"][0]["autopilot"] is (timeouts == 2)
    # On autopilot a bot plays the seat at bot speed, with nobody waiting for the decision clock.
    table = await until_mine()
    assert table.deadlines.decision is None and table.deadlines.bot is not None
    moves = len(table.moves)
    await step_clock(server, code, clients)
    table = await settle(server, code, clients)
    assert [m.by for m in table.moves[moves:] if m.move.startswith("0:")][:1] == ["autopilot"]
    assert me.view is not None and any(entry.get("by") == "autopilot" and entry["text"].startswith("On autopilot: ")
                                       for entry in me.view["log"])  # (and the player is told)
    # Until the player acts again.
    table = await until_mine()
    assert me.view is not None and me.view["legal"]
    assert (await me.act(me.view["legal"][0]))["type"] == "ack"
    table = await settle(server, code, clients)
    assert table.seats[0].autopilot is False and table.seats[0].timeouts == 0
    assert me.view["seats"][0]["autopilot"] is False
    assert (await Driver(server, code, humans, random.Random(8)).run()).phase is Phase.FINISHED


async def test_a_player_on_autopilot_takes_the_seat_back_with_back(server: Server) -> None:
    """The bot plays an autopiloted seat at bot speed, so a person who is there says so with ``back``."""
    settings = {"turn_seconds": 20, "max_timeouts": 1, "scepter_min_seconds": 3000, "scepter_max_seconds": 3600}
    code, humans, _, observers = await open_game(server, humans=1, bots=["easy", "easy"], ages=[5],
                                                 settings=settings, spectators=1)
    me, spectator = humans[0], observers[0]
    assert (await me.request({"type": "back", "id": "b-0"}))["type"] == "ack"  # (not on autopilot: no change)
    for _ in range(500):
        table = await settle(server, code, [me])
        assert table.game is not None
        if table.game.state.decider == 0:
            break
        await step_clock(server, code, [me])
    await server.clock.advance(20.5)  # the one decision allowed to time out does
    table = await settle(server, code, [me])
    assert table.seats[0].autopilot and me.view is not None and me.view["seats"][0]["autopilot"] is True
    answer = await me.request({"type": "back", "id": "b-1"})
    assert answer["type"] == "ack"
    table = await settle(server, code, [me])
    assert table.seats[0].autopilot is False and table.seats[0].timeouts == 0
    assert me.view["seats"][0]["autopilot"] is False
    for _ in range(500):  # the next decision of the seat waits for its person, on the decision clock
        table = await settle(server, code, [me])
        assert table.game is not None
        if table.game.state.decider == 0:
            break
        await step_clock(server, code, [me])
    assert table.deadlines.decision is not None and me.view["decision_deadline"] == table.deadlines.decision
    refused = await spectator.request({"type": "back", "id": "b-2"})
    assert refused["type"] == "error" and refused["code"] == "spectator", refused


async def test_a_fanfare_while_a_drawn_card_is_decided_waits_for_the_decision(server: Server) -> None:
    """R-KING-3: a player who drew decides about the drawn card before the Crown moves."""
    code, humans, _, _ = await open_game(server, humans=1, bots=["easy", "easy"], ages=[30],
                                         settings={"turn_seconds": 600})
    me = humans[0]
    driver = Driver(server, code, humans, random.Random(6), think=0)

    def deciding_on_a_drawn_card(table: Table) -> bool:
        assert table.game is not None
        state = table.game.state
        return state.decision is Decision.DRAWN and state.decider == 0 and table.deadlines.scepter is not None

    table = await _play_until(driver, deciding_on_a_drawn_card)
    assert table.game is not None and table.deadlines.scepter is not None
    king = table.game.state.king
    await server.clock.advance(table.deadlines.scepter - server.clock.now() + 0.5)
    table = await settle(server, code, driver.clients)
    assert me.view is not None
    assert me.view["game"]["fanfare_queued"] is True and me.view["game"]["king"] == king
    assert me.view["game"]["pending"] == {"kind": "drawn", "seat": 0} and me.view["game"]["drawn"] is not None
    assert (await me.act({"type": "keep"}))["type"] == "ack"
    table = await settle(server, code, driver.clients)
    assert table.game is not None
    new_king = (king + 1) % 3
    assert me.view["game"]["king"] == new_king and me.view["game"]["fanfare_queued"] is False
    assert me.view["game"]["pending"] == {"kind": "jester", "seat": new_king}
    assert (await driver.run()).phase is Phase.FINISHED


async def test_a_player_gone_past_the_grace_time_is_played_by_a_bot_until_they_return(server: Server) -> None:
    settings = {"turn_seconds": 60, "grace_seconds": 10, "scepter_min_seconds": 3000, "scepter_max_seconds": 3600}
    code, humans, tokens, _ = await open_game(server, humans=2, bots=["easy"], ages=[5, 30], settings=settings)
    driver = Driver(server, code, humans, random.Random(9), think=0)

    def seat_1_to_play(table: Table) -> bool:
        assert table.game is not None
        return table.game.state.decider == 1 and table.game.state.decision is Decision.TURN

    await _play_until(driver, seat_1_to_play)
    await humans[1].close()
    table = await settle(server, code, [humans[0]])
    assert not table.seats[1].connected
    assert table.deadlines.decision is not None and table.deadlines.decision <= server.clock.now() + 10
    moves = len(table.moves)
    await server.clock.advance(10.5)  # the grace time runs out before the 60-second decision clock
    table = await settle(server, code, [humans[0]])
    assert [m.by for m in table.moves[moves:] if m.move.startswith("1:")][:1] == ["timeout"]
    assert table.seats[1].autopilot
    # The game goes on without them, at bot speed.
    del driver.humans[1]
    for _ in range(30):
        if not await driver.step():
            break
    table = await settle(server, code, [humans[0]])
    if table.phase is Phase.PLAYING:
        assert any(m.by == "autopilot" and m.move.startswith("1:") for m in table.moves[moves:])
        back = await Client.connect(server, code, tokens[1], "p1-back")
        view = await back.first_state()
        table = await settle(server, code, [humans[0], back])
        assert view["you"] == 1 and not table.seats[1].autopilot and table.seats[1].connected
        driver.humans[1] = back
    assert (await driver.run()).phase is Phase.FINISHED


async def test_partial_views_merge_to_exactly_the_whole_view(server: Server) -> None:
    # Protocol 2: after the first snapshot a connection gets only what changed (docs/protocol.md); merged,
    # the frames must give every player and spectator exactly the view the table would show them whole.
    code, humans, _, observers = await open_game(server, humans=2, bots=["normal"], spectators=1)
    driver = Driver(server, code, humans, random.Random(11), observers=observers, think=0.1)
    for _ in range(25):
        if not await driver.step():
            break
        table = await settle(server, code, driver.clients)
        # the seats' cached JSON (rebuilt only after a seat changes) is what the seats are now
        assert table.seats_view() == [seat.public() for seat in table.seats]
        assert table.to_json()["seats"] == [seat.to_json() for seat in table.seats]
        for client in driver.clients:
            assert client.view is not None
            seat = client.view["you"]
            assert client.view == table.view(seat), client.name
    for client in driver.clients:
        states = [json.loads(raw) for raw in client.raw if json.loads(raw)["type"] == "state"]
        assert states[0]["full"] is True  # the first frame on a connection is whole
        partial = [state for state in states if not state["full"]]
        assert partial, client.name
        assert not any("settings" in state["view"] for state in partial)  # settings do not change in play
        assert sum("seats" not in state["view"] for state in partial) > len(partial) // 2
        assert max(len(state["view"].get("log", ())) for state in partial) < len(client.view["log"])
    # a sync asks for the whole view again
    client = humans[0]
    count = len(client.raw)
    await client.send_raw(json.dumps({"type": "sync"}))
    await client.wait_for(lambda: len(client.raw) > count, "the answer to sync")
    assert json.loads(client.raw[count])["full"] is True
