"""The table: players, the discard, the pending decision with its countdown, the hand, the log.

It renders the view the client holds and sends actions picked from ``view["legal"]``. Everything a person
must act on stays on the one screen, from 80x24 up: the King's choices sit above the hand (never over it),
the log always ends with the newest event, and a decision that becomes yours closes help or the save dialog.
Only the round results open as a dialog.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Static

from ..client.base import TableClient
from .dialogs import HelpScreen, ResultsDialog, SaveDialog
from .render import (
    ROYAL_KINDS,
    button_word,
    clock_markup,
    decider_of,
    hand_lines,
    label_of,
    legal_of,
    log_tail,
    play_choice,
    players_markup,
    result_key,
    royal_markup,
    seat_name,
    sorted_hand,
    table_markup,
    target_words,
)

if TYPE_CHECKING:
    from .app import RoyalRevengeApp

__all__ = ["TableMessage", "TableScreen"]

_BANNER_SECONDS: Final = 4.0

_SPECTATOR_ACTIONS: Final = frozenset({"help", "mute", "quit", "quit_now"})
"""The screen's actions a spectator may use (every move is left out: there is no hand and nothing to send)."""


class Fitted(Static):
    """Text laid out for the size the widget has: the hand packed into its width, the log's newest lines into
    its height. It lays the text out again whenever its size changes (a resize, the hand growing)."""

    def __init__(self, *, id: str) -> None:
        super().__init__("", id=id)
        self._fit: Callable[[int, int], str] | None = None
        self._text: str | None = None

    def fit(self, layout: Callable[[int, int], str]) -> None:
        """Show ``layout(width, height)``, now and after every change of size."""
        self._fit = layout
        self._refit()

    def on_resize(self, event: events.Resize) -> None:
        self._refit()

    def _refit(self) -> None:
        if self._fit is None:
            return
        size = self.content_size
        text = self._fit(size.width or 60, size.height or 3)
        if text != self._text:
            self._text = text
            self.update(text)


