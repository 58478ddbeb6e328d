// @ts-check
/**
 * The cards' pictures: faces and backs as SVG, the colour-blind shapes and the hand's order. The words of a card
 * are the server's (the view's `glossary`, state.js `cardWords`): a face is only drawn here.
 * Card notation (docs/records.md): a colour letter (R, Y, G, B) and 1-8, R (Reverse), S (Skip),
 * K (King's Choice), J (Jester); `W` is the Wild.
 */
import { h } from "preact";
import htm from "htm";
import { addStyle } from "./storage.js";

const html = htm.bind(h);

/** How each colour is drawn: its fill, its ink and its colour-blind shape. @type {Record<string, {fill: string, ink: string, shape: string}>} */
export const COLOURS = {
  R: { fill: "#d32f2f", ink: "#9a1c1c", shape: "circle" },
  Y: { fill: "#f4c20d", ink: "#7a5a00", shape: "triangle" },
  G: { fill: "#2e8b3a", ink: "#1b5e20", shape: "square" },
  B: { fill: "#1e6fd0", ink: "#0d47a1", shape: "diamond" },
};

/** The points a card is worth (to sort by number). @param {string} card */
function rank(card) {
  if (card === "W") return 50;
  const rest = card.slice(1);
  if (/^[1-8]$/.test(rest)) return Number(rest);
  return { R: 20, S: 21, K: 22, J: 23 }[rest] || 30;
}

/**
 * The hand in the chosen order (a copy).
 * @param {string[]} hand
 * @param {'colour' | 'number' | 'none'} mode
 */
export function sortHand(hand, mode) {
  const order = "RYGBW";
  const cards = [...hand];
  if (mode === "colour") cards.sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]) || rank(a) - rank(b));
  else if (mode === "number") cards.sort((a, b) => rank(a) - rank(b) || order.indexOf(a[0]) - order.indexOf(b[0]));
  return cards;
}

/**
 * The colour-blind shape of a colour, centred on (x, y).
 * @param {string} letter @param {number} x @param {number} y @param {number} r
 */
export function Shape(letter, x, y, r) {
  const colour = COLOURS[letter];
  if (!colour) return null;
  const common = { class: "cb-shape", fill: "white", stroke: "#111", "stroke-width": 1.2 };
  if (colour.shape === "circle") return html`<circle cx=${x} cy=${y} r=${r} ...${common} />`;
  if (colour.shape === "square") return html`<rect x=${x - r} y=${y - r} width=${2 * r} height=${2 * r} ...${common} />`;
  if (colour.shape === "triangle") {
    return html`<polygon points=${`${x},${y - r * 1.15} ${x + r * 1.1},${y + r * 0.85} ${x - r * 1.1},${y + r * 0.85}`} ...${common} />`;
  }
  return html`<polygon points=${`${x},${y - r * 1.2} ${x + r * 1.1},${y} ${x},${y + r * 1.2} ${x - r * 1.1},${y}`} ...${common} />`;
}

/** The crown drawn at (x, y), width w. @param {number} x @param {number} y @param {number} w @param {string} fill */
function crown(x, y, w, fill) {
  const s = w / 20;
  const p = (/** @type {number} */ a, /** @type {number} */ b) => `${x + a * s},${y + b * s}`;
  return html`<polygon points=${[p(-10, 6), p(-10, -4), p(-5, 1), p(0, -7), p(5, 1), p(10, -4), p(10, 6)].join(" ")}
    fill=${fill} stroke="#111" stroke-width="1" stroke-linejoin="round" />`;
}

/** The jester's hat drawn at (x, y), width w. @param {number} x @param {number} y @param {number} w @param {string} fill */
function hat(x, y, w, fill) {
  const s = w / 20;
  const p = (/** @type {number} */ a, /** @type {number} */ b) => `${x + a * s},${y + b * s}`;
  return html`<g>
    <path d=${`M${p(-9, 6)} Q${p(-9, -4)} ${p(-11, -7)} Q${p(-3, -4)} ${p(0, 0)} Q${p(3, -4)} ${p(11, -7)} Q${p(9, -4)} ${p(9, 6)} Z`}
      fill=${fill} stroke="#111" stroke-width="1" />
    <circle cx=${x - 11 * s} cy=${y - 7 * s} r=${2 * s} fill="#ffd54f" stroke="#111" stroke-width="0.6" />
    <circle cx=${x + 11 * s} cy=${y - 7 * s} r=${2 * s} fill="#ffd54f" stroke="#111" stroke-width="0.6" />
  </g>`;
}

/**
 * The big mark in the middle of a face, and the small one in the corners.
 * @param {string} card @param {number} x @param {number} y @param {number} size @param {string} ink
 */
