"""Real-time tables: seats, clocks and bot takeover around one engine game (no I/O, no clock of its own)."""

from .table import (
    BOT_LEVELS,
    NAME_LENGTH,
    SLOW_LEVELS,
    BotTurn,
    LoggedMove,
    Phase,
    Seat,
    SeatKind,
    Table,
    TableError,
    TableSettings,
)

__all__ = ["BOT_LEVELS", "NAME_LENGTH", "SLOW_LEVELS", "BotTurn", "LoggedMove", "Phase", "Seat", "SeatKind", "Table",
           "TableError", "TableSettings"]
