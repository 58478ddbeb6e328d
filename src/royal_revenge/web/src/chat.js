// @ts-check
/**
 * The table's chat: the recent lines (newest at the bottom, kept in view), quick reactions, a line to
 * type (Enter sends, at most 200 characters) and, for the host, a mute button per person.
 *
 * A new line from someone else plays the soft "chat" sound (sound.js).
 *
 * Every name and line is rendered as text (Preact text nodes; never innerHTML), so markup in a chat line
 * shows as the characters it is.
 */
import { h } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import htm from "htm";
import { sound } from "./sound.js";
import { addStyle } from "./storage.js";

const html = htm.bind(h);

/** The quick reactions the server accepts (docs/protocol.md). */
export const REACTIONS = Object.freeze(["👍", "👏", "😂", "😮", "😡", "👑", "🃏", "🎉"]);

/** What each reaction says, for screen readers and tooltips. */
const REACTION_NAMES = /** @type {Record<string, string>} */ ({
  "👍": "thumbs up", "👏": "applause", "😂": "laughing", "😮": "surprised", "😡": "angry", "👑": "crown",
  "🃏": "jester", "🎉": "party",
});

/** The longest line the server accepts. */
export const MAX_CHAT = 200;

/**
 * @typedef {object} ChatLine
 * @property {number} n
 * @property {number | null} seat
 * @property {string} name
 * @property {string} text
 * @property {number} [at] server time, seconds since the epoch
 * @property {'chat' | 'reaction'} [kind]
 */

/**
 * @typedef {object} SeatInfo
 * @property {string} [kind] 'open' | 'human' | 'bot'
 * @property {string | null} [name]
 */

/**
 * @typedef {object} ChatProps
 * @property {ChatLine[] | null | undefined} chat the recent lines, oldest first
 * @property {number | null | undefined} you your seat (0-based), or null for a spectator
 * @property {SeatInfo[] | null | undefined} seats the table's seats
 * @property {number[] | null | undefined} muted the seats the host has muted
 * @property {boolean | undefined} isHost whether you are the host (mute buttons)
 * @property {(text: string) => void} onSend
 * @property {(emoji: string) => void} onReact
 * @property {(seat: number, mute: boolean) => void} [onMute]
 */

addStyle("rr-chat-style", `
.chat { display: flex; flex-direction: column; gap: 0.5rem; min-width: 0; }
.chat h2 { margin: 0; font-size: 1rem; }
#chat-log { list-style: none; margin: 0; padding: 0.4rem 0.5rem; max-height: 12rem; min-height: 4rem; overflow-y: auto;
  background: rgba(0, 0, 0, 0.22); border-radius: 8px; font-size: 0.92rem; line-height: 1.35; overscroll-behavior: contain; }
#chat-log li { padding: 0.1rem 0; overflow-wrap: anywhere; white-space: pre-wrap; }
#chat-log .who { font-weight: 700; color: var(--gold, #f2c14e); }
#chat-log .who.you { color: #9fd3ff; }
#chat-log li.reaction .emoji { font-size: 1.3rem; vertical-align: -0.15rem; }
#chat-log .empty { color: var(--muted, #c3cce0); font-style: italic; }
.chat .reactions { display: flex; flex-wrap: wrap; gap: 0.25rem; }
.chat button.reaction { min-width: 36px; min-height: 36px; padding: 0.1rem 0.35rem; font-size: 1.15rem; line-height: 1;
  border-radius: 999px; }
.chat form { display: flex; gap: 0.4rem; align-items: center; }
#chat-input { flex: 1 1 auto; min-width: 0; min-height: 36px; }
#chat-send { min-height: 36px; }
.chat .counter { font-size: 0.8rem; color: var(--muted, #c3cce0); min-width: 3.2rem; text-align: right; }
.chat .counter.near { color: #ffd8a8; }
.chat .muted-note { margin: 0; color: #ffd8a8; }
.chat .people { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0; padding: 0; list-style: none; font-size: 0.85rem; }
.chat button.mute { min-height: 32px; padding: 0.15rem 0.5rem; font-size: 0.85rem; }
.chat button.mute[aria-pressed="true"] { background: #6b2a2a; border-color: #b35a5a; }
`);

/**
 * The time of a line as "14:05" (the reader's clock).
 * @param {number | undefined} at
 */
function clock(at) {
  if (typeof at !== "number" || !Number.isFinite(at)) return "";
  try {
    return new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  } catch {
    return "";
  }
}

/**
 * The chat panel.
 * @param {ChatProps} props
 */
