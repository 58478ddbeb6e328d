"""What a table accepts from people: names, one seat per client, and when a host may hand a seat to a bot."""

from __future__ import annotations

import json
from typing import Any

import pytest

from royal_revenge.bots import RandomAgent
from royal_revenge.session import Phase, SeatKind, Table, TableError, TableSettings


def _table(players: int = 4) -> Table:
    return Table.open(TableSettings(players=players, single_round=True), seed=7,
                      agent_factory=lambda level, seed: RandomAgent(seed))


def _seats(table: Table) -> list[dict[str, Any]]:
    return [seat.to_json() for seat in table.seats]


def _refused(table: Table, code: str, message: str, operation: Any) -> None:
    """``operation`` is refused with ``code`` and exactly ``message``, and the table is as it was."""
    before = (table.version, _seats(table), table.host, table.phase)
    with pytest.raises(TableError) as refused:
        operation()
    assert (refused.value.code, str(refused.value)) == (code, message)
    assert (table.version, _seats(table), table.host, table.phase) == before


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(("given", "shown"), [
    ("  Ann  ", "Ann"), ("Ann\n", "Ann"), ("Mary   Jane", "Mary Jane"), ("Mary\u00a0\u00a0Jane", "Mary Jane"),
    ("Zoë", "Zoë"), ("Zoe\u0308", "Zoë"), ("李小龙", "李小龙"), ("🂡", "🂡"), ("x" * 24, "x" * 24), ("R2-D2", "R2-D2"),
    ("Easybot", "Easybot"), ("Bot 3", "Bot 3"),
], ids=repr)
def test_a_name_is_trimmed_and_its_spaces_collapsed(given: str, shown: str) -> None:
    table = _table()
    seat, _ = table.join(given, None, 0.0)
    assert table.seats[seat].name == shown


@pytest.mark.parametrize(("given", "message"), [
    ("", "Please enter your name"),
    ("   ", "Please enter your name"),
    ("x" * 25, "A name may have at most 24 characters"),
    ("A" + "\u0301" * 30, "A name may have at most 24 characters"),
    ("Ann\u200b", "A name must not contain invisible or control characters"),  # zero-width space (Cf)
    ("\u202eAnn", "A name must not contain invisible or control characters"),  # right-to-left override (Cf)
    ("\u200b", "A name must not contain invisible or control characters"),
    ("An\u00adn", "A name must not contain invisible or control characters"),  # soft hyphen (Cf)
    ("A\tB", "A name must not contain invisible or control characters"),  # (Cc)
    ("A\nB", "A name must not contain invisible or control characters"),
    ("A\x00", "A name must not contain invisible or control characters"),
    ("A\u2028B", "A name must not contain invisible or control characters"),  # line separator (Zl)
    ("A\u2029B", "A name must not contain invisible or control characters"),  # paragraph separator (Zp)
    ("\ue000", "A name must not contain invisible or control characters"),  # private use (Co)
    ("A\U000e0001", "A name must not contain invisible or control characters"),  # language tag (Cf)
    ("A\u0378", "A name must not contain invisible or control characters"),  # unassigned (Cn)
    ("\u3164", "A name must not contain invisible or control characters"),  # Hangul filler: a letter, drawn blank
    ("\u2800", "A name must not contain invisible or control characters"),  # blank Braille pattern
    ("\u0301", "A name must have a letter, a digit or a symbol that can be seen"),
    ("Easy bot 2", "Easy bot 2 is a name kept for the table's bots; choose another name"),
    ("hard  BOT 9", "hard BOT 9 is a name kept for the table's bots; choose another name"),
], ids=repr)  # (a name that is not text: the HTTP layer's test; the compiled table refuses it by its type)
def test_an_unfit_name_is_refused_in_plain_words(given: Any, message: str) -> None:
    table = _table()
    _refused(table, "bad_request", message, lambda: table.join(given, None, 0.0))


@pytest.mark.parametrize("again", ["Ann", "ann", "ANN", " Ann ", "\uff21nn", "Ann\u00a0"], ids=repr)
def test_names_are_unique_at_a_table_whatever_their_case(again: str) -> None:
    table = _table()
    table.join("Ann", None, 0.0)
    _refused(table, "name_taken", "Ann is already at this table; choose another name",
             lambda: table.join(again, None, 0.0))
    assert table.join("Anne", None, 0.0)[0] == 1
    other = _table()
    assert other.join(again, None, 0.0)[0] == 0  # another table: the name is free there


