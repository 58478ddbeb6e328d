// @ts-check
/**
 * The first-visit tour: five short steps about what makes UNO Royal Revenge different (the King decides,
 * the Jester, the fanfare, the UNO call, the target). Shown once (localStorage `rr.toured`) and again from
 * a "How to play" button. A modal dialog: focus stays inside, Esc or "Skip" closes it, arrows step.
 */
import { h } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import htm from "htm";
import { addStyle, readStored, writeStored } from "./storage.js";

const html = htm.bind(h);
const KEY = "rr.toured";

/** @typedef {{icon: string, title: string, text: string}} Step */

/** @type {readonly Step[]} */
export const TOUR_STEPS = Object.freeze([
  { icon: "👑", title: "The King decides",
    text: "Whoever wears the Crown is the King. The King names the colour of every Wild, whoever played it, "
      + "chooses who draws one card for every King's Choice, and chooses who wears the Jester Hat." },
  { icon: "🃏", title: "The Jester",
    text: "Whoever wears the Jester Hat draws one card every time anybody plays a Jester card, even their own. "
      + "Drawing for a Jester or a King's Choice costs no turn." },
  { icon: "🎺", title: "The fanfare",
    text: "About once a minute, at a moment nobody knows, the Royal Scepter sounds its fanfare. The Crown passes "
      + "to the King's left, the new King chooses a new Jester, and the new King plays next." },
  { icon: "☝️", title: "Call UNO yourself",
    text: "When you play your next-to-last card, press UNO, with the card or before the next player begins. "
      + "Forget, and anyone can catch you: you draw two cards. Catch the others when they forget!" },
  { icon: "🏆", title: "First to 500",
    text: "The first to empty their hand wins the round and scores the cards left in the other hands: a number "
      + "its value, an action card 20, a Wild 50. The first to 500 points wins the game." },
]);

/** Whether this browser has seen (or skipped) the tour. */
export function tourSeen() {
  return readStored(KEY, /** @type {unknown} */ (false)) === true;
}

/** Forgets that the tour was seen (so it shows again on the next visit). */
export function resetTour() {
  writeStored(KEY, false);
}

addStyle("rr-tour-style", `
#tour { position: fixed; inset: 0; z-index: 1000; display: grid; place-items: center; padding: 1rem;
  background: rgba(5, 12, 24, 0.72); }
#tour .tour-card { width: min(28rem, 100%); background: var(--panel, #1d3152); color: var(--text, #f4f6fb);
  border: 2px solid var(--gold, #f2c14e); border-radius: 16px; padding: 1.2rem 1.3rem 1rem; box-shadow: 0 12px 40px rgba(0,0,0,0.5);
  animation: rr-tour-in 260ms ease-out; }
#tour .tour-icon { font-size: 2.6rem; line-height: 1; margin: 0 0 0.4rem; }
#tour h2 { margin: 0 0 0.5rem; font-size: 1.3rem; }
#tour p { margin: 0 0 1rem; line-height: 1.45; }
#tour .tour-dots { display: flex; gap: 0.35rem; margin: 0 0 1rem; padding: 0; list-style: none; }
#tour .tour-dots li { width: 0.6rem; height: 0.6rem; border-radius: 50%; background: #5a77a8; }
#tour .tour-dots li.on { background: var(--gold, #f2c14e); }
#tour .tour-buttons { display: flex; gap: 0.5rem; justify-content: space-between; flex-wrap: wrap; }
#tour .tour-buttons button { min-height: 40px; }
#tour-next { background: var(--gold, #f2c14e); color: #1b1b1b; border-color: var(--gold, #f2c14e); font-weight: 700; }
@keyframes rr-tour-in { from { opacity: 0; transform: translateY(12px) scale(0.98); } to { opacity: 1; transform: none; } }
:root[data-reduced-motion="true"] #tour .tour-card { animation: none; }
@media (prefers-reduced-motion: reduce) { #tour .tour-card { animation: none; } }
`);

/**
 * The tour overlay. Render it when `!tourSeen()` (a first visit) or when "How to play" is pressed;
 * finishing or skipping marks it seen and calls `onDone`.
 * @param {{onDone?: () => void}} props
 */
export function Tour({ onDone }) {
  const [index, setIndex] = useState(0);
  const dialog = useRef(/** @type {HTMLDivElement | null} */ (null));
  const next = useRef(/** @type {HTMLButtonElement | null} */ (null));
  const step = TOUR_STEPS[index];
  const lastStep = index === TOUR_STEPS.length - 1;

  function close() {
    writeStored(KEY, true);
    if (onDone) onDone();
  }

  // Focus the main button when the tour opens and after every step; give focus back when it closes.
  // Layout effects run before the browser paints, so a key pressed as soon as the tour shows reaches it
  // (with a plain effect the focus came a frame later and an early arrow key went to the page).
  useLayoutEffect(() => {
    const before = /** @type {HTMLElement | null} */ (document.activeElement);
    return () => { if (before && document.contains(before)) before.focus(); };
  }, []);
  useLayoutEffect(() => { if (next.current) next.current.focus(); }, [index]);

  /** @param {KeyboardEvent} event */
  function onKeyDown(event) {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if (event.key === "ArrowRight" && !lastStep) {
      setIndex(index + 1);
    } else if (event.key === "ArrowLeft" && index > 0) {
      setIndex(index - 1);
    } else if (event.key === "Tab" && dialog.current) {
      // Keep the focus inside the dialog.
      const focusable = /** @type {HTMLElement[]} */ ([...dialog.current.querySelectorAll("button:not([disabled])")]);
      if (!focusable.length) return;
      const first = focusable[0];
      const final = focusable[focusable.length - 1];
      if (event.shiftKey && document.activeElement === first) { event.preventDefault(); final.focus(); }
      else if (!event.shiftKey && document.activeElement === final) { event.preventDefault(); first.focus(); }
    }
  }

  return html`
    <div id="tour" onKeyDown=${onKeyDown}>
      <div class="tour-card" role="dialog" aria-modal="true" aria-labelledby="tour-title" aria-describedby="tour-text"
        ref=${dialog}>
        <p class="tour-icon" aria-hidden="true">${step.icon}</p>
        <h2 id="tour-title">${step.title}</h2>
        <p id="tour-text">${step.text}</p>
        <ol class="tour-dots" aria-label=${`Step ${index + 1} of ${TOUR_STEPS.length}`}>
          ${TOUR_STEPS.map((_, i) => html`<li key=${i} class=${i === index ? "on" : ""}></li>`)}
        </ol>
        <div class="tour-buttons">
          <button id="tour-skip" type="button" onClick=${close}>${lastStep ? "Close" : "Skip the tour"}</button>
          <span>
            ${index > 0 && html`<button id="tour-back" type="button" onClick=${() => setIndex(index - 1)}>Back</button>`}
            ${" "}
            <button id="tour-next" type="button" ref=${next}
              onClick=${() => (lastStep ? close() : setIndex(index + 1))}>${lastStep ? "Let's play" : "Next"}</button>
          </span>
        </div>
      </div>
    </div>`;
}
