#!/usr/bin/env python3
"""How fast is the engine? Random legal play, side by side with RLCard's UNO environment.

Run it with ``make bench`` (which installs RLCard through the ``bench`` extra) or directly::

    .venv/bin/python benchmarks/engine_speed.py --seconds 3 --repeats 5 --json bench.json

What is measured, in one run:

* random legal play through the engine's public API, one round per game
  (``GameOptions(players=K, single_round=True)``, ``GameState.new(options, seed=i)``),
  with :meth:`GameState.step` (no events) and with :meth:`GameState.apply` (events);
* the same loop through RLCard's UNO environment (``rlcard.make('uno')``; an RLCard game is
  one round), with the player count set on the game object, since RLCard ignores
  ``game_num_players`` for UNO;
* the cost of one ``legal_actions`` query and of one ``copy()``, on positions sampled from
  the middle of random games.

The machine may be shared and noisy, so the competitors are interleaved: every repetition
measures each of them once, in an order that alternates from one repetition to the next,
and the table reports medians over the repetitions. The ratio is engine / RLCard.

Note that a random round of UNO Royal Revenge is far longer than one of RLCard's UNO
(drawing is always allowed here, and the drawn card may be kept), so steps per second is
the figure to compare; rounds per second is shown for completeness.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from royal_revenge.engine import GameOptions, GameState
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from royal_revenge.engine import GameOptions, GameState

RLCARD_MISSING = (
    "RLCard is not installed, so only the engine is measured.\n"
    "Install the benchmark extra to compare with RLCard:  make bench\n"
    "  (or: .venv/bin/python -m pip install -e '.[bench]')"
)


@dataclass
class Rate:
    """One timed measurement: how many steps and rounds in how many seconds."""

    steps: int
    rounds: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def rounds_per_s(self) -> float:
        return self.rounds / self.seconds

    def to_json(self) -> dict[str, float]:
        return {
            "steps": self.steps,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "steps_per_s": self.steps_per_s,
            "rounds_per_s": self.rounds_per_s,
        }


@dataclass
class Series:
    """The repetitions of one competitor at one table size."""

    rates: list[Rate] = field(default_factory=list)

    def median_steps(self) -> float:
        return statistics.median(rate.steps_per_s for rate in self.rates)

    def median_rounds(self) -> float:
        return statistics.median(rate.rounds_per_s for rate in self.rates)

    def steps_per_round(self) -> float:
        return sum(rate.steps for rate in self.rates) / max(1, sum(rate.rounds for rate in self.rates))


# ---------------------------------------------------------------------------- engine


Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"cpu": time.process_time, "wall": time.perf_counter}


def engine_play(players: int, seconds: float, first_seed: int, clock: Clock, *, with_events: bool) -> Rate:
    """Random legal play through the public API, one single-round game after another."""
    options = GameOptions(players=players, single_round=True)
    rng = random.Random(first_seed)
    choice = rng.choice
    new = GameState.new
    steps = rounds = 0
    seed = first_seed
    gc.collect()
    start = clock()
    deadline = start + seconds
    now = start
    while now < deadline:
        state = new(options, seed=seed)
        seed += 1
        advance = state.apply if with_events else state.step
        legal = state.legal_actions
        while not state.is_over():
            seat = state.decider
            advance(seat, choice(legal(seat)))
            steps += 1
        rounds += 1
        now = clock()
    return Rate(steps, rounds, now - start)


def engine_step(players: int, seconds: float, first_seed: int, clock: Clock) -> Rate:
    return engine_play(players, seconds, first_seed, clock, with_events=False)


def engine_apply(players: int, seconds: float, first_seed: int, clock: Clock) -> Rate:
    return engine_play(players, seconds, first_seed, clock, with_events=True)


def sample_positions(players: int, count: int, first_seed: int) -> list[GameState]:
    """Copies of positions from the middle of random games (every 7th decision after the 10th)."""
    options = GameOptions(players=players, single_round=True)
    rng = random.Random(first_seed)
    positions: list[GameState] = []
    seed = first_seed
    while len(positions) < count:
        state = GameState.new(options, seed=seed)
        seed += 1
        step = 0
        while not state.is_over() and len(positions) < count:
            seat = state.decider
            if step >= 10 and step % 7 == 0:
                positions.append(state.copy())
            state.step(seat, rng.choice(state.legal_actions(seat)))
            step += 1
    return positions


def time_per_call(
    positions: Sequence[GameState], call: Callable[[GameState], object], seconds: float, clock: Clock
) -> float:
    """Median cost of one call, in microseconds, over batches that each visit every position."""
    inner = 5
    samples: list[float] = []
    gc.collect()
    deadline = clock() + seconds
    while not samples or clock() < deadline:
        start = clock()
        for position in positions:
            for _ in range(inner):
                call(position)
        samples.append((clock() - start) / (len(positions) * inner) * 1e6)
    return statistics.median(samples)


def legal_query(state: GameState) -> object:
    return state.legal_actions(state.decider)


def copy_state(state: GameState) -> object:
    return state.copy()


def empty_call(state: GameState) -> object:
    return state


# ---------------------------------------------------------------------------- RLCard


def rlcard_env(players: int, seed: int) -> Any:
    """RLCard's UNO environment with ``players`` seats (its config key is ignored for UNO)."""
    import rlcard

    env = rlcard.make("uno", config={"seed": seed})
    env.game.num_players = players  # read by init_game to create players and the round
    env.num_players = players
    env.state_shape = [[4, 4, 15] for _ in range(players)]
    env.action_shape = [None for _ in range(players)]
    env.reset()
    if len(env.game.players) != players or env.game.round.num_players != players:
        raise RuntimeError(f"could not set RLCard's UNO to {players} players")
    return env


