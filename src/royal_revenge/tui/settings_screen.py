"""The settings screen of a local game: the person, the bots, and every rule option."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from ..client.local import LocalGame
from ..engine.options import MAX_PLAYERS, MIN_PLAYERS
from ..session import BOT_LEVELS, TableError, TableSettings

if TYPE_CHECKING:
    from .app import RoyalRevengeApp

__all__ = ["SettingsScreen"]

_SCORING: Final = [("standard: the winner scores the others' cards", "standard"),
                   ("lowest tally: your own cards count against you", "lowest-tally")]


def _yes_no(field: str, value: bool, yes: str, no: str) -> Select[bool]:
    """A choice spelled out in words (a check box shows its state by colour alone)."""
    return Select([(f"yes: {yes}", True), (f"no: {no}", False)], value=value, id=field, allow_blank=False,
                  compact=True)


class SettingsScreen(Screen[None]):
    """Every option of a local game, filled in from the command line; Start (or Ctrl+S) deals."""

    AUTO_FOCUS = "#name"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start", priority=True),
        Binding("escape", "app.quit", "Quit"),
    ]

    def __init__(self, game: LocalGame) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        game, settings = self.game, self.game.settings
        yield Header(show_clock=False)
        yield Static("", id="settings-error")  # (above the form: in view whatever the terminal's height)
        with VerticalScroll(id="settings"):
            yield Static("[b]A new game against bots[/b]  ·  Tab moves between fields, Ctrl+S starts.",
                         id="settings-intro")
            with Grid(id="settings-grid"):
                yield Label("Your name")
                yield Input(game.name, id="name", max_length=24, compact=True)
                yield Label("Your age (the youngest is the first King)")
                yield Input("" if game.age is None else str(game.age), id="age", type="integer",
                            placeholder="optional", compact=True)
                yield Label("Players (you and 1 to 5 bots)")
                counts = range(MIN_PLAYERS, MAX_PLAYERS + 1)
                yield Select([(str(n), n) for n in counts], value=settings.players, id="player-count",
                             allow_blank=False, compact=True)
                for index in range(5):
                    level = game.bots[index] if index < len(game.bots) else "normal"
                    yield Label(f"Bot at seat {index + 2}", id=f"bot-label-{index}")
                    yield Select([(name, name) for name in BOT_LEVELS], value=level, id=f"bot-{index}",
                                 allow_blank=False, compact=True)
                yield Label("Target score (points that win the game)")
                yield Input(str(settings.target_score), id="target", type="integer", compact=True)
                yield Label("Scoring")
                yield Select(_SCORING, value=settings.scoring, id="scoring", allow_blank=False, compact=True)
                yield Label("Single round")
                yield _yes_no("single_round", settings.single_round, "one round is the whole game",
                              "play rounds up to the target")
                yield Label("Two players: Reverse skips")
                yield _yes_no("reverse_skips", settings.two_player_reverse_skips, "a Reverse acts as a Skip",
                              "a Reverse changes nothing")
                yield Label("Seconds per decision")
                yield Input(f"{settings.turn_seconds:g}", id="turn_seconds", type="number", compact=True)
                yield Label("Scepter: fanfare after (seconds)")
                with Horizontal(classes="pair"):
                    yield Input(f"{settings.scepter_min_seconds:g}", id="scepter_min", type="number", compact=True)
                    yield Static(" to ", classes="to")
                    yield Input(f"{settings.scepter_max_seconds:g}", id="scepter_max", type="number", compact=True)
                yield Label("Bots wait (seconds; 0 plays fast)")
                yield Input(f"{settings.bot_delay_seconds:g}", id="bot_delay", type="number", compact=True)
                yield Label("Call UNO for me")
                yield _yes_no("uno_assist", self.rr_app.uno_assist, "with my next-to-last card",
                              "I press u myself (or I can be caught)")
                yield Label("Fanfare rings the bell")
                yield _yes_no("bell", self.rr_app.bell_on, "ring the terminal bell", "silent (the banner still shows)")
            with Horizontal(id="settings-buttons"):
                yield Button("Start the game (Ctrl+S)", id="start", variant="primary")
                yield Button("Quit (Esc)", id="quit")
        yield Footer()

    @property
    def rr_app(self) -> RoyalRevengeApp:
        from .app import RoyalRevengeApp

        assert isinstance(self.app, RoyalRevengeApp)
        return self.app

    def on_mount(self) -> None:
        self.title = "UNO Royal Revenge"
        self.sub_title = "settings"
        self._show_bots(self.game.settings.players)
        self.query_one("#settings-error").display = False
        if self.app.is_headless:  # steady screenshots: no blinking cursor
            for field in self.query(Input):
                field.cursor_blink = False

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "player-count" and isinstance(event.value, int):
            self._show_bots(event.value)

    def _show_bots(self, players: int) -> None:
        for index in range(5):
            visible = index < players - 1
            self.query_one(f"#bot-{index}").display = visible
            self.query_one(f"#bot-label-{index}").display = visible

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        else:
            self.app.exit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def read(self) -> LocalGame:
        """The game the form describes; raises :class:`TableError` with a message naming the bad field."""

        def text(field: str) -> str:
            return self.query_one(f"#{field}", Input).value.strip()

        def number(field: str, label: str, whole: bool = False) -> Any:
            value = text(field)
            try:
                return int(value) if whole else float(value)
            except ValueError:
                raise TableError("bad_settings", f"{label} must be a {'whole ' if whole else ''}number") from None

        def selected(field: str) -> Any:
            return self.query_one(f"#{field}", Select).value

        players = int(selected("player-count"))
        age_text = text("age")
        age = number("age", "Your age", whole=True) if age_text else None
        settings = TableSettings(
            players=players,
            target_score=number("target", "The target score", whole=True),
            scoring=str(selected("scoring")),
            single_round=self.query_one("#single_round", Select).value is True,
            two_player_reverse_skips=self.query_one("#reverse_skips", Select).value is True,
            turn_seconds=number("turn_seconds", "Seconds per decision"),
            scepter_min_seconds=number("scepter_min", "The scepter's shortest delay"),
            scepter_max_seconds=number("scepter_max", "The scepter's longest delay"),
            bot_delay_seconds=number("bot_delay", "The bots' wait"),
            next_round_seconds=self.game.settings.next_round_seconds,
            grace_seconds=self.game.settings.grace_seconds,
            max_timeouts=self.game.settings.max_timeouts,
        )
        name = text("name") or "You"
        if age is not None and not 0 <= age <= 150:
            raise TableError("bad_settings", "Your age must be from 0 to 150 (or left empty)")
        bots = tuple(str(selected(f"bot-{index}")) for index in range(players - 1))
        return LocalGame(settings, name, age, bots, self.game.seed)

    def action_start(self) -> None:
        try:
            game = self.read()
        except TableError as error:
            message = self.query_one("#settings-error", Static)
            message.update(f"[b]{escape(str(error))}[/]")
            message.display = True
            return
        self.rr_app.bell_on = self.query_one("#bell", Select).value is True
        self.rr_app.uno_assist = self.query_one("#uno_assist", Select).value is True
        self.rr_app.begin_local(game)
