"""What the public history says about the hidden hands, and hands dealt to agree with it.

R-TURN-2 lets a player draw even when they could play, and R-TURN-3 lets them keep a
playable drawn card; but players rarely do either, and the rule-based bots never do. Read as
if nobody did, a round's history (:attr:`~royal_revenge.engine.Observation.history`) says:

* a player who **drew for their turn** (or passed, with nothing left to draw) held no card
  playable on the top card and colour of that moment;
* a player who then **kept** the drawn card drew one that was not playable either (and one
  who played it played the card drawn, not one of the others).

Those cards are the *old* cards of that moment. The player's hand now holds at least as many
of them as its size less the cards drawn since (each play may have been an old card or a new
one), so the oldest of the hand's cards must avoid what the player could not play, and the
oldest more than one thing when the player drew on several cards. :class:`HandInference`
reads the history once and then deals hidden hands that agree with it
(:meth:`HandInference.deal`), for :meth:`~royal_revenge.engine.Observation.sample_state`.

>>> import random
>>> from royal_revenge.engine.cards import Kind
>>> from royal_revenge.engine.position import position
>>> state = position(hands=["R1 G2", "Y3 B4 Y5", "G6 Y7"], discard="R5", king=0, jester=2)
>>> _ = state.apply_move("0:R1")
>>> _ = state.apply_move("1:draw")
>>> _ = state.apply_move("1:keep")
>>> inference = HandInference(state.observe(0))
>>> inference.lacks[1]
[(Card('R1'), <Colour.RED: 0>, 4)]
>>> hands = inference.deal(random.Random(1))
>>> any(card.colour == Colour.RED or card.number == 1 or card.kind is Kind.WILD for card in hands[1])
False
"""

from __future__ import annotations

import random
from typing import Final

from ..engine import Card, Colour, Observation
from ..engine import events as ev
from ..engine.cards import COLOUR_OF, PLAYABLE, match_key

__all__ = ["HandInference"]

RETRIES: Final = 4
"""Deals tried with every inferred constraint before the oldest ones are dropped (they may be wrong)."""


class _Lack:
    """A seat showed it held no card playable on ``top`` in ``colour``; ``drawn_since`` cards came after."""

    __slots__ = ("colour", "drawn_since", "top")

    def __init__(self, top: Card, colour: Colour, drawn_since: int) -> None:
        self.top = top
        self.colour = colour
        self.drawn_since = drawn_since


class HandInference:
    """The hidden hands as an observer may infer them from the round's history (see the module's notes)."""

    def __init__(self, observation: Observation) -> None:
        self.observation = observation
        lacks: list[list[_Lack]] = [[] for _ in range(observation.players)]
        top: Card | None = None
        colour: Colour | None = None
        drawing = [False] * observation.players
        """Whether the seat has just drawn for its turn (so that a card it plays now is the one it drew)."""
        for event in observation.history:
            if isinstance(event, ev.Played):
                top, colour = event.card, COLOUR_OF[event.card]
                if drawing[event.seat]:  # the card drawn, played: the cards left are as old as they were
                    drawing[event.seat] = False
                    for lack in lacks[event.seat]:
                        lack.drawn_since -= 1
            elif isinstance(event, ev.ColourChosen):
                colour = event.colour
            elif isinstance(event, ev.RoundStarted):
                top, colour = event.start_card, COLOUR_OF[event.start_card]
                lacks = [[] for _ in range(observation.players)]
            elif isinstance(event, ev.Drew):
                for lack in lacks[event.seat]:
                    lack.drawn_since += event.count
                if event.reason == "turn" and event.top is not None and event.colour is not None:
                    lacks[event.seat].append(_Lack(event.top, event.colour, event.count))
                    drawing[event.seat] = True
            elif isinstance(event, ev.Kept):
                drawing[event.seat] = False
                if lacks[event.seat]:  # the card kept did not match either: it is as old as the rest
                    lacks[event.seat][-1].drawn_since -= 1
            elif isinstance(event, ev.Passed) and top is not None and colour is not None:
                lacks[event.seat].append(_Lack(top, colour, 0))
        me = observation.seat
        self.lacks: list[list[tuple[Card, Colour, int]]] = [
            [] if seat == me else [
                (lack.top, lack.colour, observation.hand_sizes[seat] - lack.drawn_since)
                for lack in lacks[seat] if observation.hand_sizes[seat] - lack.drawn_since > 0
            ]
            for seat in range(observation.players)
        ]
        """For each other seat, what it showed it could not play, oldest first: ``(top, colour, held)``, where
        ``held`` is how many of its cards now, at least, it held then (so none of them matches)."""

    @property
    def informative(self) -> bool:
        """Whether the history says anything about a hidden hand (otherwise a uniform deal is as good)."""
        return any(self.lacks)

    def deal(self, rng: random.Random) -> list[list[Card]]:
        """Hidden hands (one list per seat, the observer's empty) that agree with the history as far as possible.

        Each hand's oldest cards avoid what its player could not play; the others are dealt at
        random from the unseen cards. When the unseen cards cannot satisfy every inference (a
        player did draw while holding a playable card), the oldest inferences are dropped.
        """
        lacks = [list(seat_lacks) for seat_lacks in self.lacks]
        while True:
            for _ in range(RETRIES):
                hands = self._try_deal(rng, lacks)
                if hands is not None:
                    return hands
            # Drop the oldest inference of every seat that has one, and try again.
            lacks = [seat_lacks[1:] for seat_lacks in lacks]

    def _try_deal(self, rng: random.Random, lacks: list[list[tuple[Card, Colour, int]]]) -> list[list[Card]] | None:
        observation = self.observation
        pool = observation.unseen_cards()
        rng.shuffle(pool)
        # Each slot of a hand, oldest first, with the rows of PLAYABLE its card must not match.
        slots: list[tuple[int, int, list[tuple[bool, ...]]]] = []
        for seat in range(observation.players):
            if seat == observation.seat:
                continue
            for index in range(observation.hand_sizes[seat]):
                rows = [PLAYABLE[match_key(top, colour)] for top, colour, held in lacks[seat] if held > index]
                slots.append((seat, index, rows))
        # The most constrained slots first, so that the rarest cards go where they are needed.
        slots.sort(key=lambda slot: -len(slot[2]))
        hands: list[list[Card | None]] = [[None] * (observation.hand_sizes[seat] if seat != observation.seat else 0)
                                          for seat in range(observation.players)]
        for seat, index, rows in slots:
            for position, card in enumerate(pool):
                if not any(row[card] for row in rows):
                    hands[seat][index] = pool.pop(position)
                    break
            else:
                return None
        return [[card for card in hand if card is not None] for hand in hands]

