#!/usr/bin/env python3
"""How fast are the RL environments? Side by side with RLCard's UNO ``env.step`` loop.

Run it with::

    make bench-rl   # the compiled build: PYTHONPATH=build/compiled .venv/bin/python benchmarks/rl_speed.py ...
    .venv/bin/python benchmarks/rl_speed.py --seconds 2 --repeats 5 --players 2 4 6   # interpreted

Every competitor plays random legal actions and produces an observation and the legal
actions at every step. The agent is the same on every side: it turns the environment's legal
actions into a list of action ids (the indices of the mask's ones, ``mask.nonzero()[0].tolist()``;
the keys of RLCard's ``state['legal_actions']``, ``list(...)``) and draws one with
``random.Random.choice``. (Earlier versions indexed the numpy array of indices with ``randrange``
and converted the numpy scalar with ``int``, which cost this project's side about 2k more
instructions per step than RLCard's ``choice`` over a list; the environments are unchanged by it.)

* ``aec-raw``: ``royal_revenge.rl.raw_env`` (the unwrapped PettingZoo AEC environment):
  ``env.last()`` (observation vector + action mask) then ``env.step(action)``, with the
  action drawn uniformly from the mask;
* ``aec``: the same through ``royal_revenge.rl.aec_env`` (PettingZoo's order-enforcing wrapper);
* ``gym``: ``royal_revenge.rl.gym_env`` against Random bots (a step is one learner decision;
  the bots' decisions in between are not counted as steps);
* ``rlcard``: ``rlcard.make('uno')``, ``env.step(action)`` (which returns RLCard's encoded
  state and legal actions) with the action drawn uniformly from ``state['legal_actions']``,
  the player count set on ``env.game`` since RLCard ignores ``game_num_players`` for UNO;
* ``engine``: the bare engine loop (``legal_actions`` + ``step``, no observation), for scale.

The machine may be shared and noisy, so the competitors are interleaved: every repetition
measures each once, in an order that alternates between repetitions; medians are reported,
with the ratio of each to RLCard. Episodes are single rounds for every competitor.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

try:
    from royal_revenge.engine import GameOptions, GameState
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from royal_revenge.engine import GameOptions, GameState

from royal_revenge.rl import aec_env, gym_env, raw_env

Measure = Callable[[int, float, int], tuple[int, float]]


# One episode of each loop, shared with benchmarks/rl_instructions.py (which plays a fixed number of them).
# Each returns its steps: one decision with its observation and legal actions produced.


def aec_episode(env: Any, seed: int, choice: Callable[[list[int]], int]) -> int:
    env.reset(seed=seed)
    steps = 0
    while True:
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            return steps
        env.step(choice(obs["action_mask"].nonzero()[0].tolist()))
        steps += 1


def gym_episode(env: Any, seed: int, choice: Callable[[list[int]], int]) -> int:
    obs, _info = env.reset(seed=seed)
    steps = 0
    done = False
    while not done:
        obs, _reward, terminated, truncated, _info = env.step(choice(obs["action_mask"].nonzero()[0].tolist()))
        done = terminated or truncated
        steps += 1
    return steps


def engine_episode(options: GameOptions, seed: int, choice: Callable[[list[Any]], Any]) -> int:
    state = GameState.new(options, seed=seed)
    legal = state.legal_actions
    steps = 0
    while not state.is_over():
        seat = state.decider
        state.step(seat, choice(legal(seat)))
        steps += 1
    return steps


def rlcard_episode(env: Any, choice: Callable[[list[int]], int]) -> int:
    state, _player = env.reset()
    steps = 0
    while not env.is_over():
        state, _player = env.step(choice(list(state["legal_actions"])))
        steps += 1
    return steps


def _timed(play: Callable[[int], int], seconds: float, seed: int) -> tuple[int, float]:
    """Play episodes (seeded ``seed``, ``seed + 1``, ...) for ``seconds``: (steps, seconds taken)."""
    steps = 0
    gc.collect()
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        steps += play(seed)
        seed += 1
    return steps, clock() - start


def aec_loop(make: Callable[..., Any]) -> Measure:
    def run(players: int, seconds: float, seed: int) -> tuple[int, float]:
        env = make(players=players)
        choice = random.Random(seed).choice
        return _timed(lambda episode_seed: aec_episode(env, episode_seed, choice), seconds, seed)

    return run


def gym_loop(players: int, seconds: float, seed: int) -> tuple[int, float]:
    env = gym_env(players=players, opponents="random")
    choice = random.Random(seed).choice
    return _timed(lambda episode_seed: gym_episode(env, episode_seed, choice), seconds, seed)


def engine_loop(players: int, seconds: float, seed: int) -> tuple[int, float]:
    options = GameOptions(players=players, single_round=True)
    choice = random.Random(seed).choice
    return _timed(lambda episode_seed: engine_episode(options, episode_seed, choice), seconds, seed)


def rlcard_env(players: int, seed: int) -> Any:
    """RLCard's UNO environment with ``players`` seats (its config key is ignored for UNO)."""
    import rlcard

    env = rlcard.make("uno", config={"seed": seed})
    env.game.num_players = players  # read by init_game to create the players and the round
    env.num_players = players
    env.state_shape = [[4, 4, 15] for _ in range(players)]
    env.action_shape = [None for _ in range(players)]
    env.reset()
    if len(env.game.players) != players or env.game.round.num_players != players:
        raise RuntimeError(f"could not set RLCard's UNO to {players} players")
    return env


