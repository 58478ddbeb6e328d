"""The batched core's interfaces: a multi-agent batch for self-play, pure functions for JAX, bots on arrays.

* :class:`BatchEnv`: ``B`` games stepped together, every game's selected seat acting (self-play): each
  call gives, per game, the agent to act, its observation and legal mask, and the rewards of all seats.
  A PPO or DMC loop uses it directly.
* :func:`functional`: the same rules as pure functions ``init``, ``step`` and ``observe`` (Pgx style), which
  ``jax.jit`` and ``jax.vmap`` accept, for training end to end on an accelerator.
* :func:`learner_step`: one decision of a learner seat and then the other seats' decisions by a policy on
  arrays until the learner decides again: the step of the single-learner vector environment (:mod:`.vector`),
  compiled as one call with JAX.

Seats are absolute (0..N-1) in the arrays that span seats (``rewards``); observations are relative to
the seat they are for, as everywhere (docs/rl.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ...engine import GameOptions
from ..core import IllegalRLActionError
from ..encoding import NUM_ACTIONS, describe_action
from .arrays import Array, Arrays, arrays_for
from .rules import _GOLDEN, GAME_OVER, Config, State, _mix, _random_bits, init, observe, observe_float, step

__all__ = [
    "BatchEnv",
    "BatchStep",
    "Functions",
    "IllegalBatchActionError",
    "Policy",
    "functional",
    "learner_step",
    "random_policy",
    "check_actions",
]

Policy = Callable[[State, Config, Arrays, Array], Array]
"""A policy on arrays: ``policy(state, config, a, bits)`` gives an action (B,) for every game's selected seat
(only the games whose selected seat it plays are used); ``bits`` are 32 random bits per game, fresh at
every call. With JAX it must be traceable (it runs inside the compiled step)."""


class IllegalBatchActionError(IllegalRLActionError):
    """Actions that are not legal in some games of a batch; nothing was done to any game."""

    def __init__(self, games: list[int], actions: list[int], seats: list[int]) -> None:
        self.games = games
        shown = ", ".join(
            f"game {game}: {describe_action(action)} is not legal for seat {seat + 1} now"
            for game, action, seat in zip(games[:3], actions[:3], seats[:3], strict=True)
        )
        more = f" (and {len(games) - 3} more games)" if len(games) > 3 else ""
        super().__init__(f"illegal actions in the batch, none applied: {shown}{more}")


def check_actions(legal: np.ndarray[Any, Any], actions: np.ndarray[Any, Any], selected: np.ndarray[Any, Any],
                  among: np.ndarray[Any, Any] | None = None) -> None:
    """Raise :class:`IllegalBatchActionError` unless every action (among the games marked) is legal."""
    in_range = (actions >= 0) & (actions < NUM_ACTIONS)
    ok = in_range & legal[np.arange(legal.shape[0]), np.clip(actions, 0, NUM_ACTIONS - 1)]
    if among is not None:
        ok |= ~among
    if not ok.all():
        games = np.flatnonzero(~ok)
        raise IllegalBatchActionError(games.tolist(), actions[games].tolist(), selected[games].tolist())


def _as_actions(actions: Any, batch: int) -> np.ndarray[Any, Any]:
    """Actions as a (B,) integer array, or a plain error."""
    array = np.asarray(actions)
    if array.shape != (batch,) or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        raise ValueError(f"actions must be {batch} whole numbers (one per game), not an array of shape "
                         f"{array.shape} and type {array.dtype}")
    return array.astype(np.int32)


def _config(players: int | None, options: GameOptions | None, **settings: Any) -> Config:
    if options is None:
        options = GameOptions(players=4 if players is None else players)
    elif players is not None and players != options.players:
        raise ValueError(f"players={players} disagrees with options.players={options.players}")
    return Config(options, **settings)


# ---------------------------------------------------------------------------------------- policies on arrays


def random_policy(state: State, config: Config, a: Arrays, bits: Array) -> Array:
    """A uniformly random legal action for every game (0 where nothing is legal).

    Every action gets a random score, a hash of the game's bits and the action (its top 25 bits), with the
    action's index in the low 7 bits; the highest score among the legal actions wins. One plain maximum
    over (B, 124): far cheaper than a cumulative sum or an argmax on XLA's CPU backend.
    """
    xp = a.xp
    index = xp.arange(NUM_ACTIONS, dtype=xp.uint32)
    scores = _mix(bits[:, None] ^ (index * _GOLDEN)[None, :])
    scores = (scores & _SCORE_BITS) | index[None, :]
    best = xp.max(xp.where(state.legal, scores, xp.uint32(0)), axis=1)
    return (best & _INDEX_BITS).astype(xp.int32)


_SCORE_BITS = np.uint32(0xFFFFFF80)
_INDEX_BITS = np.uint32(0x7F)
assert NUM_ACTIONS <= 0x80, "the action's index must fit in the score's low 7 bits"


def observation_policy(choose: Callable[[Array, Array], Array], compact: bool = True) -> Policy:
    """A :data:`Policy` from a function of (observation (B, 292), legal mask (B, 124)) to actions (B,)
    (a network's forward pass and a masked choice, say)."""
    see = observe if compact else observe_float

    def policy(state: State, config: Config, a: Arrays, bits: Array) -> Array:
        return choose(see(state, config, a), state.legal)

    return policy


_BOT_SALT = np.uint32(0xB07B07B0)


def learner_step(state: State, action: Array, learner: Array, bot_counter: Array, config: Config, a: Arrays,
                 policy: Policy) -> tuple[State, Array, Array, Array, Array]:
    """The learner's ``action`` in every game, then the other seats by ``policy`` until the learner decides again.

    ``config.autoreset`` must be ``"next-step"``: a game that ended stays over (the caller observes the
    learner's final view of it); the next call deals it again, ignores its action and lets the others play
    up to the learner's first decision. Returns the state, the learner's reward (B,) earned over the whole
    step, ``terminated`` and ``truncated`` (B,), and the bots' next random counter.
    """
    xp = a.xp
    state = step(state, action, config, a)
    reward = state.rewards[xp.arange(learner.shape[0]), learner]
    games = _Waiting(state, reward, state.terminated, state.truncated, bot_counter, learner,
                     _mix(state.key ^ _BOT_SALT))

    def bots_to_move(g: _Waiting) -> Array:
        return (g.state.selected != g.learner) & (g.state.decision != GAME_OVER)

    def bots(g: _Waiting, moving: Array) -> _Waiting:
        s = g.state
        s = step(s, policy(s, config, a, _random_bits(g.bot_key, g.counter)), config, a, active=moving)
        earned = xp.where(moving, s.rewards[xp.arange(moving.shape[0]), g.learner], xp.float32(0.0))
        # (Each game's bots draw on its own counter, which moves only when they move: a game's bots play
        # the same whichever games of the batch they are stepped with.)
        return g._replace(state=s, earned=g.earned + earned, terminated=g.terminated | moving & s.terminated,
                          truncated=g.truncated | moving & s.truncated, counter=g.counter + moving)

    games = a.narrowing(bots_to_move, bots, games)
    return games.state, games.earned, games.terminated, games.truncated, games.counter


class _Waiting(NamedTuple):
    """The games of a learner's step while their bots move (every field with the batch first)."""

    state: State
    earned: Array  # the learner's reward so far
    terminated: Array
    truncated: Array
    counter: Array  # the bots' random counter
    learner: Array
    bot_key: Array


# ---------------------------------------------------------------------------------------- pure functions


@dataclass(frozen=True)
class Functions:
    """The batched rules as pure functions of one configuration (:func:`functional`).

    ``init(batch, seed)`` deals ``batch`` new games; ``step(state, action)`` applies one action (B,) per
    game; ``observe(state)`` is the selected seats' observations (B, 292) ``uint8`` (``observe_float``:
    ``float32``); ``state.legal`` is their legal mask (B, 124), ``state.rewards`` (B, N) what every seat
    earned in the last step, ``state.terminated`` / ``state.truncated`` which episodes ended (a finished
    game is dealt again in the same step by default: ``autoreset="same-step"``).
    With JAX, ``step`` and ``observe`` are compiled (``jax.jit``) and accept ``jax.vmap`` over groups of
    batches; a whole rollout can run inside ``jax.lax.scan`` with no host round trip.
    """

    config: Config
    arrays: Arrays
    step: Callable[[State, Array], State]
    observe: Callable[[State], Array]
    observe_float: Callable[[State], Array]

    def init(self, batch: int, seed: int = 0) -> State:
        """``batch`` new games (the same seed gives the same games)."""
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be a positive whole number, not {batch!r}")
        return init(self.config, batch, seed, self.arrays)


def functional(players: int | None = None, *, options: GameOptions | None = None, backend: str = "jax",
               jit: bool = True, **settings: Any) -> Functions:
    """The batched rules as pure functions, for ``players`` (or ``options``), on ``backend`` ``"jax"``, ``"numpy"``
    or ``"numba"`` (the NumPy state, stepped by the rules compiled per game: :mod:`.kernel`); ``settings`` are
    :class:`~royal_revenge.rl.batch.rules.Config`'s (``episode``, ``reward``, ``max_steps``,
    ``autoreset``, ``illegal``, ``illegal_reward``, ``chunk``).

    >>> import jax
    >>> from royal_revenge.rl.batch import functional
    >>> game = functional(players=4)
    >>> state = game.init(1024, seed=0)
    >>> state = game.step(state, jax.numpy.argmax(state.legal, axis=1))   # (any legal action per game)
    >>> game.observe(state).shape
    (1024, 292)
    """
    config = _config(players, options, **settings)
    if backend == "numba":  # the same rules compiled per game (.kernel), on the NumPy state
        from . import kernel

        return Functions(config, arrays_for("numpy"), functools.partial(kernel.step, config=config),
                         functools.partial(kernel.observe, config=config),
                         functools.partial(kernel.observe, config=config, compact=False))
    a = arrays_for(backend)
    step_fn: Callable[[State, Array], State] = functools.partial(step, config=config, a=a)
    observe_fn: Callable[[State], Array] = functools.partial(observe, config=config, a=a)
    observe_float_fn: Callable[[State], Array] = functools.partial(observe_float, config=config, a=a)
    if backend == "jax" and jit:
        jax = a.jax
        step_fn, observe_fn, observe_float_fn = jax.jit(step_fn), jax.jit(observe_fn), jax.jit(observe_float_fn)
    return Functions(config, a, step_fn, observe_fn, observe_float_fn)


# ---------------------------------------------------------------------------------------- the multi-agent batch


class BatchStep(NamedTuple):
    """What a :class:`BatchEnv` call gives, one row per game (seats absolute in ``rewards``)."""

    observation: Array  # (B, 292) uint8 (or float32 with compact=False): the view of the agent to act
    action_mask: Array  # (B, 124) bool: its legal actions
    agent: Array  # (B,) int32: the seat to act (0-based, as PettingZoo's "player_k" is k)
    rewards: Array  # (B, N) float32: what each seat earned in this step
    terminated: Array  # (B,) bool: the game's episode ended in this step (it was dealt again at once)
    truncated: Array  # (B,) bool: the episode was cut at max_steps in this step (dealt again at once)


class BatchEnv:
    """``num_games`` games of UNO Royal Revenge stepped together: every game's selected seat acts.

    The multi-agent (self-play) form of the batched core: :meth:`reset` and :meth:`step` return a
    :class:`BatchStep`. A finished episode is dealt again in the step that ended it (``terminated`` or
    ``truncated`` says so; the observation is already the new episode's). Illegal actions raise
    :class:`IllegalBatchActionError` before anything is done (``illegal="raise"``, the default), or end
    that game with ``illegal_reward`` for the offender (``illegal="penalty"``).

    * ``players`` (2-6) or ``options``; ``episode`` (``"round"``/``"game"``), ``reward`` (``"points"``/``"win"``)
      and ``max_steps`` as in the other environments (docs/rl.md);
    * ``backend``: ``"numba"`` (the rules compiled per game, NumPy arrays updated in place: the fastest on a CPU;
      needs ``pip install 'royal-revenge[numba]'``), ``"numpy"`` (the rules over arrays, in place) or ``"jax"``
      (compiled; the arrays returned are JAX arrays);
    * ``compact``: observations as ``uint8`` (scores and the turn counter saturate at 255) or exact ``float32``.

    >>> from royal_revenge.rl.batch import BatchEnv
    >>> env = BatchEnv(256, players=4, seed=7)
    >>> out = env.reset()
    >>> out.observation.shape, out.action_mask.shape, out.rewards.shape
    ((256, 292), (256, 124), (256, 4))
    """

    def __init__(self, num_games: int, players: int | None = None, *, options: GameOptions | None = None,
                 episode: str = "round", reward: str = "points", max_steps: int | None = None,
                 illegal: str = "raise", illegal_reward: float = -1.0, backend: str = "numpy",
                 compact: bool = True, seed: int = 0) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive whole number, not {num_games!r}")
        self.num_games = num_games
        self.functions = functional(players, options=options, backend=backend, episode=episode, reward=reward,
                                    max_steps=max_steps, illegal=illegal, illegal_reward=illegal_reward)
        self.config = self.functions.config
        self.players = self.config.players
        self.backend = backend
        self.compact = compact
        self.seed = seed
        self.state: State = self.functions.init(num_games, seed)

    def reset(self, seed: int | None = None) -> BatchStep:
        """New games for the whole batch (``seed``: another batch of games; by default the constructor's)."""
        if seed is not None:
            self.seed = seed
        self.state = self.functions.init(self.num_games, self.seed)
        return self._out()

    def step(self, actions: Any) -> BatchStep:
        """One action (B,) per game, for its selected seat (``BatchStep.agent`` of the previous call)."""
        a = self.functions.arrays
        on_numpy = self.backend != "jax"
        if on_numpy or self.config.illegal == "raise":
            chosen = _as_actions(actions if on_numpy else a.to_numpy(actions), self.num_games)
            if self.config.illegal == "raise":
                check_actions(a.to_numpy(self.state.legal), chosen, a.to_numpy(self.state.selected))
            actions = chosen if on_numpy else a.xp.asarray(chosen)
        self.state = self.functions.step(self.state, actions)
        return self._out()

    def _out(self) -> BatchStep:
        s = self.state
        see = self.functions.observe if self.compact else self.functions.observe_float
        return BatchStep(see(s), s.legal, s.selected, s.rewards, s.terminated, s.truncated)
