"""The training example on the batched core runs end to end (a few tiny updates) and can be resumed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ppo_batch.py"
TINY = ["--players", "3", "--envs", "32", "--steps", "8", "--minibatch", "128", "--eval-every", "2",
        "--eval-games", "16", "--eval-heuristic-games", "2", "--threads", "1"]


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLE), *TINY, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_ppo_on_the_batch_trains_evaluates_saves_and_resumes(tmp_path: Path) -> None:
    checkpoint = tmp_path / "ppo.pt"
    first = run("--updates", "2", "--out", str(checkpoint))
    assert "evaluation after 2 updates" in first and "against random" in first and "against heuristic" in first
    assert checkpoint.exists()
    again = run("--updates", "2", "--out", str(checkpoint), "--resume")
    assert "resumed from" in again and "2 updates" in again
    assert "evaluation after 4 updates" in again
