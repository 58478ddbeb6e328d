"""Bots by name and level; bad configuration gets a clear error naming the allowed values."""

from __future__ import annotations

import random

import pytest

from royal_revenge.bots import (
    BOT_NAMES,
    Agent,
    BotConfigError,
    HeuristicAgent,
    RandomAgent,
    SearchAgent,
    make_agent,
)
from royal_revenge.bots.registry import HARD_ENGINE
from royal_revenge.engine import Card, GameOptions, GameState, OptionsError, Play
from royal_revenge.engine.position import position
from royal_revenge.sim import play_game


def test_names() -> None:
    assert BOT_NAMES == ("random", "heuristic", "search", "expert", "easy", "normal", "hard")


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_name_makes_an_agent_that_plays_a_game(name: str) -> None:
    params = {"iterations": 8} if name in ("search", "hard") else {}
    agent = make_agent(name, seed=1, **params)
    assert isinstance(agent, Agent)
    assert agent.name == name
    others = [make_agent("heuristic", seed=s) for s in range(2)]
    log = play_game(GameState.new(GameOptions(players=3, single_round=True), seed=2), [agent, *others])
    assert log.decisions[0] > 0


def test_kinds_and_settings() -> None:
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("normal"), HeuristicAgent)
    easy = make_agent("easy", seed=1)
    assert isinstance(easy, HeuristicAgent) and easy.forget_uno > 0 and easy.randomness > 0
    hard = make_agent("hard", seed=1)
    assert isinstance(hard, SearchAgent) and hard.budget_ms == 100 and hard.iterations == 6400
    # (the test environment has the numba extra: the hard level plays its rollouts compiled, to the round's end)
    assert hard.rollouts == "compiled" and hard.rollout_steps is None
    on_engine = make_agent("hard", seed=1, **{**HARD_ENGINE, "rollouts": "engine"})
    assert isinstance(on_engine, SearchAgent) and on_engine.iterations == 400 and on_engine.rollout_steps == 25
    search = make_agent("search", seed=1, budget_ms=50)
    assert isinstance(search, SearchAgent) and search.budget_ms == 50 and search.iterations is None
    assert isinstance(make_agent(" Heuristic "), HeuristicAgent)
    assert isinstance(make_agent("heuristic", seed=random.Random(3)), HeuristicAgent)


def test_unknown_name_lists_the_allowed_names() -> None:
    with pytest.raises(BotConfigError) as error:
        make_agent("genius")
    message = str(error.value)
    assert "genius" in message
    for name in BOT_NAMES:
        assert name in message
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("search", {"budget_ms": -5}, "positive number of milliseconds"),
        ("search", {"budget_ms": 0}, "positive number of milliseconds"),
        ("hard", {"iterations": -1}, "at least 1"),
        ("search", {"iterations": 2.5}, "whole number"),
        ("search", {"clock": 3}, "function returning seconds"),
        ("easy", {"forget_uno": 1.5}, "probability from 0 to 1"),
        ("heuristic", {"randomness": -0.1}, "probability from 0 to 1"),
    ],
)
def test_bad_values_are_refused_with_the_allowed_range(name: str, params: dict[str, object], expected: str) -> None:
    with pytest.raises(BotConfigError, match=expected):
        make_agent(name, seed=1, **params)


def test_unknown_parameter_lists_the_allowed_parameters() -> None:
    with pytest.raises(BotConfigError) as error:
        make_agent("search", budget=50)
    assert "budget_ms" in str(error.value) and "iterations" in str(error.value)
    with pytest.raises(BotConfigError, match="allowed parameters: none"):
        make_agent("random", budget_ms=5)
    with pytest.raises(BotConfigError, match="forget_uno"):
        make_agent("normal", depth=3)


def test_bad_seed_and_bad_name_type() -> None:
    with pytest.raises(BotConfigError, match="seed"):
        make_agent("random", seed="abc")  # type: ignore[arg-type]
    with pytest.raises(BotConfigError, match="choose one of"):
        make_agent(None)  # type: ignore[arg-type]


def test_seven_players_is_a_clear_error() -> None:
    # The table size is the engine's option, refused with the allowed range (R-SETUP-1).
    with pytest.raises(OptionsError, match="2 to 6"):
        GameOptions(players=7)


def test_easy_sometimes_forgets_uno() -> None:
    state = position(hands=["R3 G5", "Y1 Y2 Y3", "Y4 Y5 Y6", "G1 G2 G3"], discard="R7")
    easy = make_agent("easy", seed=7, randomness=0.0)
    normal = make_agent("normal", seed=7)
    legal = state.legal_actions(0)
    easy_calls = [easy.act(state.observe(0), legal) for _ in range(200)]
    forgot = sum(action == Play(Card.parse("R3")) for action in easy_calls)
    assert 20 <= forgot <= 90  # about a quarter of the time
    assert all(normal.act(state.observe(0), legal) == Play(Card.parse("R3"), uno=True) for _ in range(20))


def test_same_seed_same_decisions() -> None:
    def run(name: str) -> list[str]:
        moves: list[str] = []
        params = {"iterations": 6, "budget_ms": None} if name == "hard" else {}
        agents = [make_agent(name, seed=21 + s, **params) for s in range(3)]
        play_game(
            GameState.new(GameOptions(players=3, single_round=True), seed=9), agents,
            on_step=lambda seat, action, _state: moves.append(f"{seat}:{action}"),
        )
        return moves

    for name in ("random", "easy", "normal", "hard"):
        assert run(name) == run(name)


def test_a_warm_up_in_the_background_answers_when_done_and_holds_no_stop_back() -> None:
    """The hard level's compilation runs beside a server's or a local table's start; a process stopped meanwhile
    (some 20 seconds on a fresh machine) must end at once, not when the compilation does."""
    import subprocess
    import sys
    import time

    from royal_revenge.bots.registry import warm_up_in_background

    assert warm_up_in_background("normal").result(timeout=30) is True
    assert warm_up_in_background("no-such-bot").result(timeout=30) is False  # (warned in the log, not raised)

    script = """
import time
from royal_revenge.bots import registry
registry.warm_up = lambda name: time.sleep(120) or True  # (a compilation that takes long)
answer = registry.warm_up_in_background("hard")
time.sleep(0.2)
assert not answer.done()
print("started", flush=True)
"""
    began = time.monotonic()
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0 and finished.stdout.strip() == "started", finished.stderr
    assert time.monotonic() - began < 30  # (it would have waited out the 120 s)
