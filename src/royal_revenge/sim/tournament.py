"""Tournaments: many games between named bots, seats rotated, reproducible from one seed.

A tournament plays ``games`` *matches*. A match is one round (``full_games=False``) or one
whole game to the target score. The schedule depends on the seed alone:

* matches come in *blocks* of ``players`` matches. A block shuffles the lineup once (so
  neighbours vary from block to block), then plays every rotation of it, so that each
  lineup entry sits in each seat exactly once per block. When ``games`` is a multiple of
  ``players`` every bot sits in every seat equally often.
* all matches of a block are dealt from the same seed ("duplicate" play: each bot gets to
  play every seat of the same deal), which lowers the variance of comparisons.
* each agent's seed is derived from ``(seed, match index, seat)``.

Every seed is a hash of the tournament seed and the match's coordinates, so a match plays
the same whichever process plays it and in whatever order: the results are identical for
any number of worker processes. Only the decision times differ from run to run; they are
kept apart (``BotStats.think``, the ``"timing"`` member of the JSON, the last CSV columns).

>>> config = TournamentConfig(bots=("random",), players=3, games=6, seed=1, full_games=False)
>>> [m.seating for m in schedule(config)][:3]
[(2, 0, 1), (0, 1, 2), (1, 2, 0)]
>>> [round(bound, 4) for bound in wilson_interval(5, 10)]
[0.2366, 0.7634]
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import math
import multiprocessing
import os
import random
import statistics
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..engine import AnyAction, GameOptions, GameState, Observation, OptionsError
from ..engine.options import MAX_PLAYERS, MIN_PLAYERS

if TYPE_CHECKING:
    from ..bots.base import Agent

__all__ = [
    "TournamentConfig", "TournamentConfigError", "MatchError", "Match", "MatchResult", "BotStats",
    "TournamentResult", "schedule", "match_at", "play_match", "run_tournament", "wilson_interval",
    "format_table", "write_json", "write_csv", "write_chart", "ray_session", "FORMAT", "CSV_COLUMNS",
]

FORMAT: Final = "royal-revenge-tournament/1"
Z_95: Final = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

ParamValue = int | float | str | bool


class TournamentConfigError(ValueError):
    """A tournament configuration that cannot be run; the message names the allowed values."""


class MatchError(RuntimeError):
    """A match failed while it was played (a bot chose an illegal action, or crashed)."""


def _derive(*parts: object) -> int:
    """A 64-bit seed from the given parts: the same on every machine, process and Python version."""
    text = "royal-revenge/tournament:" + ":".join(str(part) for part in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class TournamentConfig:
    """What to play. Validated on creation: a bad value raises :class:`TournamentConfigError`.

    ``bots`` is the lineup: one bot name per seat, cycled when there are fewer names than
    ``players`` (a single name fills the table); names are case-insensitive. ``options``
    gives the other rule options; its ``players`` and ``single_round`` are taken from this
    config. ``bot_params`` gives keyword parameters per bot name, passed to ``make_agent``
    (e.g. ``{"search": {"iterations": 200}}``).

    A bot that stops thinking after a number of wall-clock milliseconds (``hard``) plays
    differently on a busy machine. Unless ``clock_budgets`` is true, such a bot plays on its
    rollout count alone (``budget_ms=None``), so that the results depend on the seed only; a
    ``budget_ms`` given in ``bot_params`` is always kept, at the price of reproducibility.
    """

    bots: tuple[str, ...]
    players: int = 4
    games: int = 60
    seed: int = 0
    full_games: bool = True
    options: GameOptions = field(default_factory=GameOptions)
    bot_params: Mapping[str, Mapping[str, ParamValue | None]] = field(default_factory=dict)
    clock_budgets: bool = False
    agent_params: Mapping[str, Mapping[str, ParamValue | None]] = field(init=False, repr=False, compare=False)
    """The parameters each bot of the lineup is made with (``bot_params``, budgets resolved)."""

    def __post_init__(self) -> None:
        from ..bots.registry import BOT_NAMES, BotConfigError, make_agent

        bots: object = self.bots
        if isinstance(bots, str):
            bots = bots.split(",")
        if not isinstance(bots, Iterable) or not all(isinstance(name, str) for name in bots):
            raise TournamentConfigError(f"bots must be a list of bot names ({', '.join(BOT_NAMES)})")
        names = tuple(name.strip().lower() for name in bots)
        object.__setattr__(self, "bots", names)
        allowed = ", ".join(BOT_NAMES)
        if not names:
            raise TournamentConfigError(f"name at least one bot ({allowed})")
        for name in names:
            if name not in BOT_NAMES:
                raise TournamentConfigError(f"unknown bot {name!r}; the bots are: {allowed}")
        if not _whole(self.players) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise TournamentConfigError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players!r}")
        if len(names) > self.players:
            raise TournamentConfigError(
                f"{len(names)} bots named for {self.players} seats: name at most one bot per seat "
                "(fewer names are cycled)"
            )
        if not _whole(self.games) or self.games < 1:
            raise TournamentConfigError(f"games must be a whole number of at least 1, not {self.games!r}")
        if not _whole(self.seed) or self.seed < 0:
            raise TournamentConfigError(f"seed must be a whole number of at least 0, not {self.seed!r}")
        if not isinstance(self.full_games, bool):
            raise TournamentConfigError(f"full_games must be true or false, not {self.full_games!r}")
        if not isinstance(self.options, GameOptions):
            raise TournamentConfigError(f"options must be GameOptions, not {type(self.options).__name__}")
        try:
            self.game_options()
        except OptionsError as error:
            raise TournamentConfigError(str(error)) from None
        if not isinstance(self.bot_params, Mapping):
            raise TournamentConfigError("bot_params must map bot names to their parameters")
        if not isinstance(self.clock_budgets, bool):
            raise TournamentConfigError(f"clock_budgets must be true or false, not {self.clock_budgets!r}")
        params = {str(name).strip().lower(): dict(values) for name, values in self.bot_params.items()}
        object.__setattr__(self, "bot_params", params)
        for name in params:
            if name not in names:
                raise TournamentConfigError(
                    f"parameters are given for {name!r}, which is not in the lineup ({', '.join(names)})"
                )
        resolved: dict[str, dict[str, ParamValue | None]] = {}
        for name in dict.fromkeys(names):
            values = dict(params.get(name, {}))
            try:
                agent = make_agent(name, seed=0, **values)
            except BotConfigError as error:
                raise TournamentConfigError(f"bot {name!r}: {error}") from None
            if not self.clock_budgets and "budget_ms" not in values and getattr(agent, "budget_ms", None) is not None:
                values["budget_ms"] = None
            resolved[name] = values
        object.__setattr__(self, "agent_params", resolved)

    @property
    def lineup(self) -> tuple[str, ...]:
        """The bot at each lineup entry: the names cycled to fill every seat."""
        return tuple(self.bots[i % len(self.bots)] for i in range(self.players))

    @property
    def bot_names(self) -> tuple[str, ...]:
        """The distinct bots of the lineup, in order of first appearance."""
        return tuple(dict.fromkeys(self.bots))

    @property
    def mode(self) -> str:
        return "games" if self.full_games else "rounds"

    def game_options(self) -> GameOptions:
        """The options every match is played with."""
        return replace(self.options, players=self.players, single_round=not self.full_games)

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "lineup": list(self.lineup),
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "mode": self.mode,
            "options": self.game_options().to_json(),
            "bot_params": {name: dict(values) for name, values in self.agent_params.items() if values},
            "clock_budgets": self.clock_budgets,
        }


@dataclass(frozen=True, slots=True)
class Match:
    """One match of the schedule: who sits where, and the seeds."""

    index: int
    block: int
    """Matches of a block share the deal and rotate the seats."""
    deal_seed: int
    seating: tuple[int, ...]
    """The lineup entry at each seat."""
    agent_seeds: tuple[int, ...]


def _block_order(config: TournamentConfig, block: int) -> list[int]:
    order = list(range(config.players))
    random.Random(_derive(config.seed, "order", block)).shuffle(order)
    return order


def match_at(config: TournamentConfig, index: int) -> Match:
    """The match at ``index`` of the schedule, computed from the seed alone."""
    n = config.players
    block, rotation = divmod(index, n)
    order = _block_order(config, block)
    seating = tuple(order[(seat + rotation) % n] for seat in range(n))
    agent_seeds = tuple(_derive(config.seed, "agent", index, seat) for seat in range(n))
    return Match(index, block, _derive(config.seed, "deal", block), seating, agent_seeds)


def schedule(config: TournamentConfig) -> list[Match]:
    """Every match of the tournament, in order."""
    return [match_at(config, index) for index in range(config.games)]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What one match produced; everything but ``think`` is determined by the seed."""

    index: int
    seating: tuple[str, ...]
    """The bot at each seat."""
    rounds: int
    blocked: int
    round_wins: tuple[int, ...]
    points_won: tuple[int, ...]
    """Per seat: the points of the rounds it won."""
    hand_points: tuple[int, ...]
    """Per seat: the points left in its hand at the ends of the rounds."""
    winners: tuple[int, ...]
    """The seats that won the game (the round winner, for a single round)."""
    scores: tuple[int, ...]
    decisions: tuple[int, ...]
    think: tuple[array[float], ...] = field(compare=False)
    """Per seat: the seconds of each decision (the only part that differs from run to run)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seating": list(self.seating),
            "rounds": self.rounds,
            "blocked": self.blocked,
            "round_wins": list(self.round_wins),
            "points_won": list(self.points_won),
            "hand_points": list(self.hand_points),
            "winners": list(self.winners),
            "scores": list(self.scores),
            "decisions": list(self.decisions),
        }


class _Timed:
    """An agent that times each of its decisions."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.times: array[float] = array("d")

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        start = time.perf_counter()
        action = self.agent.act(observation, legal_actions)
        self.times.append(time.perf_counter() - start)
        return action


