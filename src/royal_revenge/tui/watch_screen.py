"""The table as a spectator sees it (``royal-revenge play --watch CODE``).

It is the table screen with every card count, the discard, whose move it is and the log, but no
hand and no moves: only help, the bell and quit work, and the screen says that you are watching.
"""

from __future__ import annotations

from typing import Any, Final

from .table_screen import Fitted, TableScreen

__all__ = ["WATCHING_TEXT", "WatchScreen"]

WATCHING_TEXT: Final = "You are watching this table: you hold no cards and make no moves."

_ALLOWED: Final = frozenset({"help", "mute", "quit", "quit_now"})
"""The screen's actions a spectator may use (every move is left out)."""


class WatchScreen(TableScreen):
    """A spectator's table: the same drawing as a player's, with a plain note where the hand would be."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only help, the bell and quit: a spectator has no hand to choose from and nothing to send."""
        return action in _ALLOWED

    def render_hand(self, view: dict[str, Any]) -> None:
        box = self.query_one("#hand", Fitted)
        box.border_title = "Watching"
        box.border_subtitle = ""
        box.fit(lambda width, height: WATCHING_TEXT)