def test_a_bot_never_shares_a_persons_name() -> None:
    table = _table(players=6)
    _, host = table.join("Ann", None, 0.0)
    for index, level in enumerate(("easy", "normal", "hard"), start=1):
        table.add_bot(host, level, 0.0)
        with pytest.raises(TableError, match="kept for the table's bots"):
            table.join(f"{level} bot {index + 2}", None, 0.0)  # the name the next bot will take
    table.join("Bob", None, 0.0)
    names = [seat.name.casefold() for seat in table.seats if seat.kind is not SeatKind.OPEN]
    assert names == ["ann", "easy bot 2", "normal bot 3", "hard bot 4", "bob"]
    with pytest.raises(TableError, match="kept for the table's bots"):
        table.join("Normal bot 3", None, 0.0)


# ---------------------------------------------------------------- one client, one seat


def test_a_client_holding_a_seat_cannot_take_another() -> None:
    table = _table()
    table.join("Ann", None, 0.0, client="browser-1")
    table.join("Bob", None, 0.0, client="browser-2")
    _refused(table, "already_seated", "You already have a seat at this table, as Ann; each person may take one seat",
             lambda: table.join("Cat", None, 0.0, client="browser-1"))
    table.join("Cat", None, 0.0)  # no client id: nothing to compare (a library caller)
    table.join("Dan", None, 0.0, client="browser-3")
    assert [seat.name for seat in table.seats] == ["Ann", "Bob", "Cat", "Dan"]
    # The same client at another table is a newcomer there; and the hash differs from table to table.
    other = _table()
    other.join("Ann", None, 0.0, client="browser-1")
    assert other.seats[0].client_hash not in (None, table.seats[0].client_hash, "browser-1")


def test_the_seat_of_a_client_survives_a_restart_and_a_kick_frees_it() -> None:
    table = _table()
    _, host = table.join("Ann", None, 0.0, client="browser-1")
    table.join("Bob", None, 0.0, client="browser-2")
    restored = Table.from_json(table.to_json(), [], 10.0)
    _refused(restored, "already_seated", "You already have a seat at this table, as Bob; each person may take one seat",
             lambda: restored.join("Bobby", None, 10.0, client="browser-2"))
    restored.remove(host, 1, 10.0)  # in the lobby the host may remove anyone
    assert restored.join("Bobby", None, 10.0, client="browser-2")[0] == 1
    old_row = table.to_json()
    for seat in old_row["seats"]:
        del seat["client_hash"]  # a row saved before seats kept a client
    assert [seat.client_hash for seat in Table.from_json(old_row, [], 10.0).seats] == [None] * 4


# ---------------------------------------------------------------- kicks


def _game(connected: bool = True) -> tuple[Table, str]:
    table = _table(players=3)
    _, host = table.join("Ann", None, 0.0)
    table.join("Bob", None, 0.0)
    table.add_bot(host, "easy", 0.0)
    for seat in (0, 1):
        table.set_connected(seat, True, 0.0)
    table.start(host, 0.0)
    if not connected:
        table.set_connected(1, False, 1.0)
    return table, host


def test_in_the_lobby_the_host_may_remove_anyone() -> None:
    table = _table(players=3)
    _, host = table.join("Ann", None, 0.0)
    table.join("Bob", None, 0.0)
    table.set_connected(1, True, 0.0)
    table.remove(host, 1, 0.0)
    assert table.seats[1].kind is SeatKind.OPEN


def test_in_a_game_a_playing_person_keeps_the_seat() -> None:
    table, host = _game()
    _refused(table, "still_playing",
             "Bob is still playing; a seat can be handed to a bot only when its player has left or timed out",
             lambda: table.remove(host, 1, 2.0))
    table.remove(host, 2, 2.0)  # a bot's seat may be given to another bot
    assert table.seats[2].kind is SeatKind.BOT


def test_in_a_game_a_seat_goes_to_a_bot_once_its_player_has_left() -> None:
    table, host = _game(connected=False)
    table.remove(host, 1, 2.0)
    assert (table.seats[1].kind, table.seats[1].name) == (SeatKind.BOT, "Normal bot 2")