def play_match(config: TournamentConfig, match: Match) -> MatchResult:
    """Play one match; raises :class:`MatchError` naming the match if a bot fails."""
    from ..bots.registry import make_agent
    from .driver import play_game

    lineup = config.lineup
    seating = tuple(lineup[entry] for entry in match.seating)
    agents = [
        _Timed(make_agent(name, seed=agent_seed, **config.agent_params[name]))
        for name, agent_seed in zip(seating, match.agent_seeds, strict=True)
    ]
    n = config.players
    state = GameState.new(config.game_options(), match.deal_seed)
    try:
        log = play_game(state, agents)
    except Exception as error:
        raise MatchError(
            f"match {match.index} (seed {config.seed}, seating {', '.join(seating)}): "
            f"{type(error).__name__}: {error}"
        ) from None
    round_wins = [0] * n
    points_won = [0] * n
    hand_points = [0] * n
    for result in log.rounds:
        round_wins[result.winner] += 1
        points_won[result.winner] += result.points
        for seat in range(n):
            hand_points[seat] += result.hand_points[seat]
    outcome = state.outcome()
    return MatchResult(
        index=match.index,
        seating=seating,
        rounds=len(log.rounds),
        blocked=sum(result.blocked for result in log.rounds),
        round_wins=tuple(round_wins),
        points_won=tuple(points_won),
        hand_points=tuple(hand_points),
        winners=outcome.winners if outcome is not None else (),
        scores=outcome.scores if outcome is not None else tuple(state.scores),
        decisions=tuple(len(agent.times) for agent in agents),
        think=tuple(agent.times for agent in agents),
    )


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default); ``(0, 1)`` for no trials.

    >>> [round(bound, 4) for bound in wilson_interval(0, 10)]
    [0.0, 0.2775]
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)


