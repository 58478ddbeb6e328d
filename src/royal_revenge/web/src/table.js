// @ts-check
/**
 * The table: an oval of felt with the seats around it in play order (you at the bottom), the draw pile and
 * the discard in the middle with the colour in force, your hand along the bottom, the King's chooser above it,
 * the action buttons, the prompt, notices, the log and the chat.
 */
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import htm from "htm";
import { CardBack, CardFace, COLOURS, Shape, sortHand } from "./cards.js";
import { Hand } from "./hand.js";
import { RoyalChooser } from "./royal.js";
import { Results } from "./results.js";
import { buttonWord, cardWords, colourWords, labelOf, legalOf, playChoice, seatName } from "./state.js";
import { session, act, send, host, serverNow, useSession } from "./session.js";
import { prefs, usePrefs } from "./settings.js";
import { animateChange, skipAnimations } from "./animation.js";
import { updateCues } from "./cues.js";
import "./table.css";

const html = htm.bind(h);

/** @typedef {import("./state.js").View} View */
/** @typedef {import("./state.js").Game} Game */

const ROYAL = new Set(["colour", "victim", "jester"]);

/** Whether a seat has called UNO (and still holds one card): the server's `uno_called`. @param {View} view @param {number} seat */
function calledUno(view, seat) {
  return Array.isArray(view.uno_called) && view.uno_called.includes(seat);
}

/** The position of the seat `rel` places after yours, in % of the table (you at the bottom, play order clockwise). */
function position(/** @type {number} */ rel, /** @type {number} */ count) {
  const angle = Math.PI / 2 + (rel * 2 * Math.PI) / count;
  return { x: 50 + 44 * Math.cos(angle), y: 50 + 41 * Math.sin(angle) };
}

/** A countdown ring. @param {{left: number, total: number}} props */
function Ring({ left, total }) {
  const r = 30;
  const c = 2 * Math.PI * r;
  const frac = Math.max(0, Math.min(1, total > 0 ? left / total : 0));
  return html`<svg class=${`ring${left < 6 ? " low" : ""}`} viewBox="0 0 68 68" aria-hidden="true">
    <circle cx="34" cy="34" r=${r} fill="none" stroke="#ffffff30" stroke-width="5" />
    <circle cx="34" cy="34" r=${r} fill="none" stroke="currentColor" stroke-width="5" stroke-linecap="round"
      stroke-dasharray=${c} stroke-dashoffset=${c * (1 - frac)} transform="rotate(-90 34 34)" /></svg>`;
}

/** The Crown and the Jester Hat as small pictures. */
export const CROWN = html`<svg class="crown-icon" viewBox="0 0 24 18" aria-hidden="true"><polygon
  points="2,16 2,5 7,10 12,2 17,10 22,5 22,16" fill="#ffd54f" stroke="#5a4100" stroke-width="1.3" stroke-linejoin="round" />
  <circle cx="12" cy="2.5" r="1.6" fill="#e53935" /></svg>`;
const HAT = html`<svg class="hat-icon" viewBox="0 0 26 18" aria-hidden="true"><path
  d="M4 16 Q4 8 1 4 Q8 6 13 11 Q18 6 25 4 Q22 8 22 16 Z" fill="#8e24aa" stroke="#2b0a36" stroke-width="1.2" />
  <circle cx="1.5" cy="4" r="1.8" fill="#ffd54f" /><circle cx="24.5" cy="4" r="1.8" fill="#ffd54f" /></svg>`;

/**
 * One seat round the table.
 * @param {{view: View, seat: number, rel: number, next: boolean, left: number | null, catchable: any, bubble: string | null}} props
 */
