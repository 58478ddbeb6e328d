"""Modal screens: round results, help, saving, and questions such as "Leave the table?" (the King's decisions
sit on the table screen, above the hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from .render import results_markup

__all__ = ["ConfirmDialog", "HelpScreen", "ResultsDialog", "SaveDialog", "HELP_TEXT"]


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
  ←/→ or h/l     choose a card
  Enter, Space   play the chosen card
  1-9, 0         play card 1-9 (0: the 10th)
  d              draw a card
  p / k          play the card you drew / keep it
  u              call UNO: press it, then play your next-to-last card
                 (or press it late, before the next player starts)
  c              catch a player who did not call UNO
  R Y G B        the King names a Wild's colour
  1-6            the King chooses a player (King's Choice, Jester)
  b              take your seat back from the bot that plays it
  s              save the game (local games)
  m              the fanfare's bell on or off
  ?              this help
  q, Ctrl+C      quit
  The mouse works too: click a card, a Catch, a King's choice or an action.

[b]The rules in short[/b]
  Play a card of the active colour, the same number, the same symbol,
  or a Wild; or draw one card (play it at once if it fits, or keep it).
  Reverse turns the direction; Skip skips the next player.
  [b]The King[/b] (who wears the Crown) makes the royal decisions: the
  colour of every Wild, who draws one card for a King's Choice, and who
  wears the Jester Hat. A Jester card makes the Jester draw one card.
  A +1 costs no turn.
  Call UNO yourself with your next-to-last card (u), or be caught (c)
  and draw two.
  [b]The Royal Scepter[/b] sounds its fanfare at a random moment (about a
  minute): the Crown passes to the left, the new King chooses a Jester
  and plays next.
  Win a round by playing your last card: you score the cards left in the
  other hands. The first to the table's target score (500 by default)
  wins the game.
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
