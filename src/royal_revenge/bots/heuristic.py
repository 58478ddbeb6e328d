"""A rule-based bot: sound UNO play plus the royal decisions of UNO Royal Revenge.

The heuristic reads only the :class:`~royal_revenge.engine.Observation` (its own hand and
the public facts). Its judgement, in short:

* **UNO**: it always calls UNO with its next-to-last card, calls late if it somehow did not,
  and catches any player who forgot (R-UNO-1, R-UNO-2).
* **Danger**: an opponent is dangerous when they hold few cards (and, between equals, when
  they have a high score); see :func:`most_dangerous`.
* **Playing**: it plays rather than draws, keeps colour control (plays the colour it holds
  most), aims Skips, Reverses and +1 cards at dangerous players, avoids playing a Jester
  while wearing the Hat, sheds high-point cards, and keeps Wilds for when nothing else
  plays (a Wild played by someone else gives the colour to the King, R-ACT-WILD).
* **As King**: the Wild colour is the one it holds most, shaded towards colours the
  opponents are unlikely to hold (few unseen cards) when an opponent is close to going out;
  King's Choice draws go to the most dangerous opponent; the Jester Hat goes to the most
  dangerous opponent too.

``forget_uno`` (a probability) makes it sometimes forget to call UNO, and ``randomness``
makes it sometimes play a uniformly random legal action: the "easy" level of
:mod:`royal_revenge.bots.registry`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from ..engine import (
    AnyAction,
    CallUno,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    Draw,
    Kind,
    Observation,
    Play,
)
from ..engine.cards import ALL_CARDS, CARDS_OF_COLOUR, COLOUR_OF, POINTS_OF
from .base import seeded_rng

__all__ = ["HeuristicAgent", "threat", "most_dangerous", "best_colour", "colour_counts", "unseen_by_colour"]

MOST_COLOURED_POINTS: Final = max(POINTS_OF[card] for card in ALL_CARDS if COLOUR_OF[card] is not None)
"""The most a coloured card scores (a symbol's points): playing a card sheds its points up to this much."""


def threat(hand_size: int) -> float:
    """How close a hand is to going out: 3 for one card, 2 for two, 1 for three, then 0."""
    return float(max(0, 4 - hand_size))


def most_dangerous(observation: Observation, excluding: int, candidates: Sequence[int] | None = None) -> int:
    """The opponent of ``excluding`` most likely to win: fewest cards, then highest score.

    Ties go to the player who plays soonest after ``excluding`` in the direction of play.
    """
    n = observation.players
    seats = list(candidates) if candidates is not None else [s for s in range(n) if s != excluding]
    sizes, scores = observation.hand_sizes, observation.scores

    def key(seat: int) -> tuple[int, int, int]:
        distance = ((seat - excluding) * observation.direction) % n
        return (sizes[seat], -scores[seat], distance)

    return min(seats, key=key)


def colour_counts(cards: Sequence[Card]) -> list[int]:
    """How many cards of each colour (Wilds not counted)."""
    counts = [0] * len(Colour)
    for card in cards:
        colour = card.colour
        if colour is not None:
            counts[colour] += 1
    return counts


def unseen_by_colour(observation: Observation) -> list[int]:
    """Per colour, the cards the observer cannot see: in other hands or in the draw pile."""
    seen = colour_counts(observation.hand)
    discarded = colour_counts(observation.discard_pile)
    return [CARDS_OF_COLOUR[c] - seen[c] - discarded[c] for c in Colour]


def best_colour(observation: Observation, hand: Sequence[Card] | None = None) -> Colour:
    """The Wild colour that helps the observer and hurts the leader.

    Helps: the colour the observer holds most (high cards weigh a little more, so they can
    be shed). Hurts: when an opponent is close to going out, colours with few unseen cards
    are less likely to be in that opponent's hand. Ties go to the colour in play before.
    """
    assert observation.seat is not None
    cards = observation.hand if hand is None else hand
    mine = colour_counts(cards)
    points = [0] * len(Colour)
    for card in cards:
        if card.colour is not None:
            points[card.colour] += card.points
    unseen = unseen_by_colour(observation)
    leader = most_dangerous(observation, observation.seat)
    danger = threat(observation.hand_sizes[leader])
    weight = 0.08 + 0.12 * danger
    previous = observation.active_colour

    def score(colour: Colour) -> tuple[float, int]:
        value = mine[colour] + points[colour] / 100 - weight * unseen[colour]
        return (value, 1 if colour == previous else 0)

    return max(Colour, key=score)


class HeuristicAgent:
    """Sound UNO play plus the royal decisions; reproducible with a seed."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | random.Random | None = None,
        *,
        forget_uno: float = 0.0,
        randomness: float = 0.0,
        name: str | None = None,
    ) -> None:
        for label, value in (("forget_uno", forget_uno), ("randomness", randomness)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{label} must be a probability from 0 to 1, not {value!r}")
        self.rng = seeded_rng(seed)
        self.forget_uno = float(forget_uno)
        self.randomness = float(randomness)
        self._forgot = False
        if name is not None:
            self.name = name

    # ------------------------------------------------------------------ the interface

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        if not legal_actions:
            return None
        me = observation.seat
        deciding = observation.pending.seat == me
        for action in legal_actions:
            if isinstance(action, CallUno):
                if self._forgot:
                    continue  # who forgot to call with the card forgets the late call too
                return action
            if isinstance(action, Catch):
                return action
        if not deciding:
            return None
        choices = [a for a in legal_actions if not isinstance(a, (CallUno, Catch))]
        if not choices:
            return None
        if self.randomness and self.rng.random() < self.randomness:
            action = self.rng.choice(choices)
        else:
            action = self.decide(observation, choices)
        return self._with_uno(action, choices)

    def decide(self, observation: Observation, choices: Sequence[AnyAction]) -> AnyAction:
        """The heuristic's choice for the pending decision (no UNO calls or catches here)."""
        kind = observation.pending.kind
        if kind is Decision.COLOUR:
            colour = best_colour(observation)
            return next((a for a in choices if isinstance(a, ChooseColour) and a.colour == colour), choices[0])
        if kind is Decision.VICTIM:
            return self._victim(observation, choices)
        if kind is Decision.JESTER:
            return self._jester(observation, choices)
        if kind is Decision.DRAWN:
            return self._drawn(observation, choices)
        return self._turn(observation, choices)

    # ------------------------------------------------------------------ decisions

    def _with_uno(self, action: AnyAction, choices: Sequence[AnyAction]) -> AnyAction:
        """Call UNO with the card when the call is offered (unless this player forgets)."""
        if not isinstance(action, Play):
            return action
        forget = self.forget_uno > 0 and self.rng.random() < self.forget_uno
        self._forgot = forget
        wanted = Play(action.card, not forget)
        return wanted if wanted in choices else action

    def _victim(self, observation: Observation, choices: Sequence[AnyAction]) -> AnyAction:
        me = observation.seat
        assert me is not None
        player = observation.resolving
        if player >= 0 and observation.hand_sizes[player] == 0 and player != me:
            # The player went out with the King's Choice: a card for them is no card at all
            # (D-1), while a card for anyone else adds to the winner's score.
            target = player
        else:
            target = most_dangerous(observation, me)
        return next((a for a in choices if isinstance(a, ChooseVictim) and a.seat == target), choices[0])

    def _jester(self, observation: Observation, choices: Sequence[AnyAction]) -> AnyAction:
        me = observation.seat
        assert me is not None
        target = most_dangerous(observation, me)
        return next((a for a in choices if isinstance(a, ChooseJester) and a.seat == target), choices[0])

    def _drawn(self, observation: Observation, choices: Sequence[AnyAction]) -> AnyAction:
        plays = [a for a in choices if isinstance(a, Play)]
        if not plays:
            return choices[0]
        return plays[0]

    def _turn(self, observation: Observation, choices: Sequence[AnyAction]) -> AnyAction:
        plays = [a for a in choices if isinstance(a, Play) and not a.uno]
        if not plays:
            return next((a for a in choices if isinstance(a, Draw)), choices[0])
        if len(plays) == 1:
            return plays[0]
        scored = [(self.play_value(observation, play.card, plays), index) for index, play in enumerate(plays)]
        return plays[max(scored)[1]]

    def play_value(self, observation: Observation, card: Card, plays: Sequence[Play]) -> float:
        """How good playing ``card`` from the hand is now; higher is better."""
        me = observation.seat
        assert me is not None
        n = observation.players
        hand = list(observation.hand)
        hand.remove(card)
        if not hand:
            return 1000.0
        sizes = observation.hand_sizes
        direction = observation.direction
        kind = card.kind
        # shed points a little (a Wild counts as a symbol here: it is kept for later, below)
        value = min(card.points, MOST_COLOURED_POINTS) / MOST_COLOURED_POINTS
        nxt = (me + direction) % n
        prev = (me - direction) % n
        mine = colour_counts(hand)
        unseen = unseen_by_colour(observation)
        colour = card.colour
        follower = nxt  # who plays after this card
        if kind is Kind.SKIP:
            follower = (me + 2 * direction) % n
            value += 2.0 if n == 2 else 0.5 + 1.5 * threat(sizes[nxt])
        elif kind is Kind.REVERSE:
            if n == 2:
                if observation.options.two_player_reverse_skips:
                    value += 2.0
            else:
                follower = prev
                value += 0.2 + 1.0 * (threat(sizes[nxt]) - threat(sizes[prev]))
        elif kind is Kind.JESTER:
            jester = observation.jester
            if jester == me:
                value -= 2.5  # I would draw for it myself
            elif jester is not None:
                value += 1.0 + 1.0 * threat(sizes[jester])
        elif kind is Kind.KINGS_CHOICE:
            king = observation.king
            if king == me:
                value += 1.0 + 1.0 * threat(sizes[most_dangerous(observation, me)])
            elif most_dangerous(observation, king) == me:
                value -= 1.5  # the King will probably make me draw
            else:
                value += 0.5
        elif kind is Kind.WILD:
            others = sum(1 for play in plays if play.card.kind is not Kind.WILD)
            value -= 4.0 if others else 0.0  # keep Wilds for when nothing else plays
            if observation.king == me:
                colour = best_colour(observation, hand)
                value += 0.5
            else:
                value -= 1.0
        if colour is not None:
            value += 1.0 * mine[colour]  # colour control: I can follow up
            value -= 0.15 * threat(sizes[follower]) * unseen[colour]  # starve a dangerous next player
        return value