export function ChatPanel({ chat, you, seats, muted, isHost, onSend, onReact, onMute }) {
  const lines = Array.isArray(chat) ? chat : [];
  const mutedSeats = Array.isArray(muted) ? muted : [];
  const seatList = Array.isArray(seats) ? seats : [];
  const youMuted = typeof you === "number" && mutedSeats.includes(you);
  const [text, setText] = useState("");
  const logRef = useRef(/** @type {HTMLOListElement | null} */ (null));
  const stick = useRef(true);
  const last = lines.length ? lines[lines.length - 1].n : null;

  // Keep the newest line in view, unless the reader has scrolled up to read older ones.
  useLayoutEffect(() => {
    const log = logRef.current;
    if (log && stick.current) log.scrollTop = log.scrollHeight;
  }, [last, lines.length]);

  useEffect(() => { if (youMuted) setText(""); }, [youMuted]);

  // A soft blip for a new line from someone else (not for the lines already there when the panel opens).
  const heard = useRef(/** @type {number | null} */ (null));
  useEffect(() => {
    const before = heard.current;
    heard.current = Math.max(before ?? 0, last ?? 0);
    if (before === null || last === null || last <= before) return;
    if (lines.some((line) => line.n > before && !(typeof you === "number" && line.seat === you))) sound.play("chat");
  }, [last]);

  function onScroll() {
    const log = logRef.current;
    if (log) stick.current = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  }

  const trimmed = text.trim();
  const length = [...trimmed].length;
  const tooLong = length > MAX_CHAT;
  const canSend = !youMuted && length > 0 && !tooLong;

  /** @param {Event} event */
  function submit(event) {
    event.preventDefault();
    if (!canSend) return;
    stick.current = true;
    onSend(trimmed);
    setText("");
  }

  const people = isHost && onMute
    ? seatList.map((seat, index) => ({ seat, index }))
      .filter(({ seat, index }) => seat && seat.kind === "human" && index !== you)
    : [];

  return html`
    <section class="chat" aria-labelledby="chat-title">
      <h2 id="chat-title">Table chat</h2>
      <div role="log" aria-live="polite" aria-relevant="additions" aria-labelledby="chat-title">
        <ol id="chat-log" ref=${logRef} onScroll=${onScroll} tabindex="0" aria-label="Chat lines">
          ${lines.length === 0 && html`<li class="empty">No messages yet. Say hello!</li>`}
          ${lines.map((line) => {
            const mine = typeof you === "number" && line.seat === you;
            const name = String(line.name || (line.seat === null ? "Spectator" : "Player"));
            const time = clock(line.at);
            if (line.kind === "reaction") {
              const label = REACTION_NAMES[line.text] || "a reaction";
              return html`<li key=${line.n} class="reaction" title=${time}>
                <span class=${mine ? "who you" : "who"}>${name}</span>${" "}
                <span class="emoji" role="img" aria-label=${label}>${String(line.text)}</span></li>`;
            }
            return html`<li key=${line.n} title=${time}>
              <span class=${mine ? "who you" : "who"}>${name}</span>: ${String(line.text)}</li>`;
          })}
        </ol>
      </div>
      ${youMuted
        ? html`<p class="muted-note" role="status">The host has muted you: you can read the chat but not write in it.</p>`
        : html`
          <div class="reactions" role="group" aria-label="Quick reactions">
            ${REACTIONS.map((emoji) => html`
              <button type="button" class="reaction" data-emoji=${emoji} title=${REACTION_NAMES[emoji]}
                aria-label=${`React: ${REACTION_NAMES[emoji]}`} onClick=${() => onReact(emoji)}>${emoji}</button>`)}
          </div>
          <form onSubmit=${submit}>
            <label for="chat-input" class="visually-hidden">Message</label>
            <input id="chat-input" type="text" autocomplete="off" maxlength=${MAX_CHAT} placeholder="Say something…"
              value=${text} onInput=${(/** @type {Event} */ e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
              aria-describedby="chat-counter" enterkeyhint="send" />
            <span id="chat-counter" class=${length > MAX_CHAT - 20 ? "counter near" : "counter"}
              aria-label=${`${length} of ${MAX_CHAT} characters`}>${length}/${MAX_CHAT}</span>
            <button id="chat-send" type="submit" disabled=${!canSend}>Send</button>
          </form>`}
      ${people.length > 0 && html`
        <ul class="people" aria-label="Mute people in the chat">
          ${people.map(({ seat, index }) => {
            const isMuted = mutedSeats.includes(index);
            const name = String(seat.name || `Seat ${index + 1}`);
            return html`<li key=${index}>
              <button type="button" class="mute" data-seat=${index} aria-pressed=${isMuted ? "true" : "false"}
                onClick=${() => onMute && onMute(index, !isMuted)}>
                ${isMuted ? `Unmute ${name}` : `Mute ${name}`}</button></li>`;
          })}
        </ul>`}
    </section>`;
}