function mark(card, x, y, size, ink) {
  const rest = card.slice(1);
  const font = "system-ui, -apple-system, Segoe UI, sans-serif";
  if (/^[1-8]$/.test(rest)) {
    return html`<text x=${x} y=${y + size * 0.36} text-anchor="middle" font-size=${size} font-weight="900" fill=${ink}
      font-family=${font} stroke="#fff" stroke-width=${size / 30}>${rest}</text>`;
  }
  if (rest === "R") {
    const r = size * 0.32;
    return html`<g fill="none" stroke=${ink} stroke-width=${size / 9} stroke-linecap="round">
      <path d=${`M${x - r} ${y - r * 0.35} H${x + r * 0.7}`} /><path d=${`M${x + r * 0.3} ${y - r * 0.8} L${x + r * 0.8} ${y - r * 0.35} L${x + r * 0.3} ${y + r * 0.1}`} />
      <path d=${`M${x + r} ${y + r * 0.45} H${x - r * 0.7}`} /><path d=${`M${x - r * 0.3} ${y} L${x - r * 0.8} ${y + r * 0.45} L${x - r * 0.3} ${y + r * 0.9}`} />
    </g>`;
  }
  if (rest === "S") {
    const r = size * 0.3;
    return html`<g fill="none" stroke=${ink} stroke-width=${size / 9}>
      <circle cx=${x} cy=${y} r=${r} /><path d=${`M${x - r * 0.7} ${y + r * 0.7} L${x + r * 0.7} ${y - r * 0.7}`} />
    </g>`;
  }
  const plus = html`<text x=${x} y=${y + size * 0.42} text-anchor="middle" font-size=${size * 0.34} font-weight="900"
    fill=${ink} font-family=${font}>+1</text>`;
  if (rest === "K") return html`<g>${crown(x, y - size * 0.12, size * 0.62, "#ffd54f")}${plus}</g>`;
  if (rest === "J") return html`<g>${hat(x, y - size * 0.1, size * 0.55, ink)}${plus}</g>`;
  return null;
}

/** The short corner label. @param {string} card */
function cornerLabel(card) {
  if (card === "W") return "W";
  const rest = card.slice(1);
  return /^[1-8]$/.test(rest) ? rest : { R: "⇄", S: "⊘", K: "+1", J: "+1" }[rest] || rest;
}

/**
 * A card's face as SVG (size = height in px; the width is two thirds of it). `label` is the card's words
 * (state.js `cardWords`); without it the picture is decorative (its words are said beside it).
 * @param {{card: string, size?: number | string, label?: string}} props
 */
export function CardFace({ card, size = 96, label }) {
  const height = typeof size === "number" ? size : 96;
  const colour = COLOURS[card[0]];
  const wild = card === "W";
  const fill = colour ? colour.fill : "#222";
  const ink = colour ? colour.ink : "#222";
  return html`<svg class="card-face" viewBox="0 0 64 96" width=${(height * 2) / 3} height=${height} role=${label ? "img" : undefined}
      aria-label=${label || undefined} aria-hidden=${label ? undefined : "true"} focusable="false">
    <rect x="0.5" y="0.5" width="63" height="95" rx="7" fill="#fff" stroke="#0003" />
    <rect x="4" y="4" width="56" height="88" rx="5" fill=${fill} />
    ${wild && html`<g>
      <path d="M32 14 A24 34 0 0 0 8 48 H32 Z" fill=${COLOURS.R.fill} />
      <path d="M32 14 A24 34 0 0 1 56 48 H32 Z" fill=${COLOURS.B.fill} />
      <path d="M8 48 A24 34 0 0 0 32 82 V48 Z" fill=${COLOURS.Y.fill} />
      <path d="M56 48 A24 34 0 0 1 32 82 V48 Z" fill=${COLOURS.G.fill} />
      <ellipse cx="32" cy="48" rx="24" ry="34" fill="none" stroke="#fff" stroke-width="3" />
      <text x="32" y="55" text-anchor="middle" font-size="19" font-weight="900" fill="#fff" stroke="#111" stroke-width="1"
        font-family="system-ui, sans-serif">WILD</text></g>`}
    ${!wild && html`<g>
      <ellipse cx="32" cy="48" rx="22" ry="33" fill="#fff" transform="rotate(22 32 48)" />
      ${mark(card, 32, 48, 34, ink)}</g>`}
    <text x="9" y="17" font-size="11" font-weight="800" fill="#fff" font-family="system-ui, sans-serif">${cornerLabel(card)}</text>
    <text x="55" y="86" font-size="11" font-weight="800" fill="#fff" text-anchor="end" font-family="system-ui, sans-serif"
      transform="rotate(180 50 82)">${cornerLabel(card)}</text>
    ${colour && Shape(card[0], 53, 12, 4.2)}
    ${colour && Shape(card[0], 11, 84, 4.2)}
  </svg>`;
}

/**
 * A card's back as SVG.
 * @param {{size?: number}} props
 */
export function CardBack({ size = 96 }) {
  return html`<svg class="card-back" viewBox="0 0 64 96" width=${(size * 2) / 3} height=${size} aria-hidden="true" focusable="false">
    <rect x="0.5" y="0.5" width="63" height="95" rx="7" fill="#fff" stroke="#0003" />
    <rect x="4" y="4" width="56" height="88" rx="5" fill="#3b1f5c" />
    <ellipse cx="32" cy="48" rx="22" ry="33" fill="#c62828" transform="rotate(22 32 48)" />
    ${crown(32, 44, 26, "#ffd54f")}
    <text x="32" y="66" text-anchor="middle" font-size="10" font-weight="900" fill="#fff" font-family="system-ui, sans-serif">UNO</text>
  </svg>`;
}

addStyle("rr-cards-style", `
.cb-shape { display: none; }
html[data-colour-blind="true"] .cb-shape { display: inline; }
.card-face, .card-back { display: block; }
`);
