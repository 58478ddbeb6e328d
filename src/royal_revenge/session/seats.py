"""The seats of a table: who sits where (a person known by a secret token, a bot, or nobody), who is host,
the names people may take, and the table codes people type.

:class:`Seating` holds the seats and answers every question about them (whose token holds which seat, who is
host, which seat a bot takes); the table (:mod:`.table`) decides when the seats may change (its phase) and
what follows (a new version, its clocks worked out again).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import secrets
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from .settings import TableError

__all__ = ["BOT_LEVELS", "CODE_LENGTH", "NAME_LENGTH", "Seat", "SeatKind", "Seating", "bot_name", "check_person",
           "clean_name", "display_code", "hash_client", "name_key", "new_code", "normalize_code"]

BOT_LEVELS: Final = ("easy", "normal", "hard", "expert")
LEVEL_CHOICE: Final = "Choose a bot level: easy, normal, hard or expert"
"""The refusal of a level that is not one of :data:`BOT_LEVELS`, in words."""
_SEATS_GENERATIONS: Final = itertools.count()


class SeatKind(StrEnum):
    """Who sits in a seat: nobody yet, a person, or a bot."""

    OPEN = "open"
    HUMAN = "human"
    BOT = "bot"


@functools.lru_cache(maxsize=8192)
def _hash_token(token: str) -> str:
    # Memoised: a connection's token is checked before every frame it is sent (a kicked token must not see).
    return hashlib.sha256(token.encode()).hexdigest()


def hash_client(code: str, client: str) -> str:
    """The hash of a client (a browser's cookie) as a seat keeps it: with the table's code, so that the same
    browser's seats at two tables do not share a hash."""
    return hashlib.sha256(f"{code}/{client}".encode()).hexdigest()


@dataclass(slots=True)
class Seat:
    """One seat: open, a person (known by a secret token) or a bot of a level."""

    kind: SeatKind = SeatKind.OPEN
    name: str = ""
    age: int | None = None
    level: str | None = None
    token_hash: str | None = None
    client_hash: str | None = None
    """The hash of the client (a browser's cookie) that took this person's seat: one client, one seat."""
    connected: bool = False
    disconnected_at: float | None = None
    timeouts: int = 0
    autopilot: bool = False
    """A bot is playing this person's seat until they act again (timeouts or a long disconnect)."""

    def public(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "name": self.name,
            "level": self.level,
            "connected": self.connected if self.kind is SeatKind.HUMAN else None,
            "autopilot": self.autopilot,
        }

    def to_json(self) -> dict[str, Any]:
        # Every field is a plain value, so this equals asdict(self) at a tenth of the cost (saved on every move).
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["kind"] = self.kind.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        return cls(**{**data, "kind": SeatKind(data["kind"])})



class Seating:
    """A table's seats and its host, with the JSON of the seats (cached: views and saves are made after every
    move, the seats change seldom).

    Every change to a seat goes through :meth:`changed`, which moves :attr:`generation`.
    """

    __slots__ = ("_public_json", "_saved_json", "generation", "host", "seats")

    def __init__(self, players: int) -> None:
        self.seats: list[Seat] = [Seat() for _ in range(players)]
        self.host: int | None = None
        self.generation = next(_SEATS_GENERATIONS)
        """Changes with every change to a seat, and is never the same at two tables: a connection whose seat was
        found held at this generation still holds it (the server checks seat tokens only when it changes)."""
        self._public_json: list[dict[str, Any]] | None = None
        self._saved_json: list[dict[str, Any]] | None = None

    def changed(self) -> None:
        """Every change to a seat calls this: the seats' JSON is built again only after one (not after every move)."""
        self._public_json = self._saved_json = None
        self.generation = next(_SEATS_GENERATIONS)

    def public_json(self) -> list[dict[str, Any]]:
        """The seats as everyone sees them (shared: read only)."""
        if self._public_json is None:
            self._public_json = [player.public() for player in self.seats]
        return self._public_json

    def saved_json(self) -> list[dict[str, Any]]:
        """The seats as saved (token hashes included; shared: read only)."""
        if self._saved_json is None:
            self._saved_json = [seat.to_json() for seat in self.seats]
        return self._saved_json

    def name(self, seat: int) -> str:
        """The name a seat is called by (an open seat by its number, as people count)."""
        return self.seats[seat].name or f"Seat {seat + 1}"

    # ------------------------------------------------------------------ tokens

    def holds(self, seat: int, token: str) -> bool:
        """Whether ``token`` still holds ``seat``."""
        player = self.seats[seat] if 0 <= seat < len(self.seats) else None
        return (player is not None and player.kind is SeatKind.HUMAN and player.token_hash is not None
                and secrets.compare_digest(player.token_hash, _hash_token(token)))

    def seat_of(self, token: str | None) -> int:
        """The seat a token holds; refuses unknown or revoked tokens."""
        if token:
            digest = _hash_token(token)
            for index, seat in enumerate(self.seats):
                if seat.kind is SeatKind.HUMAN and seat.token_hash is not None and secrets.compare_digest(
                    seat.token_hash, digest
                ):
                    return index
        raise TableError("bad_token", "This seat is not yours at this table (it may have been given to someone else)")

    def host_check(self, token: str | None) -> int:
        """The host's seat, if ``token`` is the host's; refused in plain words otherwise."""
        seat = self.seat_of(token)
        if seat != self.host:
            host = self.seats[self.host].name if self.host is not None else ""
            raise TableError("not_host", f"Only the host{', ' + host + ',' if host else ''} can do that")
        return seat

    # ------------------------------------------------------------------ who sits where

    def seat_person(self, code: str, name: str, age: int | None, client: str | None) -> tuple[int, str]:
        """Seat a person (``name`` and ``age`` as :func:`check_person` gives them) in the first open seat (the first
        person becomes host); returns the seat and its secret token. Refused in plain words: a client seated here
        already, a name taken, no seat open."""
        client_hash = hash_client(code, client) if client is not None else None
        key = name_key(name)
        for seat in self.seats:
            if client_hash is not None and seat.client_hash == client_hash and seat.kind is SeatKind.HUMAN:
                raise TableError("already_seated", f"You already have a seat at this table, as {seat.name}; "
                                                   "each person may take one seat")
        open_seats = self.open_seats()
        if not open_seats:
            raise TableError("table_full", f"All {len(self.seats)} seats are taken")
        for seat in self.seats:
            if seat.kind is not SeatKind.OPEN and name_key(seat.name) == key:
                raise TableError("name_taken", f"{seat.name} is already at this table; choose another name")
        index = open_seats[0]
        token = secrets.token_urlsafe(24)
        self.seats[index] = Seat(SeatKind.HUMAN, name, age, token_hash=_hash_token(token), client_hash=client_hash)
        self.changed()
        if self.host is None:
            self.host = index
        return index, token

    def seat_bot(self, level: str, seat: int | None) -> int:
        """Seat a bot of ``level`` in ``seat`` (an open seat: refused in plain words otherwise), or in the first open
        seat; returns its seat."""
        if level not in BOT_LEVELS:
            raise TableError("bad_request", LEVEL_CHOICE)
        open_seats = self.open_seats()
        if not open_seats:
            raise TableError("table_full", f"All {len(self.seats)} seats are taken")
        if seat is None:
            index = open_seats[0]
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise TableError("bad_request", f"This table has {len(self.seats)} seats: choose one of them")
        elif seat not in open_seats:
            raise TableError("bad_request", f"{self.name(seat)} already sits there: choose an open seat")
        else:
            index = seat
        self.seats[index] = Seat(SeatKind.BOT, bot_name(level, index), level=level)
        self.changed()
        return index

    def vacate(self, seat: int, in_play: bool) -> None:
        """Empty ``seat`` (in the lobby), or (``in_play``: a game needs every seat) give it to a normal bot."""
        self.seats[seat] = Seat(SeatKind.BOT, bot_name("normal", seat), level="normal") if in_play else Seat()
        self.changed()

    def open_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.kind is SeatKind.OPEN]

    def any_open(self) -> bool:
        return any(seat.kind is SeatKind.OPEN for seat in self.seats)

    def people_after(self, seat: int) -> list[int]:
        """The seats people hold, in seat order from the one after ``seat``."""
        count = len(self.seats)
        return [index for index in ((seat + offset) % count for offset in range(1, count))
                if self.seats[index].kind is SeatKind.HUMAN]

    def ages(self) -> list[int | None]:
        """The ages a deal crowns its first King by (a bot has none)."""
        return [seat.age if seat.kind is SeatKind.HUMAN else None for seat in self.seats]

    def bot_level(self, seat: int) -> str | None:
        """The level of the bot that plays ``seat`` now, or ``None`` when a person plays it."""
        player = self.seats[seat]
        if player.kind is SeatKind.BOT:
            return player.level or "normal"
        return "normal" if player.autopilot else None

    def bot_by(self, seat: int) -> str:
        """How a bot's move for ``seat`` is logged: ``autopilot`` when it plays a person's seat."""
        return "autopilot" if self.seats[seat].kind is SeatKind.HUMAN else "bot"


_CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 10
"""Letters in a new table's code: 31**10, about 49.5 bits, so that a table cannot be found by guessing
(docs/protocol.md works out how long it would take). Tables opened with 6-letter codes keep them."""
_CODE_GROUP: Final = 5


def new_code(length: int = CODE_LENGTH) -> str:
    """A table code without look-alike characters (no 0/O, 1/I/L)."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(length))


NAME_LENGTH: Final = 24
"""The most characters a person's name may have."""
HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
"""Unicode categories of characters that show nothing or steer the text (controls, formats such as U+200B and
the right-to-left override U+202E, private use, unassigned, surrogates, line and paragraph separators)."""
BLANKS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
"""Characters of visible categories that draw nothing (Hangul fillers, the blank Braille pattern, ...)."""
_BOT_NAME: Final = re.compile(rf"(?:{'|'.join(BOT_LEVELS)}) bot \d+")


def bot_name(level: str, seat: int) -> str:
    """A bot's name: its level and its seat as people count them (``Hard bot 3``); no person may take one."""
    return f"{level.capitalize()} bot {seat + 1}"


def check_person(name: object, age: object) -> tuple[str, int | None]:
    """A person's name (cleaned: :func:`clean_name`) and age as a seat keeps them; refused in plain words."""
    cleaned = clean_name(name)
    if age is not None and (isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 150):
        raise TableError("bad_request", "An age must be a whole number from 0 to 150, or left empty")
    return cleaned, age


