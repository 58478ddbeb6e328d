// @ts-check
/**
 * The help page's script (a second bundle entry, dist/help.js): draws the card pictures into every
 * `.card-slot[data-card]` with cards.js's CardFace, adds a "Take the tour" button, and points the
 * "Back to the game" links at the table the player came from.
 */
import { h, render } from "preact";
import { useState } from "preact/hooks";
import htm from "htm";
import { CardFace } from "./cards.js";
import { Tour } from "./tour.js";

const html = htm.bind(h);

/** Draws every card picture of the page. */
function drawCards() {
  for (const slot of /** @type {HTMLElement[]} */ ([...document.querySelectorAll(".card-slot[data-card]")])) {
    const card = slot.dataset.card || "";
    const size = slot.classList.contains("small") ? 54 : 96;
    render(html`<${CardFace} card=${card} size=${size} />`, slot);
  }
}

/** The "Take the tour" button and the tour it opens. */
function TourButton() {
  const [open, setOpen] = useState(false);
  return html`
    <button type="button" id="btn-tour" onClick=${() => setOpen(true)}>Take the short tour of the royal rules</button>
    ${open && html`<${Tour} onDone=${() => setOpen(false)} />`}`;
}

/** A player who came from a table goes back to that table. */
function backLinks() {
  let back = "/";
  try {
    if (document.referrer) {
      const from = new URL(document.referrer);
      if (from.origin === window.location.origin && /^\/t\/[A-Za-z0-9-]{1,40}$/.test(from.pathname)) back = from.pathname;
    }
  } catch { /* no referrer */ }
  for (const link of /** @type {HTMLAnchorElement[]} */ ([...document.querySelectorAll("a.back-to-game")])) {
    link.href = back;
    if (back !== "/") link.textContent = "Back to your table";
  }
}

drawCards();
backLinks();
const slot = document.getElementById("tour-slot");
if (slot) render(html`<${TourButton} />`, slot);
