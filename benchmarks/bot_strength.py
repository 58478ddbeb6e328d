#!/usr/bin/env python3
"""How strong are the bots, and how long does a decision take? (A script, not a test.)

Plays 4-player single rounds (``GameOptions(players=4, single_round=True)``) through the
synchronous driver, the bot under test in one seat and three opponents in the others; the
bot's seat rotates 0, 1, 2, 3 from game to game. Everything is derived from ``--seed`` (the
deal of game ``i`` of a match-up and every agent's seed), so the deals and, for bots on an
iteration budget, the results are reproducible; a bot on a millisecond budget depends on the
machine's speed and load.

Match-ups (the issue's strength targets):

* ``heuristic`` against three ``random``: target at least 40% of rounds won;
* ``search`` at 10, 50 and 200 ms per decision against three ``heuristic``: target more
  than 25% (one seat in four), with the 95% Wilson interval's lower bound above 25% at 50 ms.

For each bot it also reports the time one decision takes (every call of ``act``: median and
99th percentile, in wall time and in the process's CPU time), and for the search bot the
same over the decisions it actually searched (more than one candidate), with the rollouts it
made. On a machine shared with other work, wall time stretches while CPU time does not;
``--clock cpu`` makes the search's budget count CPU milliseconds for that reason.

Example (about 15 minutes on two idle cores)::

    .venv/bin/python benchmarks/bot_strength.py --seed 1 --workers 2 \\
        --random-games 2000 --search-games 10:600,50:1000,200:200 --json bot_strength.json
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from royal_revenge.bots import BOT_NAMES, Agent, HeuristicAgent, RandomAgent, SearchAgent, make_agent
from royal_revenge.bots.expert import ExpertAgent
from royal_revenge.engine import AnyAction, GameOptions, GameState, Observation
from royal_revenge.sim import play_game

PLAYERS = 4


class Timed:
    """Wraps an agent and records how long each ``act`` takes (and whether it searched)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.times: list[float] = []
        self.cpu_times: list[float] = []
        self.searched: list[float] = []
        self.rollouts: list[int] = []

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        start, cpu_start = time.perf_counter(), time.process_time()
        action = self.agent.act(observation, legal_actions)
        elapsed = time.perf_counter() - start
        self.times.append(elapsed)
        self.cpu_times.append(time.process_time() - cpu_start)
        rollouts = getattr(self.agent, "last_rollouts", 0)
        if rollouts:
            self.searched.append(elapsed)
            self.rollouts.append(rollouts)
        return action


def make(spec: str, seed: int, clock: str = "wall") -> Agent:
    """``random``, ``heuristic``, ``search@MS`` (milliseconds per decision, on the given clock) or ``search#N``
    (N rollouts per decision), with ``/STEPS`` for rollouts of STEPS steps (``search#200/60``; by default 25
    on the engine, to the end of the round compiled);
    ``search-uniform@MS`` and ``search-uniform#N`` deal the hidden hands uniformly instead of as the history
    suggests; ``search-compiled#N`` plays its rollouts on the compiled batched core (the ``numba`` extra);
    ``expert`` (the shipped weights) or ``expert=PATH`` (weights from ``royal-revenge train``); any
    other name of the bot registry (``easy``, ``normal``, ``hard``) as ``make_agent`` makes it."""
    if spec == "expert" or spec.startswith("expert="):
        return ExpertAgent(seed, weights=spec.partition("=")[2] or None)
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return HeuristicAgent(seed)
    base, at, budget = spec.partition("@") if "@" in spec else spec.partition("#")
    budget, _, steps = budget.partition("/")
    if base in ("search", "search-uniform", "search-compiled") and budget:
        settings: dict[str, Any] = {"inference": base == "search", "name": spec}
        if base == "search-compiled":
            settings["rollouts"] = "compiled"
        if steps:
            settings["rollout_steps"] = int(steps)
        if at == "@":
            timer = time.process_time if clock == "cpu" else time.perf_counter
            return SearchAgent(seed, budget_ms=float(budget), clock=timer, **settings)
        return SearchAgent(seed, iterations=int(budget), **settings)
    if spec in BOT_NAMES:  # the levels (easy, normal, hard) and the bots with their defaults
        return make_agent(spec, seed)
    raise ValueError(f"unknown agent spec {spec!r}")


@dataclass
class GameResult:
    matchup: str
    index: int
    won: bool
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu_times: dict[str, list[float]] = field(default_factory=dict)
    searched: list[float] = field(default_factory=list)
    rollouts: list[int] = field(default_factory=list)