class TableMessage(Message):
    """A message from the table (``state``, ``ack``, ``error``, ``status``), in the server's shape."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__()
        self.data = data


def _pending_key(view: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """What the table waits for now (a refusal about an earlier decision is stale once it changes)."""
    game = (view or {}).get("game")
    if not game:
        return None
    pending = game["pending"]
    return (view or {}).get("game_no"), game["round_no"], pending.get("kind"), pending.get("seat"), game["current"]


class TableScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1)", "Card ←", show=False),
        Binding("right,l", "move(1)", "Card →", show=False),
        Binding("enter,space", "play_selected", "Play", show=False),
        *[Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, 10)],
        Binding("0", "pick(9)", show=False),
        Binding("d", "draw", "Draw", show=False),
        Binding("p", "play_drawn", "Play drawn", show=False),
        Binding("k", "keep", "Keep", show=False),
        Binding("u", "uno", "UNO", show=False),
        Binding("c", "catch", "Catch", show=False),
        Binding("r,R", "letter('R')", show=False),
        Binding("y,Y", "letter('Y')", show=False),
        Binding("g,G", "letter('G')", show=False),
        Binding("b,B", "letter('B')", show=False),
        Binding("s", "save", "Save", show=False),
        Binding("m", "mute", "Bell", show=False),
        Binding("a", "add_bot", "Add bot", show=False),
        Binding("question_mark", "help", "Help", show=False),
        Binding("q", "app.quit", "Quit", show=False),
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
        """The timed banner on the notice line (the fanfare, a catch, a setting toggled), or ``""``."""
        self.banner_kind = "info"
        self.refusal: tuple[str, tuple[Any, ...] | None] | None = None
        """The last refusal and the decision it was about: shown until the table waits for something else."""
        self.made_for = ""
        """The last decision the table made for this person (a time-out, the bot on autopilot), until they act."""
        self.uno_armed = False
        """``u`` was pressed before playing the next-to-last card: the next play calls UNO with it."""
        self.shown_hand: list[str] = []
        """The hand in the order shown (and numbered) on screen."""
        self._shown: dict[str, str] = {}
        self._was_mine = False
        self._banner_timer: Timer | None = None
        self.connection: dict[str, Any] | None = None
        """The connection's last status (online tables): shown on the top line."""

    @property
    def rr_app(self) -> RoyalRevengeApp:
        from .app import RoyalRevengeApp

        assert isinstance(self.app, RoyalRevengeApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Static("", id="bar")
        with Horizontal(id="top"):
            yield Static("", id="players")
            yield Static("", id="table-info")
        with Vertical(id="decision"):
            with Horizontal(id="prompt-line"):
                yield Static("", id="prompt")
                yield Static("", id="clock")
            yield Static("", id="notice")
            yield Static("", id="royal")
        yield Fitted(id="hand")
        yield Static("", id="actions")
        yield Fitted(id="log")

    def on_mount(self) -> None:
        self.query_one("#royal").display = False
        self.query_one("#players").border_title = "Players"
        self.query_one("#hand").border_title = "Your hand"
        self.query_one("#log").border_title = "What happened"
        self.set_interval(0.5, self.update_prompt)

        def forward(data: dict[str, Any]) -> None:
            self.post_message(TableMessage(data))

        self._unsubscribe = self.client.subscribe(forward)
        self.connection = getattr(self.client, "last_status", None)
        if self.client.view is not None:
            self.view = self.client.view

    def on_unmount(self) -> None:
        self._unsubscribe()

    def on_resize(self, event: events.Resize) -> None:
        if self.view is not None:
            self.render_view(self.view)

    # ------------------------------------------------------------------ messages from the table

    def on_table_message(self, message: TableMessage) -> None:
        data = message.data
        kind = data.get("type")
        if kind == "state":
            self.view = self.client.view
        elif kind == "error":
            if data.get("code") != "rate_limited":
                self.refusal = (str(data.get("message")), _pending_key(self.view))
                self.update_notice()
            self.sync_overlay()
        elif kind == "status":
            self.connection = data
            if self.view is not None:
                self.put("#bar", self.bar_markup(self.view))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A spectator (``you`` is ``None``) has only help, the bell and quit."""
        if self.view is not None and self.view.get("you") is None:
            return action in _SPECTATOR_ACTIONS
        return True

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is None:
            return
        self.render_view(view)
        self.close_for_decision(view)
        self.sync_overlay()

    def watch_selected(self, selected: int) -> None:
        if self.view is not None and self.view.get("game"):
            self.render_hand(self.view)

    # ------------------------------------------------------------------ rendering

    def put(self, selector: str, content: str) -> None:
        """Update a part of the screen only when its text changed (each update costs a layout)."""
        if self._shown.get(selector) != content:
            self._shown[selector] = content
            self.query_one(selector, Static).update(content)

    def mine(self, view: dict[str, Any] | None = None) -> bool:
        """Whether the table waits for this person's decision."""
        view = view if view is not None else self.view
        game = (view or {}).get("game")
        if not game or (view or {}).get("you") is None:
            return False
        pending = game["pending"]
        return bool(pending.get("seat") == (view or {}).get("you") and pending.get("kind") not in (
            "round_over", "game_over"))

    def royal_kind(self, view: dict[str, Any] | None = None) -> str | None:
        """The King's decision this person must make now (``colour``, ``victim``, ``jester``), or ``None``."""
        view = view if view is not None else self.view
        if not self.mine(view):
            return None
        kind = (view or {})["game"]["pending"]["kind"]
        return str(kind) if kind in ROYAL_KINDS else None

    def bar_markup(self, view: dict[str, Any]) -> str:
        game = view.get("game")
        parts = ["[b]UNO Royal Revenge[/b]"]
        if not self.client.local:
            parts.append(f"table {escape(_grouped(str(view.get('code') or '')))}")
        if game:
            parts.append(f"round {game['round_no']}")
        parts.append(target_words(view))
        status = self.connection
        if status is not None:
            colour = "green" if status.get("ok") else "yellow"
            parts.append(f"[{colour}]Server: {escape(str(status.get('text')))}[/]")
        return " · ".join(parts)

    def render_view(self, view: dict[str, Any]) -> None:
        game = view.get("game")
        self.put("#bar", self.bar_markup(view))
        players = self.query_one("#players", Static)
        self.put("#players", players_markup(view, max(30, players.content_size.width or self.size.width - 40)))
        rows = max(3, len(view.get("seats") or []))
        top = self.query_one("#top")
        if top.styles.height is None or top.styles.height.value != rows + 2:
            top.styles.height = rows + 2
        if game is None:
            self.render_lobby(view)
            return
        self.query_one("#table-info").border_title = f"Round {game['round_no']}"
        hand = sorted_hand(game.get("hand") or [])
        self.shown_hand = hand
        if self.uno_armed and not any(action.get("uno") for action in legal_of(view, "play")):
            self.uno_armed = False  # the call was for the play the table offered it with (a play, a draw ended it)
        pending = game["pending"]
        if pending.get("kind") == "drawn" and self.mine(view) and game.get("drawn") in hand:
            self.selected = hand.index(game["drawn"])
        self.selected = min(self.selected, max(0, len(hand) - 1))
        self.put("#table-info", table_markup(view))
        self.render_hand(view)
        self.put("#actions", self.actions_markup(view))
        royal = self.royal_kind(view)
        box = self.query_one("#royal", Static)
        box.display = royal is not None
        if royal is not None:
            self.put("#royal", royal_markup(view))
        self.announce(view)
        self.update_prompt()
        self.update_notice()
        self.render_log()

    def render_hand(self, view: dict[str, Any]) -> None:
        box = self.query_one("#hand", Fitted)
        count = len(self.shown_hand)
        box.border_title = f"Your hand · {count} card{'' if count == 1 else 's'}" if view.get("you") is not None \
            else "Watching"
        box.border_subtitle = "* playable · ←/→ choose · Enter or 1-9 plays" if count else ""
        selected = self.selected
        box.fit(lambda width, height: hand_lines(view, selected, width))

    def render_log(self) -> None:
        view = self.view
        if view is not None:
            self.query_one("#log", Fitted).fit(lambda width, height: log_tail(view, width, height))

    def render_lobby(self, view: dict[str, Any]) -> None:
        is_host = view.get("you") is not None and view.get("you") == view.get("host")
        lines = [f"Table {escape(_grouped(str(view.get('code'))))}: waiting in the lobby."]
        if is_host:
            lines.append("You are the host: a adds a normal bot, g starts the game once every seat is taken.")
        else:
            lines.append(f"Waiting for the host, {escape(seat_name(view, view.get('host')))}, to start the game.")
        self.put("#table-info", "\n".join(lines))
        self.put("#prompt", escape(str(view.get("prompt") or "Waiting for the game to start")))
        self.put("#notice", "")
        self.query_one("#hand", Fitted).fit(lambda width, height: "")
        self.put("#actions", "[dim] ? Help   q Quit[/]")
        self.render_log()

    def actions_markup(self, view: dict[str, Any]) -> str:
        if view.get("you") is None:
            return "[b]You are watching this table.[/b]  " + _item("?", "Help", "help", True) + "  " + _item(
                "q", "Quit", "app.quit", True)

        def button(key: str, kind: str, action: str) -> str:
            """A button in the table's words: the legal action's own, else the glossary's (dimmed)."""
            found = legal_of(view, kind)
            return _item(key, label_of(view, found[0]) if found else button_word(view, kind), action, bool(found))

        game = view["game"]
        parts = [button("d", "draw", "draw")]
        drawn = game.get("drawn")
        play_drawn = play_choice(view, drawn, False) if drawn and legal_of(view, "keep") else None
        if play_drawn is not None:
            parts.append(_item("p", label_of(view, play_drawn), "play_drawn", True))
        parts.append(button("k", "keep", "keep"))
        call = legal_of(view, "uno")
        can_call = bool(call) or any(action.get("uno") for action in legal_of(view, "play"))
        uno = label_of(view, call[0]) if call else button_word(view, "uno")
        parts.append(_item("u", f"{uno} ✓ (called with your next card)" if self.uno_armed else uno, "uno",
                           can_call, armed=self.uno_armed))
        parts.append(button("c", "catch", "catch"))
        you = view.get("you")
        if isinstance(you, int) and (view.get("seats") or [{}])[you].get("autopilot"):
            parts.append(_item("b", "Take my seat back", "letter('B')", True, armed=True))
        if self.client.local:
            parts.append(_item("s", "Save", "save", True))
        parts.append(_item("?", "Help", "help", True))
        parts.append(_item("q", "Quit", "app.quit", True))
        return " ".join(parts)

    def update_prompt(self) -> None:
        """The decision line: whose decision and, while a person's clock runs, the countdown (every half second)."""
        view = self.view
        if view is None or view.get("game") is None:
            return
        game = view["game"]
        mine = self.mine(view)
        text = ("▶ " if mine else "") + escape(str(view.get("prompt") or ""))
        if game.get("fanfare_queued"):
            text += " · [b]the fanfare has sounded![/b]"
        clock = ""
        deadline = view.get("decision_deadline")
        if deadline is not None and view.get("phase") == "playing":
            left = max(0.0, deadline - self.client.now())
            total = float((view.get("settings") or {}).get("turn_seconds") or 30)
            clock = clock_markup(left, total)
        else:
            next_round = view.get("next_round_deadline")
            if next_round is not None:
                clock = f"[dim]next round in {int(max(0.0, next_round - self.client.now()) + 0.999)} s[/]"
        self.query_one("#decision").set_class(mine, "mine")
        self.put("#prompt", text)
        self.put("#clock", clock)

    def update_notice(self) -> None:
        """The line under the decision: a banner, a refusal, what the table did for you, or the table's hint."""
        view = self.view or {}
        text, kind = "", "hint"
        you = view.get("you")
        seats = view.get("seats") or []
        if self.refusal is not None and self.refusal[1] != _pending_key(view):
            self.refusal = None  # about a decision that is over (a fanfare took the turn, the clock ran out)
        if self.banner_text:
            text, kind = self.banner_text, self.banner_kind
        elif self.refusal is not None:
            text, kind = self.refusal[0], "bad"
        elif isinstance(you, int) and you < len(seats) and seats[you].get("autopilot"):
            text, kind = "A bot is playing your seat (your time ran out): press b to take it back", "warn"
        elif self.made_for:
            text, kind = self.made_for, "warn"
        elif view.get("hint"):
            text = str(view["hint"])
        notice = self.query_one("#notice", Static)
        notice.set_classes(kind)
        self.put("#notice", escape(text))

    # ------------------------------------------------------------------ banner, bell, dialogs

    def announce(self, view: dict[str, Any]) -> None:
        """Banners (and the bell) for what just happened: the fanfare, the Crown passing, a catch; and a line
        when the table made one of this person's decisions for them."""
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
                if entry.get("by") and decider_of(entry) == view.get("you") and view.get("you") is not None:
                    self.made_for = str(entry["text"])
        if entries:
            self.last_log = entries[-1]["n"]
        elif self.last_log == 0:
            self.last_log = -1

    def show_banner(self, text: str, kind: str) -> None:
        self.banner_text, self.banner_kind = text, kind
        if self._banner_timer is not None:
            self._banner_timer.stop()
        self._banner_timer = self.set_timer(_BANNER_SECONDS, self.hide_banner)
        self.update_notice()

    def hide_banner(self) -> None:
        self.banner_text = ""
        self.update_notice()

    def close_for_decision(self, view: dict[str, Any]) -> None:
        """A decision that becomes this person's is never hidden: help and the save dialog close for it."""
        mine = self.mine(view)
        became = mine and not self._was_mine
        self._was_mine = mine
        top = self.app.screen if self.is_attached else None
        if became and isinstance(top, (HelpScreen, SaveDialog)):
            top.dismiss(None)
            self.show_banner("Your decision: help closed (? opens it again)" if isinstance(top, HelpScreen)
                             else "Your decision: the game was not saved (s saves it)", "info")

    def wanted_overlay(self, view: dict[str, Any]) -> str | None:
        key = result_key(view)
        if key is None:
            return None
        wanted = f"results:{key}"
        # Results already shown stay open (a later frame of the same round must not close them)
        # until the person closes them; once closed, they do not come back.
        return wanted if key != self.shown_result or self.overlay_key == wanted else None

    def sync_overlay(self) -> None:
        """Open or close the results dialog as the view asks (above the table).

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
        self.shown_result = wanted.split(":", 1)[1]
        dialog = ResultsDialog(view)
        self.overlay, self.overlay_key = dialog, wanted
        self.app.push_screen(dialog, self._dialog_callback(dialog))

    def _dialog_callback(self, dialog: ModalScreen[Any]) -> Any:
        def callback(result: Any) -> None:
            if self.overlay is not dialog:
                return  # closed by the table itself: the view asks for something else now
            self.overlay, self.overlay_key = None, None
            if result == "rematch":
                self.send_host("rematch")
            self.call_later(self.sync_overlay)

        return callback

    def _reopen(self, result: object = None) -> None:
        self.call_later(self.sync_overlay)

    # ------------------------------------------------------------------ sending

    @work(group="send")
    async def send(self, action: dict[str, Any]) -> None:
        self.made_for = ""
        self.refusal = None
        await self.client.act(action)

    @work(group="send")
    async def send_host(self, command: str, level: str | None = None) -> None:
        await self.client.host(command, level=level)

    @work(group="send")
    async def send_back(self) -> None:
        self.made_for = ""
        await self.client.back()

    def first(self, kind: str) -> dict[str, Any] | None:
        found = legal_of(self.view, kind)
        return found[0] if found else None

    def say(self, text: str) -> None:
        """A refusal worked out here (nothing was sent): shown as the table's are."""
        self.refusal = (text, _pending_key(self.view))
        self.update_notice()

    def play_card(self, card: str) -> None:
        choice = play_choice(self.view, card, self.uno_armed or self.rr_app.uno_assist)
        self.uno_armed = False
        # (not playable now: the table says why, in the players' names, and nothing changes)
        self.send(choice or {"type": "play", "card": card, "uno": False})

    # ------------------------------------------------------------------ key actions

    def action_move(self, step: int) -> None:
        if self.shown_hand:
            self.selected = (self.selected + step) % len(self.shown_hand)

    def action_pick(self, index: int) -> None:
        royal = self.royal_kind()
        if royal in ("victim", "jester"):
            self.action_choose_seat(index)
            return
        if royal == "colour":
            self.say("Choose the colour: press R, Y, G or B")
            return
        if 0 <= index < len(self.shown_hand):
            self.selected = index
            self.play_card(self.shown_hand[index])

    def action_play_selected(self) -> None:
        if self.royal_kind() is None and 0 <= self.selected < len(self.shown_hand):
            self.play_card(self.shown_hand[self.selected])

    def action_play_drawn(self) -> None:
        game = (self.view or {}).get("game") or {}
        drawn = game.get("drawn")
        if drawn is None or self.first("keep") is None:
            self.say("You have not just drawn a card")
        else:
            self.play_card(drawn)  # (a card that does not match: the table says why)

    def action_draw(self) -> None:
        self.send(self.first("draw") or {"type": "draw"})  # (not allowed now: the table says why)

    def action_keep(self) -> None:
        self.send(self.first("keep") or {"type": "keep"})

    def action_uno(self) -> None:
        """``u`` calls UNO, and only that: a late call now, or the call that goes with the next card played."""
        call = self.first("uno")
        if call is not None:
            self.send(call)
            return
        if any(action.get("uno") for action in legal_of(self.view, "play")):
            self.uno_armed = not self.uno_armed
            self.show_banner("UNO! It is called with the card you play next" if self.uno_armed
                             else "No UNO call with your next card", "info")
            if self.view is not None:
                self.put("#actions", self.actions_markup(self.view))
            return
        self.say("UNO is called as you play your next-to-last card (press u, then play it)")

    def action_catch(self, seat: int | None = None) -> None:
        catches = legal_of(self.view, "catch")
        chosen = [action for action in catches if seat is None or action["seat"] == seat]
        if chosen:
            self.send(chosen[0])
        else:
            self.say("Nobody can be caught now: only a player who played their next-to-last card without "
                     "calling UNO, before the next player starts")

    def action_letter(self, letter: str) -> None:
        """R, Y, G, B: a colour for the King; otherwise G starts the game (host, lobby) and B takes the seat
        back from a bot."""
        if self.royal_kind() == "colour":
            self.action_choose_colour(letter)
        elif letter == "G":
            self.action_start_game()
        elif letter == "B":
            self.send_back()

    def action_choose_colour(self, letter: str) -> None:
        chosen = [action for action in legal_of(self.view, "colour") if action["colour"] == letter]
        if chosen:
            self.send(chosen[0])
        else:
            self.send({"type": "colour", "colour": letter})  # (not the King's decision now: the table says why)

    def action_choose_seat(self, seat: int) -> None:
        kind = self.royal_kind()
        if kind is None:
            return
        chosen = [action for action in legal_of(self.view, kind) if action["seat"] == seat]
        if chosen:
            self.send(chosen[0])
        elif 0 <= seat < len((self.view or {}).get("seats") or []):
            self.send({"type": kind, "seat": seat})  # (the table says why not: the King cannot be the Jester)
        else:
            self.say(f"There is no player {seat + 1} at this table")

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
            self.say("Only a local game can be saved; an online table keeps its own record")
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
            self.say(f"Cannot save to {path}: {error.strerror}")
            return
        self.rr_app.save_path = path
        self.show_banner(f"Saved to {path}. Resume with: royal-revenge play --resume {path}", "info")


def _item(key: str, text: str, action: str, enabled: bool, *, armed: bool = False) -> str:
    """One clickable entry of the action bar: its key, then what it does (dimmed when it cannot be done now)."""
    style = "bold reverse #ffb300" if armed else ("bold reverse" if enabled else "dim")
    target = action if "." in action else f"screen.{action}"
    words = f" {escape(text)}" if enabled else f"[dim] {escape(text)}[/]"
    return f"[@click={target}][{style}] {escape(key)} [/]{words}[/]"


def _grouped(code: str) -> str:
    """A table code as people read it aloud: ``K7QMP-WXAB3``."""
    return f"{code[:5]}-{code[5:]}" if len(code) == 10 else code