function SeatView({ view, seat, rel, next, left, catchable, bubble }) {
  const game = /** @type {Game} */ (view.game);
  const info = view.seats[seat];
  const name = seatName(view, seat);
  const count = game.hand_sizes[seat] || 0;
  const pos = position(rel, view.seats.length);
  const deciding = game.pending.seat === seat;
  const king = game.king === seat;
  const jester = game.jester === seat;
  const uno = calledUno(view, seat);
  // D-12: at a new round the King may still wear last round's Hat until choosing the next Jester.
  const hatWaits = king && jester && game.pending.kind === "jester";
  const classes = ["seat", deciding ? "current" : "", seat === view.you ? "you" : "", king ? "king" : "", jester ? "jester" : "",
    next ? "next" : "", rel === 0 ? "at-bottom" : pos.y < 35 ? "at-top" : "at-side"].filter(Boolean).join(" ");
  const backs = Math.min(count, 7);
  const label = `${name}${seat === view.you ? " (you)" : ""}: ${count} card${count === 1 ? "" : "s"}, ${game.scores[seat]} points` +
    `${king ? ", the King" : ""}${hatWaits ? ", holds the Jester Hat until choosing who wears it" : jester ? ", wears the Jester Hat" : ""}${uno ? ", called UNO" : ""}${deciding ? ", deciding" : ""}`;
  return html`
    <div class=${classes} data-seat=${seat} style=${`--x:${pos.x}%; --y:${pos.y}%`} aria-label=${label} role="group">
      <div class="avatar-wrap">
        ${deciding && left !== null && html`<${Ring} left=${left} total=${view.settings.turn_seconds || 30} />`}
        <div class="avatar" aria-hidden="true">${(name || "?").slice(0, 1).toUpperCase()}</div>
        ${king && html`<span class="royal-mark crown-mark" title="King">${CROWN}</span>`}
        ${jester && html`<span class="royal-mark hat-mark" title=${hatWaits ? "The Jester Hat waits for the King's choice" : "Jester"}>${HAT}</span>`}
        ${uno && html`<span class="uno-mark">UNO</span>`}
        ${deciding && left !== null && html`<span class="clock" aria-hidden="true">${Math.ceil(left)}</span>`}
        ${catchable && html`<button type="button" class="catch" data-seat=${seat} onClick=${() => act(catchable)}
          aria-label=${labelOf(view, catchable)} aria-describedby=${view.hint ? "hint" : undefined}>Catch!</button>`}
        ${bubble && html`<span class="bubble" aria-hidden="true">${bubble}</span>`}
      </div>
      <div class="seat-text">
        <div class="seat-name">${name}${seat === view.you ? " (you)" : ""}</div>
        <div class="seat-info">
          ${seat !== view.you && html`<span class="fan" aria-hidden="true">${Array.from({ length: backs }, (_, i) => html`
            <span key=${i} class="back" style=${`--i:${i - (backs - 1) / 2}`}><${CardBack} size=${30} /></span>`)}</span>`}
          <span class="count">${count}</span><span class="score">★ ${game.scores[seat]}</span>
        </div>
        ${(hatWaits || info.kind === "bot" || info.autopilot || (info.kind === "human" && info.connected === false)) && html`
          <div class="seat-tags">
            ${hatWaits && html`<span class="tag hat-waits">choosing the Jester</span>`}
            ${info.kind === "bot" && html`<span class="tag">bot</span>`}
            ${info.autopilot && html`<span class="tag">bot playing</span>`}
            ${info.kind === "human" && info.connected === false && html`<span class="tag off">offline</span>`}
          </div>`}
      </div>
    </div>`;
}

