"""What a table does for the people around it besides the game: seats chosen for bots, chat and reactions,
muting, leaving, rematch requests and public tables (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest

from royal_revenge.bots import RandomAgent
from royal_revenge.session import Phase, SeatKind, Table, TableError, TableSettings


def _table(players: int = 4, **settings: Any) -> Table:
    return Table.open(TableSettings(players=players, single_round=True, **settings), seed=7,
                      agent_factory=lambda level, seed: RandomAgent(seed))


def _refused(table: Table, code: str, message: str, operation: Any) -> None:
    """``operation`` is refused with ``code`` and exactly ``message``, and the table is as it was."""
    before = (table.version, [seat.to_json() for seat in table.seats], table.host, table.phase, table.to_json())
    with pytest.raises(TableError) as refused:
        operation()
    assert (refused.value.code, str(refused.value)) == (code, message)
    assert (table.version, [seat.to_json() for seat in table.seats], table.host, table.phase,
            table.to_json()) == before


# ---------------------------------------------------------------- bots in chosen seats


def test_a_bot_takes_the_seat_the_host_chose() -> None:
    table = _table()
    _, host = table.join("Ann", None, 0.0)
    assert table.add_bot(host, "hard", 1.0, seat=2) == 2
    assert [seat.kind for seat in table.seats] == [SeatKind.HUMAN, SeatKind.OPEN, SeatKind.BOT, SeatKind.OPEN]
    assert table.seats[2].name == "Hard bot 3"
    assert table.join("Bob", None, 2.0)[0] == 1  # a friend takes the open seat kept for them
    assert table.add_bot(host, "easy", 3.0) == 3  # without a seat: the first open one


def test_a_bot_is_refused_a_seat_that_is_taken_or_missing() -> None:
    table = _table()
    _, host = table.join("Ann", None, 0.0)
    table.join("Bob", None, 0.0)
    _refused(table, "bad_request", "Bob already sits there: choose an open seat",
             lambda: table.add_bot(host, "easy", 1.0, seat=1))
    _refused(table, "bad_request", "Ann already sits there: choose an open seat",
             lambda: table.add_bot(host, "easy", 1.0, seat=0))
    _refused(table, "bad_request", "This table has 4 seats: choose one of them",
             lambda: table.add_bot(host, "easy", 1.0, seat=4))


# ---------------------------------------------------------------- chat and reactions


def _lobby(people: int = 2, players: int = 4) -> tuple[Table, list[str]]:
    table = _table(players)
    tokens = [table.join(name, None, 0.0)[1] for name in ["Ann", "Bob", "Cy", "Di"][:people]]
    return table, tokens


def test_chat_lines_are_kept_in_the_view_with_who_said_them() -> None:
    table, (ann, bob) = _lobby()
    version = table.version
    table.say(ann, "  hi <b>all</b>  ", 5.0)
    table.react(bob, "👏", 6.0)
    table.say(None, "go Ann", 7.0)
    table.say(None, "me too", 8.0, spectator="Zed")
    table.say(None, "I am Bob", 9.0, spectator="bob")
    assert table.version == version + 5
    assert table.view(None)["chat"] == [
        {"n": 1, "seat": 0, "name": "Ann", "text": "hi <b>all</b>", "at": 5.0, "kind": "chat"},
        {"n": 2, "seat": 1, "name": "Bob", "text": "👏", "at": 6.0, "kind": "reaction"},
        {"n": 3, "seat": None, "name": "Spectator", "text": "go Ann", "at": 7.0, "kind": "chat"},
        {"n": 4, "seat": None, "name": "Zed", "text": "me too", "at": 8.0, "kind": "chat"},
        {"n": 5, "seat": None, "name": "bob (watching)", "text": "I am Bob", "at": 9.0, "kind": "chat"},
    ]
    assert table.view(0)["chat"] == table.view(None)["chat"]


def test_a_chat_line_leaves_every_clock_alone() -> None:
    table, (ann, bob) = _lobby(2, players=2)
    table.start(ann, 0.0)
    deadlines, changed_at = repr(table.deadlines), table.changed_at
    table.say(bob, "good luck", 10.0)
    assert repr(table.deadlines) == deadlines and table.changed_at == changed_at


def test_the_table_keeps_the_last_50_lines() -> None:
    table, (ann, _) = _lobby()
    for number in range(60):
        table.say(ann, f"line {number}", float(number))
    chat = table.view(None)["chat"]
    assert len(chat) == 50 and chat[0]["text"] == "line 10" and chat[-1]["n"] == 60


@pytest.mark.parametrize(("text", "message"), [
    ("", "Write something before sending"),
    ("   ", "Write something before sending"),
    ("x" * 201, "A chat message can have at most 200 characters"),
    ("hi\u200b", "A chat message must not contain invisible or control characters (nor line breaks)"),
    ("\u202eevil", "A chat message must not contain invisible or control characters (nor line breaks)"),
    ("one\ntwo", "A chat message must not contain invisible or control characters (nor line breaks)"),
    ("a\x00b", "A chat message must not contain invisible or control characters (nor line breaks)"),
    ("\u3164", "A chat message must not contain invisible or control characters (nor line breaks)"),
], ids=repr)
def test_a_chat_line_must_be_plain_text_of_1_to_200_characters(text: str, message: str) -> None:
    table, (ann, _) = _lobby()
    _refused(table, "bad_request", message, lambda: table.say(ann, text, 1.0))


def test_200_characters_are_allowed_and_markup_is_kept_as_text() -> None:
    table, (ann, _) = _lobby()
    table.say(ann, "x" * 200, 1.0)
    table.say(ann, "<script>alert(1)</script>", 2.0)
    assert [line["text"] for line in table.chat] == ["x" * 200, "<script>alert(1)</script>"]


def test_a_reaction_is_one_of_eight() -> None:
    from royal_revenge.session.table import REACTIONS

    assert REACTIONS == ("👍", "👏", "😂", "😮", "😡", "👑", "🃏", "🎉")
    table, (ann, _) = _lobby()
    _refused(table, "bad_request", "Choose one of the reactions: 👍 👏 😂 😮 😡 👑 🃏 🎉",
             lambda: table.react(ann, "💩", 1.0))


def test_the_host_mutes_and_unmutes_a_person() -> None:
    table, (ann, bob, _) = _lobby(3)
    table.mute(ann, 1, True, 1.0)
    assert table.view(None)["muted"] == [1]
    _refused(table, "muted", "The host has muted you", lambda: table.say(bob, "hey", 2.0))
    _refused(table, "muted", "The host has muted you", lambda: table.react(bob, "😡", 2.0))
    version = table.version
    table.mute(ann, 1, True, 3.0)  # muted already: nothing changes
    assert table.version == version
    table.mute(ann, 1, False, 4.0)
    assert table.view(None)["muted"] == []
    table.say(bob, "thanks", 5.0)


def test_only_the_host_mutes_and_only_people() -> None:
    table, (ann, bob) = _lobby(2)
    table.add_bot(ann, "easy", 0.0)
    _refused(table, "not_host", "Only the host, Ann, can do that", lambda: table.mute(bob, 0, True, 1.0))
    _refused(table, "bad_request", "You cannot mute yourself", lambda: table.mute(ann, 0, True, 1.0))
    _refused(table, "bad_request", "Only a person at the table can be muted", lambda: table.mute(ann, 2, True, 1.0))
    _refused(table, "bad_request", "Nobody sits there", lambda: table.mute(ann, 3, True, 1.0))
    _refused(table, "bad_request", "This table has 4 seats: choose one of them", lambda: table.mute(ann, 9, True, 1.0))


def test_a_new_person_in_a_muted_seat_is_not_muted() -> None:
    table, (ann, _bob) = _lobby(2)
    table.mute(ann, 1, True, 1.0)
    table.remove(ann, 1, 2.0)
    _, cy = table.join("Cy", None, 3.0)
    assert table.view(None)["muted"] == []
    table.say(cy, "hello", 4.0)


# ---------------------------------------------------------------- leaving


def test_leaving_the_lobby_opens_the_seat_and_the_token_stops_working() -> None:
    table, (_ann, bob) = _lobby(2)
    table.leave(bob, 1.0)
    assert table.seats[1].kind is SeatKind.OPEN and table.host == 0
    with pytest.raises(TableError) as refused:
        table.say(bob, "still here?", 2.0)
    assert refused.value.code == "bad_token"


def test_a_host_who_leaves_hands_the_role_to_the_next_person_seated() -> None:
    table, (ann, bob, cy) = _lobby(3)
    table.add_bot(ann, "easy", 0.0)
    table.leave(ann, 1.0)
    assert table.host == 1
    table.leave(bob, 2.0)
    assert table.host == 2 and not table.closed
    table.add_bot(cy, "easy", 3.0)
    table.add_bot(cy, "easy", 3.0)
    table.start(cy, 3.0)  # the new host may start


def test_a_lobby_nobody_is_left_in_is_closed() -> None:
    table, (ann,) = _lobby(1)
    table.add_bot(ann, "easy", 0.0)
    table.leave(ann, 1.0)
    assert table.closed and table.host is None and table.view(None)["closed"] is True
    assert table.stored_phase == "closed"
    _refused(table, "wrong_phase", "Everyone left this table, so it is closed; open a new table",
             lambda: table.join("Bob", None, 2.0))


def test_leaving_a_game_hands_the_seat_to_a_bot_for_good() -> None:
    table, (ann, _bob) = _lobby(2, players=3)
    table.add_bot(ann, "easy", 0.0)
    table.start(ann, 1.0)
    table.leave(ann, 2.0)
    assert table.seats[0].kind is SeatKind.BOT and table.seats[0].name == "Normal bot 1"
    assert table.host == 1 and table.phase is Phase.PLAYING
    assert table.next_deadline() is not None
    with pytest.raises(TableError):
        table.act(ann, {"type": "draw"}, 3.0)


# ---------------------------------------------------------------- rematch requests


def _finished(people: int = 3) -> tuple[Table, list[str]]:
    table, tokens = _lobby(people, players=people)
    table.start(tokens[0], 0.0)
    now = 0.0
    while table.phase is Phase.PLAYING:  # (nobody acts: the table plays for them when their time runs out)
        deadline = table.next_deadline()
        assert deadline is not None
        now = deadline
        table.tick(now)
    return table, tokens


def test_everyone_may_ask_for_a_rematch_and_all_asking_starts_it() -> None:
    table, (ann, bob, cy) = _finished()
    game_no = table.game_no
    table.ask_rematch(bob, 1e6)
    version = table.version
    table.ask_rematch(bob, 1e6)  # asked already: nothing changes
    assert table.version == version and table.view(None)["rematch_requests"] == [1]
    table.ask_rematch(cy, 1e6)
    assert table.view(None)["rematch_requests"] == [1, 2] and table.phase is Phase.FINISHED
    table.ask_rematch(ann, 1e6 + 1)  # the host's own asking starts it
    assert table.phase is Phase.PLAYING and table.game_no == game_no + 1
    assert table.view(None)["rematch_requests"] == []


def test_the_rematch_starts_when_every_person_asked() -> None:
    table, (ann, bob) = _finished(2)
    table.ask_rematch(bob, 1e6)
    assert table.phase is Phase.FINISHED
    table.rematch(ann, 1e6)  # the host's command, as before
    assert table.phase is Phase.PLAYING


def test_a_host_who_left_leaves_the_rematch_to_the_others() -> None:
    table, (ann, bob, cy) = _finished()
    table.leave(ann, 1e6)  # the host leaves: Bob is host now, a bot has Ann's seat
    assert table.host == 1
    table.ask_rematch(cy, 1e6)
    assert table.phase is Phase.FINISHED
    table.ask_rematch(bob, 1e6)
    assert table.phase is Phase.PLAYING


def test_the_rematch_does_not_wait_for_a_host_who_has_gone_away() -> None:
    table, (_ann, bob, cy) = _finished()
    for seat in (1, 2):
        table.set_connected(seat, True, 1e6)  # Ann (the host) is away
    table.ask_rematch(bob, 1e6)
    assert table.phase is Phase.FINISHED and table.rematch_requests == [1]
    table.ask_rematch(cy, 1e6)  # everyone at the table asked
    assert table.phase is Phase.PLAYING


def test_a_rematch_request_waits_for_the_end_of_the_game() -> None:
    table, (_ann, bob) = _lobby(2, players=2)
    _refused(table, "wrong_phase", "You can ask for a rematch once the game is over",
             lambda: table.ask_rematch(bob, 1.0))


# ---------------------------------------------------------------- a restart keeps it all


def test_chat_mutes_and_requests_survive_a_restart() -> None:
    import json

    table, (ann, bob, _cy) = _finished()
    table.say(bob, "gg", 1e6)
    table.mute(ann, 2, True, 1e6)
    table.ask_rematch(bob, 1e6)
    row = json.loads(json.dumps(table.to_json()))
    restored = Table.from_json(row, list(table.moves), 2e6, agent_factory=lambda level, seed: RandomAgent(seed))
    for key in ("chat", "muted", "rematch_requests", "closed"):
        assert restored.view(None)[key] == table.view(None)[key], key
    assert restored.view(None)["chat"][0]["text"] == "gg"
    restored.say(ann, "again", 2e6)
    assert restored.view(None)["chat"][-1]["n"] == 2


def test_expert_bots_play_a_table_to_its_end() -> None:
    # The library's own expert bot (the shipped weights), seated by level as the host seats it.
    table = Table.open(TableSettings(players=4, single_round=True), seed=3)
    _, host = table.join("Ann", None, 0.0)
    for _ in range(3):
        table.add_bot(host, "expert", 0.0)
    assert [seat.name for seat in table.seats] == ["Ann", "Expert bot 2", "Expert bot 3", "Expert bot 4"]
    table.start(host, 1.0)
    table.leave(host, 2.0)  # a bot plays Ann's seat too
    now = 2.0
    while table.phase is Phase.PLAYING:
        deadline = table.next_deadline()
        assert deadline is not None
        now = max(now, deadline)
        table.tick(now)
    assert table.phase is not Phase.PLAYING
