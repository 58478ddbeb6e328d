"""A table's chat, reactions, muted seats and rematch requests (issue 16): what people say around the game."""

from __future__ import annotations

import unicodedata
from collections import deque
from typing import TYPE_CHECKING, Any, Final

from .seats import BLANKS, HIDDEN_CATEGORIES, SeatKind, clean_name, name_key
from .settings import Phase, TableError

if TYPE_CHECKING:
    from .table import Table

__all__ = ["CHAT_LENGTH", "CHAT_SIZE", "REACTIONS", "SPECTATOR_NAME", "Social", "clean_chat_text",
           "clean_spectator_name"]

CHAT_LENGTH: Final = 200
"""The most characters a chat line may have."""
CHAT_SIZE: Final = 50
"""How many chat lines a table keeps (and every view shows)."""
SPECTATOR_NAME: Final = "Spectator"
"""The name of a spectator's chat lines when their hello gave none."""
REACTIONS: Final = ("\U0001f44d", "\U0001f44f", "\U0001f602", "\U0001f62e", "\U0001f621", "\U0001f451",
                    "\U0001f0cf", "\U0001f389")
"""The reactions a person may send (thumbs up, clapping, laughing, surprise, anger, the Crown, the Joker, party)."""


class Social:
    """The chat, the muted seats and the rematch requests of one :class:`~royal_revenge.session.table.Table`."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.chat: deque[dict[str, Any]] = deque(maxlen=CHAT_SIZE)
        """The last chat lines, oldest first (kept across games and restarts: persisted with the table)."""
        self.chat_no = 0
        """The number of the newest chat line ever (line numbers grow through the table's life)."""
        self._chat_view: list[dict[str, Any]] = []
        """:attr:`chat` as the views show it: a new list with every new line (the same object until then)."""
        self.muted_marks: dict[int, str] = {}
        """Seats the host muted, with the token hash of the person muted: a new person in the seat is not."""
        self.rematch_marks: dict[int, tuple[str, int]] = {}
        """Seats asking for a rematch once the game is over, with the token hash of the person asking and the number
        of the game that was over (a request is for that game's rematch only)."""

    def _person_marks(self, marks: dict[int, str]) -> list[int]:
        """The seats of ``marks`` still held by the person they were made for."""
        seats = self.table.seating.seats
        return sorted(seat for seat, token_hash in marks.items()
                      if 0 <= seat < len(seats) and seats[seat].kind is SeatKind.HUMAN
                      and seats[seat].token_hash == token_hash)

    def view(self) -> dict[str, Any]:
        """The view's fields of issue 16 that everyone shares (docs/protocol.md, The view)."""
        return {"chat": self._chat_view, "muted": self.muted(), "rematch_requests": self.rematch_requests(),
                "closed": self.table.closed}

    def muted(self) -> list[int]:
        """The seats whose person the host muted."""
        return self._person_marks(self.muted_marks)

    def rematch_requests(self) -> list[int]:
        """The seats whose person asks for a rematch of the game that is over."""
        table = self.table
        if table.phase is not Phase.FINISHED or not self.rematch_marks:
            return []
        return self._person_marks({seat: token_hash for seat, (token_hash, game_no) in self.rematch_marks.items()
                                   if game_no == table.game_no})

    def ask_rematch(self, seat: int) -> bool:
        """The person in ``seat`` asks for a rematch (not the host: the host's asking starts it); returns whether
        it is a new request."""
        if seat in self.rematch_requests():
            return False
        token_hash = self.table.seating.seats[seat].token_hash
        assert token_hash is not None
        self.rematch_marks[seat] = (token_hash, self.table.game_no)
        return True

    def rematch_agreed(self) -> bool:
        """Whether every person at the finished table asks for a rematch. "At the table" is connected: a rematch
        does not wait for someone who has gone away, the host included (the host's asking starts it anyway). With
        nobody connected (a table driven without connections), every person."""
        table = self.table
        seats = table.seating.seats
        people = [seat for seat, player in enumerate(seats) if player.kind is SeatKind.HUMAN]
        present = [seat for seat in people if seats[seat].connected] or people
        return table.phase is Phase.FINISHED and bool(present) and set(present) <= set(self.rematch_requests())

    def chat_name(self, token: str | None, spectator: str | None = None) -> tuple[int | None, str]:
        """Who a chat line is from: the seat and its name, or a spectator (``spectator``: the name of their hello,
        already checked; ``None``: "Spectator"). A spectator may not pass for someone at the table."""
        seating = self.table.seating
        if token is not None:
            seat = seating.seat_of(token)
            return seat, seating.name(seat)
        if spectator is None:
            return None, SPECTATOR_NAME
        key = name_key(spectator)
        if any(seat.kind is not SeatKind.OPEN and name_key(seat.name) == key for seat in seating.seats):
            return None, f"{spectator} (watching)"
        return None, spectator

    def add_line(self, token: str | None, text: str, kind: str, now: float, spectator: str | None) -> None:
        """A chat line (``kind`` ``chat``) or a reaction (``reaction``); refused for a muted seat."""
        seat, name = self.chat_name(token, spectator)
        if seat is not None and seat in self.muted():
            raise TableError("muted", "The host has muted you")
        self.chat_no += 1
        self.chat.append({"n": self.chat_no, "seat": seat, "name": name, "text": text, "at": now, "kind": kind})
        self._chat_view = list(self.chat)

    def mute(self, host: int, seat: int, muted: bool) -> bool:
        """The host (in ``host``) mutes or unmutes the person in ``seat``; returns whether anything changed."""
        seating = self.table.seating
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seating.seats):
            raise TableError("bad_request", f"This table has {len(seating.seats)} seats: choose one of them")
        player = seating.seats[seat]
        if seat == host:
            raise TableError("bad_request", "You cannot mute yourself")
        if player.kind is not SeatKind.HUMAN or player.token_hash is None:
            raise TableError("bad_request", "Only a person at the table can be muted" if player.kind is SeatKind.BOT
                             else "Nobody sits there")
        if (seat in self.muted()) == muted:
            return False  # (already so: nothing changes)
        if muted:
            self.muted_marks[seat] = player.token_hash
        else:
            self.muted_marks.pop(seat, None)
        return True

    def to_json(self) -> dict[str, Any]:
        """The social part of the table's saved row."""
        table = self.table
        return {"chat": list(self.chat), "chat_no": self.chat_no,
                "muted": sorted([seat, token_hash] for seat, token_hash in self.muted_marks.items()),
                "rematch": sorted([seat, token_hash, game_no]
                                  for seat, (token_hash, game_no) in self.rematch_marks.items()),
                "created_at": table.created_at, "closed": table.closed}

    def restore(self, data: dict[str, Any]) -> None:
        """The social part of a saved row (rows saved before issue 16 have none)."""
        self.chat.extend(dict(line) for line in data.get("chat") or ())
        self._chat_view = list(self.chat)
        self.chat_no = data.get("chat_no") or 0
        self.muted_marks = {seat: token_hash for seat, token_hash in data.get("muted") or ()}
        self.rematch_marks = {seat: (token_hash, game_no) for seat, token_hash, game_no in data.get("rematch") or ()}
        table = self.table
        table.created_at = data.get("created_at")
        table.closed = bool(data.get("closed"))


def clean_chat_text(text: object) -> str:
    """A chat line's text: trimmed, then 1 to :data:`CHAT_LENGTH` characters of plain text (the same invisible and
    control characters as in names are refused). Markup is only text: it is kept as it is, and shown as text."""
    if not isinstance(text, str):
        raise TableError("bad_request", "A chat message must be text")
    cleaned = unicodedata.normalize("NFC", text).strip()
    if any(unicodedata.category(char) in HIDDEN_CATEGORIES or char in BLANKS for char in cleaned):
        raise TableError("bad_request", "A chat message must not contain invisible or control characters "
                                        "(nor line breaks)")
    if not cleaned or not any(unicodedata.category(char)[0] in "LNPS" for char in cleaned):
        raise TableError("bad_request", "Write something before sending")
    if len(cleaned) > CHAT_LENGTH:
        raise TableError("bad_request", f"A chat message can have at most {CHAT_LENGTH} characters")
    return cleaned


def clean_spectator_name(name: object) -> str:
    """A spectator's name for the chat, from their hello: the rules of people's names."""
    return clean_name(name)
