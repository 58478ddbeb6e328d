"""The seats a person holds at servers' tables, kept between runs of the terminal game.

A seat's token (docs/protocol.md) is what lets a player come back to the same seat after
quitting: ``royal-revenge play --join CODE`` looks here before asking the server for a new seat,
as the browser page looks in its local storage (``rr:CODE``). Whoever has a token plays its seat,
so each seat is one small JSON file readable by its owner only (``0600``, in a ``0700`` folder),
written atomically (a temporary file in the same folder, then a rename): a crash leaves the old
file or the new one, never half of one.

The folder is ``$ROYAL_REVENGE_DATA_DIR/seats`` when that variable is set, else ``seats`` in the
user's data folder (``platformdirs.user_data_dir("royal-revenge")``: ``~/.local/share/royal-revenge``
on Linux). One file per server and table code, named ``CODE-<hash of the server's URL>.json``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..session.table import normalize_code

__all__ = ["DATA_DIR_ENV", "SEATS_FORMAT", "KeptSeat", "SeatStore", "data_dir"]

DATA_DIR_ENV: Final = "ROYAL_REVENGE_DATA_DIR"
"""The environment variable that moves the data folder (tests point it at a temporary folder)."""
SEATS_FORMAT: Final = "royal-revenge-seat"


def data_dir() -> Path:
    """The folder where the terminal game keeps what it remembers between runs."""
    chosen = os.environ.get(DATA_DIR_ENV)
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("royal-revenge"))


@dataclass(frozen=True)
class KeptSeat:
    """One seat at one server's table: its token, its seat (0-based, as the server counts) and the name used."""

    server: str
    code: str
    token: str
    seat: int
    name: str
    saved_at: float = 0.0


class SeatStore:
    """Seat tokens by server URL and table code, one file each (see the module's text)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else data_dir() / "seats"

    @staticmethod
    def key(server: str, code: str) -> tuple[str, str]:
        """The server's URL without a trailing slash, and the table's code in its plain form (``K7QMPWXAB3``)."""
        return server.strip().rstrip("/").lower(), normalize_code(code)

    def path(self, server: str, code: str) -> Path:
        """The file that keeps the seat at ``code`` on ``server``."""
        url, plain = self.key(server, code)
        digest = hashlib.sha256(url.encode()).hexdigest()[:16]
        return self.folder / f"{plain}-{digest}.json"

    def get(self, server: str, code: str) -> KeptSeat | None:
        """The seat kept for this table, or ``None`` (none kept, or a file that is unreadable or not ours)."""
        url, plain = self.key(server, code)
        try:
            data = json.loads(self.path(server, code).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != SEATS_FORMAT:
            return None
        token, seat, name = data.get("token"), data.get("seat"), data.get("name")
        if (data.get("server") != url or data.get("code") != plain or not isinstance(token, str) or not token
                or not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(name, str)):
            return None
        saved_at = data.get("saved_at")
        return KeptSeat(url, plain, token, seat, name, float(saved_at) if isinstance(saved_at, (int, float)) else 0.0)

    def put(self, server: str, code: str, token: str, seat: int, name: str) -> KeptSeat:
        """Keep a seat (replacing the one kept for this table), atomically and readable by its owner only."""
        url, plain = self.key(server, code)
        kept = KeptSeat(url, plain, token, seat, name, time.time())
        text = json.dumps({"format": SEATS_FORMAT, "version": 1, "server": url, "code": plain, "token": token,
                           "seat": seat, "name": name, "saved_at": kept.saved_at}, indent=1)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = self.path(server, code)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=".tmp", dir=self.folder)
        try:
            os.fchmod(handle, 0o600)  # (mkstemp makes it 0600 already; said again for a strange umask or platform)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return kept

    def forget(self, server: str, code: str) -> None:
        """Drop the seat kept for this table (the server refused its token, or the table is gone)."""
        with contextlib.suppress(FileNotFoundError):
            self.path(server, code).unlink()
