"""A recorded game played again: for a table that resumes a saved game or is restored from its saved moves
(:func:`replay`), and for the replay view of a finished game (:func:`replay_frames`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..engine import Game, GameRecord, GameState, Move
from ..engine import events as ev
from ..narration import describe_event
from .log import made_for
from .settings import Phase, TableError

if TYPE_CHECKING:
    from .table import Table

__all__ = ["replay", "replay_frames"]

MoveCallback = Callable[[int, Move, list[ev.Event]], None]
"""Called after each replayed move with its index, the move and its events."""


def replay(record: GameRecord, on_move: MoveCallback | None = None,
           on_setup: Callable[[list[ev.Event]], None] | None = None) -> Game:
    """The game ``record`` holds, played again by the engine (:meth:`GameRecord.replay`, whose ``on_move`` is
    called after each move); ``on_setup`` is called first, with the events of its deal.

    The final digest is not checked here (a table's own saved moves have none; a resumed record's is checked by
    the caller, in its own words). Raises the engine's :class:`~royal_revenge.engine.RoyalRevengeError` if the
    record does not replay.
    """
    setup: list[ev.Event] = []
    # (the engine's replay does not report its deal's events, which the table's log begins with)
    GameState.new(record.options, record.seed, ages=record.ages, first_king=record.first_king, events=setup)
    if on_setup is not None:
        on_setup(setup)
    state = record.replay(verify=False, on_move=on_move)
    return Game(state, GameRecord(record.options, record.seed, record.ages, record.first_king))


def replay_frames(table: Table) -> list[dict[str, Any]]:
    """A finished game, move by move, with every hand open: for the replay view.

    (It steps the game itself: each frame shows the state after its move, which the engine's
    :meth:`GameRecord.replay` does not hand to its ``on_move``.)
    """
    if table.game is None or table.phase is not Phase.FINISHED:
        raise TableError("wrong_phase", "a game can be replayed once it is over")
    record = table.record()
    name = table.seating.name
    frames: list[dict[str, Any]] = []

    def frame(state: GameState, move: str | None, happened: list[ev.Event], seat: int | None = None,
              by: str | None = None) -> None:
        marked = made_for(happened, seat, by)
        frames.append({
            "move": move,
            "log": [text for index, event in enumerate(happened)
                    if (text := describe_event(event, name, by if index == marked else None)) is not None],
            "hands": [[str(card) for card in hand] for hand in state.hands],
            "discard_top": str(state.top),
            "active_colour": state.active_colour.letter if state.active_colour is not None else None,
            "king": state.king,
            "jester": state.jester,
            "direction": state.direction,
            "scores": list(state.scores),
            "round_no": state.round_no,
            "pending": {"kind": state.decision.name.lower(), "seat": state.decider},
        })

    setup: list[ev.Event] = []
    state = GameState.new(record.options, record.seed, ages=record.ages, first_king=record.first_king, events=setup)
    frame(state, None, setup)
    for move, row in zip(record.moves, table.moves.rows(), strict=True):
        frame(state, str(move), state.apply(move.seat, move.action), move.seat, row[1])
    return frames
