#!/usr/bin/env python3
"""Instructions per step of the RL loops, counted by valgrind (deterministic, unlike the wall clock).

Run it with::

    PYTHONPATH=build/compiled .venv/bin/python benchmarks/rl_instructions.py            # compiled build
    .venv/bin/python benchmarks/rl_instructions.py --competitors aec-raw                 # interpreted

Each competitor plays the loop of ``benchmarks/rl_speed.py`` (the same random agent on every
side: ``choice`` over the list of legal action ids) for a fixed number of single-round episodes
instead of a fixed time, seeded as ``rl_speed.py``'s first repetition (episode seeds ``1000 *
players``, ``+1``, ...; the agent's generator seeded the same way). The script runs itself under
``valgrind --tool=callgrind`` twice per measurement: once with the warm-up episodes only and once
with the warm-up and the measured episodes; the difference of the two instruction totals, divided
by the measured steps, is the cost of a step, resets included (start-up, imports and the warm-up
cancel out). ``PYTHONHASHSEED`` is fixed so that both runs do the same work. RLCard's rounds are
about ten times shorter than this game's random rounds, so it plays more episodes (200).

Run it under ``nice`` on a shared machine: it takes about a minute per measurement.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPETITORS = ("aec-raw", "aec", "rlcard", "engine")


def _counted(play: Callable[[int], int], seed: int, warmup: int, episodes: int) -> int:
    """Play ``warmup + episodes`` episodes (seeded ``seed``, ``seed + 1``, ...): the steps of the measured ones."""
    steps = 0
    for episode in range(warmup + episodes):
        if episode == warmup:
            steps = 0
        steps += play(seed + episode)
    return steps


def _inner(name: str, players: int, seed: int, warmup: int, episodes: int) -> int:
    """The loops of rl_speed.py (the same episodes and agents), for a fixed number of episodes."""
    sys.path.insert(0, str(HERE))
    import rl_speed

    choice = random.Random(seed).choice
    if name == "rlcard":
        env = rl_speed.rlcard_env(players, seed)
        return _counted(lambda _seed: rl_speed.rlcard_episode(env, choice), seed, warmup, episodes)
    if name == "engine":
        options = rl_speed.GameOptions(players=players, single_round=True)
        return _counted(lambda episode_seed: rl_speed.engine_episode(options, episode_seed, choice), seed, warmup,
                        episodes)
    env = (rl_speed.raw_env if name == "aec-raw" else rl_speed.aec_env)(players=players)
    return _counted(lambda episode_seed: rl_speed.aec_episode(env, episode_seed, choice), seed, warmup, episodes)


def _count(valgrind: str, name: str, players: int, seed: int, warmup: int, episodes: int) -> tuple[int, int]:
    """(instructions, measured steps) of one run under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            valgrind,
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            str(Path(__file__).resolve()),
            "--inner",
            name,
            str(players),
            str(seed),
            str(warmup),
            str(episodes),
        ]
        # (a fixed hash seed: both runs do the same work; one BLAS thread: no idle thread's spinning
        # counted; no bytecode written: a first run that compiles and caches a module would cost
        # more than the second, which reads the cache)
        env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
        steps = int(done.stdout.split()[-1])
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1]), steps
    raise SystemExit("no instruction total in callgrind's output")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], help="table sizes (default 2 4 6)")
    parser.add_argument("--episodes", type=int, default=20, help="measured episodes (default 20)")
    parser.add_argument(
        "--rlcard-episodes",
        type=int,
        default=200,
        help="measured episodes for RLCard, whose rounds are some ten times shorter (default 200)",
    )
    parser.add_argument("--warmup", type=int, default=2, help="warm-up episodes (default 2)")
    parser.add_argument(
        "--competitors", nargs="+", choices=COMPETITORS, default=["aec-raw", "rlcard"], help="default aec-raw rlcard"
    )
    parser.add_argument("--valgrind", default="valgrind", help="the valgrind command")
    parser.add_argument("--seed", type=int, default=0, help="added to the episode seeds (default 0)")
    parser.add_argument(
        "--inner", nargs=5, metavar=("NAME", "PLAYERS", "SEED", "WARMUP", "EPISODES"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.inner:
        name, players, seed, warmup, episodes = args.inner
        print(_inner(name, int(players), int(seed), int(warmup), int(episodes)))
        return 0

    from rl_speed import build_description

    sys.path.insert(0, str(HERE))
    print(f"royal_revenge: {build_description()}")
    print(f"{args.episodes} episodes after {args.warmup} of warm-up; instructions per step, resets included\n")
    print(f"{'competitor':>10} {'players':>7} {'steps':>7} {'instructions/step':>18}")
    for name in args.competitors:
        for players in args.players:
            seed = 1000 * players + args.seed
            episodes = args.rlcard_episodes if name == "rlcard" else args.episodes
            base, _ = _count(args.valgrind, name, players, seed, args.warmup, 0)
            total, steps = _count(args.valgrind, name, players, seed, args.warmup, episodes)
            print(f"{name:>10} {players:>7} {steps:>7} {(total - base) / steps:>18,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
