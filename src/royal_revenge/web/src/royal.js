// @ts-check
/**
 * The King's chooser: the colour after a Wild, the victim of a King's Choice, the next Jester. A sheet above
 * the hand (it never covers the hand), shown only to the King when the decision is theirs.
 */
import { h } from "preact";
import htm from "htm";
import { COLOURS, Shape } from "./cards.js";
import { labelOf } from "./state.js";

const html = htm.bind(h);

/**
 * The sheet's title and help are the server's `prompt` and `hint`, and each choice's words its label in the view
 * (`legal_labels`): the words the terminal game shows too.
 * @param {{view: import("./state.js").View, kind: string, legal: any[], onChoose: (action: any) => void}} props
 */
export function RoyalChooser({ view, kind, legal, onChoose }) {
  const game = /** @type {import("./state.js").Game} */ (view.game);
  return html`
    <section id="royal" class=${`royal-sheet ${kind}`} role="region" aria-labelledby="royal-title">
      <h2 id="royal-title"><span aria-hidden="true">👑</span> ${view.prompt || ""}</h2>
      ${view.hint && html`<p id="hint" class="royal-help">${view.hint}</p>`}
      <div class="royal-choices">
        ${kind === "colour" && legal.map((action) => html`
          <button key=${action.colour} type="button" class=${`colour-choice c-${action.colour}`} data-colour=${action.colour}
            style=${`--c:${COLOURS[action.colour].fill}`} onClick=${() => onChoose(action)}>
            <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true">${Shape(action.colour, 10, 10, 6)}</svg>
            ${labelOf(view, action)}</button>`)}
        ${kind !== "colour" && legal.map((action) => html`
          <button key=${action.seat} type="button" class="seat-choice-btn"
            ...${{ [kind === "victim" ? "data-victim" : "data-jester"]: String(action.seat) }}
            onClick=${() => onChoose(action)}>
            <strong><span class="key-hint" aria-hidden="true">${action.seat + 1}</span> ${labelOf(view, action)}</strong>
            <span class="muted">${game.hand_sizes[action.seat]} card${game.hand_sizes[action.seat] === 1 ? "" : "s"} · ${game.scores[action.seat]} point${game.scores[action.seat] === 1 ? "" : "s"}</span></button>`)}
      </div>
    </section>`;
}
