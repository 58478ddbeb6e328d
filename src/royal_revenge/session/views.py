"""What each seat of a table is shown, built after every change and cached (views are the server's hot path).

A view is :meth:`Views.shared` (the same for everyone, built once per change) with the seat's own parts laid
over it: its hand and drawn card, its legal actions, its prompt and hint, and the log as it sees it (another
player's draw hides its cards). The caches here are the only state: they are dropped as the table moves on.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ..engine import AnyAction, Decision, PublicJSON, own_json
from ..engine import events as ev
from ..narration import GLOSSARY, action_labels, describe_event, describe_hint, describe_pending
from .log import LOG_SIZE, log_facts
from .settings import PHASE_VALUES, TableSettings

if TYPE_CHECKING:
    from .table import Table

__all__ = ["Views"]

_UNSEEN: Final[Any] = object()  # typed Any so that it may stand in a str | None slot


class Views:
    """The views of one :class:`~royal_revenge.session.table.Table`, and their caches."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._shared_json: dict[str, Any] | None = None
        """The parts of a view every seat shares (:meth:`shared`), built once per change..."""
        self._shared_key: tuple[int, int, int, int] = (-1, -1, -1, -1)
        self._shared_settings: TableSettings | None = None
        """... and the version, game number, move count, seats generation and settings it was built for."""
        self._public = PublicJSON()
        """The game's public view, each made from the one before (what did not change is the same object)."""
        self._settings_json: tuple[TableSettings, dict[str, Any]] | None = None
        self._narrated: tuple[dict[int, dict[str, Any] | None], dict[int, dict[str, Any] | None]] = ({}, {})
        """Log lines already narrated by event number: as the events are, and redacted (another player's draw);
        valid while the seat names stay the same."""
        self._narrated_names: tuple[str, ...] = ()
        self._names_checked = -1
        """The seats generation at which the seat names behind the narration cache were last compared."""
        self._prompts: dict[int | str | None, tuple[str | None, str | None]] = {}
        self._prompts_key: tuple[int, int, int] = (-1, -1, -1)
        """Each seat's prompt and hint (:meth:`prompt`), valid at one version, game and seats generation."""

    def forget_shared(self) -> None:
        """Build the shared view afresh next time (a change that does not move the game: the chat, a mark)."""
        self._shared_json = None

    # ------------------------------------------------------------------ whole views

    def view(self, seat: int | None, log_after: int, share: bool) -> dict[str, Any]:
        """:meth:`Table.view <royal_revenge.session.table.Table.view>`."""
        shared = self.shared()
        data = shared.copy()
        data["you"] = seat
        if "game" in shared:
            game = shared["game"].copy()
            game.update(self.own_game(seat))
            data["game"] = game
            data["legal"] = self.legal(seat)
            data["legal_labels"] = self.legal_labels(seat)
            data["prompt"], data["hint"] = self.prompt(seat)
        data["log"] = self.log(seat, log_after)
        data["glossary"] = GLOSSARY
        if not share:
            data = copy.deepcopy(data)
        return data

    def shared(self) -> dict[str, Any]:
        """The parts of a view that are the same for every seat (cached: read it, never change it)."""
        table = self.table
        key = (table.version, table.game_no, len(table.moves), table.seating.generation)
        cached = self._shared_json
        if cached is not None and self._shared_key == key and self._shared_settings is table.settings:
            return cached
        data: dict[str, Any] = {
            "code": table.code,
            "version": table.version,
            "phase": PHASE_VALUES[table.phase],
            "you": None,
            "host": table.seating.host,
            "settings": self.settings(),
            "seats": table.seating.public_json(),
            "game_no": table.game_no,
            "prompt": None,
            "hint": None,
        }
        if table.game is not None:
            deadlines = table.scheduler.deadlines
            data["game"] = self._public.of(table.game.state)
            data["legal"] = []
            data["legal_labels"] = []
            data["decision_deadline"] = deadlines.decision
            data["next_round_deadline"] = deadlines.next_round
            data["uno_called"] = self.uno_called()
        data.update(table.social.view())
        self._shared_json = data
        self._shared_key = key
        self._shared_settings = table.settings
        return data

    def game_changes(self, before: dict[str, Any]) -> list[str] | None:
        """The keys of the shared view's ``game`` that changed since ``before``, if known at no cost."""
        return self._public.changes(before)

    def settings(self) -> dict[str, Any]:
        """The table's settings as JSON (shared: read only)."""
        table = self.table
        cached = self._settings_json
        if cached is None or cached[0] is not table.settings:
            cached = self._settings_json = (table.settings, table.settings.to_json())
        return cached[1]

    # ------------------------------------------------------------------ each seat's own parts

    def own_game(self, seat: int | None) -> dict[str, Any]:
        """The game's keys that differ from seat to seat: ``seat``, ``hand`` and ``drawn`` (a fresh dict)."""
        game = self.table.game
        if game is None:
            return {"seat": None, "hand": [], "drawn": None}
        return own_json(game.state, seat)

    def uno_called(self) -> list[int]:
        """The seats that called UNO and hold one card now."""
        table = self.table
        called = table.events.uno_called
        if table.game is None or not called:
            return []
        hands = table.game.state.hands
        return sorted(seat for seat in called if len(hands[seat]) == 1)

    def prompt(self, seat: int | None) -> tuple[str | None, str | None]:
        """The view's ``prompt`` and ``hint`` for ``seat`` (``None``: a spectator)."""
        table = self.table
        if table.game is None:
            return None, None
        key = (table.version, table.game_no, table.seating.generation)
        prompts = self._prompts
        if key != self._prompts_key:
            prompts.clear()
            self._prompts_key = key
        state = table.game.state
        observer = seat if seat is not None and 0 <= seat < state.players else None
        # The sentences differ only for the seat that decides, the seat that may call UNO late, and at the end of
        # a round (its winners): every other seat reads what any other seat reads (one observation, not one each).
        special = (observer is None or observer == state.decider or observer == state.uno_seat
                   or state.decision is Decision.ROUND_OVER or state.decision is Decision.GAME_OVER)
        role: int | str | None = observer if special else "seated"
        cached = prompts.get(role)
        if cached is None:
            name = table.seating.name
            observation = state.observe(observer)
            cached = prompts[role] = (describe_pending(observation, name), describe_hint(observation, name))
        return cached

    def legal(self, seat: int | None) -> list[dict[str, Any]]:
        """The actions ``seat`` may take now, as JSON."""
        return [action.to_json() for action in self.legal_actions(seat)]

    def legal_labels(self, seat: int | None, legal: Sequence[AnyAction] | None = None) -> list[str]:
        """The words of each of ``seat``'s legal actions (``legal``, by default :meth:`legal_actions`), in their
        order (:func:`~royal_revenge.narration.action_labels`): what the front ends show on their buttons."""
        return action_labels(self.legal_actions(seat) if legal is None else legal, seat, self.table.seating.name)

    def legal_actions(self, seat: int | None) -> list[AnyAction]:
        """The actions ``seat`` may take now (none for a spectator or between games)."""
        game = self.table.game
        if seat is None or game is None:
            return []
        return game.state.legal_actions(seat)

    # ------------------------------------------------------------------ the log

    def log(self, seat: int | None, log_after: int = 0) -> list[dict[str, Any]]:
        """The recent log entries numbered above ``log_after`` as ``seat`` sees them (shared: read only)."""
        table = self.table
        seating = table.seating
        if self._names_checked != seating.generation or len(self._narrated[0]) > 4 * LOG_SIZE:
            self._names_checked = seating.generation  # (names change only with a seat)
            names = tuple(seating.name(index) for index in range(len(seating.seats)))
            if names != self._narrated_names or len(self._narrated[0]) > 4 * LOG_SIZE:
                for cache in self._narrated:
                    cache.clear()  # a seat's name changed (or the cache grew): narrate afresh
                self._narrated_names = names
        plain, redacted = self._narrated
        hides = ev.hides
        entries = []
        events = table.events
        log, marks = events.events, events.by
        start = events.skip(log_after)
        number = events.number - len(log) + start
        for index in range(start, len(log)):
            event = log[index]
            number += 1
            hidden = hides(event, seat)
            entry = (redacted if hidden else plain).get(number, _UNSEEN)  # (a miss is common: no exceptions)
            if entry is _UNSEEN:
                entry = self._log_entry(number, event, seat, marks[index])
            if entry is not None:
                entries.append(entry)
        return entries

    def _log_entry(self, number: int, event: ev.Event, seat: int | None, by: str | None) -> dict[str, Any] | None:
        """One log entry as ``seat`` sees it (``None``: not worth a line), narrated and cached (:meth:`log`
        looks in the cache first: views are built after every change).

        An event reads the same for everyone unless it hides something from ``seat`` (another
        player's draw): one entry per event as it is, and one redacted, shared by all who see it so.
        A decision the table made for a person (``by``) says so in its words and in ``by``.
        """
        hidden = ev.hides(event, seat)
        text = describe_event(ev.redact([event], seat)[0] if hidden else event, self.table.seating.name, by)
        entry = None if text is None else {"n": number, "kind": type(event).__name__, "text": text}
        if entry is not None:
            entry.update(log_facts(event))
            if by is not None:
                entry["by"] = by
        self._narrated[1 if hidden else 0][number] = entry
        return entry
