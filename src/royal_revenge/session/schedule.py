"""A table's clocks and bots: when the scepter sounds, how long a decision may take, when a bot plays or catches,
when the next round is dealt, and what happens when one of them comes due (:meth:`Scheduler.tick`).

The scheduler never reads a clock: every method takes ``now``. Its owner (:mod:`.runner`) sleeps until
:meth:`Scheduler.next_deadline` and ticks the table then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ..bots.base import Agent
from ..engine import FANFARE, NEXT_ROUND, AnyAction, Decision, GameState, Observation
from ..engine import events as ev
from ..engine.rng import SplitMix64
from .seats import SeatKind
from .settings import Phase

if TYPE_CHECKING:
    from .table import Table

__all__ = ["SLOW_LEVELS", "AgentFactory", "BotTurn", "Deadlines", "Scheduler"]

SLOW_LEVELS: Final = frozenset({"hard"})
"""Bot levels that search (tens of milliseconds a decision): a server works their moves out off its event loop."""

AgentFactory = Callable[[str, int], Agent]
"""Makes a table's bot: ``factory(level, seed)``."""


def _default_agent_factory(level: str, seed: int) -> Agent:
    from ..bots.registry import make_agent

    return make_agent(level, seed=seed)


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot's decision that :meth:`Table.tick` is about to make, to be worked out away from the table.

    It holds only what the bot may see (its observation and legal actions), so :meth:`decide`
    can run in another thread while the table goes on; :meth:`Table.tick` takes the answer only
    if the table is still at ``version``.
    """

    version: int
    seat: int
    agent: Agent
    observation: Observation
    legal: tuple[AnyAction, ...]

    def decide(self) -> AnyAction | None:
        return self.agent.act(self.observation, list(self.legal))


@dataclass(slots=True)
class Deadlines:
    """When each of a table's clocks comes due (``None``: it does not run)."""

    scepter: float | None = None
    decision: float | None = None
    bot: float | None = None
    catch: float | None = None
    next_round: float | None = None


