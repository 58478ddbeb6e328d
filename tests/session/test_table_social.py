"""What a table does for the people around it besides the game: seats chosen for bots, chat and reactions,
muting, leaving, rematch requests and public tables (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest

from royal_revenge.bots import RandomAgent
from royal_revenge.session import SeatKind, Table, TableError, TableSettings


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
