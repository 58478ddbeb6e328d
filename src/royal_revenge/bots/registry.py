"""Bots by name, for the tables, the terminal game, tournaments and RL environments.

>>> make_agent("heuristic", seed=1).name
'heuristic'
>>> make_agent("hard", seed=1).name
'hard'
>>> try:
...     make_agent("genius")
... except BotConfigError as error:
...     print(error)
unknown bot 'genius': choose one of random, heuristic, search, expert, easy, normal, hard

Bots:

* ``random``: uniform over the legal actions (no parameters).
* ``heuristic``: rule-based play (parameters ``forget_uno`` and ``randomness``, probabilities).
* ``search``: determinized Monte Carlo search (parameters ``iterations``, ``budget_ms``,
  ``rollout_steps``, ``inference``, ``rollouts``, ``clock``; with neither budget it makes 200
  rollouts per decision; ``rollouts="compiled"`` plays them on the batched core compiled with
  Numba, the ``numba`` extra).
* ``expert``: the policy network trained by self-play (``royal-revenge train``), played with NumPy
  (parameters ``weights``, a ``.npz`` file, default the shipped one, and ``temperature``).

Levels for people:

* ``easy``: the heuristic, forgetting to call UNO a quarter of the time and making a random
  move a fifth of the time (both may be overridden).
* ``normal``: the heuristic.
* ``hard``: the search, at most 100 ms per decision: 6,400 rollouts to the end of the round on the
  batched core compiled with Numba where it is installed (the ``numba`` extra), else 400 rollouts
  on the engine (all may be overridden).

``expert`` is a level for people too (the bot itself).
"""

from __future__ import annotations

import importlib.util
import logging
import random
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, Final

from .base import Agent, RandomAgent
from .heuristic import HeuristicAgent
from .search import SearchAgent

__all__ = ["BOT_NAMES", "BOTS", "HARD_COMPILED", "HARD_ENGINE", "LEVELS", "BotConfigError", "make_agent", "warm_up",
           "warm_up_in_background"]

_log = logging.getLogger(__name__)

BOTS: Final = ("random", "heuristic", "search", "expert")
"""The bots themselves."""
LEVELS: Final = ("easy", "normal", "hard")
"""Difficulty levels for people, each one of the bots with settings."""
BOT_NAMES: Final = BOTS + LEVELS
"""Every name :func:`make_agent` accepts."""


class BotConfigError(ValueError):
    """A bot name or parameter that does not exist or is out of range; the message lists what is allowed."""


# Allowed parameters for each name, with a one-line description used in error messages.
_PARAMS: Final[Mapping[str, Mapping[str, str]]] = {
    "random": {},
    "heuristic": {
        "forget_uno": "a probability from 0 to 1",
        "randomness": "a probability from 0 to 1",
    },
    "search": {
        "iterations": "a whole number of rollouts, at least 1",
        "budget_ms": "a positive number of milliseconds",
        "rollout_steps": "a whole number, at least 0 (default: 25 on the engine, to the round's end compiled)",
        "inference": "true or false: deal the hidden hands as the round's history suggests (default false)",
        "rollouts": "engine or compiled: play the rollouts on the engine or on the compiled batched core (Numba)",
        "clock": "a function returning seconds",
    },
    "expert": {
        "weights": "the path of a .npz file written by royal-revenge train",
        "temperature": "a number from 0 up (0: always the best-scored action)",
    },
}
_BASE: Final = {"random": "random", "heuristic": "heuristic", "search": "search", "expert": "expert",
                "easy": "heuristic", "normal": "heuristic", "hard": "search"}
HARD_COMPILED: Final[Mapping[str, Any]] = {"iterations": 6400, "budget_ms": 100.0, "rollouts": "compiled"}
"""The hard level where Numba is installed: the strongest bot (README, "Bot strength"), within 100 ms."""
HARD_ENGINE: Final[Mapping[str, Any]] = {"iterations": 400, "budget_ms": 100.0}
"""The hard level without Numba: the rollouts on the engine, a sixteenth as many."""
_DEFAULTS: Final[Mapping[str, Mapping[str, Any]]] = {
    "easy": {"forget_uno": 0.25, "randomness": 0.2},
    "normal": {},
    "hard": HARD_COMPILED if importlib.util.find_spec("numba") is not None else HARD_ENGINE,
}


