"""Self-play training of the expert policy (royal-revenge train): advantages, checkpoints, the export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from royal_revenge.bots.expert import ExpertPolicy, features  # noqa: E402
from royal_revenge.cli import cli  # noqa: E402
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE  # noqa: E402
from royal_revenge.rl.train import Network, TrainConfig, TrainingError, _advantages, _share, train  # noqa: E402


def test_advantages_follow_each_seat_through_its_own_decisions() -> None:
    # One game, two seats alternating: A B A B; B's last move ends the round, which A wins (+1, B -1).
    # Then a new round starts: A decides once more and the rollout stops (its bootstrap value 0.5).
    values = np.array([[0.1], [0.2], [0.3], [0.4], [0.6]], dtype=np.float32)
    agents = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2), dtype=np.float32)
    rewards[3, 0] = (1.0, -1.0)
    done = np.array([[False], [False], [False], [True], [False]])
    bootstrap = np.array([[0.5, 0.0]], dtype=np.float32)
    got = _advantages(values, agents, rewards, done, bootstrap, lam=1.0)[:, 0]
    # With lam 1 an advantage is the return minus the value: the round's result for the old round,
    # the bootstrap for the new one.
    assert got == pytest.approx([1 - 0.1, -1 - 0.2, 1 - 0.3, -1 - 0.4, 0.5 - 0.6])
    half = _advantages(values, agents, rewards, done, bootstrap, lam=0.5)[:, 0]
    # A's first decision: its next is at step 2 (value 0.3, advantage 0.7): 0.3 - 0.1 + 0.5 * 0.7.
    assert half[0] == pytest.approx(0.3 - 0.1 + 0.5 * (1 - 0.3))


def _config(tmp_path: Path, **changes: object) -> TrainConfig:
    settings: dict[str, object] = dict(updates=2, steps=8, epochs=1, minibatch=64, hidden=32, eval_every=0,
                                       eval_rounds=4, backend="numpy", tables=((2, 8), (4, 8)), heuristic_games=4,
                                       checkpoint=tmp_path / "t.pt", export=tmp_path / "t.npz")
    settings.update(changes)
    return TrainConfig(**settings)  # type: ignore[arg-type]


def test_training_writes_weights_that_the_numpy_policy_reproduces_and_resumes(tmp_path: Path) -> None:
    lines: list[str] = []
    policy = train(_config(tmp_path), log=lines.append)
    assert (tmp_path / "t.pt").is_file() and (tmp_path / "t.npz").is_file()
    assert policy.info["updates"] == 2 and policy.info["decisions"] == 2 * 8 * (16 + 4)
    assert any("won" in line and "against 3 heuristic bots" in line for line in lines)
    saved = torch.load(tmp_path / "t.pt", weights_only=False)
    net = Network(32, 2)
    net.load_state_dict(saved["net"])
    inputs = np.random.default_rng(1).integers(0, 12, size=(20, OBS_SIZE)).astype(np.uint8)
    mask = torch.ones((20, NUM_ACTIONS), dtype=torch.bool)
    with torch.no_grad():
        expected = net(torch.from_numpy(features(inputs)), mask)[0].numpy()
    loaded = ExpertPolicy.load(tmp_path / "t.npz")
    assert np.allclose(loaded.logits(inputs), expected, atol=1e-5)

    lines.clear()
    again = train(_config(tmp_path, updates=1, resume=True), log=lines.append)
    assert lines[0].startswith(f"resumed from {tmp_path / 't.pt'}: 2 updates")
    assert again.info["updates"] == 3 and len(again.info["evaluations"]) == 2
    with pytest.raises(ValueError, match="the checkpoint's network has 2 layers of 32, not 2 of 64"):
        train(_config(tmp_path, hidden=64, resume=True))


def test_the_train_command(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "mine.npz"
    result = runner.invoke(cli, ["train", "--updates", "1", "--eval-rounds", "4", "--backend", "numpy",
                                 "--hidden", "16", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "evaluation after 1 updates" in result.output and out.is_file() and out.with_suffix(".pt").is_file()
    assert f"--expert-weights {out}" in result.output
    played = runner.invoke(cli, ["tournament", "-p", "2", "-b", "expert,random", "-n", "2", "--rounds-only",
                                 "--workers", "1", "--no-progress", "--expert-weights", str(out)])
    assert played.exit_code == 0, played.output
    assert "expert" in played.output
    refused = runner.invoke(cli, ["train", "--resume", "--out", str(tmp_path / "other.npz")])
    assert refused.exit_code == 2 and "there is no checkpoint at" in refused.output
    refused = runner.invoke(cli, ["tournament", "-b", "random,random", "--expert-weights", str(out)])
    assert refused.exit_code == 2 and "--expert-weights sets the expert bot, and --bots names none" in refused.output


def test_the_shards_share_every_game_once() -> None:
    for total in (0, 1, 7, 512):
        for shards in (1, 2, 3, 8):
            shares = [_share(total, shards, shard) for shard in range(shards)]
            assert [game for share in shares for game in share] == list(range(total))
            assert max(map(len, shares)) - min(map(len, shares)) <= 1


def _weights(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an exported policy (its description, which holds the minutes it took, left out)."""
    with np.load(path) as saved:
        return {name: saved[name] for name in saved.files if name != "info"}


