// @ts-check
import { h } from "preact";
import htm from "htm";
const html = htm.bind(h);
/** @param {{view: import("./state.js").View, chat: any, onLeave: () => void}} props */
export function Table({ view, onLeave }) {
  return html`<main id="table"><p>${view.phase}</p><button id="btn-leave" onClick=${onLeave}>Leave</button></main>`;
}
