"""The terminal game: a Textual app over one :class:`~royal_revenge.client.TableClient`.

``RoyalRevengeApp(client)`` plays at the table the client reaches (a local table of bots, or a
server's table); ``RoyalRevengeApp(game=LocalGame(...))`` first shows the settings screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType

from ..client.base import ClientError, TableClient
from ..client.clock import Clock
from ..client.local import LocalClient, LocalGame
from ..session.table import AgentFactory
from .settings_screen import SettingsScreen
from .table_screen import TableScreen

__all__ = ["DEFAULT_SAVE", "RoyalRevengeApp"]

DEFAULT_SAVE: Final = Path("royal-revenge-save.json")


class RoyalRevengeApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "UNO Royal Revenge"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("q", "quit", "Quit", show=False),
    ]

    def __init__(self, client: TableClient | None = None, *, game: LocalGame | None = None,
                 clock: Clock | None = None, agent_factory: AgentFactory | None = None, bell: bool = True,
                 save_path: Path = DEFAULT_SAVE, uno_assist: bool = False) -> None:
        super().__init__()
        self.client = client
        self.game = game or LocalGame()
        self.clock = clock
        self.agent_factory = agent_factory
        self.bell_on = bell
        self.bells = 0
        """How often the fanfare rang (whether or not the bell is on)."""
        self.save_path = save_path
        self.uno_assist = uno_assist
        """Call UNO for the person when they play their next-to-last card (off: they must press u, or be caught)."""
        self.failure: str | None = None
        """Why the game could not start (the app then exits with status 1)."""

    def on_mount(self) -> None:
        if self.client is None:
            self.push_screen(SettingsScreen(self.game))
        else:
            self.connect(self.client, replace=False)

    def begin_local(self, game: LocalGame) -> None:
        """Start a local game from the settings screen."""
        self.game = game
        self.client = LocalClient(game, clock=self.clock, agent_factory=self.agent_factory)
        self.connect(self.client, replace=True)

    @work(exclusive=True, group="connect")
    async def connect(self, client: TableClient, replace: bool) -> None:
        try:
            await client.start()
        except ClientError as error:
            self.failure = str(error)
            self.exit(return_code=1)
            return
        screen = TableScreen(client)
        if replace:
            await self.switch_screen(screen)
        else:
            await self.push_screen(screen)

    @property
    def table_screen(self) -> TableScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                return screen
        return None

    def ring(self) -> None:
        """The fanfare's bell (when it is on)."""
        self.bells += 1
        if self.bell_on:
            self.bell()

    async def action_quit(self) -> None:
        if self.client is not None:
            await self.client.close()
        self.exit()

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.close()
