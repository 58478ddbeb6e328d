"""A table's saved row: what :meth:`Table.to_json` holds besides the moves, and how a table is restored from
the row and its moves (:func:`restore`) after a restart, its clocks re-armed."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ..engine import GameRecord, Move
from .log import LoggedMove, MoveLog
from .replay import replay
from .schedule import AgentFactory
from .seats import Seat, SeatKind
from .settings import Phase, TableSettings

if TYPE_CHECKING:
    from .table import Table

__all__ = ["CARRIED_IDS", "RECENT_IDS", "RESTART_GRACE_SECONDS", "restore", "row_json", "row_key"]

RESTART_GRACE_SECONDS: Final = 15.0
"""After a restart, how long a table with people waits for them to reconnect before its clocks run again (a
client's reconnection backoff reaches 10 s): see :func:`restore`."""
RECENT_IDS: Final = 64
"""How many of each seat's last message ids a table remembers (a repeated id is not applied twice)."""
CARRIED_IDS: Final = 8
"""How many of each seat's last message ids of a game are kept into the next one (and saved in the row, the
only ids not in the moves): an action resent after a reconnection while a rematch began is acknowledged, not
applied to the new game."""


def row_json(table: Table) -> dict[str, Any]:
    """Everything but the moves (persisted one by one) needed to restore ``table``."""
    scheduler = table.scheduler
    deadlines = scheduler.deadlines
    return {
        "code": table.code,
        "settings": table.views.settings(),  # (encoded at once)
        "seats": table.seating.saved_json(),
        "host": table.seating.host,
        "phase": table.phase.value,
        "seed": table.seed,
        "game_no": table.game_no,
        "version": table.version,
        "deadlines": {name: getattr(deadlines, name) for name in deadlines.__dataclass_fields__},
        "rng": scheduler.rng.state,
        "origin": table.origin,
        "at": table.changed_at,
        "resume_at": scheduler.resume_at,
        "log_base": table.events.base,
        **({"carried_ids": {str(seat): [list(entry) for entry in ids] for seat, ids in table.carried_ids.items()}}
           if table.carried_ids else {}),
        **table.social.to_json(),
    }


def row_key(table: Table) -> tuple[Any, ...]:
    """:meth:`Table.row_key <royal_revenge.session.table.Table.row_key>`."""
    scheduler = table.scheduler
    return (table.phase, table.seating.host, table.game_no, table.seating.generation, scheduler.rng.state,
            scheduler.deadlines.scepter, table.settings, scheduler.resume_at)


def restore(cls: type[Table], data: dict[str, Any], moves: Sequence[LoggedMove], now: float,
            agent_factory: AgentFactory | None) -> Table:
    """:meth:`Table.from_json <royal_revenge.session.table.Table.from_json>`."""
    table = cls(data["code"], TableSettings.from_json(data["settings"]), seed=data["seed"],
                agent_factory=agent_factory)
    seating, scheduler = table.seating, table.scheduler
    seating.seats = [Seat.from_json(seat) for seat in data["seats"]]
    seating.host = data["host"]
    table.phase = Phase(data["phase"])
    table.game_no = data["game_no"]
    table.version = data["version"]
    scheduler.resume_at = data.get("resume_at")
    saved_rng = data["rng"]
    # Rows written before version 0.2 hold a random.Random state: continue from a seed derived from it.
    scheduler.rng.state = saved_rng if isinstance(saved_rng, int) else _legacy_rng_seed(saved_rng)
    if table.game_no:
        table.events.restart_at(data.get("log_base") or 0)
        # Rows saved before the deal was kept have no origin (every game's row has one since).
        origin = table.origin = data.get("origin") or _legacy_origin(table, moves)
        table.carried_ids = {int(seat): [(str(client_id), int(version)) for client_id, version in ids]
                             for seat, ids in (data.get("carried_ids") or {}).items()}
        recent = table.recent
        recent.update((seat, deque(ids, maxlen=RECENT_IDS)) for seat, ids in table.carried_ids.items())

        def replayed(index: int, move: Move, happened: list[Any]) -> None:
            logged = moves[index]
            table.events.record(happened, move.seat, logged.by)
            if logged.version is not None:
                # The row is not rewritten for a move that changes nothing else (see row_key): the moves carry
                # the versions since.
                table.version = max(table.version, logged.version)
            if logged.client_id is not None and move.seat is not None:
                recent.setdefault(move.seat, deque(maxlen=RECENT_IDS)).append(
                    (logged.client_id, logged.version if logged.version is not None else data["version"]))

        record = GameRecord(table.settings.options(), origin["seed"], origin["ages"], origin["first_king"],
                            [Move.parse(logged.move) for logged in moves])
        table.game = replay(record, replayed, table.events.record)
        table.moves = MoveLog(moves)
    times = [at for at in (data.get("at"), moves[-1].at if moves else None) if at is not None]
    last = max(times) if times else now
    table.changed_at = last
    seating.changed()
    if table.phase is Phase.PLAYING:
        ran = last if scheduler.resume_at is None else max(last, scheduler.resume_at)
        scheduler.deadlines.scepter = data["deadlines"].get("scepter")
        scheduler.plan(last)  # the clocks as they were after the last change (the scepter's is saved)
        people = any(seat.kind is SeatKind.HUMAN for seat in seating.seats)
        resume = now + RESTART_GRACE_SECONDS if people else now
        deadlines = scheduler.deadlines
        for name in deadlines.__dataclass_fields__:
            due = getattr(deadlines, name)
            if due is not None:
                setattr(deadlines, name, resume + max(0.0, due - ran))
        for seat in seating.seats:
            if seat.kind is SeatKind.HUMAN:
                # Someone connected when the server went away is away from when the table resumes; an earlier
                # disconnection keeps the grace it had left.
                seat.disconnected_at = (resume if seat.connected or seat.disconnected_at is None
                                        else seat.disconnected_at + (resume - ran))
        # (With nobody to wait for the pause is over at once, but the row still says when the table resumed: a
        # change that leaves the clocks alone, such as a spectator's chat line at a table of bots, may rewrite it,
        # and the next restart must count from here, not from the last move.)
        scheduler.resume_at = resume
        scheduler.clamp_to_grace(resume)
    else:
        scheduler.plan(now)
        for seat in seating.seats:
            if seat.kind is SeatKind.HUMAN and seat.disconnected_at is None:
                seat.disconnected_at = now
    for seat in seating.seats:
        seat.connected = False  # connections do not survive a restart; players reconnect
    table.social.restore(data)
    return table


def _legacy_origin(table: Table, moves: Sequence[LoggedMove]) -> dict[str, Any]:
    """The deal of a game saved before ``origin`` was kept: the table's seed and the seats' ages now.

    A person kicked since (their seat now a bot's, without an age) may have been the first King. A game's
    first move is its first King's choice of the Jester: if the ages now crown another seat, that seat is
    made the youngest (the engine crowns one of the youngest with one random number however many there are,
    so the deal is the same).
    """
    ages = table.seating.ages()
    origin: dict[str, Any] = {"seed": table.game_seed(), "ages": ages, "first_king": None}
    first = Move.parse(moves[0].move).seat if moves else None
    if first is not None and 0 <= first < len(ages) and table.deal(origin, []).state.king != first:
        origin["ages"] = [0 if seat == first else (None if age is None else max(age, 1))
                          for seat, age in enumerate(ages)]
    return origin


def _legacy_rng_seed(data: list[Any]) -> int:
    state = random.Random()
    state.setstate((data[0], tuple(data[1]), data[2]))
    return state.getrandbits(64)
