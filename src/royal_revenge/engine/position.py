"""Positions: build an exact state in card notation, and write any state as one line of text.

Building a position and checking that the rules could reach it are separate, so that tests,
puzzles and bot studies can set up anything: :func:`position` and :func:`parse` build freely,
and :meth:`GameState.is_valid` (with :meth:`GameState.problems` for the reasons) checks.

>>> from royal_revenge.engine.position import position, parse
>>> state = position(hands=["R7 BJ", "G2 G3 W", "Y1"], discard="R5", draw="YK B8", jester=2)
>>> state.hands[0], state.draw_pile[-1], state.legal_actions(0)
([Card('R7'), Card('BJ')], Card('YK'), [Play(card=Card('R7'), uno=False), Play(card=Card('R7'), uno=True), Draw()])
>>> state.is_valid()
True

**The position notation** (like chess's FEN) is one line: every field of the state
(engine/fields.py), in its order, as ``key=value`` separated by spaces. Cards are in card
notation, joined by ``.`` (``-`` for none); hands are separated by ``/``; a missing seat,
card or colour is ``-``; flags are ``1`` or ``0``; the decision is its name; the generator
is 16 hex digits; the options, the last round, the outcome and the history are compact JSON
(``-`` for none).
docs/records.md describes it with an example.

>>> line = state.position()
>>> line.split()[1]
'hands=R7.BJ/G2.G3.W/Y1'
>>> parse(line) == state
True
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from .cards import FULL_DECK, Card, Colour
from .errors import NotationError, RecordError
from .fields import STATE_FIELDS, Form
from .options import GameOptions
from .records import FORMAT_VERSION, STATE_FORMAT, read_state, state_to_json
from .state import Decision, GameState

__all__ = ["position", "parse", "position_text", "parse_cards"]


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
    """A state with exactly these hands and piles, built freely (check it with :meth:`GameState.is_valid`).

    ``discard`` is bottom to top; ``draw`` lists the next cards to be drawn, first first.
    Cards not named anywhere go under the named draw cards (``rest="draw"``) or under the top
    discard (``rest="discard"``), so that all 56 cards are accounted for. Options default to
    ``players=len(hands)`` with the turn-counted scepter off; ``scepter_left`` arms it with
    that many turns to go (options must then have ``scepter_turns``). The decision defaults
    to ``current``'s turn. The round's history starts empty: nothing has been seen yet.
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
    leftover = sorted(card for card, count in remaining.items() for _ in range(max(count, 0)))
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
    if decider is None and decision < Decision.ROUND_OVER:
        decider = current if decision <= Decision.DRAWN else king
    return GameState.from_fields({
        "options": options,
        "players": n,
        "hands": parsed_hands,
        "draw_pile": draw_pile,
        "discard": discard_cards,
        "active_colour": colour,
        "direction": direction,
        "king": king,
        "jester": jester,
        "dealer": dealer,
        "current": current,
        "decision": decision,
        "decider": decider,
        "drawn": Card.parse(drawn) if isinstance(drawn, str) else drawn,
        "resolving": resolving,
        "jester_for_setup": False,
        "uno_seat": uno_seat,
        "fanfare_queued": False,
        "scepter_running": True,
        "scepter_left": scepter_left,
        "turns_since_scepter": turns_since_scepter,
        "passes": 0,
        "scores": list(scores) if scores is not None else [0] * n,
        "round_no": round_no,
        "last_round": None,
        "result": None,
        "history": [],
        "rng": seed,
    })


# ---------------------------------------------------------------------- the one-line notation
# Each field's value in the state document (records.py writes it) has a text form here.

_NONE: Final = "-"
_JSON_FORMS: Final = (Form.OPTIONS, Form.ROUND_OR_NONE, Form.OUTCOME_OR_NONE, Form.HISTORY)
_NONE_FORMS: Final = (Form.CARD_OR_NONE, Form.COLOUR_OR_NONE, Form.SEAT_OR_NONE, Form.COUNT_OR_NONE,
                      Form.ROUND_OR_NONE, Form.OUTCOME_OR_NONE)
_WRITTEN: Final = tuple(f for f in STATE_FIELDS if f.key)


def _to_text(form: Form, value: Any) -> str:
    if value is None:
        return _NONE
    if form in _JSON_FORMS:
        return json.dumps(value, separators=(",", ":"))
    if form is Form.HANDS:
        return "/".join(".".join(hand) for hand in value)
    if form is Form.CARDS or form is Form.POINTS:
        return ".".join(str(item) for item in value) or _NONE
    if form is Form.FLAG:
        return "1" if value else "0"
    return str(value)


def _from_text(form: Form, key: str, text: str) -> Any:
    """A field's text as the document's value (the document reader then checks it)."""
    try:
        if text == _NONE and form in _NONE_FORMS:
            return None
        if form in _JSON_FORMS:
            return json.loads(text)
        if form is Form.HANDS:
            return [hand.split(".") if hand else [] for hand in text.split("/")]
        if form is Form.CARDS:
            return [] if text == _NONE else text.split(".")
        if form is Form.POINTS:
            return [] if text == _NONE else [int(points) for points in text.split(".")]
        if form is Form.FLAG:
            if text not in ("0", "1"):
                raise ValueError(text)
            return text == "1"
        if form in (Form.CARD_OR_NONE, Form.COLOUR_OR_NONE, Form.DECISION, Form.GENERATOR):
            return text
        return int(text)
    except ValueError:
        raise NotationError(f"position: {key} cannot be {text!r}") from None


def position_text(state: GameState) -> str:
    """``state.position()``: the state as one line (see the module's notes)."""
    document = state_to_json(state)
    return " ".join(f"{f.key}={_to_text(f.form, document[f.key])}" for f in _WRITTEN)


def parse(text: str) -> GameState:
    """The state a position line describes (:meth:`GameState.position` writes it).

    Every field must be given once. The state is built freely: :meth:`GameState.is_valid`
    says whether the rules could reach it. A line that cannot be read raises
    :class:`~royal_revenge.engine.NotationError` (or :class:`~royal_revenge.engine.RecordError`
    for a value out of range), naming the field.
    """
    if not isinstance(text, str):
        raise NotationError(f"a position is a line of text, not {type(text).__name__}")
    given: dict[str, str] = {}
    for item in text.split():
        key, sign, value = item.partition("=")
        if not sign:
            raise NotationError(f"position: {item!r} is not key=value")
        if key in given:
            raise NotationError(f"position: {key} is given twice")
        given[key] = value
    forms = {f.key: f.form for f in _WRITTEN}
    unknown = sorted(set(given) - set(forms))
    missing = [key for key in forms if key not in given]
    if unknown or missing:
        parts = [f"unknown {', '.join(unknown)}" if unknown else "", f"missing {', '.join(missing)}" if missing else ""]
        raise NotationError(f"position: {'; '.join(part for part in parts if part)}")
    document: dict[str, Any] = {"format": STATE_FORMAT, "version": FORMAT_VERSION}
    for key, form in forms.items():
        document[key] = _from_text(form, key, given[key])
    return read_state(document, check=False)
