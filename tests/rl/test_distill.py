"""The expert taught by the search (royal-revenge distill): the decisions gathered, kept and added to, the training."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from click.testing import CliRunner  # noqa: E402

from royal_revenge.bots.expert import WEIGHTS, ExpertPolicy  # noqa: E402
from royal_revenge.cli import cli  # noqa: E402
from royal_revenge.rl.distill import DistillConfig, distill  # noqa: E402
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE  # noqa: E402


def test_gathers_keeps_adds_to_and_learns_from_the_searchs_decisions(tmp_path: Path) -> None:
    data, out = tmp_path / "decisions.npz", tmp_path / "taught.npz"
    lines: list[str] = []
    config = DistillConfig(games=8, rollouts=24, seed=5, workers=1, data=data, out=out, epochs=2, eval_rounds=2)
    distill(config, log=lines.append)
    with np.load(data) as saved:
        observations, masks, labels = saved["obs"], saved["masks"], saved["labels"]
    first = len(labels)
    assert first >= 100  # eight rounds of the search's choices
    assert observations.shape == (first, OBS_SIZE) and masks.shape == (first, NUM_ACTIONS)
    assert masks[np.arange(first), labels].all()  # every choice legal where it was made
    assert (masks.sum(axis=1) > 1).all()  # only decisions with a choice are kept
    taught = ExpertPolicy.load(out)
    shipped = ExpertPolicy.load(WEIGHTS)
    assert taught.info["distilled"]["decisions"] == first and taught.info["distilled"]["teacher_rollouts"] == 24
    assert not np.array_equal(taught.layers[0][0], shipped.layers[0][0])  # it learned from the start's weights
    assert any("agrees with the search" in line for line in lines)
    assert any(line.startswith("the taught network won") for line in lines)

    # Another seed adds games to the same data; --games 0 trains on it again, from weights given.
    distill(DistillConfig(games=8, rollouts=24, seed=6, workers=1, data=data, out=out, epochs=1, eval_rounds=0),
            log=lines.append)
    with np.load(data) as saved:
        assert len(saved["labels"]) > first and np.array_equal(saved["labels"][:first], labels)
    again = tmp_path / "again.npz"
    result = CliRunner().invoke(cli, ["distill", "--games", "0", "--data", str(data), "--start", str(out),
                                      "--out", str(again), "--epochs", "1", "--eval-rounds", "0"])
    assert result.exit_code == 0, result.output
    assert "weights written to" in result.output and again.is_file()


def test_refuses_what_it_cannot_use_in_plain_words(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli, ["distill", "--games", "0", "--data", str(tmp_path / "none.npz")])
    assert missing.exit_code == 2 and "there is none at" in missing.output
    no_start = runner.invoke(cli, ["distill", "--start", str(tmp_path / "none.npz")])
    assert no_start.exit_code == 2 and "no weights file" in no_start.output
    other = tmp_path / "other.npz"
    np.savez(other, something=np.zeros(3))
    wrong = runner.invoke(cli, ["distill", "--games", "0", "--data", str(other), "--out", str(tmp_path / "o.npz")])
    assert wrong.exit_code == 2 and "not a file of decisions" in wrong.output
    assert "Traceback" not in wrong.output
