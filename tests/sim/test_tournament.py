"""Tournaments: schedule, determinism across worker counts, statistics, writers and the CLI command."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from royal_revenge.cli import cli
from royal_revenge.engine import GameOptions, Scoring
from royal_revenge.sim.tournament import (
    CSV_COLUMNS,
    FORMAT,
    TournamentConfig,
    TournamentConfigError,
    TournamentResult,
    format_table,
    run_tournament,
    schedule,
    wilson_interval,
    write_chart,
    write_csv,
    write_json,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def small(**changes: object) -> TournamentConfig:
    values: dict[str, object] = {
        "bots": ("random", "heuristic"), "players": 3, "games": 6, "seed": 7, "full_games": False,
    }
    values.update(changes)
    return TournamentConfig(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def rounds_result() -> TournamentResult:
    return run_tournament(small(), workers=1)


# --- schedule -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_lineup_entry_sits_in_every_seat_equally(players: int) -> None:
    config = small(bots=("random", "heuristic", "search", "easy", "normal", "hard")[:players], players=players,
                   games=3 * players)
    matches = schedule(config)
    assert [m.index for m in matches] == list(range(3 * players))
    for entry in range(players):
        seats = Counter(m.seating.index(entry) for m in matches)
        assert seats == dict.fromkeys(range(players), 3)
    for m in matches:
        assert sorted(m.seating) == list(range(players))


def test_a_block_shares_its_deal_and_blocks_differ() -> None:
    matches = schedule(small(players=4, games=12))
    deals = [m.deal_seed for m in matches]
    assert deals[0:4] == [deals[0]] * 4 and deals[4:8] == [deals[4]] * 4
    assert len(set(deals)) == 3
    agent_seeds = [seed for m in matches for seed in m.agent_seeds]
    assert len(set(agent_seeds)) == len(agent_seeds)


def test_schedule_depends_only_on_the_seed() -> None:
    assert schedule(small(games=30)) == schedule(small(games=30))
    assert schedule(small(games=30, seed=8)) != schedule(small(games=30))
    assert schedule(small(games=30))[:6] == schedule(small(games=6))


def test_short_lineups_are_cycled() -> None:
    assert small(bots=("random", "heuristic"), players=5).lineup == (
        "random", "heuristic", "random", "heuristic", "random")
    assert small(bots="random", players=2).lineup == ("random", "random")


# --- running --------------------------------------------------------------------------------------


def test_results_are_the_same_for_any_number_of_workers() -> None:
    config = small(games=9)
    one = run_tournament(config, workers=1)
    two = run_tournament(config, workers=2)
    assert two.workers == 2
    assert one.matches == two.matches
    assert one.deterministic_json() == two.deterministic_json()
    assert json.dumps(one.deterministic_json()) == json.dumps(two.deterministic_json())
    assert run_tournament(small(games=9, seed=8), workers=1).deterministic_json() != one.deterministic_json()


def test_full_games_reach_the_target() -> None:
    config = small(bots=("random",), players=2, games=2, full_games=True, options=GameOptions(target_score=150))
    result = run_tournament(config, workers=1)
    for match in result.matches:
        assert len(match.winners) == 1
        assert max(match.scores) >= 150
    (bot,) = result.bots
    assert bot.games == 4 and bot.game_wins == 2
    assert bot.rounds == 2 * result.rounds


def test_totals_add_up(rounds_result: TournamentResult) -> None:
    result = rounds_result
    assert result.rounds == 6  # one round per match
    assert [bot.name for bot in result.bots] == ["random", "heuristic"]
    assert sum(bot.games for bot in result.bots) == 6 * 3
    assert sum(bot.round_wins for bot in result.bots) == result.rounds
    for bot in result.bots:
        assert bot.game_wins == bot.round_wins  # a match is one round
        assert bot.decisions == len(bot.think) > 0
        assert bot.mean_decision_ms > 0 and bot.median_decision_ms > 0
        assert sum(bot.seats) == bot.games
    random_bot, heuristic = result.bots
    assert random_bot.seats == [4, 4, 4] and heuristic.seats == [2, 2, 2]  # lineup random, heuristic, random
    winners_points = sum(bot.points_won for bot in result.bots)
    assert winners_points == sum(sum(m.points_won) for m in result.matches) > 0


def test_points_definitions() -> None:
    from royal_revenge.sim.tournament import BotStats

    bot = BotStats("x", 4, games=10, rounds=20, round_wins=5, points_won=500, hand_points=300)
    assert bot.points_per_round == 25.0
    assert bot.points_per_round_won == 100.0
    assert bot.hand_points_per_round == 15.0
    assert BotStats("y", 2).points_per_round == 0.0


# --- statistics -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("wins", "n", "low", "high"), [
    (5, 10, 0.2366, 0.7634),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
    (1, 4, 0.0456, 0.6994),
])
def test_wilson_interval(wins: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(wins, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for n in range(1, 200):
        low, high = wilson_interval(n, n)
        assert high == 1.0 and low < 1.0
        assert wilson_interval(0, n)[0] == 0.0
        assert all(0.0 <= b <= 1.0 for k in range(n + 1) for b in wilson_interval(k, n))
    low, high = wilson_interval(30, 100)
    mirrored = wilson_interval(70, 100)
    assert (1 - high, 1 - low) == pytest.approx(mirrored)
    assert low < 0.3 < high
    assert wilson_interval(300, 1000)[1] - wilson_interval(300, 1000)[0] < high - low


# --- writers --------------------------------------------------------------------------------------


def test_json(rounds_result: TournamentResult, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    write_json(rounds_result, path)
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT
    assert data["config"]["bots"] == ["random", "heuristic"]
    assert data["config"]["lineup"] == ["random", "heuristic", "random"]
    assert data["config"]["mode"] == "rounds" and data["config"]["options"]["single_round"] is True
    assert [bot["bot"] for bot in data["bots"]] == ["random", "heuristic"]
    first = data["bots"][0]
    assert first["round_win_ci95"] == list(wilson_interval(first["round_wins"], first["rounds"]))
    assert "mean_decision_ms" not in first  # timing is kept apart
    assert len(data["matches"]) == 6 and data["matches"][0]["index"] == 0
    assert set(data["timing"]) == {"workers", "elapsed_seconds", "bots"}
    assert set(data["timing"]["bots"]["random"]) == {"mean_decision_ms", "median_decision_ms"}
    assert {k: v for k, v in data.items() if k != "timing"} == rounds_result.deterministic_json()


def test_csv(rounds_result: TournamentResult, tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    write_csv(rounds_result, path)
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [row["bot"] for row in rows] == ["random", "heuristic"]
    for row, bot in zip(rows, rounds_result.bots, strict=True):
        assert int(row["games"]) == bot.games
        assert int(row["round_wins"]) == bot.round_wins
        assert float(row["round_win_ci95_low"]) == pytest.approx(bot.round_win_interval[0], abs=1e-6)
        assert float(row["round_win_ci95_high"]) == pytest.approx(bot.round_win_interval[1], abs=1e-6)
        assert float(row["points_per_round"]) == pytest.approx(bot.points_per_round, abs=1e-4)


def test_chart(rounds_result: TournamentResult, tmp_path: Path) -> None:
    """The chart needs matplotlib (the tournament and dev extras): without it this fails, it does not skip."""
    path = tmp_path / "t.png"
    write_chart(rounds_result, path)
    assert path.read_bytes()[:8] == PNG_MAGIC


def test_table(rounds_result: TournamentResult) -> None:
    lines = format_table(rounds_result).splitlines()
    assert lines[0].split()[:3] == ["bot", "games", "rounds"]
    assert "round wins" in lines[0] and "game wins" not in lines[0]  # rounds mode: a game is a round
    assert lines[1].startswith("random") and lines[2].startswith("heuristic")
    assert "%" in lines[1] and "[" in lines[1]


# --- configuration errors -------------------------------------------------------------------------


@pytest.mark.parametrize(("changes", "message"), [
    ({"bots": ("random", "nobody")}, "unknown bot 'nobody'; the bots are: random, heuristic"),
    ({"bots": ()}, "name at least one bot"),
    ({"players": 7}, "players must be 2 to 6, not 7"),
    ({"players": 1}, "players must be 2 to 6"),
    ({"bots": ("random",) * 4}, "4 bots named for 3 seats"),
    ({"games": 0}, "games must be a whole number of at least 1, not 0"),
    ({"seed": -1}, "seed must be a whole number of at least 0"),
    ({"bot_params": {"search": {"iterations": 10}}}, "parameters are given for 'search', which is not in the lineup"),
    ({"bots": ("search",), "bot_params": {"search": {"budget_ms": -5}}}, "bot 'search'"),
    ({"options": GameOptions(scoring=Scoring.LOWEST_TALLY), "players": 7}, "players must be 2 to 6"),
])
def test_bad_configurations(changes: dict[str, object], message: str) -> None:
    with pytest.raises(TournamentConfigError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        small(**changes)


def test_bad_worker_count() -> None:
    with pytest.raises(TournamentConfigError, match="workers must be"):
        run_tournament(small(), workers=0)


# --- command line ---------------------------------------------------------------------------------


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["tournament", *args])
    return result.exit_code, result.output


def test_help() -> None:
    code, output = invoke("--help")
    assert code == 0
    for option in ("--bots", "--players", "--games", "--seed", "--rounds-only / --full-games", "--workers",
                   "--budget-ms", "--json", "--csv", "--chart", "--target"):
        assert option in output


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "random,nobody"], "unknown bot 'nobody'; the bots are: random, heuristic, search"),
    (["--players", "7"], "7 is not in the range 2<=x<=6"),
    (["--bots", "search", "--budget-ms", "-5"], "-5 is not in the range x>=1"),
    (["--games", "0"], "0 is not in the range x>=1"),
    (["--workers", "0"], "0 is not in the range x>=1"),
    (["--bots", "random,heuristic", "--iterations", "5"], "set the search bots (search, hard), and --bots names none"),
    (["--players", "2", "--bots", "random,random,random"], "3 bots named for 2 seats"),
    (["--single-round", "--full-games"], "contradict"),
    (["--chart", "/no/such/folder/c.png"], "no folder /no/such/folder"),
    (["--scepter", "x"], "expected LOW-HIGH turns"),
])
def test_cli_errors(args: list[str], message: str) -> None:
    code, output = invoke(*args)
    assert code == 2
    assert message in output
    assert "Traceback" not in output


def test_cli_run(tmp_path: Path) -> None:
    json_path, csv_path, chart_path = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png"
    args = ["--bots", "random,heuristic", "--players", "3", "--games", "6", "--seed", "7", "--rounds-only",
            "--workers", "1", "--no-progress", "--json", str(json_path), "--csv", str(csv_path),
            "--chart", str(chart_path)]
    code, output = invoke(*args)
    assert code == 0, output
    assert "6 single rounds of 3 players (lineup random, heuristic, random), seed 7" in output
    assert "rate [95% CI]" in output
    data = json.loads(json_path.read_text())
    assert data["config"]["seed"] == 7 and len(data["matches"]) == 6
    library = run_tournament(small(), workers=1).deterministic_json()
    assert {k: v for k, v in data.items() if k != "timing"} == library
    assert csv_path.read_text().startswith(",".join(CSV_COLUMNS))
    assert chart_path.read_bytes()[:8] == PNG_MAGIC


def test_cli_warns_of_unbalanced_seats() -> None:
    code, output = invoke("--players", "2", "--games", "3", "--rounds-only", "--workers", "1", "--no-progress")
    assert code == 0, output
    assert "not a multiple of 2 players" in output


# --- search bots and their budgets ----------------------------------------------------------------


def test_clock_budgets_are_off_unless_asked_for() -> None:
    config = small(bots=("HARD", "search"), players=2)
    assert config.bots == ("hard", "search")
    assert config.agent_params == {"hard": {"budget_ms": None}, "search": {}}
    assert config.to_json()["bot_params"] == {"hard": {"budget_ms": None}}
    kept = small(bots=("hard", "search"), players=2, clock_budgets=True)
    assert kept.agent_params == {"hard": {}, "search": {}}
    explicit = small(bots=("hard",), players=2, bot_params={"hard": {"budget_ms": 50, "iterations": 3}})
    assert explicit.agent_params == {"hard": {"budget_ms": 50, "iterations": 3}}


def test_search_bots_are_reproducible_on_rollouts() -> None:
    config = small(bots=("search", "hard", "easy"), games=3, bot_params={"search": {"iterations": 4},
                                                                         "hard": {"iterations": 4}})
    first = run_tournament(config, workers=1)
    assert first.deterministic_json() == run_tournament(config, workers=1).deterministic_json()
    assert [bot.name for bot in first.bots] == ["search", "hard", "easy"]


def test_cli_budget_reaches_the_search_bots(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    code, output = invoke("--bots", "search,random", "--players", "2", "--games", "2", "--rounds-only",
                          "--iterations", "3", "--workers", "1", "--no-progress", "--json", str(path))
    assert code == 0, output
    assert json.loads(path.read_text())["config"]["bot_params"] == {"search": {"iterations": 3}}
