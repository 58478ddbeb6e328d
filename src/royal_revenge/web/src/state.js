// @ts-check
/**
 * The view as docs/protocol.md ("Versions and views") builds it from `state` messages: a full state replaces
 * the view; a partial one replaces the keys it holds, merges `game` key by key, appends `log` entries and
 * drops those numbered below `log_from`. `chat`, `muted`, `rematch_requests` and every other key are replaced;
 * the `glossary`, sent once per connection, is kept through later whole views.
 */

/** @typedef {{n: number, kind: string, text: string, by?: string}} LogEntry */
/** @typedef {{kind: string, name: string | null, level: string | null, connected: boolean | null, autopilot: boolean}} Seat */
/**
 * @typedef {object} Game
 * @property {number | null} seat
 * @property {number} round_no
 * @property {string[]} hand
 * @property {string[]} discard_pile
 * @property {string} top
 * @property {string | null} active_colour
 * @property {number} draw_pile_size
 * @property {number[]} hand_sizes
 * @property {number[]} scores
 * @property {number | null} king
 * @property {number | null} jester
 * @property {number} direction
 * @property {number | null} current
 * @property {{kind: string, seat: number | null}} pending
 * @property {string | null} [drawn]
 * @property {number | null} [uno_seat]
 * @property {boolean} [fanfare_queued]
 * @property {any} [options]
 * @property {{round_no: number, winner: number | null, blocked: boolean, points: number, hand_points: number[]} | null} [last_round]
 * @property {{winners: number[], scores: number[]} | null} [outcome]
 */
/**
 * @typedef {object} View
 * @property {string} code
 * @property {number} version
 * @property {string} phase
 * @property {number | null} you
 * @property {number | null} host
 * @property {number} game_no
 * @property {any} settings
 * @property {Seat[]} seats
 * @property {Game} [game]
 * @property {any[]} [legal]
 * @property {number | null} [decision_deadline]
 * @property {LogEntry[]} [log]
 * @property {import("./chat.js").ChatLine[]} [chat]
 * @property {number[]} [muted]
 * @property {number[]} [rematch_requests]
 * @property {boolean} [closed]
 * @property {string | null} [prompt]
 * @property {string | null} [hint]
 * @property {number[]} [uno_called]
 * @property {number | null} [next_round_deadline]
 * @property {string[]} [legal_labels] the words of each action of `legal`, in its order
 * @property {Glossary} [glossary]
 */
/**
 * The words of the cards (by notation), the colours (by letter) and the action buttons (by action type), from the
 * server's narration: the page never words a card or an action itself.
 * @typedef {{cards: Record<string, string>, colours: Record<string, string>, actions: Record<string, string>}} Glossary
 */

/**
 * The view after a `state` message.
 * @param {View | null} previous
 * @param {{full?: boolean, log_from?: number, view: any}} message
 * @returns {View}
 */
export function mergeState(previous, message) {
  const view = message.view;
  if (message.full !== false || !previous) {
    // The glossary comes in a connection's first whole view only (the words never change): kept through the others.
    if (!view.glossary && previous && previous.glossary) view.glossary = previous.glossary;
    return view;
  }
  /** @type {any} */
  const merged = { ...previous, ...view };
  if (view.game && previous.game) merged.game = { ...previous.game, ...view.game };
  const log = [...(previous.log || []), ...(view.log || [])];
  const from = message.log_from || 0;
  let drop = 0;
  while (drop < log.length && log[drop].n < from) drop += 1;
  merged.log = drop ? log.slice(drop) : log;
  return merged;
}

/**
 * The legal actions of a type.
 * @param {View | null} view
 * @param {string} type
 * @returns {any[]}
 */
export function legalOf(view, type) {
  return ((view && view.legal) || []).filter((action) => action.type === type);
}

/**
 * The words of one of the view's legal actions (an entry of `legal`, as `legalOf` returns it): the server's label,
 * else the glossary's word for its type.
 * @param {View | null} view
 * @param {any} action
 */
export function labelOf(view, action) {
  const index = view && view.legal ? view.legal.indexOf(action) : -1;
  const labels = (view && view.legal_labels) || [];
  return index >= 0 && labels[index] ? labels[index] : buttonWord(view, action && action.type);
}

/**
 * The legal play of `card` to send: with the UNO call when `callUno` and the server offers the play with it (it
 * does exactly when the card is the next-to-last: the rule is the server's), else without it; `null` when `card`
 * cannot be played now.
 * @param {View | null} view @param {string} card @param {boolean} callUno
 */
export function playChoice(view, card, callUno) {
  const options = legalOf(view, "play").filter((action) => action.card === card);
  return options.find((action) => !!action.uno === callUno) || options.find((action) => !action.uno) || options[0] || null;
}

/** The word of an action's button (by type: `draw`, `keep`, `uno`, `catch`) when it cannot be done now. @param {View | null} view @param {string} type */
export function buttonWord(view, type) {
  const words = view && view.glossary ? view.glossary.actions : null;
  return (words && words[type]) || type;
}

/** A card's words (`R7` -> "red 7", `W` -> "Wild"), from the glossary. @param {View | null} view @param {string} card */
export function cardWords(view, card) {
  const words = view && view.glossary ? view.glossary.cards : null;
  return (words && words[card]) || card;
}

/** A colour's words (`R` -> "red"), from the glossary. @param {View | null} view @param {string | null | undefined} letter */
export function colourWords(view, letter) {
  const words = view && view.glossary ? view.glossary.colours : null;
  return (letter && words && words[letter]) || "";
}

/** A code as typed ("k7qmp-wxab3"), in the server's form. @param {string} text */
export const normalizeCode = (text) => text.replace(/[\s-]+/g, "").toUpperCase();
/** A code in groups of five. @param {string} code */
export const displayCode = (code) => (code.length <= 6 ? code : (code.match(/.{1,5}/g) || [code]).join("-"));

/**
 * A seat's name as shown.
 * @param {View | null} view
 * @param {number | null | undefined} seat
 */
export function seatName(view, seat) {
  if (!view || seat === null || seat === undefined) return "";
  const info = view.seats[seat];
  if (!info) return "";
  return info.name || (info.kind === "open" ? "Open seat" : "Player");
}
