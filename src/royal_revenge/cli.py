"""The ``royal-revenge`` command.

Every sub-command has ``--help``; bad input ends with a one-line error and exit status 2,
never a traceback.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import click

from . import __version__
from .engine import (
    Game,
    GameOptions,
    GameRecord,
    RoyalRevengeError,
    Scoring,
    events,
    state_digest,
)
from .engine.actions import Move
from .engine.events import Event
from .engine.options import MAX_PLAYERS, MIN_PLAYERS
from .narration import describe_event

__all__ = ["main", "cli"]


def _parse_scepter(value: str) -> tuple[int, int] | None:
    if value.lower() in ("off", "none", "0"):
        return None
    low, sep, high = value.partition("-")
    try:
        return (int(low), int(high)) if sep else (int(low), int(low))
    except ValueError:
        raise click.BadParameter(f"expected LOW-HIGH turns (e.g. 9-15) or 'off', not {value!r}") from None


def _options(
    players: int, target: int, scoring: str, single_round: bool, reverse_skips: bool, scepter: str
) -> GameOptions:
    try:
        return GameOptions(
            players=players,
            target_score=target,
            scoring=Scoring(scoring),
            single_round=single_round,
            two_player_reverse_skips=reverse_skips,
            scepter_turns=_parse_scepter(scepter),
        )
    except RoyalRevengeError as error:
        raise click.UsageError(str(error)) from None


def rule_options(func: click.decorators.FC) -> click.decorators.FC:
    """The rule options of RULES.md as command-line flags (shared by every command that starts games)."""
    decorators = [
        click.option("--players", "-p", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=4, show_default=True,
                     help="Players at the table (R-SETUP-1)."),
        click.option("--target", type=click.IntRange(min=1), default=500, show_default=True,
                     help="Points that win the game (R-SCORE-5)."),
        click.option("--scoring", type=click.Choice([s.value for s in Scoring]), default=Scoring.STANDARD.value,
                     show_default=True, help="Standard or lowest-tally scoring (R-SCORE-4)."),
        click.option("--single-round", is_flag=True, help="Play one round per game (R-SCORE-5)."),
        click.option("--reverse-skips", is_flag=True, help="With 2 players a Reverse acts as a Skip (R-ACT-REV)."),
        click.option("--scepter", default="9-15", show_default=True, metavar="LOW-HIGH|off",
                     help="Turn-counted scepter: fanfare after LOW to HIGH turns, or 'off' (R-KING-1)."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="royal-revenge")
def cli() -> None:
    """UNO Royal Revenge: the rules engine, bots and tables."""


@cli.command()
@rule_options
@click.option("--games", "-n", type=click.IntRange(min=1), default=10, show_default=True, help="Games to play.")
@click.option("--seed", "-s", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the first game; game i uses seed+i.")
@click.option("--bots", default="random", show_default=True, metavar="NAME[,NAME...]",
              help="Bot for each seat (one name for all, or one per seat).")
@click.option("--save", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="Write the last game's record (JSON) to this file.")
def selfplay(
    players: int, target: int, scoring: str, single_round: bool, reverse_skips: bool, scepter: str,
    games: int, seed: int, bots: str, save: Path | None,
) -> None:
    """Play GAMES games between bots and print a summary of the results."""
    from .bots.registry import BotConfigError, make_agent  # the registry pulls in the search bot

    options = _options(players, target, scoring, single_round, reverse_skips, scepter)
    names = [name.strip() for name in bots.split(",")]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise click.UsageError(f"--bots names {len(names)} bots for {players} seats")
    from .sim import play_game

    wins = [0] * players
    round_wins = [0] * players
    points = [0] * players
    rounds = blocked = steps = 0
    game_rounds = []
    started = time.perf_counter()
    record: GameRecord | None = None
    for index in range(games):
        game_seed = seed + index
        try:
            agents = [make_agent(name, seed=game_seed * 10 + seat) for seat, name in enumerate(names)]
        except BotConfigError as error:
            raise click.UsageError(str(error)) from None
        game = Game.new(options, game_seed)
        log = play_game(game, agents)
        record = log.record
        outcome = game.state.outcome()
        assert outcome is not None
        for winner in outcome.winners:
            wins[winner] += 1
        for result in log.rounds:
            round_wins[result.winner] += 1
            points[result.winner] += result.points
            blocked += result.blocked
        rounds += len(log.rounds)
        game_rounds.append(len(log.rounds))
        steps += log.steps
    elapsed = time.perf_counter() - started

    click.echo(f"{games} games of {players} players ({', '.join(names)}), seeds {seed}..{seed + games - 1}, "
               f"{options.scoring.value} scoring to {options.target_score}"
               + (", single rounds" if options.single_round else ""))
    click.echo(f"{rounds} rounds ({blocked} blocked), {statistics.mean(game_rounds):.1f} rounds per game, "
               f"{steps} decisions, {elapsed:.2f} s ({steps / elapsed:,.0f} decisions/s)")
    click.echo("")
    click.echo(f"{'seat':>4}  {'bot':<10} {'game wins':>9} {'round wins':>10} {'points won':>10}")
    for seat in range(players):
        click.echo(f"{seat:>4}  {names[seat]:<10} {wins[seat]:>9} {round_wins[seat]:>10} {points[seat]:>10}")
    if save is not None and record is not None:
        try:
            save.write_text(record.dumps() + "\n")
        except OSError as error:
            raise click.UsageError(f"cannot write {save}: {error.strerror}") from None
        click.echo(f"\nlast game's record written to {save}")


# Events that the move's own notation already says; the rest get a line in words.
_SAID_BY_THE_MOVE = (events.Played, events.Kept, events.ColourChosen, events.VictimChosen, events.JesterChosen,
                     events.UnoCalled, events.Caught, events.TurnStarted, events.DirectionChanged)


def describe(event: Event) -> str | None:
    """A few plain words for the events worth a line in a printed game."""
    if isinstance(event, _SAID_BY_THE_MOVE):
        return None
    return describe_event(event, lambda seat: f"seat {seat}")


@cli.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Only verify; print the result line.")
def replay(file: Path, quiet: bool) -> None:
    """Replay and verify a game record, printing the game in notation."""
    try:
        text = file.read_text()
    except OSError as error:
        raise click.UsageError(f"cannot read {file}: {error.strerror}") from None
    try:
        record = GameRecord.loads(text)
    except RoyalRevengeError as error:
        raise click.UsageError(f"{file}: {error}") from None

    def show(index: int, move: Move, happened: Sequence[Event]) -> None:
        if quiet:
            return
        notes = [line for line in map(describe, happened) if line]
        click.echo(f"{index + 1:>5}. {move!s:<14}" + ("  " + "; ".join(notes) if notes else ""))

    if not quiet:
        opts = record.options
        click.echo(f"{opts.players} players, seed {record.seed}, {opts.scoring.value} scoring to {opts.target_score}")
        setup: list[Event] = []
        Game.new(opts, record.seed, ages=record.ages, first_king=record.first_king, events=setup)
        for line in map(describe, setup):
            if line:
                click.echo(f"       {line}")
    try:
        state = record.replay(on_move=show)
    except RoyalRevengeError as error:
        raise click.UsageError(f"{file}: {error}") from None
    verdict = "verified: the replay reaches the recorded final state" if record.final_digest else (
        "replayed (the record holds no final digest to verify against)")
    click.echo(f"{len(record.moves)} moves; {verdict} (sha256 {state_digest(state)[:16]}...)")
    outcome = state.outcome()
    if outcome is not None:
        click.echo(f"winner(s): {', '.join(f'seat {w}' for w in outcome.winners)}; scores {list(outcome.scores)}")


@cli.command(name="state")
@click.argument("file", type=click.Path(path_type=Path))
def show_state(file: Path) -> None:
    """Replay a record and print its final state as versioned JSON (hidden cards included)."""
    from .engine import state_to_json

    try:
        state = GameRecord.loads(file.read_text()).replay()
    except OSError as error:
        raise click.UsageError(f"cannot read {file}: {error.strerror}") from None
    except RoyalRevengeError as error:
        raise click.UsageError(f"{file}: {error}") from None
    click.echo(json.dumps(state_to_json(state), indent=1))


# --- tournament -------------------------------------------------------------------------------------------------


def _writable_target(path: Path | None, what: str) -> None:
    """Refuse an output path whose folder does not exist before hours of games, not after."""
    if path is not None and not path.parent.is_dir():
        raise click.UsageError(f"cannot write the {what} to {path}: no folder {path.parent}")


@cli.command()
@rule_options
@click.option("--bots", "-b", default="random", show_default=True, metavar="NAME[,NAME...]",
              help="The lineup, one bot per seat; with fewer names than players the names are cycled.")
@click.option("--games", "-n", type=click.IntRange(min=1), default=60, show_default=True,
              help="Matches to play; a multiple of --players puts every bot in every seat equally often.")
@click.option("--seed", "-s", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the whole tournament: the same seed gives the same results.")
@click.option("--rounds-only/--full-games", "rounds_only", default=None,
              help="Play single rounds, or whole games to --target.  [default: full games]")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes; the results do not depend on it.  [default: one per CPU core]")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Play on a Ray cluster instead of local processes (pip install 'royal-revenge[ray]'): "
                   "ray://HOST:10001 or HOST:6379, or auto for the cluster running on this machine or else a new "
                   "local one. The results are the same as with --workers.")
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help="Rollouts per decision of the search bots (search, hard).")
@click.option("--budget-ms", type=click.IntRange(min=1), default=None,
              help="Milliseconds per decision of the search bots; the results then vary with the machine's load.")
@click.option("--expert-weights", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Weights for the expert bot (written by royal-revenge train) instead of the shipped ones.")
@click.option("--clock-budgets", is_flag=True,
              help="Keep the bots' own time limits (hard's 100 ms); by default they play on rollouts alone, "
                   "so that the results depend on --seed only.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the results, every match and the timing as JSON.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the per-bot table as CSV.")
@click.option("--chart", "chart_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Draw the win rates with their 95% intervals as a PNG (needs matplotlib).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar on stderr.")
def tournament(
    players: int, target: int, scoring: str, single_round: bool, reverse_skips: bool, scepter: str,
    bots: str, games: int, seed: int, rounds_only: bool | None, workers: int | None, ray_address: str | None,
    iterations: int | None,
    budget_ms: int | None, expert_weights: Path | None, clock_budgets: bool, json_path: Path | None,
    csv_path: Path | None, chart_path: Path | None, progress: bool,
) -> None:
    """Play many games between bots, seats rotated, and print each bot's results.

    Every bot's games, round wins and game wins (with 95% Wilson intervals), points per
    round and decision time. The results depend only on the options and --seed, never on
    --workers (decision times aside).
    """
    from .bots.registry import BOT_NAMES, BotConfigError, make_agent
    from .sim.tournament import (
        MatchError,
        TournamentConfig,
        TournamentConfigError,
        format_table,
        run_tournament,
        write_chart,
        write_csv,
        write_json,
    )

    if rounds_only is False and single_round:
        raise click.UsageError("--single-round and --full-games contradict each other; choose one")
    full_games = not (rounds_only or single_round)
    options = _options(players, target, scoring, single_round, reverse_skips, scepter)
    names = [name.strip().lower() for name in bots.split(",")]
    search_params: dict[str, int | float | str | bool | None] = {}
    if iterations is not None:
        search_params["iterations"] = iterations
    if budget_ms is not None:
        search_params["budget_ms"] = budget_ms
    bot_params = {}
    if search_params:
        for name in dict.fromkeys(names):
            try:
                make_agent(name, seed=0, **search_params)
            except BotConfigError:
                continue  # not a search bot (an unknown name is reported below)
            bot_params[name] = search_params
        if not bot_params and all(name in BOT_NAMES for name in names):
            raise click.UsageError("--iterations and --budget-ms set the search bots (search, hard), "
                                   "and --bots names none")
    if expert_weights is not None:
        if "expert" not in names:
            raise click.UsageError("--expert-weights sets the expert bot, and --bots names none")
        try:
            make_agent("expert", seed=0, weights=str(expert_weights))
        except BotConfigError as error:
            raise click.UsageError(f"--expert-weights: {error}") from None
        bot_params["expert"] = {"weights": str(expert_weights.resolve())}
    try:
        config = TournamentConfig(
            bots=tuple(names), players=players, games=games, seed=seed, full_games=full_games, options=options,
            bot_params=bot_params, clock_budgets=clock_budgets,
        )
    except TournamentConfigError as error:
        raise click.UsageError(str(error)) from None
    if budget_ms is not None or (clock_budgets and any(p.get("budget_ms") for p in config.agent_params.values())):
        click.echo("note: a bot stops thinking by the clock, so the results vary with the machine's load", err=True)
    for path, what in ((json_path, "JSON"), (csv_path, "CSV"), (chart_path, "chart")):
        _writable_target(path, what)
    if chart_path is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.UsageError("--chart needs matplotlib: pip install 'royal-revenge[tournament]'") from None
    if games % players:
        click.echo(f"note: {games} is not a multiple of {players} players, so the seats are not quite balanced",
                   err=True)

    if ray_address is not None and workers is not None:
        raise click.UsageError("--workers and --ray both say where to play: choose one")
    try:
        if progress:
            try:
                from rich.console import Console
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            except ImportError:  # rich comes with the 'tournament' extra; play on without a bar
                result = run_tournament(config, workers=workers, ray_address=ray_address)
            else:
                with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                              TimeRemainingColumn(elapsed_when_finished=True),
                              console=Console(stderr=True), transient=True) as bar:
                    task = bar.add_task(config.mode, total=games)
                    result = run_tournament(config, workers=workers, ray_address=ray_address,
                                            progress=lambda done, _total: bar.update(task, completed=done))
        else:
            result = run_tournament(config, workers=workers, ray_address=ray_address)
    except MatchError as error:
        raise click.ClickException(str(error)) from None
    except TournamentConfigError as error:  # (Ray missing or out of reach)
        raise click.UsageError(str(error)) from None

    kind = "full games" if full_games else "single rounds"
    click.echo(f"{games} {kind} of {players} players (lineup {', '.join(config.lineup)}), seed {seed}, "
               f"{options.scoring.value} scoring" + (f" to {options.target_score}" if full_games else ""))
    where = f"a Ray cluster of {result.workers} CPU(s)" if ray_address is not None else f"{result.workers} worker(s)"
    click.echo(f"{result.rounds} rounds ({result.blocked} blocked) on {where} in {result.elapsed:.2f} s")
    shared = [name for name in config.bot_names if config.lineup.count(name) > 1]
    if shared:
        click.echo(f"{' and '.join(shared)} sit at several seats of each table: games and rounds count seats")
    click.echo("")
    click.echo(format_table(result))
    writers = ((json_path, write_json, "JSON"), (csv_path, write_csv, "CSV"), (chart_path, write_chart, "chart"))
    for path, write, what in writers:
        if path is None:
            continue
        try:
            write(result, path)
        except OSError as error:
            raise click.UsageError(f"cannot write the {what} to {path}: {error.strerror}") from None
        click.echo(f"{what} written to {path}")


@cli.command()
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Training time (the evaluations come on top).")
@click.option("--updates", type=click.IntRange(min=1), default=None,
              help="Stop after this many updates instead of after --minutes.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("expert.npz"), show_default=True,
              help="The weights for the expert bot (play them with: royal-revenge tournament -b expert ... or the "
                   "bot parameter weights).")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The checkpoint to write and to --resume from.  [default: --out with the suffix .pt]")
@click.option("--resume", is_flag=True, help="Go on from --checkpoint.")
@click.option("--eval-every", type=click.IntRange(min=0), default=25, show_default=True,
              help="Updates between evaluations and checkpoints (0: only at the end).")
@click.option("--eval-rounds", type=click.IntRange(min=0), default=400, show_default=True,
              help="4-player rounds against three heuristic bots in each evaluation.")
@click.option("--hidden", type=click.IntRange(8, 4096), default=256, show_default=True, help="Units per hidden layer.")
@click.option("--layers", type=click.IntRange(1, 8), default=2, show_default=True, help="Hidden layers.")
@click.option("--backend", type=click.Choice(["numba", "numpy"]), default="numba", show_default=True,
              help="The batched core the games run on (numba: pip install 'royal-revenge[numba]').")
@click.option("--threads", type=click.IntRange(1, 256), default=1, show_default=True, help="PyTorch's threads.")
@click.option("--seed", "-s", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the training.")
@click.option("--shards", type=click.IntRange(1, 4096), default=None,
              help="Split the games into this many shares (with --ray, each a Ray actor). The same seed and "
                   "shards train the same network with or without --ray (at --threads 1).  [default: 1; with "
                   "--ray, the cluster's CPUs]")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Play the games on a Ray cluster (pip install 'royal-revenge[ray]'; every machine needs "
                   "royal-revenge[rl,train] installed): ray://HOST:10001 or HOST:6379, or auto for the cluster "
                   "running on this machine or else a new local one. The learning stays in this process.")
def train(minutes: float, updates: int | None, out: Path, checkpoint: Path | None, resume: bool, eval_every: int,
          eval_rounds: int, hidden: int, layers: int, backend: str, threads: int, seed: int, shards: int | None,
          ray_address: str | None) -> None:
    """Train the expert bot's policy by self-play (PyTorch on the CPU: pip install 'royal-revenge[rl,train]').

    One network plays every seat of 1,024 games at once, at every table size, one round per game, and
    512 games against three heuristic bots beside them; it learns by PPO (docs/rl.md). Progress is
    logged as it goes; every --eval-every updates the policy plays 4-player rounds against three
    heuristic bots, and the checkpoint and the weights are written, so that an interrupted run loses
    little and --resume goes on from it.
    """
    if backend == "numba":
        try:
            import numba  # noqa: F401
        except ImportError:
            raise click.UsageError("--backend numba needs Numba: pip install 'royal-revenge[numba]' "
                                   "(or choose --backend numpy)") from None
    try:
        from .rl.train import TrainConfig, TrainingError
        from .rl.train import train as run_training
    except ImportError as error:
        raise click.UsageError(str(error)) from None
    checkpoint = checkpoint or out.with_suffix(".pt")
    _writable_target(out, "weights")
    _writable_target(checkpoint, "checkpoint")
    if resume and not checkpoint.is_file():
        raise click.UsageError(f"--resume: there is no checkpoint at {checkpoint}")
    config = TrainConfig(minutes=minutes, updates=updates or 0, seed=seed, threads=threads, eval_every=eval_every,
                         eval_rounds=eval_rounds, hidden=hidden, layers=layers, backend=backend,
                         checkpoint=checkpoint, export=out, resume=resume, shards=shards or 0,
                         ray_address=ray_address)
    try:
        run_training(config, log=lambda line: click.echo(line))
    except TrainingError as error:
        raise click.ClickException(str(error)) from None
    except ValueError as error:  # a checkpoint of another network, too many shards, a Ray address that does not answer
        raise click.UsageError(str(error)) from None
    except KeyboardInterrupt:
        raise click.ClickException(f"interrupted: the last checkpoint is in {checkpoint}; --resume goes on "
                                   "from it") from None
    click.echo(f"weights written to {out}; try them: royal-revenge tournament -p 4 -b expert,heuristic,heuristic,"
               f"heuristic --rounds-only -n 400 --expert-weights {out}")


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--db", "db", default=None, metavar="PATH|URL",
              help="SQLite file or database URL (postgresql://...). Default: a file in the user's data folder.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)
@click.option("--log-format", type=click.Choice(["auto", "text", "json"]), default="auto", show_default=True,
              help="Log lines on standard error: 'text' reads well on a terminal (time, level, logger, message, "
                   "key=value fields), 'json' is one JSON object per line for a log collector; 'auto' is text when "
                   "standard error is a terminal and JSON otherwise.")
@click.option("--sqlite-sync", "sqlite_sync", type=click.Choice(["full", "normal"]), default="full",
              show_default=True,
              help="An SQLite database's durability: 'full' syncs every commit to the disk (an acknowledged move "
                   "survives a power loss); 'normal' survives the server being killed but may lose the last moves "
                   "in a power loss or OS crash, for less disk work.")
@click.option("--forwarded-allow-ips", default=None, metavar="IPS",
              help="Proxies whose X-Forwarded-For names the client (comma-separated; '*' for any).  "
                   "[default: $FORWARDED_ALLOW_IPS or 127.0.0.1]")
@click.option("--no-rate-limits", is_flag=True,
              help="Lift the per-address rate limits and live-table bound (load tests on a trusted network only).")
@click.option("--node", default=None, metavar="NAME",
              help="Run as one process of a cluster, named NAME (unique among the processes): it owns only the "
                   "tables whose lease it holds in the shared PostgreSQL database (--db postgresql://...), and "
                   "on SIGTERM hands them over before it stops (docs/scaling.md).")
@click.option("--lease-seconds", type=click.FloatRange(0.5, 60), default=2.0, show_default=True,
              help="With --node: how long a table's lease lasts unless renewed (a dead process's tables are "
                   "taken over after this long).")
def serve(host: str, port: int, db: str | None, log_level: str, log_format: str, sqlite_sync: str,
          forwarded_allow_ips: str | None, no_rate_limits: bool, node: str | None, lease_seconds: float) -> None:
    """Run the online tables server (browser page, HTTP API and WebSockets).

    Alone (the default) it holds every table; with --node it is one of several processes sharing a PostgreSQL
    database behind a load balancer (royal-revenge cluster starts such a cluster on this machine)."""
    import asyncio
    import socket

    from .server.logs import configure_logging
    from .server.store import Store, StoreError, database_url

    url = database_url(db)
    if node is not None and not url.startswith("postgresql"):
        raise click.UsageError("--node needs a PostgreSQL database that every process of the cluster shares "
                               "(--db postgresql://user@host/database)")
    if node is not None and not (node and node.replace("-", "").replace("_", "").isalnum() and len(node) <= 40):
        raise click.UsageError("--node takes a short name of letters, digits, '-' and '_' (such as p1)")

    async def check_database() -> None:
        store = await Store.connect(url, synchronous=sqlite_sync)
        await store.close()

    try:
        asyncio.run(check_database())
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    probe = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror} "
                                   "(is another server running? choose another --port)") from None
    finally:
        probe.close()

    import logging

    import uvicorn

    from .server.app import create_app
    from .server.websocket import SERVER_OPTIONS

    chosen = configure_logging(log_level, log_format)
    greeting = f"UNO Royal Revenge: open http://{host}:{port}/ (database {url.split('://')[0]})"
    if node is not None:
        greeting += f", cluster process {node}"
    if chosen == "text":
        click.echo(greeting, err=True)  # (a person reads it at any log level)
    else:  # every line on standard error is a JSON object
        logging.getLogger("royal_revenge.server").info(greeting)
    import gc

    from .server.throttle import DEFAULT_LIMITS, LIFTED

    app = create_app(url, limits=LIFTED if no_rate_limits else DEFAULT_LIMITS, synchronous=sqlite_sync, node=node,
                     lease_seconds=lease_seconds)
    gc.freeze()  # start-up objects never die: keep them out of every later collection
    # A collection's pause grows with what it scans: every 5,000 new objects (700 by default) keeps the young ones
    # short, and the middle generation, collected every 10 of them, small. (At 50,000 and 20, with 4,000 players
    # connected, young collections took 60-110 ms and middle ones 600 ms: p99 630 ms at a person's pace.)
    gc.set_threshold(5_000, 10, 1_000)
    # (uvicorn's proxy headers: the client's address, which the per-address limits count, is the forwarded one only
    # from the proxies trusted here.)
    uvicorn.run(app, host=host, port=port, log_config=None, log_level=log_level, proxy_headers=True,
                forwarded_allow_ips=forwarded_allow_ips, **SERVER_OPTIONS)


# --- play (the terminal game) ------------------------------------------------------------------------------------


def _seconds_range(value: str) -> tuple[float, float]:
    low, sep, high = value.partition("-")
    try:
        return (float(low), float(high)) if sep else (float(low), float(low))
    except ValueError:
        raise click.BadParameter(f"expected LOW-HIGH seconds (e.g. 45-75), not {value!r}") from None


def _in_terminal() -> bool:
    """Whether standard input and output are a terminal (the game cannot be drawn otherwise)."""
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()


@cli.command()
@click.option("--join", "join", metavar="CODE|URL",
              help="Join a table on a running server, by its code or its invite link (http://HOST:PORT/t/CODE); "
                   "again after quitting, to come back to the same seat.")
@click.option("--watch", "watch", metavar="CODE|URL",
              help="Watch a table on a running server as a spectator, by its code or its invite link.")
@click.option("--server", default="http://127.0.0.1:8000", show_default=True, metavar="URL",
              help="The server of a table joined or watched by its bare code.")
@click.option("--name", default=None, metavar="NAME", help="Your name at the table.  [default: $USER or 'You']")
@click.option("--age", type=click.IntRange(0, 150), default=None,
              help="Your age: the youngest player is the first King (R-SETUP-4).")
@click.option("--players", "-p", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
              help="Players at a local table, you included (R-SETUP-1).  [default: 4, or one more than --bots]")
@click.option("--bots", "-b", default="normal", show_default=True, metavar="LEVEL[,LEVEL...]",
              help="Bot levels (easy, normal, hard, expert): one for every bot, or one per bot.")
@click.option("--target", type=click.IntRange(min=1), default=500, show_default=True,
              help="Points that win the game (R-SCORE-5).")
@click.option("--scoring", type=click.Choice(["standard", "lowest-tally"]), default="standard", show_default=True,
              help="Standard or lowest-tally scoring (R-SCORE-4).")
@click.option("--single-round", is_flag=True, help="Play one round per game (R-SCORE-5).")
@click.option("--reverse-skips", is_flag=True, help="With 2 players a Reverse acts as a Skip (R-ACT-REV).")
@click.option("--scepter-seconds", default="45-75", show_default=True, metavar="LOW-HIGH",
              help="The scepter's fanfare comes after a random LOW to HIGH seconds (R-KING-1).")
@click.option("--turn-seconds", type=click.FloatRange(3, 600), default=30.0, show_default=True,
              help="Time for each decision; then the table decides for you (R-DIGITAL-3).")
@click.option("--bot-delay", type=click.FloatRange(0, 30), default=1.2, show_default=True,
              help="Seconds a bot waits before its move, so you can follow; 0 plays fast.")
@click.option("--next-round-seconds", type=click.FloatRange(0, 600), default=12.0, show_default=True,
              help="Seconds the round results show before the next deal.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the local table (a repeatable deal).")
@click.option("--bell/--no-bell", default=True, show_default=True, help="Ring the terminal bell at the fanfare.")
@click.option("--start", "start_now", is_flag=True, help="Deal at once, without the settings screen.")
@click.option("--uno-assist", is_flag=True,
              help="Call UNO for me when I play my next-to-last card (off: press u, or be caught).")
@click.option("--resume", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Resume a local game saved with the s key.")
@click.option("--save-file", type=click.Path(dir_okay=False, path_type=Path), default=Path("royal-revenge-save.json"),
              show_default=True, help="Where the s key saves a local game.")
@click.pass_context
def play(
    ctx: click.Context, join: str | None, watch: str | None, server: str, name: str | None, age: int | None,
    players: int | None, bots: str, target: int, scoring: str, single_round: bool, reverse_skips: bool,
    scepter_seconds: str, turn_seconds: float, bot_delay: float, next_round_seconds: float, seed: int | None,
    bell: bool, start_now: bool, resume: Path | None, save_file: Path, uno_assist: bool,
) -> None:
    """Play in the terminal: against 1 to 5 bots, or at a server's table with --join (or watch one with --watch).

    Keys: arrows or a card's number choose and play, d draws, k keeps, u calls UNO (press it, then
    play your next-to-last card), c catches, s saves a local game, ? shows every key and the rules,
    q quits (asking first at an online table or in an unsaved game), Ctrl+C quits at once. --join
    keeps the seat's token in your data folder (or $ROYAL_REVENGE_DATA_DIR), so that --join again
    comes back to the same seat.
    """
    import os

    from .client import ClientError, LocalClient, LocalGame, RemoteClient, load_save, parse_join_target
    from .client.base import TableClient
    from .client.seats import SeatStore
    from .session import BOT_LEVELS, TableError, TableSettings

    def given(*names: str) -> list[str]:
        return [f"--{n.replace('_', '-')}" for n in names
                if ctx.get_parameter_source(n) not in (click.core.ParameterSource.DEFAULT, None)]

    local_only = ("players", "bots", "target", "scoring", "single_round", "reverse_skips", "scepter_seconds",
                  "turn_seconds", "bot_delay", "next_round_seconds", "seed", "start_now", "resume")
    player = (name or os.environ.get("USER") or "Player").strip()[:24] or "Player"
    client: TableClient | None = None
    game: LocalGame | None = None
    if join is not None and watch is not None:
        raise click.UsageError("--join takes a seat and --watch only watches: choose one")
    if join is not None or watch is not None:
        flag = "--join" if join is not None else "--watch"
        clash = given(*local_only)
        if clash:
            raise click.UsageError(f"{', '.join(clash)} set up a local game; a table joined with {flag} has "
                                   "its own settings")
        if watch is not None and given("age"):
            raise click.UsageError("--age is for a player's seat; --watch only watches")
        try:
            base_url, code = parse_join_target(join if join is not None else str(watch), server)
        except ClientError as error:
            raise click.UsageError(f"{flag}: {error}") from None
        if watch is not None:
            client = RemoteClient(base_url, code, name.strip()[:24] if name else "", watch=True)
        else:
            client = RemoteClient(base_url, code, player, age, seats=SeatStore())
    elif resume is not None:
        clash = given(*(name for name in local_only if name != "resume"), "age", "name")
        if clash:
            raise click.UsageError(f"{', '.join(clash)} cannot change a resumed game; it keeps its own settings")
        try:
            game, record = load_save(resume)
            client = LocalClient(game, record=record)
        except (ClientError, TableError) as error:
            raise click.UsageError(str(error)) from None
    else:
        if ctx.get_parameter_source("server") is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError("--server goes with --join CODE or --watch CODE")
        levels = [level.strip().lower() for level in bots.split(",") if level.strip()]
        if not levels:
            raise click.UsageError("--bots names no level (choose from easy, normal, hard, expert)")
        for level in levels:
            if level not in BOT_LEVELS:
                raise click.UsageError(f"--bots: choose from easy, normal, hard, expert, not {level!r}")
        if players is None:
            players = 1 + len(levels) if len(levels) > 1 else 4
        if len(levels) == 1:
            levels *= players - 1
        if len(levels) != players - 1:
            raise click.UsageError(f"--bots names {len(levels)} levels for the {players - 1} bot(s) of a "
                                   f"{players}-player table")
        low, high = _seconds_range(scepter_seconds)
        try:
            settings = TableSettings(players=players, target_score=target, scoring=scoring, single_round=single_round,
                                     two_player_reverse_skips=reverse_skips, turn_seconds=turn_seconds,
                                     scepter_min_seconds=low, scepter_max_seconds=high, bot_delay_seconds=bot_delay,
                                     next_round_seconds=next_round_seconds)
            game = LocalGame(settings, player, age, tuple(levels), seed)
        except TableError as error:
            message = str(error).replace("scepter_min_seconds", "--scepter-seconds LOW").replace(
                "scepter_max_seconds", "--scepter-seconds HIGH")
            raise click.UsageError(message) from None
        if start_now:
            client = LocalClient(game)
    if not _in_terminal():
        raise click.UsageError("play needs a terminal (standard input and output must be a terminal)")

    from .tui import RoyalRevengeApp

    app = RoyalRevengeApp(client, game=game, bell=bell, save_path=save_file, uno_assist=uno_assist)
    app.run()
    if app.failure:
        raise click.ClickException(app.failure)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``royal-revenge`` script; returns the exit status."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="royal-revenge", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    return 0


# --- cluster (several server processes behind HAProxy, on this machine) ---------------------------------------


@cli.command()
@click.option("--processes", "-n", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Server processes to run (one per core is the rule).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address the balancer listens on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port the balancer listens on (the processes take free ports on 127.0.0.1).")
@click.option("--db", "db", default=None, metavar="URL",
              help="The PostgreSQL database the processes share (postgresql://...). Default: a throwaway "
                   "PostgreSQL started for the cluster and deleted when it stops.")
@click.option("--lease-seconds", type=click.FloatRange(0.5, 60), default=None,
              help="How long a table's lease lasts unless renewed: a dead process's tables are taken over after "
                   "this long.  [default: serve's]")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True, help="The processes' log level (their logs are files in the cluster's folder).")
@click.option("--folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep the logs and the HAProxy configuration in this folder. Default: a temporary folder, "
                   "deleted when the cluster stops.")
@click.option("--no-rate-limits", is_flag=True,
              help="Lift the per-address rate limits and live-table bound (load tests on a trusted network only).")
def cluster(processes: int, host: str, port: int, db: str | None, lease_seconds: float | None, log_level: str,
            folder: Path | None, no_rate_limits: bool) -> None:
    """Run a cluster on this machine: server processes behind HAProxy, sharing PostgreSQL (docs/scaling.md).

    Needs Debian's haproxy and (without --db) postgresql packages. Ctrl-C stops it all: the balancer, then each
    process (it hands its tables over first), then the throwaway database."""
    from .server.balancer import HaproxyMissing
    from .server.cluster import ClusterError, run
    from .server.localdb import PostgresMissing

    if db is not None and not db.startswith("postgresql"):
        raise click.UsageError("--db takes the PostgreSQL database the processes share (postgresql://...)")
    try:
        status = run(processes, host, port, db, lease_seconds, log_level, no_rate_limits, folder,
                     echo=click.echo)
    except (HaproxyMissing, PostgresMissing, ClusterError) as error:
        raise click.ClickException(str(error)) from None
    if status == 130:
        raise click.exceptions.Abort
    if status:
        raise click.ClickException("the balancer stopped, so the cluster was stopped")