def play_one(task: tuple[str, str, str, int, int, str]) -> GameResult:
    """Play game ``index`` of a match-up: the tested bot at seat ``index % 4``."""
    matchup, tested, opponent, index, seed, clock = task
    # (The deal and the opponents depend on the opponent and the index only: bots tested against the same
    # opponents play the same deals, which makes their comparison paired.)
    rng = random.Random(f"{seed}/{opponent}/{index}")
    seat = index % PLAYERS
    agents = [Timed(make(tested if s == seat else opponent, rng.getrandbits(32), clock)) for s in range(PLAYERS)]
    state = GameState.new(GameOptions(players=PLAYERS, single_round=True), seed=rng.getrandbits(63))
    log = play_game(state, agents)
    result = GameResult(matchup, index, log.rounds[-1].winner == seat)
    for s, agent in enumerate(agents):
        key = tested if s == seat else opponent
        result.times.setdefault(key, []).extend(agent.times)
        result.cpu_times.setdefault(key, []).extend(agent.cpu_times)
    result.searched = agents[seat].searched
    result.rollouts = agents[seat].rollouts
    return result


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def paired_differences(
    matchups: Sequence[tuple[str, str, str, int]], results: Sequence[GameResult]
) -> list[dict[str, Any]]:
    """For every two match-ups against the same opponent, the difference of their win rates over the deals both
    played (the same deals and opponents: see play_one), with a 95% interval from the paired differences."""
    won = {(r.matchup, r.index): r.won for r in results}
    paired = []
    for i, (a, _, opponent_a, _) in enumerate(matchups):
        for b, _, opponent_b, _ in matchups[i + 1:]:
            if opponent_a != opponent_b:
                continue
            deals = [index for (label, index) in won if label == a and (b, index) in won]
            if not deals:
                continue
            diffs = [int(won[a, index]) - int(won[b, index]) for index in deals]
            mean = statistics.fmean(diffs)
            half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("inf")
            paired.append({"a": a, "b": b, "deals": len(deals), "difference": mean,
                           "difference95": [mean - half, mean + half],
                           "a_only": diffs.count(1), "b_only": diffs.count(-1)})
    return paired