class Scheduler:
    """The clocks of one :class:`~royal_revenge.session.table.Table` and the bots that play at it."""

    def __init__(self, table: Table, seed: int, agent_factory: AgentFactory | None) -> None:
        self.table = table
        self.deadlines = Deadlines()
        self.resume_at: float | None = None
        """After a restart, when the table's clocks run again unless every person is back first (``None``: they
        run)."""
        self.rng = SplitMix64(seed)  # (its whole state is one int: the table row is written with every move)
        self.agent_factory: AgentFactory = agent_factory or _default_agent_factory
        self.agents: dict[tuple[int, str], Agent] = {}
        self.prepared: tuple[BotTurn, AnyAction | None] | None = None

    def scepter_delay(self, now: float) -> float:
        """When a scepter set running at ``now`` sounds: a random delay, hidden from everyone."""
        settings = self.table.settings
        return now + self.rng.uniform(settings.scepter_min_seconds, settings.scepter_max_seconds)

    def agent(self, seat: int, level: str) -> Agent:
        """The bot of ``level`` that plays ``seat`` (made once, seeded from the table's generator)."""
        key = (seat, level)
        agent = self.agents.get(key)
        if agent is None:
            agent = self.agent_factory(level, self.rng.getrandbits(32))
            self.agents[key] = agent
        return agent

    def after_events(self, happened: list[ev.Event], now: float) -> None:
        """The scepter's clock after a move: set running when the Jester is chosen, stopped when the crown passes
        or the round ends."""
        for event in happened:
            if isinstance(event, ev.JesterChosen):
                self.deadlines.scepter = self.scepter_delay(now)
            elif isinstance(event, (ev.CrownPassed, ev.RoundEnded)):
                self.deadlines.scepter = None

    def plan(self, now: float) -> None:
        """Work out the clocks after any change (counted from the end of a restart's pause, :attr:`resume_at`)."""
        table = self.table
        d = self.deadlines
        d.decision = d.bot = d.catch = d.next_round = None
        if self.resume_at is not None and self.resume_at <= now:
            self.resume_at = None
        if table.game is None or table.phase is not Phase.PLAYING:
            d.scepter = self.resume_at = None
            return
        start = now if self.resume_at is None else self.resume_at
        settings = table.settings
        state = table.game.state
        if state.decision is Decision.ROUND_OVER:
            d.next_round = start + settings.next_round_seconds
            return
        decider = state.decider
        assert decider is not None
        seating = table.seating
        if seating.bot_level(decider) is not None:
            d.bot = start + settings.bot_delay_seconds
        else:
            d.decision = start + settings.turn_seconds
        if state.uno_seat is not None and any(seating.bot_level(seat) is not None for seat in state.out_of_turn()):
            d.catch = start + max(settings.bot_delay_seconds, 0.5) * 1.5
        for seat, player in enumerate(seating.seats):
            if (player.kind is SeatKind.HUMAN and not player.connected and not player.autopilot
                    and player.disconnected_at is not None):
                grace_end = player.disconnected_at + settings.grace_seconds
                if d.decision is not None and seat == decider:
                    d.decision = min(d.decision, max(grace_end, start))

    def clamp_to_grace(self, start: float) -> None:
        """A restored decision clock ends no later than its person's grace, as :meth:`plan` has it: someone
        connected when the server went away is away from the end of the pause. (So the clocks of a restored table
        are the ones any later change works out: a chat line, which leaves the clocks alone, may rewrite the row
        that the next restart reads.)"""
        table = self.table
        decision = self.deadlines.decision
        decider = table.game.state.decider if table.game is not None else None
        if decision is None or decider is None:
            return
        player = table.seating.seats[decider]
        if player.kind is SeatKind.HUMAN and not player.autopilot and player.disconnected_at is not None:
            self.deadlines.decision = min(decision,
                                          max(player.disconnected_at + table.settings.grace_seconds, start))

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do (``None``: nothing until someone acts)."""
        d = self.deadlines
        times = [t for t in (d.scepter, d.decision, d.bot, d.catch, d.next_round) if t is not None]
        return min(times) if times else None

    def first_due(self, now: float) -> str | None:
        """The name of the earliest clock due at ``now``, if any."""
        d = self.deadlines
        due = [(t, name) for name, t in (("scepter", d.scepter), ("next_round", d.next_round),
                                         ("catch", d.catch), ("decision", d.decision), ("bot", d.bot))
               if t is not None and t <= now]
        return min(due)[1] if due else None

    def slow_bot_turn(self, now: float) -> BotTurn | None:
        """The searching bot's move that :meth:`tick` would make first at ``now``, if that is what is due."""
        table = self.table
        if table.game is None or table.phase is not Phase.PLAYING or self.first_due(now) != "bot":
            return None
        state = table.game.state
        seat = state.decider
        level = table.seating.bot_level(seat) if seat is not None else None
        if seat is None or level is None or level not in SLOW_LEVELS:
            return None
        legal = state.legal_actions(seat)
        return BotTurn(table.version, seat, self.agent(seat, level), state.observe(seat), tuple(legal))

    def tick(self, now: float, prepared: tuple[BotTurn, AnyAction | None] | None = None) -> bool:
        """Do whatever is due at ``now``: the fanfare, a timed-out decision, a bot's move or catch, a deal.

        ``prepared`` is a :meth:`slow_bot_turn` and its answer, used if the table has not changed
        since (otherwise the bot decides afresh). Returns whether anything changed.
        """
        table = self.table
        self.prepared = prepared
        changed = False
        for _ in range(100):  # each pass handles the earliest due item; a bound against loops
            game = table.game
            if game is None or table.phase is not Phase.PLAYING:
                break
            d = self.deadlines
            state = game.state
            name = self.first_due(now)
            if name is None:
                break
            changed = True
            if name == "scepter":
                d.scepter = None
                if FANFARE not in state.legal_actions(None):
                    continue  # nothing happened: the other clocks run on
                table._apply(None, FANFARE, "table", None, now)
            elif name == "next_round":
                table._apply(None, NEXT_ROUND, "table", None, now)
            elif name == "catch":
                d.catch = None
                version = table.version
                self._bots_out_of_turn(state, now)
                if table.version == version:
                    continue  # the bots let it go: the other clocks run on
                # (after a call or a catch, as after any move, the clocks are worked out afresh: a restore works
                # them out from the last move, see row.restore)
            else:
                decider = state.decider
                assert decider is not None
                seating = table.seating
                level = seating.bot_level(decider) or "normal"
                if name == "decision":
                    player = seating.seats[decider]
                    player.timeouts += 1
                    seating.changed()
                    gone = not player.connected and player.disconnected_at is not None and (
                        now - player.disconnected_at >= table.settings.grace_seconds)
                    if player.timeouts >= table.settings.max_timeouts or gone:
                        player.autopilot = True
                self._bot_move(state, decider, level, "timeout" if name == "decision" else seating.bot_by(decider),
                               now)
            self.plan(now)
        self.prepared = None
        return changed

    def _bot_move(self, state: GameState, seat: int, level: str, by: str, now: float) -> None:
        legal = state.legal_actions(seat)
        prepared, self.prepared = self.prepared, None
        if prepared is not None and prepared[0].version == self.table.version and prepared[0].seat == seat:
            action = prepared[1]
        else:
            action = self.agent(seat, level).act(state.observe(seat), legal)
        if action is None or action not in legal:
            action = legal[0]  # a bot must never stall the table
        self.table._apply(seat, action, by, None, now)

    def _bots_out_of_turn(self, state: GameState, now: float) -> None:
        """The bots' chances out of turn, asked in the engine's order (:meth:`GameState.out_of_turn`: the UNO
        window's owner first, to call UNO late, then the others in order of play, to catch); the first taken
        closes the window."""
        seating = self.table.seating
        for seat in state.out_of_turn():
            if state.uno_seat is None:
                break  # a call or a catch closed the window
            level = seating.bot_level(seat)
            if level is None:
                continue
            legal = state.legal_actions(seat)
            if not legal:
                continue
            choice = self.agent(seat, level).act(state.observe(seat), legal)
            if choice is not None and choice in legal:
                self.table._apply(seat, choice, seating.bot_by(seat), None, now)
