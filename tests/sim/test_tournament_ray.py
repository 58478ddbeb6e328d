"""Tournaments on a Ray cluster (``--ray``): the same results as the process pool for the same seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

from royal_revenge.sim.tournament import TournamentConfig, run_tournament

from .test_tournament import invoke, small

# Ray starts its processes with subprocess (a fork, then an exec at once, no Python in between): the warning JAX
# gives for any fork of a multithreaded process (JAX is imported by earlier tests of the same run) does not apply.
pytestmark = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")

COMMAND = str(Path(sys.executable).parent / "royal-revenge")


def test_the_command_line_plays_on_a_local_ray_cluster_as_on_processes(tmp_path: Path) -> None:
    """``--ray auto`` with no cluster running starts a local one for the tournament (in a process of its own, as a
    person runs it) and writes the very results of ``--workers``."""
    args = ["tournament", "--bots", "search,heuristic,random", "--players", "3", "--games", "9", "--seed", "5",
            "--rounds-only", "--iterations", "6", "--no-progress"]
    on_ray, on_processes = tmp_path / "ray.json", tmp_path / "processes.json"
    environment = {**os.environ, "RAY_ADDRESS": ""}  # (no address from the environment: auto decides)
    done = subprocess.run([COMMAND, *args, "--ray", "auto", "--json", str(on_ray)],
                          capture_output=True, text=True, timeout=300, env=environment, check=False)
    assert done.returncode == 0, done.stderr
    assert "9 single rounds of 3 players" in done.stdout
    assert "on a Ray cluster of " in done.stdout
    done = subprocess.run([COMMAND, *args, "--workers", "2",
                           "--json", str(on_processes)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    ray_result, process_result = json.loads(on_ray.read_text()), json.loads(on_processes.read_text())
    assert ray_result.pop("timing")["workers"] >= 1
    process_result.pop("timing")
    assert ray_result == process_result
    assert len(ray_result["matches"]) == 9


@pytest.mark.parametrize(("args", "message"), [
    (["--ray", "nonsense"], "a Ray address is HOST:PORT or ray://HOST:PORT (or auto), not 'nonsense'"),
    (["--ray", "127.0.0.1:1"], "cannot reach a Ray cluster at 127.0.0.1:1"),
    (["--ray", "auto", "--workers", "2"], "--workers and --ray both say where to play: choose one"),
])
def test_ray_options_refused_in_plain_words(args: list[str], message: str) -> None:
    code, output = invoke("--games", "2", "--no-progress", *args)
    assert code == 2
    assert message in output
    assert "Traceback" not in output


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """A local Ray cluster of two CPUs for this module (the tournaments use it as they find it running)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=128 * 1024 * 1024)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.parametrize("config", [
    small(games=12),
    small(bots=("search", "heuristic", "random"), games=6, bot_params={"search": {"iterations": 6}}),
    TournamentConfig(bots=("heuristic", "random"), players=2, games=4, seed=3, full_games=True),
], ids=["rounds", "search", "full-games"])
def test_a_tournament_on_ray_is_the_process_pools(ray_cluster: None, config: TournamentConfig) -> None:
    seen: list[tuple[int, int]] = []
    on_ray = run_tournament(config, ray_address="auto", progress=lambda done, total: seen.append((done, total)))
    on_processes = run_tournament(config, workers=2)
    assert on_ray.deterministic_json() == on_processes.deterministic_json()
    assert [match.index for match in on_ray.matches] == list(range(config.games))
    assert seen == [(done, config.games) for done in range(1, config.games + 1)]
    assert on_ray.workers == 2  # (the cluster's CPUs)
    assert ray.is_initialized()  # (a cluster it found running is left running)