@dataclass(slots=True)
class BotStats:
    """The results of one bot, pooled over every seat it took.

    A bot named twice in the lineup takes two seats per match, so ``games`` counts
    seat-matches. ``rounds`` counts the rounds it played. Game wins count a shared win (a
    tied lowest tally) as a win for each winner.
    """

    name: str
    players: int
    games: int = 0
    seats: list[int] = field(default_factory=list)
    """How often it sat in each seat."""
    rounds: int = 0
    round_wins: int = 0
    game_wins: int = 0
    points_won: int = 0
    hand_points: int = 0
    decisions: int = 0
    think: array[float] = field(default_factory=lambda: array("d"))
    """Seconds of each decision: timing, not determined by the seed."""

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [0] * self.players

    @property
    def round_win_rate(self) -> float:
        return self.round_wins / self.rounds if self.rounds else 0.0

    @property
    def round_win_interval(self) -> tuple[float, float]:
        return wilson_interval(self.round_wins, self.rounds)

    @property
    def game_win_rate(self) -> float:
        return self.game_wins / self.games if self.games else 0.0

    @property
    def game_win_interval(self) -> tuple[float, float]:
        return wilson_interval(self.game_wins, self.games)

    @property
    def points_per_round(self) -> float:
        """Points won per round played (rounds it lost count 0): its scoring rate."""
        return self.points_won / self.rounds if self.rounds else 0.0

    @property
    def points_per_round_won(self) -> float:
        """The mean value of the rounds it won."""
        return self.points_won / self.round_wins if self.round_wins else 0.0

    @property
    def hand_points_per_round(self) -> float:
        """Points left in its own hand at a round's end (lower is better; the lowest-tally score)."""
        return self.hand_points / self.rounds if self.rounds else 0.0

    @property
    def mean_decision_ms(self) -> float:
        return 1000 * math.fsum(self.think) / len(self.think) if self.think else 0.0

    @property
    def median_decision_ms(self) -> float:
        return 1000 * statistics.median(self.think) if self.think else 0.0

    def to_json(self) -> dict[str, Any]:
        """The deterministic results (no timing)."""
        return {
            "bot": self.name,
            "games": self.games,
            "seats": list(self.seats),
            "rounds": self.rounds,
            "round_wins": self.round_wins,
            "round_win_rate": self.round_win_rate,
            "round_win_ci95": list(self.round_win_interval),
            "game_wins": self.game_wins,
            "game_win_rate": self.game_win_rate,
            "game_win_ci95": list(self.game_win_interval),
            "points_won": self.points_won,
            "points_per_round": self.points_per_round,
            "points_per_round_won": self.points_per_round_won,
            "hand_points_per_round": self.hand_points_per_round,
            "decisions": self.decisions,
        }

    def timing_json(self) -> dict[str, Any]:
        return {"mean_decision_ms": self.mean_decision_ms, "median_decision_ms": self.median_decision_ms}


