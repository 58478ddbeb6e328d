"""The terminal game: a Textual app over one :class:`~royal_revenge.client.TableClient`.

``RoyalRevengeApp(client)`` plays at the table the client reaches (a local table of bots, or a
server's table; a :class:`~royal_revenge.client.RemoteClient` with ``watch=True`` only watches);
``RoyalRevengeApp(game=LocalGame(...))`` first shows the settings screen.

``q`` asks before it leaves when something would be lost (a seat at an online table, a local game
that is not over); Ctrl+C always quits at once.
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
from ..client.remote import DEFAULT_SERVER, RemoteClient
from ..session.table import AgentFactory
from .dialogs import ConfirmDialog
from .settings_screen import SettingsScreen
from .table_screen import TableScreen

__all__ = ["DEFAULT_SAVE", "RoyalRevengeApp"]

DEFAULT_SAVE: Final = Path("royal-revenge-save.json")


class RoyalRevengeApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "UNO Royal Revenge"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit_now", "Quit", show=False, priority=True),
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
        self.notices: list[str] = []
        """What the app told the person in a notification (the newest last), for tests."""

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
            if error.watch and isinstance(client, RemoteClient):
                self.offer_to_watch(client, str(error))
                return
            self.failure = str(error)
            self.exit(return_code=1)
            return
        if isinstance(client, RemoteClient) and client.returning:
            self.welcome_back(client)
        screen = TableScreen(client)  # (a spectator's has no hand and no moves: the view says who is watching)
        if replace:
            await self.switch_screen(screen)
        else:
            await self.push_screen(screen)

    def tell(self, text: str, *, warning: bool = False) -> None:
        """A notification in plain words (kept in :attr:`notices` too)."""
        self.notices.append(text)
        self.notify(text, severity="warning" if warning else "information", timeout=8)

    def welcome_back(self, client: RemoteClient) -> None:
        """Back at a seat kept from an earlier run: say whose seat it is, and that it is the person's again."""
        view = client.view or {}
        seat = client.seat
        seats = view.get("seats") or []
        if seat is None or not 0 <= seat < len(seats):
            return
        entry = seats[seat]
        text = f"Welcome back, {entry.get('name')}: you are in seat {seat + 1} again"
        if entry.get("autopilot"):
            self.tell(f"{text}. A bot is still playing for you: your next move takes the seat back.",
                      warning=True)
        elif view.get("phase") == "playing":
            self.tell(f"{text}: the seat is yours, no bot plays it while you are here.")
        else:
            self.tell(f"{text}.")

    def offer_to_watch(self, client: RemoteClient, reason: str) -> None:
        """The table takes no new player here (or the kept seat is gone): ask whether to watch it instead."""

        def answered(answer: str | None) -> None:
            if answer == "yes":
                watcher = RemoteClient(client.base_url, client.code, client.name, watch=True)
                self.client = watcher
                self.connect(watcher, replace=False)
            else:
                self.failure = f"{reason}. Watch it with: {self.command(client, '--watch')}"
                self.exit(return_code=1)

        self.push_screen(ConfirmDialog("Watch the game instead?", f"{reason[:1].upper()}{reason[1:]}. "
                                       "Watch the table as a spectator?", yes="Watch", no="Quit",
                                       dialog_id="watch-offer"), answered)

    @staticmethod
    def command(client: RemoteClient, flag: str = "--join") -> str:
        """The command that comes back to this table (``--server`` only when it is not the default one)."""
        command = f"royal-revenge play {flag} {client.display_code}"
        if client.base_url != DEFAULT_SERVER:
            command += f" --server {client.base_url}"
        return command

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

    def quit_question(self) -> ConfirmDialog | None:
        """What ``q`` asks before leaving, or ``None`` when nothing would be lost by quitting at once."""
        client, view = self.client, (self.client.view if self.client is not None else None) or {}
        if client is None or self.table_screen is None:
            return None
        if isinstance(client, RemoteClient):
            if client.watching or client.seat is None:
                return None
            back = self.command(client)
            if view.get("phase") == "playing":
                text = f"A bot plays your seat until you come back with: {back}"
            else:
                text = f"Your seat is kept for you; come back with: {back}"
            return ConfirmDialog("Leave the table?", text, yes="Leave", no="Stay", dialog_id="leave")
        if client.local and view.get("phase") == "playing":
            return ConfirmDialog("Quit?", "The game is not saved; press s to save first.", yes="Quit", no="Stay",
                                 save=True, dialog_id="quit-local")
        return None

    async def action_quit(self) -> None:
        """``q`` (and the action bar's Quit): leave, asking first when a seat or an unsaved game would be lost."""
        if isinstance(self.screen, ConfirmDialog):
            return  # (already asking)
        question = self.quit_question()
        if question is None:
            await self.action_quit_now()
            return

        async def answered(answer: str | None) -> None:
            screen = self.table_screen
            if answer == "yes":
                await self.action_quit_now()
            elif answer == "save" and screen is not None:
                screen.action_save()
            elif screen is not None:
                screen.call_later(screen.sync_overlay)  # (a decision that came up meanwhile opens now)

        self.push_screen(question, answered)

    async def action_quit_now(self) -> None:
        """Ctrl+C: quit at once, whatever the table (the terminal is restored; an online seat waits for its person)."""
        if self.client is not None:
            await self.client.close()
        self.exit()

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.close()
