"""The table that both environments share: who is asked to decide, legality, rewards.

A thin adapter over :class:`~royal_revenge.engine.GameState`: legality always comes from
``GameState.legal_actions(seat)`` and every action goes through ``GameState.step``.

Who is selected (docs/rl.md, "Who decides"):

* normally the engine's decider (``state.pending.seat``): the player whose turn it is, or
  the King for a colour, a victim or a Jester;
* after every decision that leaves an UNO window open (someone played their next-to-last
  card without calling), each *other* seat that may act on it is asked once, in turn: the
  window's owner first (to call UNO late), then the others in the order of play (to
  catch). Such a chance is optional: its legal actions are the call or the catch plus
  :data:`~royal_revenge.rl.encoding.PASS`. A call or a catch closes the window and ends
  the round of chances. The decider is not asked separately: its own legal actions already
  hold the call or the catch (D-11).
* between rounds (a whole-game episode) the table deals the next round itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from ..engine import NEXT_ROUND, AnyAction, Decision, GameOptions, GameState, IllegalActionError, Scoring
from .encoding import (
    PASS,
    PublicEncoder,
    Role,
    action_mask,
    decode_table,
    describe_action,
    encode_observation,
    legal_indices,
    role_of,
)

__all__ = [
    "Table",
    "AECCore",
    "EpisodeKind",
    "RewardKind",
    "IllegalRLActionError",
    "round_rewards",
    "game_rewards",
]

EpisodeKind = Literal["round", "game"]
RewardKind = Literal["points", "win"]

_ROUND_OVER: Final = Decision.ROUND_OVER
_GAME_OVER: Final = Decision.GAME_OVER
_ROLE_OF: Final = tuple(role_of(decision) for decision in Decision)  # by value: enums hash slowly
_NONE: Final = Role.NONE
_CHANCE: Final = Role.CHANCE
_NO_LEGAL: Final[list[int]] = []  # (never changed)
_ZERO: Final = 0.0


class IllegalRLActionError(IllegalActionError):
    """An action index that is not legal for the selected agent now (raised by default)."""


def round_rewards(state: GameState) -> list[float]:
    """Zero-sum points for the round just scored (``reward="points"``).

    Standard scoring: the winner gets the round's points, every other player loses the points
    left in their own hand (so the rewards sum to zero at any table size). Lowest-tally
    scoring: every player gets the table's average hand points minus their own.
    """
    result = state.last_round
    assert result is not None
    hands = result.hand_points
    if state.options.scoring is Scoring.STANDARD:
        rewards = [-float(points) for points in hands]
        rewards[result.winner] = float(result.points)
        return rewards
    mean = sum(hands) / len(hands)
    return [mean - points for points in hands]


def game_rewards(state: GameState) -> list[float]:
    """Zero-sum win/loss for a finished episode (``reward="win"``).

    The winners get +1 each and the losers share the opposite: ``-winners / losers`` each (so
    -1 at two players, -1/3 each at four with one winner). If everyone shares the win, all get 0.
    """
    outcome = state.result
    assert outcome is not None
    n = state.players
    winners = set(outcome.winners)
    if len(winners) == n:
        return [0.0] * n
    loss = -len(winners) / (n - len(winners))
    return [1.0 if seat in winners else loss for seat in range(n)]


class Table:
    """One game and the selection of the next agent to decide."""

    def __init__(
        self,
        options: GameOptions,
        *,
        episode: EpisodeKind = "round",
        reward: RewardKind = "points",
        max_steps: int | None = None,
        fast_observation: bool = True,
    ) -> None:
        if episode not in ("round", "game"):
            raise ValueError(f"episode must be 'round' or 'game', not {episode!r}")
        if reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {reward!r}")
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive whole number or None, not {max_steps!r}")
        if episode == "round" and not options.single_round:
            options = replace(options, single_round=True)
        self.options = options
        self.players = options.players
        self.episode: EpisodeKind = episode
        self.reward: RewardKind = reward
        self.max_steps = max_steps
        self.fast_observation = fast_observation
        self._encoder = PublicEncoder()
        self._decode = [decode_table(self.players, seat) for seat in range(self.players)]
        self.state = GameState.new(options, seed=0)
        self.selected = 0
        self.chance = False
        self.steps = 0
        self._queue: list[int] = []
        self._legal: list[int] | None = None
        self._legal_engine: list[AnyAction] | None = None

    # ------------------------------------------------------------------ reading

    @property
    def done(self) -> bool:
        return self.state.decision is _GAME_OVER

    @property
    def truncated(self) -> bool:
        return self.max_steps is not None and self.steps >= self.max_steps and not self.done

    def role(self, seat: int) -> Role:
        """What ``seat`` is asked to decide now."""
        if self.done or seat != self.selected:
            return Role.NONE
        if self.chance:
            return Role.CHANCE
        return role_of(self.state.decision)

    def engine_legal(self) -> list[AnyAction]:
        """The engine's legal actions of the selected seat (without PASS)."""
        engine = self._legal_engine
        if engine is None:
            state = self.state
            engine = self._legal_engine = [] if state.decision is _GAME_OVER else state.legal_actions(self.selected)
        return engine

    def legal(self) -> list[int]:
        """The legal action indices of the selected seat (PASS included for a chance)."""
        legal = self._legal
        if legal is None:
            engine = self._legal_engine
            if engine is None:
                state = self.state
                engine = self._legal_engine = [] if state.decision is _GAME_OVER else state.legal_actions(self.selected)
            legal = legal_indices(engine, self.selected, self.players)
            if self.chance:
                legal.append(PASS)
            self._legal = legal
        return legal

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        return action_mask(self.legal() if seat == self.selected and not self.done else ())

    def observation(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The encoded observation and the action mask of ``seat`` (the environments' hot path)."""
        state = self.state
        decision = state.decision
        if decision is _GAME_OVER or seat != self.selected:
            role = _NONE
            legal = _NO_LEGAL
        else:
            code: int = decision  # (an int variable: compiled, a machine integer; interpreted, free)
            role = _CHANCE if self.chance else _ROLE_OF[code]
            legal = self._legal or self.legal()
        if self.fast_observation:
            return self._encoder.encode_with_mask(state, seat, role, legal)
        return encode_observation(state.observe(seat), role), action_mask(legal)

    def encode(self, seat: int) -> npt.NDArray[np.float32]:
        """The encoded observation of ``seat``.

        With ``fast_observation`` (the default) through :class:`PublicEncoder`, which reads the
        same public fields as ``Observation.of``; otherwise from ``state.observe(seat)``.
        """
        if self.fast_observation:
            return self._encoder.encode(self.state, seat, self.role(seat))
        return encode_observation(self.state.observe(seat), self.role(seat))

    # ------------------------------------------------------------------ changing

    def reset(self, seed: int) -> list[float] | None:
        self.state = GameState.new(self.options, seed=seed)
        self._encoder = PublicEncoder()
        self.steps = 0
        self._queue = []
        self.chance = False
        self._legal = self._legal_engine = None
        self._select_decider()
        return None

    def check(self, index: object) -> int:
        """``index`` as a legal action index for the selected seat, or :class:`IllegalRLActionError`."""
        if type(index) is int:
            action = index
        elif isinstance(index, int | np.integer) and not isinstance(index, bool):
            action = int(index)
        elif isinstance(index, np.ndarray) and index.shape in ((), (1,)) and np.issubdtype(index.dtype, np.integer):
            action = int(index.reshape(()))
        else:
            raise IllegalRLActionError(f"an action must be an integer index, not {index!r}")
        if self.state.decision is _GAME_OVER:
            raise IllegalRLActionError("the episode is over; reset the environment")
        legal = self._legal
        if legal is None:
            legal = self.legal()
        if action not in legal:
            seat = self.selected
            what = "an optional UNO chance" if self.chance else self.state.describe_pending()
            choices = ", ".join(f"{i} ({describe_action(i)})" for i in legal)
            raise IllegalRLActionError(
                f"action {action} ({describe_action(action)}) is not legal for seat {seat} now "
                f"({what}); legal actions: {choices}"
            )
        return action

    def step(self, index: int) -> list[float] | None:
        """Apply a *checked* index for the selected seat; returns the rewards of this step (or None: all zero)."""
        state = self.state
        self._legal = self._legal_engine = None
        self.steps += 1
        if index != PASS:
            seat = self.selected
            action = self._decode[seat][index]
            assert action is not None
            state.step(seat, action)
            decision = state.decision
            if decision is _ROUND_OVER or decision is _GAME_OVER:
                self._queue = []
                self.chance = False
                rewards = self._score()
                if decision is _ROUND_OVER:
                    state.step(None, NEXT_ROUND)
                    self._select_decider()
                return rewards
            if not self.chance and state.uno_seat is not None:
                self._queue = self._chance_queue()  # (the queue is empty whenever no chance is offered)
        if self._queue:
            self._select_next()
        else:  # the common case, inlined: the engine's decider decides
            self.chance = False
            decider = state.decider
            if decider is not None:
                self.selected = decider
        return None

    # ------------------------------------------------------------------ internals

    def _score(self) -> list[float] | None:
        state = self.state
        if self.reward == "points":
            return round_rewards(state)
        if state.decision is _GAME_OVER:
            return game_rewards(state)
        return None

    def _chance_queue(self) -> list[int]:
        """Seats offered the open UNO window, in the engine's order (:meth:`GameState.out_of_turn`)."""
        return self.state.out_of_turn()

    def _select_next(self) -> None:
        state = self.state
        queue = self._queue
        if not queue:
            self.chance = False
            decider = state.decider
            if decider is not None:
                self.selected = decider
            return
        while queue and state.uno_seat is not None:
            seat = queue.pop(0)
            if state.legal_actions(seat):
                self.selected = seat
                self.chance = True
                return
        queue.clear()
        self._select_decider()

    def _select_decider(self) -> None:
        self.chance = False
        decider = self.state.decider
        if decider is not None:
            self.selected = decider


# AECCore.step's answers: what the environment still has to do.
STEPPED: Final = 0
"""The step is done."""
ENDED: Final = 1
"""The episode ended with this step: PettingZoo's ``_deads_step_first`` is due."""
DEAD: Final = 2
"""The selected agent is terminated or truncated: PettingZoo's ``_was_dead_step`` is due (nothing was done)."""


class AECCore:
    """The per-step bookkeeping of :class:`~royal_revenge.rl.aec.RoyalRevengeAEC`, compiled with the table.

    The environment is a PettingZoo ``AECEnv`` subclass and stays interpreted; its ``agents``,
    ``rewards``, ``_cumulative_rewards``, ``terminations``, ``truncations``, ``infos`` and
    ``agent_selection`` are properties that read and write the fields here, so that PettingZoo's
    own helpers and wrappers (which read, mutate or replace them) and the hot path share one copy.
    ``last``, ``observe`` and ``step`` do the environment's per-step work with the same semantics
    as PettingZoo's documented pattern: the acting agent's cumulative reward is cleared, the rewards
    of the previous step are cleared (only when there were any), this step's rewards are set and
    accumulated, and termination or truncation marks every live agent.
    """

    def __init__(self, table: Table, agents: list[str]) -> None:
        self.table = table
        self.possible_agents = agents
        self.seat_of = {agent: seat for seat, agent in enumerate(agents)}
        self.agents: list[str] = []
        self.rewards: dict[str, Any] = {}
        self.cumulative: dict[str, Any] = {}
        self.terminations: dict[str, Any] = {}
        self.truncations: dict[str, Any] = {}
        self.infos: dict[str, Any] = {}
        self._selection = agents[0]
        self._seat = 0  # the selected agent's seat (-1: not one of the agents)
        self.rewarded = False
        self.env: Any = None  # the AECEnv, for PettingZoo's own helpers at the end of an episode
        self.human = False  # render_mode == "human": render after every step

    @property
    def selection(self) -> str:
        """The selected agent (``agent_selection``); its seat is kept with it."""
        return self._selection

    @selection.setter
    def selection(self, agent: str) -> None:
        self._selection = agent
        self._seat = self.seat_of.get(agent, -1)

    def env_step(self, action: object) -> None:
        """The whole of ``RoyalRevengeAEC.step``: :meth:`step`, then PettingZoo's helpers when due."""
        done = self.step(action)
        if done != STEPPED:
            if done == DEAD:
                self.env._was_dead_step(action)
                return
            self.env._deads_step_first()  # ENDED: the first terminated agent is selected
        if self.human:
            self.env.render()

    def reset(self, seed: int) -> None:
        table = self.table
        table.reset(seed)
        agents = self.possible_agents
        self.agents = agents[:]
        self.rewards = dict.fromkeys(agents, 0.0)
        self.cumulative = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {agent: {} for agent in agents}
        self.rewarded = False
        self._selection = agents[table.selected]
        self._seat = table.selected

    def observe(self, agent: str) -> dict[str, Any]:
        vector, mask = self.table.observation(self.seat_of[agent])
        return {"observation": vector, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[dict[str, Any] | None, Any, Any, Any, Any]:
        agent = self._selection
        observation: dict[str, Any] | None = None
        if observe:
            seat = self._seat
            vector, mask = self.table.observation(seat if seat >= 0 else self.seat_of[agent])
            observation = {"observation": vector, "action_mask": mask}
        return (
            observation,
            self.cumulative[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: object) -> int:
        """Apply ``action`` for the selected agent; returns :data:`STEPPED`, :data:`ENDED` or :data:`DEAD`."""
        agent = self._selection
        if self.terminations[agent] or self.truncations[agent]:
            return DEAD
        table = self.table
        legal = table._legal  # the mask's legal indices, computed by last()/observe() before a step
        if type(action) is int and legal is not None and action in legal:
            index: int = action
        else:
            index = table.check(action)
        cumulative = self.cumulative
        if cumulative.get(agent, 1.0):  # (usually 0 already: a lookup is cheaper than a store)
            cumulative[agent] = _ZERO
        if self.rewarded:
            self.rewards = dict.fromkeys(self.possible_agents, 0.0)
            self.rewarded = False
        step_rewards = table.step(index)
        if step_rewards is not None:
            rewards = self.rewards
            names = self.possible_agents
            for seat in range(len(names)):
                name = names[seat]
                value = step_rewards[seat]
                rewards[name] = value
                cumulative[name] = cumulative[name] + value
            self.rewarded = True
        if table.state.decision is _GAME_OVER:
            self.terminations = dict.fromkeys(self.agents, True)
            return ENDED
        max_steps = table.max_steps
        if max_steps is not None and table.steps >= max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
            return ENDED
        seat = table.selected
        self._selection = self.possible_agents[seat]
        self._seat = seat
        return STEPPED