def rlcard_play(players: int, seconds: float, first_seed: int, clock: Clock) -> Rate:
    env = rlcard_env(players, first_seed)
    rng = random.Random(first_seed)
    choice = rng.choice
    steps = rounds = 0
    gc.collect()
    start = clock()
    deadline = start + seconds
    now = start
    while now < deadline:
        state, _player = env.reset()
        while not env.is_over():
            action = choice(list(state["legal_actions"].keys()))
            state, _player = env.step(action)
            steps += 1
        rounds += 1
        now = clock()
    return Rate(steps, rounds, now - start)


def check_rlcard_players(players: int) -> None:
    """Play one RLCard game and check that every one of the ``players`` seats really took part."""
    env = rlcard_env(players, 12345)
    seen: set[int] = set()
    for _ in range(20):
        state, player = env.reset()
        assert len(env.game.players) == players
        while not env.is_over():
            seen.add(player)
            state, player = env.step(random.choice(list(state["legal_actions"].keys())))
    if seen != set(range(players)):
        raise RuntimeError(f"RLCard UNO with {players} players only moved seats {sorted(seen)}")


def rlcard_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("rlcard")
    except Exception:
        return None


# ---------------------------------------------------------------------------- report


def machine() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": processor_name(),
        "cpus": os.cpu_count(),
        "rlcard": rlcard_version(),
    }


