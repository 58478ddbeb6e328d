"""benchmarks/reliability.py keeps working: its three parts at tiny counts, against real server processes: one
process on SQLite, and a cluster of three behind HAProxy on PostgreSQL (``--cluster 3``)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

import royal_revenge
from royal_revenge.engine import Game, GameOptions, GameRecord, GameState
from royal_revenge.server.balancer import HaproxyMissing, find_haproxy
from royal_revenge.server.localdb import INSTALL_HINT, find_bin_dir

pytestmark = pytest.mark.timeout(120)

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reliability.py"


def _run_probe(tmp_path: Path, options: list[str], timeout: float) -> tuple[dict[str, Any],
                                                                          subprocess.CompletedProcess[str]]:
    """The probe's three parts at tiny counts with ``options`` (the kills' own among them): its results by part."""
    out = tmp_path / "results.json"
    # The probe and its servers run the very sources this test imports (the sources, or the compiled build).
    env = {**os.environ, "PYTHONPATH": str(Path(royal_revenge.__file__).resolve().parents[1])}
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--parts", "leaks,fuzz,kills", "--seed", "3", "--json", str(out),
         "--workdir", str(tmp_path / "work"), "--game-timeout", "60",
         "--rounds", "2", "--tables-at-once", "2",
         "--fuzz-messages", "240", "--fuzz-connections", "4", "--fuzz-requests", "60", "--fuzz-bad-connections", "4",
         "--state-check-interval", "1",
         "--kill-max-players", "2", "--kill-min", "0.3", "--kill-max", "1.0", *options],
        capture_output=True, text=True, timeout=timeout, env=env)
    assert out.exists(), result.stdout + result.stderr
    return {part["part"]: part for part in json.loads(out.read_text())}, result


def test_the_probe_finds_no_leak_no_loss_no_5xx_no_traceback(tmp_path: Path) -> None:
    parts, result = _run_probe(tmp_path, ["--kills", "2", "--kill-tables", "1"], timeout=110)
    assert set(parts) == {"leaks", "fuzz", "kills"}, parts
    for part in parts.values():
        assert "crashed" not in part, part
        assert part["log tracebacks"] == 0 and part["log errors"] == 0, part
        assert part.get("http 5xx", 0) == 0, part
    leaks, fuzz, kills = parts["leaks"], parts["fuzz"], parts["kills"]
    assert leaks["games"] == 2 and leaks["frames replay-checked"] > 100, leaks
    assert leaks["leaks"] == 0 and leaks["views unlike the engine's"] == 0, leaks
    assert fuzz["ws messages"] >= 240 and fuzz["http requests"] >= 60, fuzz
    assert fuzz["unanswered"] == fuzz["accepted"] == fuzz["server errors"] == fuzz["state changes"] == 0, fuzz
    assert fuzz["state checks"] >= 2, fuzz
    assert kills["kills"] == 2 and kills["acks"] > 0 and kills["acks checked"] == kills["acks"], kills
    assert kills["lost"] == 0, kills
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.timeout(180)
def test_the_probe_finds_nothing_against_a_cluster_through_its_balancer(tmp_path: Path) -> None:
    """The same probe against three ``serve --node`` processes behind HAProxy on a throwaway PostgreSQL (as
    ``.ci/run`` installs them): every request through the balancer, and in ``kills`` one process SIGKILLed (and
    restarted) at a time, its clients reconnecting through the balancer; nothing acknowledged lost or applied
    twice."""
    try:
        find_haproxy()
    except HaproxyMissing as error:
        pytest.fail(f"the cluster's tests need HAProxy: {error} (as .ci/run does)")
    if find_bin_dir() is None:
        pytest.fail(f"the cluster's tests need PostgreSQL: {INSTALL_HINT} (as .ci/run does)")
    parts, result = _run_probe(tmp_path, ["--cluster", "3", "--kills", "3", "--kill-tables", "2"], timeout=170)
    assert set(parts) == {"leaks", "fuzz", "kills"}, parts
    for part in parts.values():
        assert "crashed" not in part, part
        assert part["processes"] == 3, part
        assert part["log tracebacks"] == 0 and part["log errors"] == 0, part
        assert part.get("http 5xx", 0) == 0, part
    leaks, fuzz, kills = parts["leaks"], parts["fuzz"], parts["kills"]
    assert leaks["games"] == 2 and leaks["frames replay-checked"] > 100, leaks
    assert leaks["leaks"] == 0 and leaks["views unlike the engine's"] == 0, leaks
    assert fuzz["ws messages"] >= 240 and fuzz["http requests"] >= 60, fuzz
    assert fuzz["unanswered"] == fuzz["accepted"] == fuzz["server errors"] == fuzz["state changes"] == 0, fuzz
    assert fuzz["state checks"] >= 2, fuzz
    assert kills["kills"] == kills["restarts"] == 3, kills
    assert kills["kills of a process running tables"] >= 1, kills  # (a kill that took tables down with it)
    assert kills["acks"] > 0 and kills["acks checked"] == kills["acks"], kills
    assert kills["lost"] == 0 and kills["applied twice"] == 0 and kills["records unlike the acks"] == 0, kills
    assert kills["acked ids resent"] > 0 and kills["resent ids mishandled"] == 0, kills
    assert kills["games unfinished"] == 0 and kills["unanswered"] == 0, kills
    assert result.returncode == 0, result.stdout[-3000:]


def _probe() -> Any:
    spec = importlib.util.spec_from_file_location("reliability_probe", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _game(moves: int) -> tuple[GameRecord, list[GameState]]:
    game = Game.new(GameOptions(players=2, single_round=True), seed=11)
    states = [game.state.copy()]
    rng = random.Random(2)
    while len(states) <= moves and not game.state.is_over():
        seat = game.state.pending.seat
        game.apply(seat, rng.choice(game.state.legal_actions(seat)))
        states.append(game.state.copy())
    return game.record(), states


def _view(state: GameState, seat: int | None, log: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"you": seat, "version": 1, "game_no": 1, "phase": "playing", "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "game": state.observe(seat).to_json(), "legal": [], "log": log or []}


def test_the_checks_catch_crafted_leaks() -> None:
    """The leak checks fail when they should: frames made wrong on purpose."""
    probe = _probe()
    record, states = _game(30)
    stats = probe.LeakStats()
    honest = [probe.Watcher(0, "seat"), probe.Watcher(None, "spectator")]
    for state in states:
        for watcher in honest:
            probe.check_on_arrival(stats, watcher, _view(state, watcher.seat), _view(state, watcher.seat))
    probe.check_against_record(stats, honest, record, 1)
    assert stats.c["leaks"] == 0 and stats.c["views unlike the engine's"] == 0, stats.failures
    assert stats.c["frames replay-checked"] == 2 * len(states)

    def caught(watcher: Any, view: dict[str, Any]) -> int:
        stats = probe.LeakStats()
        probe.check_on_arrival(stats, watcher, view, view)
        probe.check_against_record(stats, [watcher], record, 1)
        return int(stats.c["leaks"])

    state = states[10]
    other = _view(state, 0)
    other["game"]["hand"] = [str(card) for card in state.hands[1]]  # seat 1's hand shown to seat 0
    other["game"]["hand_sizes"] = [len(state.hands[1])] * 2
    assert caught(probe.Watcher(0, "seat"), other) >= 1
    spectator = _view(state, None)
    spectator["game"]["hand"] = [str(card) for card in state.hands[0]]
    assert caught(probe.Watcher(None, "spectator"), spectator) >= 1
    named = _view(state, 0, [{"n": 5, "kind": "Drew", "text": "Bob draws red 7"}])
    assert caught(probe.Watcher(0, "seat"), named) >= 1
    secret = _view(state, None)
    secret["game"]["draw_pile"] = []
    assert caught(probe.Watcher(None, "http"), secret) >= 1


def test_the_log_scan_counts_tracebacks_and_errors(tmp_path: Path) -> None:
    probe = _probe()
    log = tmp_path / "server.log"
    log.write_text('{"level": "info", "event": "connected"}\n'
                   '{"level": "error", "event": "message_failed", "error": "Traceback (most recent call last):"}\n'
                   'Traceback (most recent call last):\n')
    tracebacks, errors, examples = probe.scan_log(log)
    assert (tracebacks, errors, len(examples)) == (2, 1, 2)


def test_http_429_is_waited_out_not_counted_as_a_failure() -> None:
    probe = _probe()
    answers = iter([httpx.Response(429, headers={"Retry-After": "0"}), httpx.Response(503), httpx.Response(200)])
    stats: Counter[str] = Counter()

    async def go() -> list[int]:
        http = probe.Http("http://probe.invalid", 0, stats)
        await http.client.aclose()
        http.client = httpx.AsyncClient(base_url="http://probe.invalid",
                                        transport=httpx.MockTransport(lambda request: next(answers)))
        codes = [(await http.request("GET", "/healthz")).status_code for _ in range(2)]
        await http.close()
        return codes

    assert asyncio.run(go()) == [503, 200]
    assert stats == {"http requests": 3, "http 429 retried": 1, "http 5xx": 1}
