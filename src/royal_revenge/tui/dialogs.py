"""Modal screens: the King's decisions, round results, help, saving, and questions such as "Leave the table?"."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from .render import COLOURS, results_markup, seat_name

__all__ = ["ColourDialog", "ConfirmDialog", "HelpScreen", "ResultsDialog", "SaveDialog", "SeatDialog", "HELP_TEXT"]


class ColourDialog(ModalScreen[dict[str, Any]]):
    """The King chooses the Wild's colour: a key (R, Y, G, B) or a click."""

    def __init__(self, legal: list[dict[str, Any]]) -> None:
        super().__init__(classes="dialog-screen")
        self.legal = legal

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("You are the King: choose the Wild's colour", classes="dialog-title")
            yield Static("Press R, Y, G or B (or click).", classes="dialog-text")
            with Horizontal(classes="choices"):
                for action in self.legal:
                    letter = action["colour"]
                    yield Button(f"{letter} {COLOURS[letter]}", id=f"colour-{letter}", classes=f"colour-{letter}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        letter = (event.button.id or "").removeprefix("colour-")
        self._choose(letter)

    def on_key(self, event: Key) -> None:
        if event.character and event.character.upper() in COLOURS:
            event.stop()
            self._choose(event.character.upper())

    def _choose(self, letter: str) -> None:
        for action in self.legal:
            if action["colour"] == letter:
                self.dismiss(action)
                return


class SeatDialog(ModalScreen[dict[str, Any]]):
    """The King chooses a player: the Jester, or who draws for a King's Choice (keys 1 to 6)."""

    def __init__(self, view: dict[str, Any], kind: str, legal: list[dict[str, Any]]) -> None:
        super().__init__(classes="dialog-screen")
        self.view = view
        self.kind = kind
        self.legal = legal

    def compose(self) -> ComposeResult:
        victim = self.kind == "victim"
        title = ("You are the King: who draws for the King's Choice?" if victim
                 else "You are the King: who wears the Jester Hat?")
        text = ("Any player, yourself included, draws one card." if victim
                else "Anyone but you; the Jester draws for every Jester card.")
        game = self.view["game"]
        with Vertical(classes="dialog"):
            yield Label(title, classes="dialog-title")
            yield Static(f"{text} Press the seat's number (or click).", classes="dialog-text")
            with Vertical(classes="choices"):
                for action in self.legal:
                    seat = action["seat"]
                    you = " (you)" if seat == self.view.get("you") else ""
                    count = game["hand_sizes"][seat]
                    label = (f"{seat + 1}. {seat_name(self.view, seat)}{you} · {count} card{'' if count == 1 else 's'}"
                             f" · {game['scores'][seat]} pts")
                    yield Button(escape(label), id=f"seat-{seat}", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._choose(int((event.button.id or "seat--1").removeprefix("seat-")))

    def on_key(self, event: Key) -> None:
        if event.character and event.character in "123456":
            event.stop()
            self._choose(int(event.character) - 1)

    def _choose(self, seat: int) -> None:
        for action in self.legal:
            if action["seat"] == seat:
                self.dismiss(action)
                return


class ResultsDialog(ModalScreen[str | None]):
    """A round's results and the running scores; at the end of the game, the winner and a rematch."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape", "close", "Close"),
        Binding("r", "rematch", "Rematch", show=False),
    ]

    def __init__(self, view: dict[str, Any]) -> None:
        super().__init__(classes="dialog-screen")
        self.view = view
        self.finished = view.get("phase") == "finished"
        self.can_rematch = self.finished and view.get("you") is not None and view.get("you") == view.get("host")

    def compose(self) -> ComposeResult:
        title, body = results_markup(self.view)
        with Vertical(classes="dialog results"):
            yield Label(escape(title), classes="dialog-title", id="results-title")
            yield Static(body, id="results-body")
            with Horizontal(classes="choices"):
                if self.can_rematch:
                    yield Button("Rematch (R)", id="rematch", variant="primary")
                yield Button("Close (Enter)", id="close")
                if self.finished:
                    yield Button("Quit (Q)", id="quit")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "rematch":
            self.action_rematch()
        elif event.button.id == "quit":
            self.app.exit()
        else:
            self.action_close()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_rematch(self) -> None:
        if self.can_rematch:
            self.dismiss("rematch")


HELP_TEXT: Final = """\
[b]Keys[/b]
  ←/→ or h/l      choose a card            Enter / Space   play the chosen card
  1-9, 0          play card 1-9 (0: 10th)  d               draw a card
  p               play the drawn card      k               keep the drawn card
  u               call UNO (or play the chosen card calling UNO)
  c               catch a player who did not call UNO
  R/Y/G/B, 1-6    answer the King's dialogs (colour, player)
  s               save the game (local games)   m   bell on/off
  ?               this help                q / Ctrl+C      quit
  The mouse works too: click a card, an action or a dialog button.

[b]The rules in short[/b]
  Play a card of the active colour, the same number, the same symbol, or a Wild;
  or draw one card (you may play it at once if it fits, or keep it).
  Reverse turns the direction; Skip skips the next player.
  [b]The King[/b] (who wears the Crown) makes the royal decisions: the colour of every
  Wild, who draws one card for a King's Choice, and who wears the Jester Hat.
  A Jester card makes the Jester draw one card. A +1 costs no turn.
  Play your next-to-last card and call UNO (u), or be caught (c) and draw two.
  [b]The Royal Scepter[/b] sounds its fanfare at a random moment (about a minute):
  the Crown passes to the left, the new King chooses a Jester and plays next.
  Win a round by playing your last card: you score the cards left in the other
  hands. The first to the target (500) wins the game.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,question_mark", "close", "Close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Label("UNO Royal Revenge: keys and rules", classes="dialog-title")
            yield Static(HELP_TEXT, id="help-text")
            yield Button("Close (Esc)", id="close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class SaveDialog(ModalScreen[Path | None]):
    """Where to save the game."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default: Path) -> None:
        super().__init__(classes="dialog-screen")
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Save the game", classes="dialog-title")
            yield Static("The file can be resumed with: royal-revenge play --resume FILE", classes="dialog-text")
            yield Input(str(self.default), id="save-path")
            with Horizontal(classes="choices"):
                yield Button("Save (Enter)", id="save", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self._save()
        else:
            self.dismiss(None)

    def _save(self) -> None:
        text = self.query_one("#save-path", Input).value.strip()
        self.dismiss(Path(text).expanduser() if text else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[str]):
    """A yes-or-no question (leave the table? quit without saving? watch instead?).

    Enter or ``y`` answers ``"yes"``, Esc or ``n`` ``"no"``; with ``save``, ``s`` answers ``"save"``
    (save the game first). The buttons do the same by a click; they never take the focus, so that
    Enter always means yes.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "answer('yes')", "Yes"),
        Binding("escape,n", "answer('no')", "No"),
        Binding("s", "answer('save')", "Save", show=False),
    ]

    def __init__(self, title: str, text: str, *, yes: str = "Yes", no: str = "No", save: bool = False,
                 dialog_id: str = "confirm") -> None:
        super().__init__(classes="dialog-screen", id=dialog_id)
        self.title_text = title
        self.text = text
        self.yes = yes
        self.no = no
        self.save = save

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm"):
            yield Label(escape(self.title_text), classes="dialog-title", id="confirm-title")
            yield Static(escape(self.text), classes="dialog-text", id="confirm-text")
            with Horizontal(classes="choices"):
                buttons = [Button(f"{self.yes} (Enter)", id="answer-yes", variant="primary")]
                if self.save:
                    buttons.append(Button("Save first (S)", id="answer-save"))
                buttons.append(Button(f"{self.no} (Esc)", id="answer-no"))
                for button in buttons:
                    button.can_focus = False
                    yield button

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer((event.button.id or "answer-no").removeprefix("answer-"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``s`` saves only where the question offers it."""
        return self.save or action != "answer" or parameters != ("save",)

    def action_answer(self, answer: str) -> None:
        if answer == "save" and not self.save:
            return
        self.dismiss(answer)
