"""Play a game between agents, synchronously, with no clock.

The scepter is the engine's turn-counted schedule (``GameOptions.scepter_turns``), so the
driver only asks agents for decisions. After every action that opens an UNO window, the
seats of :meth:`GameState.out_of_turn` are asked in its order, once per window.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..bots.base import Agent
from ..engine import NEXT_ROUND, AnyAction, Decision, Game, GameRecord, GameState, IllegalActionError, RoundResult

__all__ = ["GameLog", "play_game"]


@dataclass(slots=True)
class GameLog:
    """What a driven game produced: the final state, its rounds, its record and timings."""

    state: GameState
    rounds: list[RoundResult] = field(default_factory=list)
    record: GameRecord | None = None
    decisions: list[int] = field(default_factory=list)
    """Per seat: how many decisions its agent was asked for."""
    think_seconds: list[float] = field(default_factory=list)
    """Per seat: total time its agent spent deciding."""
    steps: int = 0


def _ask(agent: Agent, state: GameState, seat: int, log: GameLog, timer: Callable[[], float]) -> AnyAction | None:
    legal = state.legal_actions(seat)
    if not legal:
        return None
    observation = state.observe(seat)
    start = timer()
    action = agent.act(observation, legal)
    log.think_seconds[seat] += timer() - start
    log.decisions[seat] += 1
    return action


def play_game(
    game: Game | GameState,
    agents: Sequence[Agent],
    *,
    max_rounds: int | None = None,
    on_step: Callable[[int | None, AnyAction, GameState], None] | None = None,
    timer: Callable[[], float] = time.perf_counter,
) -> GameLog:
    """Drive ``game`` until it is over (or ``max_rounds`` rounds are scored) and return the log.

    ``game`` may be a :class:`Game` (its record is kept) or a bare :class:`GameState`.
    An agent that returns an illegal action, or ``None`` when it must decide, raises
    :class:`IllegalActionError` naming the agent.
    """
    state = game.state if isinstance(game, Game) else game
    apply = game.apply if isinstance(game, Game) else state.apply
    n = state.players
    if len(agents) != n:
        raise ValueError(f"{n} seats need {n} agents, not {len(agents)}")
    log = GameLog(state, decisions=[0] * n, think_seconds=[0.0] * n)
    offered_window: tuple[int, int] | None = None
    while True:
        decision = state.decision
        if decision is Decision.GAME_OVER or decision is Decision.ROUND_OVER:
            assert state.last_round is not None
            log.rounds.append(state.last_round)
            if decision is Decision.GAME_OVER or (max_rounds is not None and len(log.rounds) >= max_rounds):
                break
            apply(None, NEXT_ROUND)
            if on_step is not None:
                on_step(None, NEXT_ROUND, state)
            continue
        seat = state.decider
        assert seat is not None
        action = _ask(agents[seat], state, seat, log, timer)
        if action is None:
            raise IllegalActionError(f"agent {agents[seat].name!r} at seat {seat} must decide but passed")
        _apply_checked(apply, agents[seat], seat, action)
        log.steps += 1
        if on_step is not None:
            on_step(seat, action, state)
        # Out-of-turn chances, once per UNO window, in the engine's order (GameState.out_of_turn).
        uno = state.uno_seat
        if uno is not None and (uno, log.steps) != offered_window:
            offered_window = (uno, log.steps)
            for other in state.out_of_turn():
                if state.uno_seat is None:
                    break  # a call or a catch closed the window
                extra = _ask(agents[other], state, other, log, timer)
                if extra is not None:
                    _apply_checked(apply, agents[other], other, extra)
                    log.steps += 1
                    if on_step is not None:
                        on_step(other, extra, state)
    if isinstance(game, Game):
        log.record = game.record()
    return log


def _apply_checked(
    apply: Callable[[int | None, AnyAction], object], agent: Agent, seat: int, action: AnyAction
) -> None:
    try:
        apply(seat, action)
    except IllegalActionError as error:
        raise IllegalActionError(f"agent {agent.name!r} at seat {seat} chose {action}: {error}") from None
