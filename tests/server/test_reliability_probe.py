"""benchmarks/reliability.py keeps working: its three parts at tiny counts, against real server processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import royal_revenge

pytestmark = pytest.mark.timeout(120)

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reliability.py"


def test_the_probe_finds_no_leak_no_loss_no_5xx_no_traceback(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    # The probe and its servers run the very sources this test imports (the sources, or the compiled build).
    env = {**os.environ, "PYTHONPATH": str(Path(royal_revenge.__file__).resolve().parents[1])}
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--parts", "leaks,fuzz,kills", "--seed", "3", "--json", str(out),
         "--workdir", str(tmp_path / "work"), "--game-timeout", "60",
         "--rounds", "2", "--tables-at-once", "2",
         "--fuzz-messages", "240", "--fuzz-connections", "4", "--fuzz-requests", "60", "--fuzz-bad-connections", "4",
         "--state-check-interval", "1",
         "--kills", "2", "--kill-tables", "1", "--kill-min", "0.3", "--kill-max", "1.0"],
        capture_output=True, text=True, timeout=110, env=env)
    assert out.exists(), result.stdout + result.stderr
    parts = {part["part"]: part for part in json.loads(out.read_text())}
    assert set(parts) == {"leaks", "fuzz", "kills"}, parts
    for part in parts.values():
        assert "crashed" not in part, part
        assert part["log tracebacks"] == 0 and part["log errors"] == 0, part
        assert part.get("http 5xx", 0) == 0, part
    leaks, fuzz, kills = parts["leaks"], parts["fuzz"], parts["kills"]
    assert leaks["games"] == 2 and leaks["frames replay-checked"] > 100, leaks
    assert leaks["leaks"] == 0 and leaks["views unlike the engine's"] == 0, leaks
    assert fuzz["ws messages"] >= 240 and fuzz["http requests"] >= 60, fuzz
    assert fuzz["unanswered"] == fuzz["accepted"] == fuzz["server errors"] == fuzz["state changes"] == 0, fuzz
    assert fuzz["state checks"] >= 2, fuzz
    assert kills["kills"] == 2 and kills["acks"] > 0 and kills["acks checked"] == kills["acks"], kills
    assert kills["lost"] == 0, kills
    assert result.returncode == 0, result.stdout[-3000:]
