"""The table: players, the discard, the pending decision with its countdown, the hand, the log.

It renders the view the client holds and sends actions picked from ``view["legal"]``; the
King's decisions and the results open as dialogs when the view asks for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static

from ..client.base import TableClient
from .dialogs import ColourDialog, HelpScreen, ResultsDialog, SaveDialog, SeatDialog
from .render import (
    card_name,
    centre_markup,
    hand_markup,
    legal_of,
    log_lines,
    pending_text,
    players_markup,
    result_key,
    seat_name,
)

if TYPE_CHECKING:
    from .app import RoyalRevengeApp

__all__ = ["TableMessage", "TableScreen"]

_BANNER_SECONDS: Final = 4.0


class TableMessage(Message):
    """A message from the table (``state``, ``ack``, ``error``, ``status``), in the server's shape."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__()
        self.data = data


class TableScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1)", "Card ←", show=False),
        Binding("right,l", "move(1)", "Card →", show=False),
        Binding("enter,space", "play_selected", "Play"),
        *[Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, 10)],
        Binding("0", "pick(9)", show=False),
        Binding("d", "draw", "Draw"),
        Binding("p", "play_drawn", "Play drawn", show=False),
        Binding("k", "keep", "Keep"),
        Binding("u", "uno", "UNO"),
        Binding("c", "catch", "Catch"),
        Binding("s", "save", "Save"),
        Binding("m", "mute", "Bell"),
        Binding("a", "add_bot", "Add bot", show=False),
        Binding("g", "start_game", "Start", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    view: reactive[dict[str, Any] | None] = reactive(None, always_update=True, init=False)
    selected: reactive[int] = reactive(0, init=False)

    def __init__(self, client: TableClient) -> None:
        super().__init__()
        self.client = client
        self.last_log = 0
        self.shown_result: str | None = None
        self.overlay: ModalScreen[Any] | None = None
        self.overlay_key: str | None = None
        self.banner_text = ""
        self._shown: dict[str, str] = {}
        self.answered: int | None = None
        """The view version whose royal decision was just answered (its dialog stays closed meanwhile)."""
        self._banner_timer: Timer | None = None

    @property
    def rr_app(self) -> RoyalRevengeApp:
        from .app import RoyalRevengeApp

        assert isinstance(self.app, RoyalRevengeApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="top"):
            yield Static("", id="players")
            with Vertical(id="centre"):
                yield Static("", id="table-info")
                yield Static("", id="pending")
                yield Static("", id="status")
        yield Static("", id="banner")
        yield Static("", id="hand")
        yield Static("", id="actions")
        with VerticalScroll(id="log-box"):
            yield Static("", id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "UNO Royal Revenge"
        self.query_one("#banner").display = False
        for selector, title in (("#players", "Players"), ("#table-info", "Table"), ("#pending", "Whose move"),
                                ("#hand", "Your hand"), ("#log-box", "What happened")):
            self.query_one(selector).border_title = title
        self.set_interval(0.5, self.update_pending)

        def forward(data: dict[str, Any]) -> None:
            self.post_message(TableMessage(data))

        self._unsubscribe = self.client.subscribe(forward)
        status = getattr(self.client, "last_status", None)
        if status is not None:
            self.show_status(status)
        if self.client.view is not None:
            self.view = self.client.view

    def on_unmount(self) -> None:
        self._unsubscribe()

    # ------------------------------------------------------------------ messages from the table

    def on_table_message(self, message: TableMessage) -> None:
        data = message.data
        kind = data.get("type")
        if kind == "state":
            self.view = self.client.view
        elif kind == "error":
            if data.get("code") != "rate_limited":
                self.show_banner(str(data.get("message")), "bad")
            self.answered = None
            self.sync_overlay()
        elif kind == "status":
            self.show_status(data)

    def show_status(self, data: dict[str, Any]) -> None:
        """The connection's state (online tables only)."""
        self.put("#status", f"[{'green' if data.get('ok') else 'yellow'}]Server: {escape(str(data.get('text')))}[/]")

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is None:
            return
        self.render_view(view)
        self.sync_overlay()

    def watch_selected(self, selected: int) -> None:
        if self.view is not None and self.view.get("game"):
            self.put("#hand", hand_markup(self.view, selected))

    # ------------------------------------------------------------------ rendering

    def put(self, selector: str, content: str) -> None:
        """Update a part of the screen only when its text changed (each update costs a layout)."""
        if self._shown.get(selector) != content:
            self._shown[selector] = content
            self.query_one(selector, Static).update(content)

    def render_view(self, view: dict[str, Any]) -> None:
        game = view.get("game")
        self.sub_title = f"table {view.get('code')}" + (f" · round {game['round_no']}" if game else "")
        self.put("#players", players_markup(view))
        if game is None:
            self.render_lobby(view)
            return
        hand = game.get("hand") or []
        pending = game["pending"]
        if pending.get("kind") == "drawn" and pending.get("seat") == view.get("you") and game.get("drawn") in hand:
            self.selected = len(hand) - 1 - hand[::-1].index(game["drawn"])
        self.selected = min(self.selected, max(0, len(hand) - 1))
        self.put("#table-info", centre_markup(view))
        self.put("#hand", hand_markup(view, self.selected))
        self.put("#actions", self.actions_markup(view))
        self.put("#log", "\n".join(log_lines(view, 30)))
        self.query_one("#log-box", VerticalScroll).scroll_end(animate=False)
        self.update_pending()
        self.announce(view)

    def render_lobby(self, view: dict[str, Any]) -> None:
        is_host = view.get("you") is not None and view.get("you") == view.get("host")
        lines = [f"Table {view.get('code')}: waiting in the lobby."]
        if is_host:
            lines.append("You are the host: a adds a normal bot, g starts the game once every seat is taken.")
        else:
            lines.append("Waiting for the host to start the game.")
        self.put("#table-info", "\n".join(lines))
        self.put("#pending", "")
        self.put("#hand", "")
        self.put("#actions", "")
        self.put("#log", "\n".join(log_lines(view, 30)))

    def actions_markup(self, view: dict[str, Any]) -> str:
        legal = view.get("legal") or []

        def has(kind: str) -> bool:
            return any(action.get("type") == kind for action in legal)

        parts = []

        def item(key: str, text: str, action: str, enabled: bool) -> None:
            style = "bold reverse" if enabled else "dim"
            target = action if "." in action else f"screen.{action}"
            parts.append(f"[@click={target}][{style}] {key} [/] {text}[/]")

        item("d", "Draw", "draw", has("draw"))
        drawn = view["game"].get("drawn")
        item("p", f"Play {card_name(drawn)}" if drawn and has("keep") else "Play drawn", "play_drawn",
             has("keep") and has("play"))
        item("k", "Keep", "keep", has("keep"))
        item("u", "UNO!", "uno", has("uno") or any(a.get("type") == "play" and a.get("uno") for a in legal))
        catches = legal_of(view, "catch")
        item("c", f"Catch {seat_name(view, catches[0]['seat'])}!" if catches else "Catch", "catch", bool(catches))
        if self.client.local:
            item("s", "Save", "save", True)
        item("?", "Help", "help", True)
        item("q", "Quit", "app.quit", True)
        return "  ".join(parts)

    def update_pending(self) -> None:
        view = self.view
        if view is None or view.get("game") is None:
            return
        text = pending_text(view)
        deadline = view.get("decision_deadline")
        if deadline is not None and view.get("phase") == "playing":
            left = max(0.0, deadline - self.client.now())
            total = float(view.get("settings", {}).get("turn_seconds") or 30)
            width = 20
            filled = round(width * min(1.0, left / total)) if total else 0
            bar = "█" * filled + "░" * (width - filled)
            colour = "red" if left < 5 else "green"
            text += f"\n[{colour}]{bar}[/] {int(left + 0.999)} s left"
        mine = view["game"]["pending"].get("seat") == view.get("you")
        self.query_one("#pending", Static).set_class(mine, "mine")
        self.put("#pending", text)

    # ------------------------------------------------------------------ banner, bell, dialogs

    def announce(self, view: dict[str, Any]) -> None:
        """Banners (and the bell) for what just happened: the fanfare, the Crown passing, a catch."""
        entries = view.get("log") or []
        fresh = [entry for entry in entries if entry["n"] > self.last_log]
        if self.last_log > 0:
            for entry in fresh:
                if entry["kind"] == "FanfareSounded":
                    self.rr_app.ring()
                    self.show_banner("FANFARE! The scepter sounds! The Crown passes to the left.", "fanfare")
                elif entry["kind"] == "CrownPassed":
                    self.show_banner(f"FANFARE! {entry['text']}", "fanfare")
                elif entry["kind"] == "Caught":
                    self.show_banner(entry["text"], "warn")
        if entries:
            self.last_log = entries[-1]["n"]
        elif self.last_log == 0:
            self.last_log = -1

    def show_banner(self, text: str, kind: str) -> None:
        banner = self.query_one("#banner", Static)
        self.banner_text = text
        banner.update(text)
        banner.set_classes(kind)
        banner.display = True
        if self._banner_timer is not None:
            self._banner_timer.stop()
        self._banner_timer = self.set_timer(_BANNER_SECONDS, self.hide_banner)

    def hide_banner(self) -> None:
        self.query_one("#banner").display = False
        self.banner_text = ""

    def wanted_overlay(self, view: dict[str, Any]) -> str | None:
        game = view.get("game")
        if game is None:
            return None
        key = result_key(view)
        if key is not None:
            wanted = f"results:{key}"
            # Results already shown stay open (a later frame of the same round must not close them)
            # until the person closes them; once closed, they do not come back.
            return wanted if key != self.shown_result or self.overlay_key == wanted else None
        pending = game["pending"]
        if (pending.get("seat") == view.get("you") and pending.get("kind") in ("colour", "victim", "jester")
                and self.answered != view.get("version")):
            return f"{pending['kind']}:{view.get('game_no')}"
        return None

    def sync_overlay(self) -> None:
        """Open or close the dialog the view asks for (one at a time, above the table).

        While a screen the person opened (help, save) is on top, nothing changes until it closes.
        """
        view = self.view
        if view is None or not self.is_attached:
            return
        top = self.app.screen
        if top is not self and top is not self.overlay:
            return
        wanted = self.wanted_overlay(view)
        if wanted == self.overlay_key:
            return
        if self.overlay is not None:
            overlay, self.overlay, self.overlay_key = self.overlay, None, None
            if top is overlay:
                overlay.dismiss(None)
        if wanted is None:
            return
        kind = wanted.split(":", 1)[0]
        dialog: ModalScreen[Any]
        if kind == "results":
            self.shown_result = wanted.split(":", 1)[1]
            dialog = ResultsDialog(view)
        elif kind == "colour":
            dialog = ColourDialog(legal_of(view, "colour"))
        else:
            dialog = SeatDialog(view, kind, legal_of(view, kind))
        self.overlay, self.overlay_key = dialog, wanted
        self.app.push_screen(dialog, self._dialog_callback(dialog))

    def _dialog_callback(self, dialog: ModalScreen[Any]) -> Any:
        def callback(result: Any) -> None:
            if self.overlay is not dialog:
                return  # closed by the table itself: the view asks for something else now
            self.overlay, self.overlay_key = None, None
            if result == "rematch":
                self.send_host("rematch")
            elif isinstance(result, dict):
                self.answered = (self.view or {}).get("version")
                self.send(result)
            self.call_later(self.sync_overlay)

        return callback

    def _reopen(self, result: object = None) -> None:
        self.call_later(self.sync_overlay)

    # ------------------------------------------------------------------ sending

    @work(group="send")
    async def send(self, action: dict[str, Any]) -> None:
        await self.client.act(action)

    @work(group="send")
    async def send_host(self, command: str, level: str | None = None) -> None:
        await self.client.host(command, level=level)

    def first(self, kind: str) -> dict[str, Any] | None:
        found = legal_of(self.view, kind)
        return found[0] if found else None

    def play_card(self, card: str) -> None:
        options = [action for action in legal_of(self.view, "play") if action["card"] == card]
        if not options:
            self.show_banner(f"{card_name(card)} cannot be played now.", "warn")
            return
        # With the next-to-last card, call UNO with it, as a careful player does.
        with_uno = [action for action in options if action.get("uno")]
        self.send((with_uno or options)[0])

    def hand(self) -> list[str]:
        game = (self.view or {}).get("game") or {}
        hand: list[str] = game.get("hand") or []
        return hand

    # ------------------------------------------------------------------ key actions

    def action_move(self, step: int) -> None:
        hand = self.hand()
        if hand:
            self.selected = (self.selected + step) % len(hand)

    def action_pick(self, index: int) -> None:
        hand = self.hand()
        if 0 <= index < len(hand):
            self.selected = index
            self.play_card(hand[index])

    def action_play_selected(self) -> None:
        hand = self.hand()
        if 0 <= self.selected < len(hand):
            self.play_card(hand[self.selected])

    def action_play_drawn(self) -> None:
        game = (self.view or {}).get("game") or {}
        drawn = game.get("drawn")
        if drawn is None or self.first("keep") is None:
            self.show_banner("You have not just drawn a card.", "warn")
            return
        self.play_card(drawn)

    def action_draw(self) -> None:
        action = self.first("draw")
        if action is None:
            self.show_banner("You cannot draw now.", "warn")
        else:
            self.send(action)

    def action_keep(self) -> None:
        action = self.first("keep")
        if action is None:
            self.show_banner("There is no drawn card to keep.", "warn")
        else:
            self.send(action)

    def action_uno(self) -> None:
        call = self.first("uno")
        if call is not None:
            self.send(call)
            return
        plays = [action for action in legal_of(self.view, "play") if action.get("uno")]
        hand = self.hand()
        chosen = hand[self.selected] if 0 <= self.selected < len(hand) else None
        with_card = [action for action in plays if action["card"] == chosen] or plays
        if with_card:
            self.send(with_card[0])
        else:
            self.show_banner("There is no UNO to call now.", "warn")

    def action_catch(self) -> None:
        action = self.first("catch")
        if action is None:
            self.show_banner("Nobody can be caught now.", "warn")
        else:
            self.send(action)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(), self._reopen)

    def action_mute(self) -> None:
        app = self.rr_app
        app.bell_on = not app.bell_on
        self.show_banner("The fanfare rings the terminal bell." if app.bell_on else "The bell is off.", "info")

    def action_add_bot(self) -> None:
        view = self.view or {}
        if view.get("phase") == "lobby" and view.get("you") == view.get("host"):
            self.send_host("add_bot", "normal")

    def action_start_game(self) -> None:
        view = self.view or {}
        if view.get("phase") == "lobby" and view.get("you") == view.get("host"):
            self.send_host("start")

    def action_save(self) -> None:
        if not self.client.local:
            self.show_banner("Only a local game can be saved; online tables keep their own record.", "warn")
            return
        self.app.push_screen(SaveDialog(self.rr_app.save_path), self._save_to)

    def _save_to(self, path: Path | None) -> None:
        self.call_later(self.sync_overlay)
        if path is None:
            return
        from ..client.local import LocalClient

        client = self.client
        assert isinstance(client, LocalClient)
        try:
            client.save(path)
        except OSError as error:
            self.show_banner(f"Cannot save to {path}: {error.strerror}", "bad")
            return
        self.rr_app.save_path = path
        self.show_banner(f"Saved to {path}. Resume with: royal-revenge play --resume {path}", "info")
