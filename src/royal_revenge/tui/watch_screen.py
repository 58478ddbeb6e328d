"""The table as a spectator sees it (``royal-revenge play --watch CODE``).

It is the table screen with every card count, the discard, whose move it is and the log, but no
hand and no moves: only help, the bell and quit work, and the screen says that you are watching.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from .table_screen import TableScreen

__all__ = ["WATCHING_TEXT", "WatchScreen"]

WATCHING_TEXT: Final = "You are watching this table: you hold no cards and make no moves."

_ALLOWED: Final = frozenset({"help", "mute", "quit", "quit_now"})
"""The screen's actions a spectator may use (every move is left out)."""


class WatchScreen(TableScreen):
    """A spectator's table: the same drawing as a player's, with the hand and the moves replaced by a plain note."""

    HAND_TITLE: ClassVar[str] = "Watching"

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#hand").border_title = self.HAND_TITLE

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only help, the bell and quit: a spectator has no hand to choose from and nothing to send."""
        return action in _ALLOWED

    def render_view(self, view: dict[str, Any]) -> None:
        super().render_view(view)
        self.sub_title = f"{self.sub_title} · watching"
        self.put("#hand", WATCHING_TEXT)
        self.put("#actions", self.actions_markup(view))

    def actions_markup(self, view: dict[str, Any]) -> str:
        """Help and quit, the only things a spectator can do."""
        return ("[@click=screen.help][bold reverse] ? [/] Help[/]  "
                "[@click=app.quit][bold reverse] q [/] Quit[/]  (watching: no moves)")

    def watch_selected(self, selected: int) -> None:
        """No hand, nothing to select."""
