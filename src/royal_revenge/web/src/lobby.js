// @ts-check
/** The lobby: the code to share, the seats, the host's controls (bots, start) and the guests' wait. */
import { h } from "preact";
import { useState } from "preact/hooks";
import htm from "htm";
import { displayCode, seatName } from "./state.js";

const html = htm.bind(h);

/**
 * @param {{view: import("./state.js").View, shareUrl: string, onStart: () => void, onLeave: () => void,
 *   onAddBot: (seat: number, level: string) => void, onRemove: (seat: number) => void}} props
 */
export function Lobby({ view, shareUrl, onStart, onLeave, onAddBot, onRemove }) {
  const isHost = view.you !== null && view.you === view.host;
  const open = view.seats.filter((s) => s.kind === "open").length;
  const [copied, setCopied] = useState(false);
  async function copy() {
    try { await navigator.clipboard.writeText(shareUrl); setCopied(true); } catch { setCopied(false); }
  }
  return html`
    <section id="lobby" class="panel lobby" aria-labelledby="lobby-title">
      <h2 id="lobby-title">${view.closed ? "This table is closed" : "Waiting for everyone to sit down"}</h2>
      <p class="share">Share this code with your friends:
        <strong id="share-code" class="code">${displayCode(view.code)}</strong>
        <button type="button" class="small" onClick=${copy}>${copied ? "Link copied" : "Copy the link"}</button></p>
      <ol class="lobby-seats">
        ${view.seats.map((info, seat) => html`
          <li key=${seat} class=${`lobby-seat ${info.kind}`} data-seat=${seat}>
            <span class="who">${info.kind === "open" ? "Open seat" : seatName(view, seat)}
              ${info.kind === "bot" && html` <span class="muted">(${info.level} bot)</span>`}
              ${seat === view.host && html` <span class="tag">host</span>`}
              ${seat === view.you && html` <span class="tag you">you</span>`}</span>
            ${isHost && info.kind === "open" && html`<span class="seat-tools">
              <button type="button" class="small add-bot" onClick=${() => onAddBot(seat, "normal")}>Add a bot</button></span>`}
            ${isHost && info.kind !== "open" && seat !== view.host && html`
              <button type="button" class="small" onClick=${() => onRemove(seat)}>${info.kind === "bot" ? "Remove" : "Kick"}</button>`}
          </li>`)}
      </ol>
      <div class="buttons">
        ${isHost && html`<button id="btn-start" class="primary big" type="button" disabled=${open > 0} onClick=${onStart}>
          ${open > 0 ? `Waiting for ${open} more` : "Start the game"}</button>`}
        ${!isHost && view.you !== null && html`<p id="waiting-host" class="waiting">
          Waiting for ${seatName(view, view.host) || "the host"} to start the game…</p>`}
        ${view.you === null && html`<p id="waiting-host" class="waiting">You are watching. The game starts when the host says so.</p>`}
        <button id="btn-leave" type="button" onClick=${onLeave}>${view.you === null ? "Back to the start" : "Leave the table"}</button>
      </div>
    </section>`;
}
