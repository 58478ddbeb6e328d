"""``royal-revenge play``: its help and its errors (the game itself needs a terminal)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from royal_revenge.cli import cli


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["play", *args])
    return result.exit_code, result.output


def test_help_lists_the_options() -> None:
    code, output = run("--help")
    assert code == 0
    for flag in ("--join", "--server", "--bots", "--players", "--target", "--scoring", "--single-round",
                 "--reverse-skips", "--scepter-seconds", "--turn-seconds", "--bot-delay", "--no-bell", "--resume",
                 "--save-file", "--start"):
        assert flag in output, flag


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "easy,hard", "--players", "4"], "--bots names 2 levels for the 3 bot(s)"),
    (["--bots", "genius"], "--bots: choose from easy, normal, hard, expert, not 'genius'"),
    (["--players", "7"], "7 is not in the range 2<=x<=6"),
    (["--scepter-seconds", "80-40"], "The longest time before the fanfare must be at least the shortest"),
    (["--scepter-seconds", "soon"], "expected LOW-HIGH seconds"),
    (["--join", "ftp://host/t/ABCD"], "is not a table link"),
    (["--join", "ABCD23", "--bots", "easy"], "--bots set up a local game"),
    (["--server", "http://h:1"], "--server goes with --join"),
    (["--resume", "/no/such/file.json"], "cannot read /no/such/file.json"),
    (["--start"], "play needs a terminal"),
])
def test_bad_flags_give_one_clear_line(args: list[str], message: str) -> None:
    code, output = run(*args)
    assert code == 2
    assert message in output
    assert "Traceback" not in output


def test_resume_refuses_a_file_that_is_not_a_save(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text('{"format": "royal-revenge/record"}')
    code, output = run("--resume", str(path))
    assert code == 2 and "is not a saved terminal game" in output
    code, output = run("--resume", str(path), "--bots", "easy")
    assert code == 2 and "cannot change a resumed game" in output


def test_join_and_watch_build_their_clients(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--join takes (or takes back) a seat kept in the data folder; --watch only watches; both take a code or a link."""
    import royal_revenge.cli as cli_module
    import royal_revenge.tui as tui
    from royal_revenge.client import RemoteClient

    started: list[RemoteClient] = []

    class FakeApp:
        def __init__(self, client: RemoteClient, **kwargs: object) -> None:
            started.append(client)
            self.failure = None

        def run(self) -> None:
            pass

    monkeypatch.setattr(tui, "RoyalRevengeApp", FakeApp)
    monkeypatch.setattr(cli_module, "_in_terminal", lambda: True)
    monkeypatch.setenv("ROYAL_REVENGE_DATA_DIR", str(tmp_path))
    assert run("--join", "k7qmp-wxab3", "--server", "http://h:9000", "--name", "Ann", "--age", "9")[0] == 0
    assert run("--watch", "http://h:9000/t/K7QMPWXAB3", "--name", "Zed")[0] == 0
    assert run("--watch", "k7qmp wxab3")[0] == 0
    joined, watched, default = started
    assert (joined.base_url, joined.code, joined.name, joined.age, joined.watching) == (
        "http://h:9000", "K7QMPWXAB3", "Ann", 9, False)
    assert joined.seats is not None and joined.seats.folder == tmp_path / "seats"
    assert (watched.base_url, watched.code, watched.name, watched.watching, watched.token) == (
        "http://h:9000", "K7QMPWXAB3", "Zed", True, None)
    assert (default.base_url, default.watching) == ("http://127.0.0.1:8000", True)


@pytest.mark.parametrize(("args", "message"), [
    (["--join", "ABCDE23456", "--watch", "ABCDE23456"], "choose one"),
    (["--watch", "ab"], "--watch: 'ab' is not a table code"),
    (["--watch", "ABCDE23456", "--age", "9"], "--age is for a player's seat"),
    (["--watch", "ABCDE23456", "--bots", "easy"], "--bots set up a local game; a table joined with --watch"),
])
def test_bad_watch_flags(args: list[str], message: str) -> None:
    code, output = run(*args)
    assert code == 2 and message in output, output
