// @ts-check
/** Your hand: an overlapping fan of card buttons, playable ones lifted and bright, the others dimmed. */
import { h } from "preact";
import htm from "htm";
import { CardFace, sortHand } from "./cards.js";

const html = htm.bind(h);

/**
 * @param {{hand: string[], playable: Set<string>, drawn?: string | null, sort: 'colour' | 'number' | 'none',
 *   compact: boolean, words: (card: string) => string, onPlay: (card: string) => void}} props
 *   `words` gives a card's words (the server's glossary)
 */
export function Hand({ hand, playable, drawn, sort, compact, words, onPlay }) {
  const cards = sortHand(hand, sort);
  const size = compact ? 96 : 124;
  const width = (size * 2) / 3;
  // Overlap more as the hand grows, so that it fits its row (the row scrolls only past a very large hand).
  const room = compact ? 360 : 760;
  const step = cards.length > 1 ? Math.max(compact ? 20 : 28, Math.min(width + 4, (room - width) / (cards.length - 1))) : width;
  const middle = (cards.length - 1) / 2;
  let drawnMarked = false;
  return html`
    <div id="hand" class="hand" role="group" aria-label=${`Your hand: ${cards.length} cards`}
      style=${`--card-w:${width}px; --card-h:${size}px; width:${width + step * Math.max(0, cards.length - 1)}px`}>
      ${cards.map((card, index) => {
        const can = playable.has(card);
        const isDrawn = !drawnMarked && !!drawn && card === drawn;
        if (isDrawn) drawnMarked = true;
        const tilt = compact ? 0 : (index - middle) * Math.min(3, 24 / Math.max(1, cards.length));
        return html`<button key=${`${card}-${index}`} type="button" class=${`card${can ? " playable" : " dim"}${isDrawn ? " drawn" : ""}`}
          data-card=${card} data-playable=${can ? "true" : "false"} aria-label=${`${words(card)}${can ? ", playable" : ""}${isDrawn ? ", just drawn" : ""}`}
          style=${`left:${index * step}px; --tilt:${tilt}deg; z-index:${index + 1}`}
          onClick=${() => onPlay(card)}>
          <${CardFace} card=${card} size=${size} /></button>`;
      })}
    </div>`;
}