def rlcard_loop(players: int, seconds: float, seed: int) -> tuple[int, float]:
    env = rlcard_env(players, seed)
    choice = random.Random(seed).choice
    return _timed(lambda _seed: rlcard_episode(env, choice), seconds, seed)


def build_description() -> str:
    """Which build runs: the mypyc-compiled modules (``make compiled``) or the interpreted sources."""
    import importlib.machinery

    from royal_revenge.engine import state
    from royal_revenge.rl import core, encoding

    files = [module.__file__ or "" for module in (state, encoding, core)]
    compiled = [file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) for file in files]
    kind = "compiled (mypyc)" if all(compiled) else "interpreted" if not any(compiled) else "partly compiled"
    return f"{kind}, from {Path(files[0]).parent.parent}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repetitions (default 5)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], help="table sizes (default 2 4 6)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")

    competitors: dict[str, Measure] = {
        "aec-raw": aec_loop(raw_env),
        "aec": aec_loop(aec_env),
        "gym": gym_loop,
        "engine": engine_loop,
    }
    try:
        import rlcard  # noqa: F401
    except ImportError:
        print("RLCard is not installed (pip install -e '.[bench]'); measuring this project only.", file=sys.stderr)
    else:
        competitors["rlcard"] = rlcard_loop

    print(f"Python {sys.version.split()[0]} on {platform.platform()}, {platform.processor() or platform.machine()}")
    print(f"royal_revenge: {build_description()}")
    print(f"{args.repeats} interleaved repetitions of {args.seconds:g} s per measurement; medians shown\n")
    rates: dict[tuple[str, int], list[float]] = {(name, k): [] for name in competitors for k in args.players}
    started = time.perf_counter()
    for rep in range(args.repeats):
        names = list(competitors)
        if rep % 2:
            names.reverse()
        for k in args.players:
            for name in names:
                steps, seconds = competitors[name](k, args.seconds, 1_000_003 * rep + 1000 * k)
                rates[name, k].append(steps / seconds)
        print(f"  repetition {rep + 1}/{args.repeats} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)

    names = list(competitors)
    header = f"{'players':>7} | " + " ".join(f"{name + ' steps/s':>16}" for name in names)
    if "rlcard" in competitors:
        header += " | " + " ".join(f"{name + '/RLCard':>15}" for name in names if name != "rlcard")
    print(header)
    print("-" * len(header))
    for k in args.players:
        medians = {name: statistics.median(rates[name, k]) for name in names}
        line = f"{k:>7} | " + " ".join(f"{medians[name]:>16,.0f}" for name in names)
        if "rlcard" in competitors:
            line += " | " + " ".join(
                f"{medians[name] / medians['rlcard']:>14.2f}x" for name in names if name != "rlcard"
            )
        print(line)
    if "rlcard" in competitors:
        print("\npaired aec-raw / RLCard ratios per repetition:")
        for k in args.players:
            paired = [a / b for a, b in zip(rates["aec-raw", k], rates["rlcard", k], strict=True)]
            print(f"  {k} players: " + " ".join(f"{r:.2f}" for r in paired))
    print(
        "\nA step is one decision with its observation and legal actions (mask) produced; the gym figure counts"
        "\nonly the learner's decisions (the bots' decisions between them are extra work not counted)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
