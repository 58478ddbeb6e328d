"""The selfplay and replay commands, end to end through the click group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from royal_revenge.cli import cli


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "rec.json"
    result = CliRunner().invoke(cli, ["selfplay", "--players", "3", "--games", "2", "--seed", "1", "--save", str(path)])
    assert result.exit_code == 0, result.output
    assert "2 games of 3 players" in result.output
    assert f"last game's record written to {path}" in result.output
    return path


def test_selfplay_then_replay_verifies(record: Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(record)])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output
    assert "winner(s): seat" in result.output
    quiet = CliRunner().invoke(cli, ["replay", "--quiet", str(record)])
    assert quiet.exit_code == 0 and len(quiet.output.splitlines()) == 2 and "verified" in quiet.output


def _error_line(output: str) -> str:
    errors = [line for line in output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, output
    assert "Traceback" not in output
    return errors[0]


@pytest.mark.parametrize("corrupt", [
    lambda text: text[: len(text) // 2],  # cut short: not JSON
    lambda text: text.replace('"moves": [\n  "', '"moves": [\n  "garbage ', 1),  # a move that does not parse
    lambda text: json.dumps({**json.loads(text), "final_state_sha256": "0" * 64}),  # the wrong final state
    lambda text: json.dumps({**json.loads(text), "moves": json.loads(text)["moves"][:-1]}),  # a move lost
    lambda text: json.dumps({**json.loads(text), "format": "something-else"}),
])
def test_replay_of_a_corrupt_record_is_a_one_line_error(record: Path, tmp_path: Path, corrupt: object) -> None:
    assert callable(corrupt)
    bad = tmp_path / "bad.json"
    bad.write_text(corrupt(record.read_text()))
    result = CliRunner().invoke(cli, ["replay", str(bad)])
    assert result.exit_code == 2
    assert _error_line(result.output).startswith(f"Error: {bad}")
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_replay_of_a_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "none.json")])
    assert result.exit_code == 2
    assert "cannot read" in _error_line(result.output)


def test_selfplay_unknown_bot_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["selfplay", "--games", "1", "--bots", "genius"])
    assert result.exit_code == 2
    assert "random, heuristic" in _error_line(result.output)
