"""The training examples run end to end: PPO on the batched core (a few tiny updates, resumed) and RLlib."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


RLLIB_EXAMPLE = EXAMPLE.parent / "rllib_selfplay.py"


def test_rllib_self_play_with_action_masking_trains_and_plays_legally(tmp_path: Path) -> None:
    """RLlib's PPO on the PettingZoo environment for a few iterations: every action it samples is legal (the
    environment raises on an illegal one), and the trained module then plays whole rounds against heuristic
    bots."""
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    environment = {**os.environ, "RAY_ADDRESS": ""}  # (a local Ray for the run, whatever the environment says)
    done = subprocess.run([sys.executable, str(RLLIB_EXAMPLE), "--iterations", "3", "--batch", "600",
                           "--minibatch", "200", "--epochs", "1", "--hidden", "32", "--eval-rounds", "6"],
                          capture_output=True, text=True, timeout=600, env=environment, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    iterations = [line for line in lines if line.startswith("iteration ")]
    assert [line.split(":")[0] for line in iterations] == ["iteration 1", "iteration 2", "iteration 3"]
    assert "1,800 steps" in iterations[-1]
    assert any(line.startswith("against 3 heuristic bots: won ") and " of 6 4-player rounds" in line
               for line in lines)
