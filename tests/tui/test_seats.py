"""The seats kept between runs of the terminal game (client/seats.py): atomic, private, one per server and code."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from royal_revenge.client.seats import DATA_DIR_ENV, SeatStore, data_dir


def test_a_seat_is_kept_per_server_and_code(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats")
    assert store.get("http://127.0.0.1:8000", "K7QMPWXAB3") is None
    store.put("http://127.0.0.1:8000/", "k7qmp-wxab3", "tok-a", 2, "Ann")
    store.put("http://other:9000", "K7QMPWXAB3", "tok-b", 0, "Ann")
    store.put("http://127.0.0.1:8000", "ABCDE23456", "tok-c", 1, "Bob")
    kept = store.get("http://127.0.0.1:8000", "K7QMP WXAB3")  # (the code as people type it)
    assert kept is not None and (kept.token, kept.seat, kept.name) == ("tok-a", 2, "Ann")
    other = store.get("http://other:9000", "k7qmpwxab3")
    assert other is not None and other.token == "tok-b"
    third = store.get("http://127.0.0.1:8000", "ABCDE23456")
    assert third is not None and third.token == "tok-c"
    assert len(list((tmp_path / "seats").iterdir())) == 3
    # A newer seat at the same table replaces the old one.
    store.put("http://127.0.0.1:8000", "K7QMPWXAB3", "tok-d", 3, "Ann")
    kept = store.get("http://127.0.0.1:8000", "K7QMPWXAB3")
    assert kept is not None and (kept.token, kept.seat) == ("tok-d", 3)
    assert len(list((tmp_path / "seats").iterdir())) == 3


def test_a_refused_seat_is_forgotten_and_only_that_one(tmp_path: Path) -> None:
    store = SeatStore(tmp_path)
    store.put("http://h:1", "AAAAA22222", "one", 0, "Ann")
    store.put("http://h:1", "BBBBB33333", "two", 1, "Ann")
    store.forget("http://h:1", "AAAAA22222")
    store.forget("http://h:1", "AAAAA22222")  # (twice is fine)
    assert store.get("http://h:1", "AAAAA22222") is None
    kept = store.get("http://h:1", "BBBBB33333")
    assert kept is not None and kept.token == "two"


def test_the_file_is_private_and_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data" / "seats"
    store = SeatStore(folder)
    store.put("http://h:1", "AAAAA22222", "secret", 0, "Ann")
    path = store.path("http://h:1", "AAAAA22222")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    data = json.loads(path.read_text())
    assert data["token"] == "secret" and data["server"] == "http://h:1" and data["code"] == "AAAAA22222"

    # A write that fails half-way leaves the seat kept before, and no temporary file behind.
    def broken_replace(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        store.put("http://h:1", "AAAAA22222", "newer", 1, "Ann")
    monkeypatch.undo()
    kept = store.get("http://h:1", "AAAAA22222")
    assert kept is not None and kept.token == "secret"
    assert [p.name for p in folder.iterdir()] == [path.name]


def test_a_damaged_or_foreign_file_is_no_seat(tmp_path: Path) -> None:
    store = SeatStore(tmp_path)
    path = store.path("http://h:1", "AAAAA22222")
    path.write_text("{not json")
    assert store.get("http://h:1", "AAAAA22222") is None
    path.write_text(json.dumps({"format": "royal-revenge-seat", "server": "http://h:1", "code": "AAAAA22222",
                                "token": "t", "seat": True, "name": "Ann"}))
    assert store.get("http://h:1", "AAAAA22222") is None  # (a seat is a number)
    path.write_text(json.dumps({"format": "royal-revenge-seat", "server": "http://elsewhere:1",
                                "code": "AAAAA22222", "token": "t", "seat": 0, "name": "Ann"}))
    assert store.get("http://h:1", "AAAAA22222") is None  # (another server's seat)


def test_the_data_folder_can_be_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "rr"))
    assert data_dir() == tmp_path / "rr"
    assert SeatStore().folder == tmp_path / "rr" / "seats"
    monkeypatch.delenv(DATA_DIR_ENV)
    import platformdirs

    assert data_dir() == Path(platformdirs.user_data_dir("royal-revenge"))
