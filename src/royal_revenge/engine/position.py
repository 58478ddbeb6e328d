"""Build an exact position in card notation: for scenario tests, puzzles and bot studies.

>>> from royal_revenge.engine.position import position
>>> state = position(hands=["R7 BJ", "G2 G3 W", "Y1"], discard="R5", draw="YK B8", jester=2)
>>> state.hands[0], state.draw_pile[-1], state.legal_actions(0)
([Card('R7'), Card('BJ')], Card('YK'), [Play(card=Card('R7'), uno=False), Play(card=Card('R7'), uno=True), Draw()])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .cards import FULL_DECK, Card, Colour
from .errors import NotationError, RecordError
from .options import GameOptions
from .state import Decision, GameState

__all__ = ["position", "parse_cards"]


def parse_cards(cards: str | Sequence[Card | str]) -> list[Card]:
    """``"R7 BJ W"`` (or a sequence of cards or texts) as a list of cards."""
    items = cards.split() if isinstance(cards, str) else cards
    return [item if isinstance(item, Card) else Card.parse(item) for item in items]


def position(
    *,
    hands: Sequence[str | Sequence[Card | str]],
    discard: str | Sequence[Card | str],
    draw: str | Sequence[Card | str] = (),
    rest: str = "draw",
    options: GameOptions | None = None,
    king: int = 0,
    jester: int | None = 1,
    dealer: int = 0,
    current: int = 0,
    direction: int = 1,
    active_colour: Colour | str | None = None,
    decision: Decision = Decision.TURN,
    decider: int | None = None,
    drawn: Card | str | None = None,
    resolving: int = -1,
    uno_seat: int | None = None,
    scores: Sequence[int] | None = None,
    scepter_left: int | None = None,
    turns_since_scepter: int = 0,
    round_no: int = 1,
    seed: int = 0,
) -> GameState:
    """A state with exactly these hands and piles.

    ``discard`` is bottom to top; ``draw`` lists the next cards to be drawn, first first.
    Cards not named anywhere go under the named draw cards (``rest="draw"``) or under the top
    discard (``rest="discard"``), so that all 56 cards are always accounted for. Options
    default to ``players=len(hands)`` with the turn-counted scepter off; ``scepter_left``
    arms it with that many turns to go (options must then have ``scepter_turns``).
    The decision defaults to ``current``'s turn.
    """
    n = len(hands)
    if options is None:
        options = GameOptions(players=n, scepter_turns=None if scepter_left is None else (1, 99))
    if options.players != n:
        raise RecordError(f"options are for {options.players} players but {n} hands were given")
    parsed_hands = [parse_cards(hand) for hand in hands]
    discard_cards = parse_cards(discard)
    draw_top_first = parse_cards(draw)
    if not discard_cards:
        raise RecordError("the discard pile needs at least its top card")
    remaining = Counter(FULL_DECK)
    remaining.subtract(card for hand in parsed_hands for card in hand)
    remaining.subtract(discard_cards)
    remaining.subtract(draw_top_first)
    over = [str(card) for card, count in remaining.items() if count < 0]
    if over:
        raise RecordError(f"more copies than the deck holds: {', '.join(sorted(over))}")
    leftover = sorted(remaining.elements())
    draw_pile = list(reversed(draw_top_first))
    if rest == "draw":
        draw_pile = leftover + draw_pile
    elif rest == "discard":
        discard_cards = leftover + discard_cards
    else:
        raise RecordError(f"rest must be 'draw' or 'discard', not {rest!r}")

    colour: Colour | None
    if isinstance(active_colour, str):
        try:
            colour = Colour.parse(active_colour)
        except NotationError as error:
            raise RecordError(str(error)) from None
    else:
        colour = active_colour
    if colour is None:
        colour = discard_cards[-1].colour

    state = GameState._blank()
    state.options = options
    state.players = n
    state.hands = parsed_hands
    state.draw_pile = draw_pile
    state.discard = discard_cards
    state.active_colour = colour
    state.direction = direction
    state.king = king
    state.jester = jester
    state.dealer = dealer
    state.current = current
    state.decision = decision
    state.decider = (current if decision <= Decision.DRAWN else king) if decider is None else decider
    if decision >= Decision.ROUND_OVER and decider is None:
        state.decider = None
    state.drawn = Card.parse(drawn) if isinstance(drawn, str) else drawn
    state.resolving = resolving
    state.jester_for_setup = False
    state.uno_seat = uno_seat
    state.fanfare_queued = False
    state.scepter_running = True
    state.scepter_left = scepter_left
    state.turns_since_scepter = turns_since_scepter
    state.passes = 0
    state.scores = list(scores) if scores is not None else [0] * n
    state.round_no = round_no
    state.last_round = None
    state.result = None
    state.rng = seed
    state._events = None
    return state