def parse_search_games(text: str) -> list[tuple[float, int]]:
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        ms, _, games = item.partition(":")
        pairs.append((float(ms), int(games)))
    return pairs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--random-games", type=int, default=2000, help="games of heuristic vs 3 random")
    parser.add_argument(
        "--search-games", default="10:600,50:1000,200:200",
        help="MS:GAMES pairs for search at MS ms per decision vs 3 heuristic (default 10:600,50:1000,200:200)",
    )
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="what the search's millisecond budget measures: wall time (default) or the process's CPU time, "
        "which keeps the budget honest on a machine shared with other work",
    )
    parser.add_argument(
        "--matchups", default="",
        help="more TESTED:OPPONENT:GAMES match-ups, comma-separated, e.g. search#200:heuristic:2000,"
        "search-uniform#200:heuristic:2000 (bots: random, heuristic, search@MS, search#ROLLOUTS, "
        "search-uniform@MS, search-uniform#ROLLOUTS; /STEPS after the budget sets the rollouts' length; "
        "expert, or expert=PATH for weights written by royal-revenge train)",
    )
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    matchups: list[tuple[str, str, str, int]] = [("heuristic vs 3 random", "heuristic", "random", args.random_games)]
    for ms, games in parse_search_games(args.search_games):
        label = f"{ms:g}"
        matchups.append((f"search@{label}ms vs 3 heuristic", f"search@{label}", "heuristic", games))
    for item in filter(None, (part.strip() for part in args.matchups.split(","))):
        tested, opponent, games_text = item.split(":")
        make(tested, 0), make(opponent, 0)  # (a bad name fails here, not in a worker)
        matchups.append((f"{tested} vs 3 {opponent}", tested, opponent, int(games_text)))
    matchups = [matchup for matchup in matchups if matchup[3] > 0]
    tasks = [(label, tested, opponent, i, args.seed, args.clock) for label, tested, opponent, games in matchups
             for i in range(games)]
    # Interleave the match-ups so that a machine's changing load touches them all alike.
    random.Random(args.seed).shuffle(tasks)

    started = time.perf_counter()
    results: list[GameResult] = []
    print(f"{len(tasks)} games on {args.workers} workers (load average {os.getloadavg()[0]:.1f})", flush=True)
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        try:
            for done, result in enumerate(pool.imap_unordered(play_one, tasks, chunksize=4), 1):
                results.append(result)
                if done % max(1, len(tasks) // 20) == 0:
                    print(f"  {done}/{len(tasks)} games, {time.perf_counter() - started:.0f} s", flush=True)
        except KeyboardInterrupt:
            # Interrupted (Ctrl-C, or kill -INT): report the games finished so far.
            print(f"  interrupted after {len(results)} games", flush=True)
            pool.terminate()
    elapsed = time.perf_counter() - started

    report: dict[str, Any] = {"seed": args.seed, "workers": args.workers, "clock": args.clock,
                              "seconds": round(elapsed, 1),
                              "command": " ".join([os.path.basename(sys.executable), *sys.argv]),
                              "matchups": [], "decision_ms": {}}
    print(f"\nRound wins of the tested bot ({elapsed:.0f} s, load average now {os.getloadavg()[0]:.1f}):")
    print(f"  {'match-up':34} {'games':>6} {'won':>6} {'rate':>7} {'95% Wilson':>17}")
    times: dict[str, list[float]] = {}
    cpu_times: dict[str, list[float]] = {}
    for label, _tested, _opponent, _games in matchups:
        mine = [r for r in results if r.matchup == label]
        wins = sum(r.won for r in mine)
        low, high = wilson(wins, len(mine))
        rate = wins / len(mine) if mine else float("nan")
        print(f"  {label:34} {len(mine):6d} {wins:6d} {rate:7.1%}   [{low:6.1%}, {high:6.1%}]")
        entry: dict[str, Any] = {"matchup": label, "games": len(mine), "wins": wins, "rate": rate,
                                 "wilson95": [low, high]}
        searched = [t for r in mine for t in r.searched]
        rollouts = [n for r in mine for n in r.rollouts]
        if searched:
            entry["searched_decisions"] = len(searched)
            entry["searched_ms_median"] = statistics.median(searched) * 1000
            entry["searched_ms_p99"] = percentile(searched, 0.99) * 1000
            entry["rollouts_median"] = statistics.median(rollouts)
        report["matchups"].append(entry)
        for r in mine:
            for key, values in r.times.items():
                times.setdefault(key, []).extend(values)
            for key, values in r.cpu_times.items():
                cpu_times.setdefault(key, []).extend(values)

    print(f"\nTime per decision (every call of act, out-of-turn chances included; search budget clock: {args.clock}):")
    print(f"  {'bot':16} {'decisions':>10} {'median ms':>10} {'p99 ms':>9} {'CPU median':>11} {'CPU p99':>9}")
    for key in sorted(times, key=lambda k: (k.startswith("search"), float(k.split("@")[1]) if "@" in k else 0, k)):
        values, cpu = times[key], cpu_times[key]
        median, p99 = statistics.median(values) * 1000, percentile(values, 0.99) * 1000
        cpu_median, cpu_p99 = statistics.median(cpu) * 1000, percentile(cpu, 0.99) * 1000
        print(f"  {key:16} {len(values):10d} {median:10.3f} {p99:9.3f} {cpu_median:11.3f} {cpu_p99:9.3f}")
        report["decision_ms"][key] = {"decisions": len(values), "median": median, "p99": p99,
                                      "cpu_median": cpu_median, "cpu_p99": cpu_p99}
    searched_entries = [e for e in report["matchups"] if "searched_decisions" in e]
    if searched_entries:
        print("\nSearch, over the decisions it searched (more than one candidate):")
        print(f"  {'match-up':34} {'decisions':>10} {'median ms':>10} {'p99 ms':>9} {'rollouts':>9}")
        for e in searched_entries:
            print(f"  {e['matchup']:34} {e['searched_decisions']:10d} {e['searched_ms_median']:10.2f} "
                  f"{e['searched_ms_p99']:9.2f} {e['rollouts_median']:9.0f}")
    paired = paired_differences(matchups, results)
    if paired:
        print("\nPaired on the same deals (A's rate less B's, with its 95% interval; A alone won / B alone won):")
        for entry in paired:
            low, high = entry["difference95"]
            print(f"  {entry['a']} - {entry['b']}: {entry['difference']:+.1%} [{low:+.1%}, {high:+.1%}] on "
                  f"{entry['deals']} deals ({entry['a_only']} / {entry['b_only']})")
        report["paired"] = paired
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