/** @param {{view: View, chat: any, onLeave: () => void}} props */
export function Table({ view, chat, onLeave }) {
  useSession();
  const p = usePrefs();
  const [, setTick] = useState(0);
  const [armed, setArmed] = useState(false);
  /** The results the person closed to see the table (they come back with a new round or game). */
  const [closedResults, setClosedResults] = useState("");
  const [panel, setPanel] = useState(/** @type {'log' | 'chat'} */ ("log"));
  const [compact, setCompact] = useState(() => window.innerWidth < 768);
  const liveRef = useRef(/** @type {string} */ (""));
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 250);
    const resize = () => setCompact(window.innerWidth < 768);
    window.addEventListener("resize", resize);
    return () => { clearInterval(timer); window.removeEventListener("resize", resize); };
  }, []);
  const game = view.game;
  // The call is for the next play: it is dropped once the server offers no play with UNO (a play, a draw).
  const unoOffered = legalOf(view, "play").some((a) => a.uno);
  useEffect(() => { if (armed && !unoOffered) setArmed(false); }, [unoOffered]);
  // After each state is on the page: its motion and sounds, and the "your decision" cues.
  const previous = useRef(/** @type {View | null} */ (null));
  // The keys work wherever the focus is (but in a text field): the latest render's handler answers them.
  const keyHandler = useRef(/** @type {(event: KeyboardEvent) => void} */ (() => {}));
  useEffect(() => {
    const listener = (/** @type {KeyboardEvent} */ event) => keyHandler.current(event);
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
  useEffect(() => {
    animateChange(previous.current, view);
    previous.current = view;
    const pending = view.game ? view.game.pending : null;
    const decide = !!pending && pending.seat !== null && pending.seat === view.you &&
      !["round_over", "game_over"].includes(pending.kind);
    updateCues({ mustDecide: decide, text: view.prompt || "" });
  }, [view]);
  useEffect(() => () => updateCues({ mustDecide: false }), []);
  if (!game) return html`<main id="table" class="table-page"><p>Dealing…</p></main>`;

  const count = view.seats.length;
  const bottom = view.you !== null ? view.you : 0;
  const pending = game.pending;
  const mine = pending.seat !== null && pending.seat === view.you;
  const legal = view.legal || [];
  const plays = legalOf(view, "play");
  const playable = new Set(plays.map((a) => a.card));
  const canDraw = legalOf(view, "draw")[0];
  const canKeep = legalOf(view, "keep")[0];
  const callUno = legalOf(view, "uno")[0];
  const unoPossible = !!callUno || unoOffered;
  const catches = legalOf(view, "catch");
  const nextSeat = game.current !== null && pending.kind === "turn" ? null : null;
  const following = (/** @type {number} */ from) => ((from + game.direction) % count + count) % count;
  const nextOfCurrent = game.current !== null ? following(game.current) : null;
  void nextSeat;
  const left = view.decision_deadline ? Math.max(0, view.decision_deadline - serverNow()) : null;
  const now = serverNow();
  /** @type {Record<number, string>} */
  const bubbles = {};
  for (const line of (view.chat || []).slice(-6)) {
    if (line.seat !== null && line.at && now - line.at < 5) bubbles[line.seat] = line.text.length > 40 ? `${line.text.slice(0, 38)}…` : line.text;
  }
  const prompt = view.prompt || "";
  const notice = session.notice ? session.notice.text : "";
  const noticeKind = session.notice ? session.notice.kind : "error";
  const hint = view.hint || "";
  const log = view.log || [];
  const latest = log.length ? log[log.length - 1].text : "";
  liveRef.current = latest;
  const over = view.phase === "finished" || pending.kind === "round_over" || pending.kind === "game_over";
  const resultsKey = `${view.game_no}/${game.round_no}/${view.phase}`;

  /** @param {string} card */
  function play(card) {
    // (not playable now: the server says why, in the words the terminal game uses too, and nothing changes)
    const choice = playChoice(view, card, armed || prefs.unoAssist) || { type: "play", card, uno: false };
    setArmed(false);
    act(choice);
  }

  function pressUno() {
    if (callUno) { act(callUno); return; }
    if (unoOffered) setArmed(!armed);
  }

  function cycleSort() {
    const order = /** @type {const} */ (["colour", "number", "none"]);
    prefs.set({ sort: order[(order.indexOf(p.sort) + 1) % order.length] });
  }

  /** @param {KeyboardEvent} event */
  function onKey(event) {
    const target = /** @type {HTMLElement} */ (event.target);
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    const colourChoice = legalOf(view, "colour").find((a) => a.colour === key.toUpperCase());
    if (key === "d" && canDraw) act(canDraw);
    else if (key === "k" && canKeep) act(canKeep);
    else if (key === "u") pressUno();
    else if (key === "c" && catches.length) act(catches[0]);
    else if (colourChoice) act(colourChoice);
    else if (/^[1-6]$/.test(key) && (pending.kind === "victim" || pending.kind === "jester") && mine) {
      // The King chooses a player by the number shown on the sheet (the seat's number, as in the terminal game).
      const choice = legalOf(view, pending.kind).find((a) => a.seat === Number(key) - 1);
      if (choice) act(choice);
    } else if (/^[1-9]$/.test(key)) {
      // The n-th card of the hand as it is shown (sorted), as the terminal game numbers them.
      const card = sortHand(game ? game.hand : [], p.sort)[Number(key) - 1];
      if (card) play(card);
    } else return;
    event.preventDefault();
  }
  keyHandler.current = onKey;

  const colour = game.active_colour ? COLOURS[game.active_colour] : null;
  const topName = cardWords(view, game.top);
  const colourName = colourWords(view, game.active_colour);
  const royalLegal = mine && ROYAL.has(pending.kind) ? legalOf(view, pending.kind) : [];

  return html`
    <main id="table" class=${`table-page${compact ? " compact" : ""}`}>
      <div class="table-main">
        <div class="felt-wrap" onClick=${skipAnimations}>
          <div class="felt" aria-label="The table" role="region">
            <svg class=${`direction dir-${game.direction === 1 ? "cw" : "ccw"}`} viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true">
              <defs><marker id="arrow-head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse">
                <path d="M0 0 L10 5 L0 10 z" fill="#ffffff70" /></marker></defs>
              ${[0, 1, 2, 3].map((i) => {
                const a0 = (i * Math.PI) / 2 + 0.35;
                const a1 = a0 + 0.9;
                const pt = (/** @type {number} */ a) => `${50 + 30 * Math.cos(a)} ${50 + 27 * Math.sin(a)}`;
                const d = game.direction === 1 ? `M${pt(a0)} A30 27 0 0 1 ${pt(a1)}` : `M${pt(a1)} A30 27 0 0 0 ${pt(a0)}`;
                return html`<path key=${i} d=${d} fill="none" stroke="#ffffff50" stroke-width="1.2" marker-end="url(#arrow-head)"
                  vector-effect="non-scaling-stroke" />`;
              })}
            </svg>
            <div class="centre">
              <button id="draw-pile" type="button" class=${`draw-pile${canDraw ? " can" : ""}${canDraw && !plays.length ? " only" : ""}`}
                disabled=${!canDraw} aria-label=${`Draw a card (${game.draw_pile_size} left)`} onClick=${() => canDraw && act(canDraw)}>
                <${CardBack} size=${compact ? 78 : 104} /><span class="pile-count">${game.draw_pile_size}</span></button>
              <div id="pile" class="pile" style=${`--active:${colour ? colour.fill : "#888"}`}
                aria-label=${`On the pile: ${topName}${colour ? `, colour ${colourName}` : ""}`}>
                <div class="card" data-card=${game.top} role="img" aria-label=${topName}><${CardFace} card=${game.top} size=${compact ? 78 : 104} /></div>
                <div class="active-colour">${colour
                  ? html`<svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
                      <circle cx="10" cy="10" r="9" fill=${colour.fill} stroke="#fff" />${Shape(/** @type {string} */ (game.active_colour), 10, 10, 4.5)}</svg>
                      <span>${colourName}</span>`
                  : html`<span>colour being chosen</span>`}</div>
              </div>
              <span class="dir-label">${game.direction === 1 ? "↻ play goes left" : "↺ play goes right"} · round ${game.round_no}</span>
            </div>
          </div>
          ${view.seats.map((_, seat) => {
            const rel = ((seat - bottom) % count + count) % count;
            const catchable = catches.find((a) => a.seat === seat);
            return html`<${SeatView} key=${seat} view=${view} seat=${seat} rel=${rel} next=${nextOfCurrent === seat}
              left=${pending.seat === seat ? left : null} catchable=${catchable} bubble=${bubbles[seat] || null} />`;
          })}
        </div>
        <div class="say">
        ${royalLegal.length > 0
          // The King's sheet takes the prompt's place, just above the hand: it covers neither the table nor the hand
          // (and UNO stays in reach: a late call is still allowed while the King chooses).
          ? html`<${RoyalChooser} view=${view} kind=${pending.kind} legal=${royalLegal}
              onChoose=${(/** @type {any} */ a) => act(a)} />`
          : html`<div id="prompt" class=${`prompt${mine ? " mine" : ""}`}>${prompt}</div>
              ${hint && html`<p id="hint" class="hint">${hint}</p>`}`}
        ${notice && html`<p id="notice" class=${`notice ${noticeKind}`} role="status">${notice}</p>`}
        </div>
        ${view.you !== null && view.seats[view.you] && view.seats[view.you].autopilot && html`
          <p id="autopilot" class="notice warn" role="status">A bot is playing your seat: your time ran out.
            <button id="btn-back" type="button" onClick=${() => send({ type: "back" })}>Take my seat back</button></p>`}
        ${view.you !== null && html`
          <div class="hand-area">
            <div class="actions">
              <button id="btn-draw" type="button" disabled=${!canDraw} onClick=${() => canDraw && act(canDraw)}>${canDraw ? labelOf(view, canDraw) : buttonWord(view, "draw")}</button>
              <button id="btn-keep" type="button" hidden=${!canKeep} onClick=${() => canKeep && act(canKeep)}>${canKeep ? labelOf(view, canKeep) : buttonWord(view, "keep")}</button>
              <button id="btn-uno" type="button" class=${`uno${armed ? " armed" : ""}`} disabled=${!unoPossible}
                aria-pressed=${armed ? "true" : "false"} onClick=${pressUno}>${callUno ? labelOf(view, callUno) : buttonWord(view, "uno")}${armed ? " (armed)" : ""}</button>
              ${catches.length > 0 && html`<button id="btn-catch" type="button" class="catch-now" onClick=${() => act(catches[0])}>
                ${labelOf(view, catches[0])}</button>`}
              <button id="btn-sort" type="button" class="small" onClick=${cycleSort}
                aria-label=${`Sort the hand (now: ${p.sort === "none" ? "as dealt" : `by ${p.sort}`})`}>Sort: ${p.sort === "none" ? "as dealt" : p.sort}</button>
            </div>
            <div class="hand-scroll">
              <${Hand} hand=${game.hand} playable=${playable} drawn=${game.drawn} sort=${p.sort} compact=${compact}
                words=${(/** @type {string} */ card) => cardWords(view, card)} onPlay=${play} />
            </div>
          </div>`}
        ${view.you === null && html`<p class="watching muted">You are watching this table.</p>`}
      </div>
      <aside class="side panel">
        <div class="tabs">
          ${compact && html`<div class="tablist" role="tablist" aria-label="Moves or chat">
            <button type="button" role="tab" aria-selected=${panel === "log"} onClick=${() => setPanel("log")}>Moves</button>
            <button type="button" role="tab" aria-selected=${panel === "chat"} onClick=${() => setPanel("chat")}>Chat</button>
          </div>`}
          <button id="btn-leave" type="button" class="small" onClick=${onLeave}>${view.you === null ? "Stop watching" : "Leave"}</button>
        </div>
        <ol id="log" class="log" hidden=${panel !== "log" && compact} aria-label="What happened">
          ${log.slice(-40).reverse().map((entry) => html`<li key=${entry.n} class=${`log-${entry.kind}`}>${entry.text}</li>`)}
        </ol>
        <div class="chat-wrap" hidden=${panel !== "chat" && compact}>${chat}</div>
      </aside>
      <div id="live" class="visually-hidden" aria-live="polite">${latest}</div>
      ${over && closedResults !== resultsKey && html`<div class="results-backdrop" aria-hidden="true"
        onClick=${() => setClosedResults(resultsKey)}></div>
        <${Results} view=${view} onClose=${() => setClosedResults(resultsKey)} onLeave=${onLeave} />`}
      ${over && closedResults === resultsKey && html`<button id="btn-show-results" type="button" class="primary show-results"
        onClick=${() => setClosedResults("")}>Show the results</button>`}
    </main>`;
}
void send; void host;