def aggregate(config: TournamentConfig, results: Iterable[MatchResult]) -> list[BotStats]:
    """Per-bot totals, in lineup order, from match results taken in order of match index."""
    stats = {name: BotStats(name, config.players) for name in config.bot_names}
    for match in sorted(results, key=lambda result: result.index):
        for seat, name in enumerate(match.seating):
            bot = stats[name]
            bot.games += 1
            bot.seats[seat] += 1
            bot.rounds += match.rounds
            bot.round_wins += match.round_wins[seat]
            bot.game_wins += seat in match.winners
            bot.points_won += match.points_won[seat]
            bot.hand_points += match.hand_points[seat]
            bot.decisions += match.decisions[seat]
            bot.think.extend(match.think[seat])
    return list(stats.values())


@dataclass(slots=True)
class TournamentResult:
    """A played tournament: its config, every match in order, the per-bot totals and the timing."""

    config: TournamentConfig
    matches: list[MatchResult]
    bots: list[BotStats]
    workers: int
    elapsed: float

    @property
    def rounds(self) -> int:
        return sum(match.rounds for match in self.matches)

    @property
    def blocked(self) -> int:
        return sum(match.blocked for match in self.matches)

    def deterministic_json(self) -> dict[str, Any]:
        """Everything determined by the config and seed: identical for any number of workers."""
        return {
            "format": FORMAT,
            "config": self.config.to_json(),
            "rounds": self.rounds,
            "blocked": self.blocked,
            "bots": [bot.to_json() for bot in self.bots],
            "matches": [match.to_json() for match in self.matches],
        }

    def to_json(self) -> dict[str, Any]:
        """:meth:`deterministic_json` plus a ``"timing"`` member, which differs from run to run."""
        data = self.deterministic_json()
        data["timing"] = {
            "workers": self.workers,
            "elapsed_seconds": self.elapsed,
            "bots": {bot.name: bot.timing_json() for bot in self.bots},
        }
        return data