def name_key(name: str) -> str:
    """What two names must not share at one table: ``ANN``, ``ann`` and a full-width ``Ann`` are one name."""
    return unicodedata.normalize("NFKC", name).casefold()


def normalize_code(text: str) -> str:
    """A table code as typed or read aloud, in the form the server keeps: grouping dashes and spaces
    dropped, upper case.

    >>> normalize_code(" k7qmp-wxab3 ")
    'K7QMPWXAB3'
    """
    return "".join(text.split()).replace("-", "").upper()


def display_code(code: str) -> str:
    """A table code as people read it: a long code in groups of five (a 6-letter code stays whole).

    >>> display_code("K7QMPWXAB3"), display_code("K7QMPW")
    ('K7QMP-WXAB3', 'K7QMPW')
    """
    if len(code) <= 6:
        return code
    return "-".join(code[start:start + _CODE_GROUP] for start in range(0, len(code), _CODE_GROUP))


def clean_name(name: object) -> str:
    """A person's name as shown: trimmed, inner spaces collapsed; refused in plain words if it is not fit to show."""
    if not isinstance(name, str):
        raise TableError("bad_request", "Please enter your name")
    cleaned = unicodedata.normalize("NFC", name).strip()
    if any(unicodedata.category(char) in HIDDEN_CATEGORIES or char in BLANKS for char in cleaned):
        raise TableError("bad_request", "A name must not contain invisible or control characters")
    cleaned = " ".join(cleaned.split())  # (runs of spaces, no-break spaces included, become one space)
    if not cleaned:
        raise TableError("bad_request", "Please enter your name")
    if len(cleaned) > NAME_LENGTH:
        raise TableError("bad_request", f"A name may have at most {NAME_LENGTH} characters")
    if not any(unicodedata.category(char)[0] in "LNPS" for char in cleaned):
        raise TableError("bad_request", "A name must have a letter, a digit or a symbol that can be seen")
    if _BOT_NAME.fullmatch(name_key(cleaned)):
        raise TableError("bad_request", f"{cleaned} is a name kept for the table's bots; choose another name")
    return cleaned