def processor_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def fmt_rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}x"


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repetitions (default 5)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="table sizes (default 2 4)")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="cpu: this process's CPU time (default; steadier on a shared machine), wall: elapsed time",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON to PATH")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")

    try:
        import rlcard  # noqa: F401
    except ImportError:
        have_rlcard = False
        print(RLCARD_MISSING, file=sys.stderr)
    else:
        have_rlcard = True
        for players in args.players:
            check_rlcard_players(players)

    info = machine()
    print(f"Python {info['python']} ({info['implementation']}) on {info['platform']}")
    print(f"CPU: {info['processor']}, {info['cpus']} logical cores; RLCard {info['rlcard'] or 'not installed'}")
    clock_text = "CPU time of this process" if args.clock == "cpu" else "wall-clock time"
    print(f"{args.repeats} interleaved repetitions of {args.seconds:g} s ({clock_text}) per measurement; medians shown")
    print(f"load average before the run: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n", flush=True)

    clock = CLOCKS[args.clock]
    competitors: dict[str, Callable[[int, float, int, Clock], Rate]] = {"step": engine_step, "apply": engine_apply}
    if have_rlcard:
        competitors["rlcard"] = rlcard_play
    series = {(name, k): Series() for name in competitors for k in args.players}
    micro_calls = {"legal": legal_query, "copy": copy_state, "empty": empty_call}
    micro: dict[tuple[str, int], list[float]] = {(name, k): [] for name in micro_calls for k in args.players}
    positions = {k: sample_positions(k, 2000, 777 + k) for k in args.players}

    started = time.perf_counter()
    for rep in range(args.repeats):
        names = list(competitors)
        if rep % 2:
            names.reverse()
        for k in args.players:
            for name in names:
                rate = competitors[name](k, args.seconds, 1_000_003 * rep + 1000 * k, clock)
                series[name, k].rates.append(rate)
            for name in (["legal", "copy", "empty"] if rep % 2 == 0 else ["empty", "copy", "legal"]):
                micro[name, k].append(time_per_call(positions[k], micro_calls[name], args.seconds / 8, clock))
        print(f"  repetition {rep + 1}/{args.repeats} done ({time.perf_counter() - started:.0f} s)", flush=True)

    rows: list[dict[str, Any]] = []
    for k in args.players:
        eng = series["step", k]
        app = series["apply", k]
        rl = series.get(("rlcard", k))
        row: dict[str, Any] = {
            "players": k,
            "engine_steps_per_s": eng.median_steps(),
            "engine_rounds_per_s": eng.median_rounds(),
            "engine_steps_per_round": eng.steps_per_round(),
            "apply_steps_per_s": app.median_steps(),
            "apply_rounds_per_s": app.median_rounds(),
            "rlcard_steps_per_s": rl.median_steps() if rl else None,
            "rlcard_rounds_per_s": rl.median_rounds() if rl else None,
            "rlcard_steps_per_round": rl.steps_per_round() if rl else None,
            "legal_actions_us": statistics.median(micro["legal", k]),
            "copy_us": statistics.median(micro["copy", k]),
            "call_overhead_us": statistics.median(micro["empty", k]),
        }
        row["steps_ratio"] = ratio(row["engine_steps_per_s"], row["rlcard_steps_per_s"])
        row["rounds_ratio"] = ratio(row["engine_rounds_per_s"], row["rlcard_rounds_per_s"])
        row["paired_steps_ratios"] = (
            [e.steps_per_s / r.steps_per_s for e, r in zip(eng.rates, rl.rates, strict=True)] if rl else None
        )
        rows.append(row)

    print()
    header = (
        f"{'players':>7} | {'engine steps/s':>14} {'RLCard steps/s':>14} {'ratio':>6} | "
        f"{'engine rounds/s':>15} {'RLCard rounds/s':>15} {'ratio':>6} | {'steps/round eng / RLCard':>24}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        spr = f"{row['engine_steps_per_round']:.0f} / " + (
            f"{row['rlcard_steps_per_round']:.0f}" if row["rlcard_steps_per_round"] else "n/a"
        )
        print(
            f"{row['players']:>7} | {fmt_rate(row['engine_steps_per_s']):>14} "
            f"{fmt_rate(row['rlcard_steps_per_s']):>14} {fmt_ratio(row['steps_ratio']):>6} | "
            f"{fmt_rate(row['engine_rounds_per_s']):>15} {fmt_rate(row['rlcard_rounds_per_s']):>15} "
            f"{fmt_ratio(row['rounds_ratio']):>6} | {spr:>24}"
        )
    print()
    print("engine detail (medians)")
    print(
        f"{'players':>7} | {'step() steps/s':>14} {'apply() steps/s':>15} {'apply/step':>10} | "
        f"{'legal_actions':>13} {'copy()':>8} {'(loop+call)':>11} | {'paired step ratios vs RLCard':>28}"
    )
    for row in rows:
        paired = row["paired_steps_ratios"]
        paired_text = "n/a" if paired is None else " ".join(f"{r:.1f}" for r in paired)
        print(
            f"{row['players']:>7} | {fmt_rate(row['engine_steps_per_s']):>14} {fmt_rate(row['apply_steps_per_s']):>15} "
            f"{row['apply_steps_per_s'] / row['engine_steps_per_s']:>10.2f} | "
            f"{row['legal_actions_us']:>10.2f} us {row['copy_us']:>5.2f} us {row['call_overhead_us']:>8.2f} us | "
            f"{paired_text:>28}"
        )
    print(
        "\nlegal_actions and copy() are per call on 2000 mid-game positions per table size (all decision kinds);"
        "\n(loop+call) is the harness's own cost per call, already included in both figures."
    )
    if not have_rlcard:
        print("\n" + RLCARD_MISSING)

    if args.json is not None:
        result = {
            "machine": info,
            "settings": {
                "seconds": args.seconds,
                "repeats": args.repeats,
                "players": args.players,
                "clock": args.clock,
            },
            "summary": rows,
            "raw": {f"{name}/{k}": [rate.to_json() for rate in s.rates] for (name, k), s in series.items()},
            "raw_micro_us": {f"{name}/{k}": values for (name, k), values in micro.items()},
        }
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"\nresults written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