# Ray starts its processes with subprocess (a fork, then an exec at once, no Python in between): the warning JAX
# gives for any fork of a multithreaded process (JAX is imported by earlier tests of the same run) does not apply.
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_sharded_training_on_ray_trains_the_network_it_trains_here(tmp_path: Path) -> None:
    """Three shards played by Ray actors on a local cluster of two CPUs give the very weights of the same three
    shards played in this process: the rollouts are seeded by the training, not by where they run. (More shards
    than CPUs share them.)"""
    ray = pytest.importorskip("ray")
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    train(_config(here, shards=3, eval_rounds=0), log=lambda line: None)
    lines: list[str] = []
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=128 * 1024 * 1024)
    try:
        train(_config(there, shards=3, eval_rounds=0, ray_address="auto"), log=lines.append)
        assert ray.is_initialized()  # (a cluster it found connected stays connected)
    finally:
        ray.shutdown()
    assert "playing the games in 3 shard(s) on a Ray cluster of 2 CPU(s)" in lines
    mine, theirs = _weights(here / "t.npz"), _weights(there / "t.npz")
    assert mine.keys() == theirs.keys() and "w0" in mine
    for name in mine:
        assert np.array_equal(mine[name], theirs[name]), name
    one_shard = tmp_path / "one"
    one_shard.mkdir()
    train(_config(one_shard, eval_rounds=0), log=lambda line: None)  # (other shares, other deals)
    assert not np.array_equal(_weights(one_shard / "t.npz")["w0"], mine["w0"])


def test_the_train_command_refuses_a_ray_address_in_plain_words(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    result = CliRunner().invoke(cli, ["train", "--updates", "1", "--backend", "numpy", "--ray", "nonsense",
                                      "--out", str(tmp_path / "x.npz")])
    assert result.exit_code == 2
    assert "a Ray address is HOST:PORT or ray://HOST:PORT (or auto), not 'nonsense'" in result.output
    assert "Traceback" not in result.output


def test_more_shards_than_games_to_share_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="9 shards are more than there are games to share: at most 8"):
        train(_config(tmp_path, shards=9), log=lambda line: None)


@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")  # (as above)
def test_a_shard_that_fails_on_ray_stops_the_training_in_plain_words(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=128 * 1024 * 1024)
    try:
        with pytest.raises(TrainingError, match=r"a shard failed on the Ray cluster \(.*\); the last checkpoint "
                                                r"is in .*t\.pt, and --resume goes on from it") as caught:
            train(_config(tmp_path, shards=2, ray_address="auto", backend="abacus"), log=lambda line: None)
    finally:
        ray.shutdown()
    assert "Traceback" not in str(caught.value) and "\x1b[" not in str(caught.value)