def make_agent(name: str, seed: int | random.Random | None = None, **params: Any) -> Agent:
    """A bot by name (see :data:`BOT_NAMES`), seeded for reproducibility.

    ``seed`` is a whole number, a :class:`random.Random`, or ``None`` for an unseeded bot.
    Raises :class:`BotConfigError` (a ``ValueError``) for an unknown name or parameter, or a
    parameter value out of range, with a message that names the allowed values.
    """
    if not isinstance(name, str) or name.strip().lower() not in BOT_NAMES:
        raise BotConfigError(f"unknown bot {name!r}: choose one of {', '.join(BOT_NAMES)}")
    key = name.strip().lower()
    if seed is not None and not isinstance(seed, random.Random) and (isinstance(seed, bool)
                                                                      or not isinstance(seed, int)):
        raise BotConfigError(f"seed must be a whole number, a random.Random or None, not {seed!r}")
    base = _BASE[key]
    allowed = _PARAMS[base]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        described = "; ".join(f"{p} ({d})" for p, d in allowed.items()) or "none"
        raise BotConfigError(
            f"bot {key!r} takes no parameter {', '.join(repr(p) for p in unknown)}: allowed parameters: {described}"
        )
    settings = {**_DEFAULTS.get(key, {}), **params}
    try:
        factory: Callable[..., Agent] = _FACTORIES[base]
        agent = factory(seed, **settings)
    except BotConfigError:
        raise
    except (ValueError, TypeError) as error:
        raise BotConfigError(f"bad parameter for bot {key!r}: {error}") from None
    if key in LEVELS:
        agent.name = key
    return agent


def _random(seed: int | random.Random | None) -> Agent:
    return RandomAgent(seed)


def _heuristic(seed: int | random.Random | None, **settings: Any) -> Agent:
    return HeuristicAgent(seed, **settings)


def _search(seed: int | random.Random | None, **settings: Any) -> Agent:
    clock = settings.get("clock")
    if clock is not None and not callable(clock):
        raise BotConfigError(f"clock must be a function returning seconds, not {clock!r}")
    return SearchAgent(seed, **settings)


def _expert(seed: int | random.Random | None, **settings: Any) -> Agent:
    from .expert import ExpertAgent  # (NumPy: imported only when an expert plays)

    return ExpertAgent(seed, **settings)


def warm_up(name: str) -> bool:
    """Prepare in this process what a bot of this name needs before it first decides, for a thread at start-up:
    the expert's weights, the compiled rollouts of a search that plays on them (Numba compiles them the first
    time, some 20 seconds, and loads them from its cache afterwards, about a second). False, with a warning in the
    log, if that failed (the bot would then try again when it first decides)."""
    try:
        agent = make_agent(name)
        if isinstance(agent, SearchAgent) and agent.rollouts == "compiled":
            from ..rl.batch.rollouts import warm_up as compile_rollouts

            compile_rollouts()
    except Exception:
        _log.warning("the %s bot could not be prepared", name, exc_info=True)
        return False
    return True


def warm_up_in_background(name: str) -> Future[bool]:
    """:func:`warm_up` in a daemon thread; the future holds its answer (``asyncio.wrap_future`` awaits it).

    A daemon thread rather than an executor's: a process stopped during a first compilation (some 20 seconds)
    must not wait for it to end (an executor's threads are joined at the loop's and the interpreter's exit).
    """
    answer: Future[bool] = Future()

    def prepare() -> None:
        waited_for = answer.set_running_or_notify_cancel()  # (False: nobody awaits it any more; it warms all the same)
        prepared = warm_up(name)
        if waited_for:
            answer.set_result(prepared)

    threading.Thread(target=prepare, name=f"warm-up-{name}", daemon=True).start()
    return answer


_FACTORIES: Final[Mapping[str, Callable[..., Agent]]] = {
    "random": _random,
    "heuristic": _heuristic,
    "search": _search,
    "expert": _expert,
}
