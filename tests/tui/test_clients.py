"""The local client speaks the server's message shapes; saved games resume exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from royal_revenge.client import ClientError, LocalClient, LocalGame, load_save
from royal_revenge.client.clock import FakeClock
from royal_revenge.engine import GameRecord
from royal_revenge.server.protocol import ack_message, error_message
from royal_revenge.session import Phase, Table, TableError

from .helpers import fast_settings

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def started(**changes: Any) -> tuple[LocalClient, list[dict[str, Any]]]:
    client = LocalClient(LocalGame(fast_settings(**changes), "Ann", 7, ("easy", "normal"), seed=3), clock=FakeClock())
    messages: list[dict[str, Any]] = []
    client.subscribe(messages.append)
    await client.start()
    return client, messages


async def test_messages_have_the_servers_shapes() -> None:
    client, messages = await started()
    try:
        assert client.view is not None and client.view["you"] == 0 and client.view["host"] == 0
        assert client.view["game"]["pending"] == {"kind": "jester", "seat": 0}
        await client.act({"type": "play", "card": "W", "uno": False})  # not Ann's to do now
        error = messages[-1]
        assert set(error) == set(json.loads(error_message("illegal", "x", "id")))
        assert error["type"] == "error" and error["code"] == "illegal" and error["message"]
        await client.act({"type": "nonsense"})
        assert messages[-1]["code"] == "bad_action"
        await client.host("start")
        assert messages[-1]["code"] == "wrong_phase"
        await client.act({"type": "jester", "seat": 1})
        ack, state = messages[-1], messages[-2]
        assert set(ack) == set(json.loads(ack_message("id", 1))) and ack["type"] == "ack"
        assert state["type"] == "state" and set(state) == {"type", "version", "server_time", "view"}
        assert state["view"] == client.view and client.view["game"]["jester"] == 1
    finally:
        await client.close()


async def test_save_and_load_round_trip(tmp_path: Path) -> None:
    client, _ = await started()
    try:
        await client.act({"type": "jester", "seat": 2})
        path = tmp_path / "save.json"
        client.save(path)
    finally:
        await client.close()
    game, record = load_save(path)
    assert game.name == "Ann" and game.age == 7 and game.bots == ("easy", "normal") and game.seed == 3
    assert record.moves and str(record.moves[0]) == "0:jester 2"
    resumed = LocalClient(game, clock=FakeClock(), record=record)
    await resumed.start()
    try:
        assert resumed.view is not None and client.view is not None
        assert resumed.view["game"] == client.view["game"]
        assert resumed.table is not None and resumed.table.deadlines.scepter is not None  # the scepter runs again
    finally:
        await resumed.close()


def test_load_save_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("not json")
    with pytest.raises(ClientError, match="not JSON"):
        load_save(path)
    path.write_text(json.dumps({"format": "royal-revenge-terminal-save", "version": 9}))
    with pytest.raises(ClientError, match="version 9"):
        load_save(path)


def _saved_game() -> tuple[Table, GameRecord]:
    """A table's game a move in (Ann and two bots), and its record."""
    settings = fast_settings()
    source = Table.open(settings, code="SRC", seed=1)
    _, token = source.join("Ann", 7, 0.0)
    source.add_bot(token, "easy", 0.0)
    source.add_bot(token, "normal", 0.0)
    source.start(token, 0.0)
    source.act(token, {"type": "jester", "seat": 1}, 0.0)
    return source, source.record()


def test_a_resumed_game_is_restored_from_its_row_and_moves() -> None:
    """A table restored after a restart replays a resumed record on the record's own deal, not the table's."""
    source, record = _saved_game()

    table = Table.open(source.settings, code="NEW", seed=2)
    _, tok = table.join("Ann", 31, 5.0)  # another age and table seed: the table alone would deal otherwise
    table.add_bot(tok, "easy", 5.0)
    table.add_bot(tok, "normal", 5.0)
    table.resume(tok, record, 5.0)
    assert table.game is not None and table.game.state == source.game.state  # type: ignore[union-attr]

    def restored(of: Table) -> Table:
        row = json.loads(json.dumps(of.to_json()))  # as the store keeps it
        return Table.from_json(row, list(of.moves), 6.0)

    again = restored(table)
    assert again.game is not None and again.game.state == table.game.state
    assert again.version == table.version and again.origin == table.origin is not None
    # Played on by the clocks (the absent player's seat times out), then a rematch: the table deals its own
    # next game again, and that restores too.
    now = 6.0
    for _ in range(20_000):
        if table.phase is not Phase.PLAYING:
            break
        now = max(now, table.next_deadline() or now)
        table.tick(now)
    assert table.phase is Phase.FINISHED
    assert restored(table).game.state == table.game.state  # type: ignore[union-attr]
    table.rematch(tok, now)
    assert table.origin is not None and table.origin != again.origin  # the table's own deal, kept as dealt
    assert table.origin["ages"] == [31, None, None] and table.origin["first_king"] is None
    again = restored(table)
    assert again.game is not None and again.game.state == table.game.state and again.origin == table.origin


def test_table_resume_checks_the_record() -> None:
    source, record = _saved_game()

    def fresh(**changes: Any) -> tuple[Table, str]:
        table = Table.open(fast_settings(**changes), code="NEW", seed=2)
        _, tok = table.join("Ann", 7, 5.0)
        table.add_bot(tok, "easy", 5.0)
        table.add_bot(tok, "normal", 5.0)
        return table, tok

    table, tok = fresh()
    table.resume(tok, record, 5.0)
    assert table.phase is Phase.PLAYING and table.game is not None
    assert table.game.state == source.game.state  # type: ignore[union-attr]
    assert table.view(0)["log"] == source.view(0)["log"]
    with pytest.raises(TableError, match="before any game"):
        table.resume(tok, record, 5.0)
    other, tok = fresh(target_score=200)
    with pytest.raises(TableError, match="rules differ"):
        other.resume(tok, record, 5.0)
    tampered = GameRecord(record.options, record.seed, record.ages, record.first_king, list(record.moves), "0" * 64)
    table, tok = fresh()
    with pytest.raises(TableError, match="does not replay"):
        table.resume(tok, tampered, 5.0)


async def test_a_table_with_a_hard_bot_prepares_its_compiled_search_at_the_start() -> None:
    # (the test environment has the numba extra: the hard level's rollouts are compiled, and warmed in a thread)
    client = LocalClient(LocalGame(fast_settings(), "Ann", 7, ("hard", "normal"), seed=3), clock=FakeClock())
    await client.start()
    try:
        warming = client._warming
        assert warming is not None and await warming
    finally:
        await client.close()
    easy = LocalClient(LocalGame(fast_settings(), "Ann", 7, ("easy", "normal"), seed=3), clock=FakeClock())
    await easy.start()
    try:
        assert easy._warming is None
    finally:
        await easy.close()