def test_in_a_game_a_seat_goes_to_a_bot_once_its_player_has_timed_out() -> None:
    table, host = _game()
    assert table.game is not None
    for _ in range(200):  # the bots and Ann play (Ann at once); Bob lets his decision time out
        state = table.game.state
        if table.seats[1].timeouts:
            break
        if state.decider == 0:
            table.act(host, table.legal_actions(0)[0], table.next_deadline() or 0.0)
        else:
            deadline = table.next_deadline()
            assert deadline is not None
            table.tick(deadline)
    assert table.seats[1].timeouts and table.seats[1].connected and table.phase is Phase.PLAYING
    table.remove(host, 1, table.next_deadline() or 0.0)
    assert table.seats[1].kind is SeatKind.BOT


def test_a_refused_kick_never_shows_a_seat_number() -> None:
    table = _table(players=3)
    _, host = table.join("Ann", None, 0.0)
    _refused(table, "bad_request", "That seat is already open", lambda: table.remove(host, 1, 0.0))
    _refused(table, "bad_request", "There is no such seat at this table", lambda: table.remove(host, 3, 0.0))


# ---------------------------------------------------------------- message ids across games


def _played_to_the_end(table: Table, tokens: list[str]) -> dict[int, tuple[str, dict[str, Any]]]:
    """Both people play their first legal action, each with a fresh id, until the round ends: each seat's last
    (id, action)."""
    last: dict[int, tuple[str, dict[str, Any]]] = {}
    for number in range(2_000):
        if table.phase is not Phase.PLAYING:
            return last
        seat = next(seat for seat in (0, 1) if table.legal_actions(seat))
        action = table.legal_actions(seat)[0].to_json()
        table.act(tokens[seat], action, 1.0, client_id=f"m-{number}", game_no=table.game_no)
        last[seat] = (f"m-{number}", action)
    raise AssertionError("the round did not end")


def test_an_action_of_the_last_game_resent_after_a_rematch_is_acknowledged_and_not_applied() -> None:
    table = _table(players=2)
    _, ann = table.join("Ann", None, 0.0)
    _, bob = table.join("Bob", None, 0.0)
    table.start(ann, 0.0)
    last = _played_to_the_end(table, [ann, bob])
    table.rematch(ann, 2.0)
    assert (table.phase, table.game_no) == (Phase.PLAYING, 2)
    before = (table.version, table.game.state if table.game else None, list(table.moves))
    for seat, token in ((0, ann), (1, bob)):
        message_id, action = last[seat]
        assert table.act(token, action, 3.0, client_id=message_id, game_no=1) <= before[0]
    assert (table.version, table.game.state if table.game else None, list(table.moves)) == before
    # So after a restart (or on the process that takes the table over): the row keeps the last game's last ids.
    restored = Table.from_json(json.loads(json.dumps(table.to_json())), list(table.moves), 4.0)
    for seat, token in ((0, ann), (1, bob)):
        message_id, action = last[seat]
        assert restored.act(token, action, 5.0, client_id=message_id, game_no=1) <= before[0]
    assert (restored.version, restored.game.state if restored.game else None) == before[:2]


def test_an_action_meant_for_another_game_is_refused_in_plain_words() -> None:
    table = _table(players=2)
    _, ann = table.join("Ann", None, 0.0)
    _, bob = table.join("Bob", None, 0.0)
    table.start(ann, 0.0)
    _played_to_the_end(table, [ann, bob])
    table.rematch(ann, 2.0)
    seat = next(seat for seat in (0, 1) if table.legal_actions(seat))
    action = table.legal_actions(seat)[0].to_json()
    token = (ann, bob)[seat]
    before = (table.version, table.game.state if table.game else None)
    with pytest.raises(TableError) as refused:
        table.act(token, action, 3.0, client_id="new-1", game_no=1)
    assert (refused.value.code, str(refused.value)) == (
        "wrong_game", "That move was meant for the game before this one, so it was not made")
    assert (table.version, table.game.state if table.game else None) == before
    assert table.act(token, action, 3.0, client_id="new-1", game_no=2) > before[0]  # (the right game: made)