_WORKER_CONFIG: TournamentConfig | None = None


def _init_worker(config: TournamentConfig) -> None:
    global _WORKER_CONFIG
    _WORKER_CONFIG = config


def _play_index(index: int) -> MatchResult:
    assert _WORKER_CONFIG is not None, "worker not initialised"
    return play_match(_WORKER_CONFIG, match_at(_WORKER_CONFIG, index))


def _chunksize(games: int, workers: int) -> int:
    return max(1, min(16, games // (workers * 8)))


def _play_indices(config: TournamentConfig, indices: Sequence[int]) -> list[MatchResult]:
    return [play_match(config, match_at(config, index)) for index in indices]


def run_tournament(
    config: TournamentConfig,
    *,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    ray_address: str | None = None,
) -> TournamentResult:
    """Play every match of ``config`` on ``workers`` processes (default: one per CPU core), or on a Ray cluster.

    ``progress(done, total)`` is called in this process after each match. Matches are
    farmed out by index and their results put back in index order, so the result is the
    same for any number of workers. With one worker (or one match) no process is started.

    ``ray_address`` plays the matches as Ray tasks instead (the ``ray`` extra): an address as ``ray.init``
    takes it (``ray://HOST:10001``, ``HOST:6379``), or ``"auto"``: the cluster already running on this machine,
    or else a new local one for this call; a process already connected to Ray (``ray.init``) plays on that
    connection. Every machine of the cluster needs this package installed. The results are identical to the
    process pool's for the same config; the result's ``workers`` is then the cluster's CPUs.
    """
    if ray_address is not None:
        return _run_on_ray(config, ray_address, progress)
    if workers is None:
        workers = os.cpu_count() or 1
    if not _whole(workers) or workers < 1:
        raise TournamentConfigError(f"workers must be a whole number of at least 1, not {workers!r}")
    workers = min(workers, config.games)
    started = time.perf_counter()
    results: list[MatchResult] = []

    def collect(stream: Iterator[MatchResult]) -> None:
        for result in stream:
            results.append(result)
            if progress is not None:
                progress(len(results), config.games)

    if workers == 1:
        collect(play_match(config, match_at(config, index)) for index in range(config.games))
    else:
        # "spawn" starts clean interpreters: no forking of a process that runs threads (a progress
        # display), and the same behaviour on every platform.
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
            collect(pool.imap_unordered(_play_index, range(config.games), _chunksize(config.games, workers)))
    results.sort(key=lambda result: result.index)
    elapsed = time.perf_counter() - started
    return TournamentResult(config, results, aggregate(config, results), workers, elapsed)


RAY_TASKS_PER_CPU: Final = 4
"""Matches go to Ray in about this many tasks per CPU of the cluster (few enough that a task's overhead, a
few milliseconds, stays small against its matches; enough that a slow one does not hold up the end)."""


RAY_LOCAL_STORE_BYTES: Final = 128 * 1024 * 1024
"""A local cluster's object store: match results are small (Ray's default takes 30% of the memory)."""


def _run_on_ray(config: TournamentConfig, address: str,
                progress: Callable[[int, int], None] | None) -> TournamentResult:
    started = time.perf_counter()
    with ray_session(address) as ray:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, math.ceil(config.games / (cpus * RAY_TASKS_PER_CPU)))
        play = ray.remote(_play_indices)
        shared = ray.put(config)  # (sent to the cluster once, not with every task)
        pending = [play.remote(shared, range(first, min(first + size, config.games)))
                   for first in range(0, config.games, size)]
        results: list[MatchResult] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for result in ray.get(done[0]):
                results.append(result)
                if progress is not None:
                    progress(len(results), config.games)
    results.sort(key=lambda result: result.index)
    elapsed = time.perf_counter() - started
    return TournamentResult(config, results, aggregate(config, results), cpus, elapsed)


@contextlib.contextmanager
def ray_session(address: str) -> Iterator[Any]:
    """The ``ray`` module, connected to the cluster at ``address`` for the ``with`` block.

    ``address`` is what ``--ray`` takes: ``ray://HOST:10001`` or ``HOST:6379``, or ``"auto"``: the cluster
    already running on this machine, or else a new local one for the block. A process already connected
    (``ray.init``) stays on its cluster and stays connected. A missing Ray, a malformed address or one where
    nothing answers raise :class:`TournamentConfigError` in plain words.
    """
    try:
        import ray
    except ImportError:
        raise TournamentConfigError("a Ray cluster needs Ray: pip install 'royal-revenge[ray]'") from None
    connected_here = not ray.is_initialized()
    if connected_here:
        _connect_ray(ray, address)
    try:
        yield ray
    finally:
        if connected_here:
            ray.shutdown()


def _connect_ray(ray: Any, address: str) -> None:
    quiet = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address == "auto":
        try:
            ray.init(address="auto", **quiet)
            return
        except ConnectionError:
            pass  # no cluster on this machine: start one for this tournament
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # (a throwaway cluster reports nowhere)
        ray.init(object_store_memory=RAY_LOCAL_STORE_BYTES, **quiet)
        return
    _check_reachable(address)  # (Ray itself keeps trying an address that does not answer for minutes)
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, ValueError) as error:
        raise TournamentConfigError(f"cannot reach a Ray cluster at {address}: {error}") from None


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse, in plain words, a Ray address that is not HOST:PORT or where nothing answers."""
    import socket

    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise TournamentConfigError(f"a Ray address is HOST:PORT or ray://HOST:PORT (or auto), not {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise TournamentConfigError(f"cannot reach a Ray cluster at {address}: {reason.lower()}") from None


def _rate(rate: float, interval: tuple[float, float]) -> str:
    return f"{100 * rate:5.1f}% [{100 * interval[0]:4.1f}-{100 * interval[1]:4.1f}]"


def format_table(result: TournamentResult) -> str:
    """The per-bot results as a plain-text table (rates with their 95% Wilson intervals).

    In rounds mode every match is one round, so only round wins are shown. ``pts/round`` is
    the points won per round played, ``left/round`` the points left in the bot's own hand.
    """
    full = result.config.full_games
    width = max(10, *(len(bot.name) for bot in result.bots))
    columns: list[tuple[str, int, Callable[[BotStats], str]]] = [
        ("bot", -width, lambda bot: bot.name),
        ("games", 6, lambda bot: str(bot.games)),
        ("rounds", 7, lambda bot: str(bot.rounds)),
        ("round wins", 10, lambda bot: str(bot.round_wins)),
        ("rate [95% CI]", -19, lambda bot: _rate(bot.round_win_rate, bot.round_win_interval)),
    ]
    if full:
        columns += [
            ("game wins", 9, lambda bot: str(bot.game_wins)),
            ("rate [95% CI]", -19, lambda bot: _rate(bot.game_win_rate, bot.game_win_interval)),
        ]
    columns += [
        ("pts/round", 9, lambda bot: f"{bot.points_per_round:.1f}"),
        ("left/round", 10, lambda bot: f"{bot.hand_points_per_round:.1f}"),
        ("ms/decision", 11, lambda bot: f"{bot.mean_decision_ms:.3f}"),
        ("median ms", 9, lambda bot: f"{bot.median_decision_ms:.3f}"),
    ]

    def row(cells: Iterable[str]) -> str:
        return "  ".join(
            cell.ljust(-size) if size < 0 else cell.rjust(size)
            for cell, (_, size, _) in zip(cells, columns, strict=True)
        ).rstrip()

    lines = [row(title for title, _, _ in columns)]
    lines += [row(show(bot) for _, _, show in columns) for bot in result.bots]
    return "\n".join(lines)


CSV_COLUMNS: Final = (
    "bot", "games", "rounds", "round_wins", "round_win_rate", "round_win_ci95_low", "round_win_ci95_high",
    "game_wins", "game_win_rate", "game_win_ci95_low", "game_win_ci95_high", "points_won", "points_per_round",
    "points_per_round_won", "hand_points_per_round", "decisions", "mean_decision_ms", "median_decision_ms",
)
"""The columns of :func:`write_csv`: one row per bot; the last two are timing."""


def write_json(result: TournamentResult, path: str | os.PathLike[str]) -> None:
    """Write :meth:`TournamentResult.to_json` to ``path``."""
    Path(path).write_text(json.dumps(result.to_json(), indent=1) + "\n")


def write_csv(result: TournamentResult, path: str | os.PathLike[str]) -> None:
    """Write one row per bot with the columns of :data:`CSV_COLUMNS`."""
    with Path(path).open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(CSV_COLUMNS)
        for bot in result.bots:
            round_low, round_high = bot.round_win_interval
            game_low, game_high = bot.game_win_interval
            writer.writerow([
                bot.name, bot.games, bot.rounds, bot.round_wins, f"{bot.round_win_rate:.6f}",
                f"{round_low:.6f}", f"{round_high:.6f}", bot.game_wins, f"{bot.game_win_rate:.6f}",
                f"{game_low:.6f}", f"{game_high:.6f}", bot.points_won, f"{bot.points_per_round:.4f}",
                f"{bot.points_per_round_won:.4f}", f"{bot.hand_points_per_round:.4f}", bot.decisions,
                f"{bot.mean_decision_ms:.6f}", f"{bot.median_decision_ms:.6f}",
            ])


def write_chart(result: TournamentResult, path: str | os.PathLike[str]) -> None:
    """Draw the win rates with their 95% intervals as a PNG (needs matplotlib).

    Round win rates always; game win rates too for full games. The dashed line is an equal
    share (one in ``players``).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # no pyplot: no global backend state
    from matplotlib.figure import Figure

    config = result.config
    bots = result.bots
    series: list[tuple[str, list[float], list[tuple[float, float]]]] = [
        ("round wins", [bot.round_win_rate for bot in bots], [bot.round_win_interval for bot in bots]),
    ]
    if config.full_games:
        series.append(("game wins", [bot.game_win_rate for bot in bots], [bot.game_win_interval for bot in bots]))
    figure = Figure(figsize=(7, 1.5 + 0.6 * len(bots)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    step = 0.3 if len(series) > 1 else 0.0
    for number, (label, rates, intervals) in enumerate(series):
        ys = [i + (number - (len(series) - 1) / 2) * step for i in range(len(bots))]
        errors = [[max(0.0, rate - low) for rate, (low, _) in zip(rates, intervals, strict=True)],
                  [max(0.0, high - rate) for rate, (_, high) in zip(rates, intervals, strict=True)]]
        axes.errorbar(rates, ys, xerr=errors, fmt="o", capsize=4, label=label)
    axes.axvline(1 / config.players, color="grey", linestyle="--", linewidth=1, label="equal share")
    axes.set_yticks(range(len(bots)), [bot.name for bot in bots])
    axes.set_ylim(len(bots) - 0.5, -0.5)
    axes.set_xlim(0, 1)
    axes.set_xlabel("win rate (95% Wilson interval)")
    axes.set_title(f"{config.games} {'games' if config.full_games else 'rounds'} of {config.players} players, "
                   f"seed {config.seed}")
    axes.legend(loc="lower right", fontsize="small")
    axes.grid(axis="x", alpha=0.3)
    figure.savefig(os.fspath(path), format="png", dpi=120)
