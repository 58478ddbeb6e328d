// @ts-check
/**
 * PLACEHOLDER (helper W2): the real cards.js is written by helper W1 and replaces this file at the merge.
 * It only keeps the interface the help page uses: `CardFace({card, size})` and `cardName(card)`.
 */
import { h } from "preact";
import htm from "htm";

const html = htm.bind(h);

const COLOURS = /** @type {Record<string, [string, string]>} */ ({
  R: ["red", "#c62828"], Y: ["yellow", "#f9d71c"], G: ["green", "#2e7d32"], B: ["blue", "#1565c0"],
});
const KINDS = /** @type {Record<string, [string, string]>} */ ({
  R: ["Reverse", "⇄"], S: ["Skip", "⊘"], K: ["King's Choice", "+1"], J: ["Jester", "+1"],
});

/** The card's full name, e.g. "red 7", "blue Jester", "Wild". @param {string} card */
export function cardName(card) {
  if (card === "W") return "Wild";
  const colour = COLOURS[card[0]];
  const kind = KINDS[card.slice(1)];
  return `${colour ? colour[0] : "?"} ${kind ? kind[0] : card.slice(1)}`;
}

/**
 * A card's face as SVG.
 * @param {{card: string, size?: number | string}} props
 */
export function CardFace({ card, size = 96 }) {
  const height = typeof size === "number" ? size : 96;
  const colour = card === "W" ? "#222" : (COLOURS[card[0]] || ["", "#555"])[1];
  const kind = KINDS[card.slice(1)];
  const mark = card === "W" ? "W" : kind ? kind[1] : card.slice(1);
  return html`<svg class="card-face" viewBox="0 0 64 96" width=${height * 2 / 3} height=${height} role="img"
      aria-label=${cardName(card)}>
    <rect x="1" y="1" width="62" height="94" rx="8" fill="white" />
    <rect x="5" y="5" width="54" height="86" rx="6" fill=${colour} />
    <ellipse cx="32" cy="48" rx="22" ry="32" fill="white" transform="rotate(20 32 48)" />
    <text x="32" y="56" text-anchor="middle" font-size="22" font-weight="800" fill=${colour === "#f9d71c" ? "#6b5310" : colour}
      font-family="system-ui, sans-serif">${mark}</text>
  </svg>`;
}
