// @ts-check
/**
 * Motion and the sounds that go with it, made from the log entries each state brings (docs/protocol.md: an
 * entry's `seat`, `from`, `count` and `card`): a card travels from its player to the pile, drawn cards from the
 * pile to the seat, a +1 hits its victim, Skip and Reverse show on the table, the Crown travels to the new King
 * with the fanfare, the deal goes round the table.
 *
 * The state is never held back: the page shows each state at once, and the motion is drawn over it on a layer
 * that takes no clicks. Moves that arrive while one is shown wait their turn (a short queue); when the queue
 * falls behind, it is cut short, and Escape (or a click on the table) finishes every motion at once. With
 * reduced motion nothing moves: the words (Skipped, +1, UNO!, Caught!, the fanfare) only fade in and out where
 * they are, and the sounds stay.
 */
import { h, render } from "preact";
import htm from "htm";
import { CardFace, CardBack } from "./cards.js";
import { prefs } from "./settings.js";
import { sound } from "./sound.js";

const html = htm.bind(h);

/** @typedef {import("./state.js").View} View */
/** @typedef {import("./state.js").LogEntry & {seat?: number, from?: number, count?: number, card?: string}} Entry */

const FLIGHT_MS = 380;
const STEP_MS = 140;
/** How far behind the queue may fall before it is cut short (ms). */
const MAX_BEHIND_MS = 1600;

/** @type {Set<Animation>} */
const running = new Set();
let busyUntil = 0;
let lastEntry = 0;
/** @type {string | null} */
let lastTable = null;
/** @type {ReturnType<typeof setTimeout>[]} */
let timers = [];

/** The layer the motion is drawn on (made once, above the page, never in the way of a click). */
function layer() {
  let element = document.getElementById("fx");
  if (!element) {
    element = document.createElement("div");
    element.id = "fx";
    element.setAttribute("aria-hidden", "true");
    document.body.appendChild(element);
  }
  return element;
}

/** Finishes every motion shown or waiting. */
export function skipAnimations() {
  for (const timer of timers) clearTimeout(timer);
  timers = [];
  for (const animation of [...running]) {
    try { animation.finish(); } catch { /* gone already */ }
  }
  running.clear();
  busyUntil = 0;
  const fx = document.getElementById("fx");
  if (fx) fx.replaceChildren();
}

if (typeof document !== "undefined") {
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") skipAnimations(); });
}

/** How many motions are shown now (for tests). */
export const animationsRunning = () => running.size + timers.length;

/** @param {Animation} animation @param {Element} [element] */
function track(animation, element) {
  running.add(animation);
  const done = () => { running.delete(animation); if (element) element.remove(); };
  animation.onfinish = done;
  animation.oncancel = done;
}

/** The middle of an element on screen, or null. @param {Element | null} element */
function centre(element) {
  if (!element) return null;
  const box = element.getBoundingClientRect();
  if (!box.width && !box.height) return null;
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}

/** Where a seat is drawn: your hand for your own seat when you play, else the seat's avatar. @param {number} seat */
function seatPoint(seat, you = false) {
  if (you) {
    const hand = centre(document.getElementById("hand"));
    if (hand) return hand;
  }
  return centre(document.querySelector(`.seat[data-seat="${seat}"] .avatar`));
}

/**
 * A picture that travels from one point to another.
 * @param {any} picture a Preact element
 * @param {{x: number, y: number}} from @param {{x: number, y: number}} to
 * @param {{spin?: number, scale?: number, ms?: number, className?: string}} [options]
 */
function fly(picture, from, to, { spin = 0, scale = 1, ms = FLIGHT_MS, className = "flying" } = {}) {
  const element = document.createElement("div");
  element.className = className;
  render(picture, element);
  element.style.left = `${to.x}px`;
  element.style.top = `${to.y}px`;
  layer().appendChild(element);
  const animation = element.animate([
    { transform: `translate(-50%, -50%) translate(${from.x - to.x}px, ${from.y - to.y}px) rotate(${spin}deg) scale(${scale})`, opacity: 0.9 },
    { transform: "translate(-50%, -50%) rotate(0deg) scale(1)", opacity: 1 },
  ], { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" });
  track(animation, element);
  return animation;
}

/** Keyframes that only fade in, stay and fade out (for reduced motion: nothing moves). */
const FADE = [{ opacity: 0 }, { opacity: 1, offset: 0.15 }, { opacity: 1, offset: 0.8 }, { opacity: 0 }];

/**
 * A word or a sign that bursts out on a seat (Skip, +1, UNO!, Caught!) and fades; with `still`, it only fades.
 * @param {number} seat @param {string} text @param {string} kind @param {boolean} [still]
 */
function burst(seat, text, kind, still = false) {
  const at = centre(document.querySelector(`.seat[data-seat="${seat}"] .avatar`));
  if (!at) return;
  const element = document.createElement("div");
  element.className = `burst burst-${kind}`;
  element.textContent = text;
  layer().appendChild(element);
  // Kept inside the felt and the window (a seat at the edge would push it off screen or over the side panel).
  const felt = document.querySelector(".felt-wrap");
  const box = felt ? felt.getBoundingClientRect() : { left: 0, right: window.innerWidth };
  const half = element.offsetWidth / 2 + 4;
  const low = Math.max(box.left, 0) + half;
  const high = Math.min(box.right, window.innerWidth) - half;
  element.style.left = `${low > high ? (low + high) / 2 : Math.max(low, Math.min(high, at.x))}px`;
  // (it rises by up to 1.4 of its height from the avatar: never above the window's top)
  element.style.top = `${Math.max(at.y, element.offsetHeight * 1.4 + 4)}px`;
  if (still) {
    element.style.transform = "translate(-50%, -110%)";
    track(element.animate(FADE, { duration: 1400 }), element);
    return;
  }
  const animation = element.animate([
    { transform: "translate(-50%, -50%) scale(0.4)", opacity: 0 },
    { transform: "translate(-50%, -90%) scale(1.15)", opacity: 1, offset: 0.25 },
    { transform: "translate(-50%, -110%) scale(1)", opacity: 1, offset: 0.75 },
    { transform: "translate(-50%, -140%) scale(0.9)", opacity: 0 },
  ], { duration: 1100, easing: "ease-out" });
  track(animation, element);
  const seatElement = document.querySelector(`.seat[data-seat="${seat}"] .avatar`);
  if (seatElement && kind !== "uno") {
    track(seatElement.animate([{ transform: "scale(1)" }, { transform: "scale(1.18) rotate(-4deg)" }, { transform: "scale(1)" }],
      { duration: 420, easing: "ease-out" }));
  }
}

/** A banner across the table (the fanfare); with `still`, it only fades. @param {string} text @param {boolean} [still] */
function banner(text, still = false) {
  const table = document.querySelector(".felt");
  const at = centre(table);
  if (!at) return;
  const element = document.createElement("div");
  element.className = "burst burst-fanfare";
  element.textContent = text;
  element.style.left = `${at.x}px`;
  element.style.top = `${at.y}px`;
  layer().appendChild(element);
  if (still) {
    element.style.transform = "translate(-50%, -50%)";
    track(element.animate(FADE, { duration: 2200 }), element);
    return;
  }
  track(element.animate([
    { transform: "translate(-50%, -50%) scale(0.6)", opacity: 0 },
    { transform: "translate(-50%, -50%) scale(1.1)", opacity: 1, offset: 0.2 },
    { transform: "translate(-50%, -50%) scale(1)", opacity: 1, offset: 0.8 },
    { transform: "translate(-50%, -50%) scale(1)", opacity: 0 },
  ], { duration: 1500, easing: "ease-out" }), element);
}

/** Runs `effect` after `delay` ms (the queue), unless it is skipped first. @param {number} delay @param {() => void} effect */
function later(delay, effect) {
  if (delay <= 0) { effect(); return; }
  const timer = setTimeout(() => { timers = timers.filter((t) => t !== timer); effect(); }, delay);
  timers.push(timer);
}

/**
 * The motion and sound for one log entry, `at` ms from now; returns how long it takes (ms).
 * @param {Entry} entry @param {View} view @param {number} at @param {boolean} still no motion
 */
function entryEffect(entry, view, at, still) {
  const you = view.you;
  const seat = entry.seat;
  const pile = () => centre(document.querySelector("#pile .card"));
  const drawPile = () => centre(document.getElementById("draw-pile"));
  switch (entry.kind) {
    case "Played": {
      later(at, () => {
        sound.play("play");
        if (still || seat === undefined || !entry.card) return;
        const from = seatPoint(seat, seat === you);
        const to = pile();
        if (from && to) fly(html`<${CardFace} card=${entry.card} size=${100} />`, from, to, { spin: seat === you ? 0 : -25, scale: 0.6 });
      });
      return FLIGHT_MS;
    }
    case "Drew": {
      const count = Math.max(1, Math.min(entry.count || 1, 4));
      for (let i = 0; i < count; i += 1) {
        later(at + i * STEP_MS, () => {
          if (i === 0) sound.play("draw");
          if (still || seat === undefined) return;
          const from = drawPile();
          const to = seatPoint(seat, seat === you);
          if (from && to) fly(html`<${CardBack} size=${80} />`, from, to, { scale: 1.1, ms: 340 });
        });
      }
      return FLIGHT_MS + (count - 1) * STEP_MS;
    }
    case "VictimChosen": case "JesterChosen": {
      later(at, () => {
        if (seat === undefined) return;
        burst(seat, entry.kind === "VictimChosen" ? "+1" : "🃏 Jester", "hit", still);
      });
      return 260;
    }
    case "Skipped": {
      later(at, () => { if (seat !== undefined) burst(seat, "⊘ Skipped", "skip", still); });
      return 300;
    }
    case "DirectionChanged": {
      later(at, () => {
        const arrows = document.querySelector(".felt .direction");
        if (!still && arrows) track(arrows.animate([{ transform: "rotate(0deg)" }, { transform: "rotate(-180deg) scale(1.05)" }, { transform: "rotate(-360deg)" }],
          { duration: 700, easing: "ease-in-out" }));
      });
      return 300;
    }
    case "UnoCalled": {
      later(at, () => { sound.play("uno"); if (seat !== undefined) burst(seat, "UNO!", "uno", still); });
      return 300;
    }
    case "Caught": {
      later(at, () => { sound.play("catch"); if (seat !== undefined) burst(seat, "Caught! +2", "caught", still); });
      return 500;
    }
    case "FanfareSounded": {
      later(at, () => { sound.play("fanfare"); banner("🎺 The fanfare! The Crown passes", still); });
      return 500;
    }
    case "CrownPassed": {
      later(at, () => {
        if (still || seat === undefined || entry.from === undefined) return;
        const from = seatPoint(entry.from);
        const to = seatPoint(seat);
        if (from && to) fly(html`<span class="flying-crown">👑</span>`, from, to, { ms: 900, scale: 1.6, className: "flying crown-flight" });
      });
      return 900;
    }
    case "RoundStarted": {
      later(at, () => {
        sound.play("deal");
        if (still) return;
        const from = drawPile();
        view.seats.forEach((_, s) => {
          for (let i = 0; i < 2; i += 1) {
            later((i * view.seats.length + s) * 70, () => {
              const to = seatPoint(s, s === you);
              if (from && to) fly(html`<${CardBack} size=${70} />`, from, to, { ms: 320 });
            });
          }
        });
      });
      return 600;
    }
    case "RoundEnded": case "GameEnded": {
      later(at, () => sound.play("win"));
      return 0;
    }
    default:
      return 0;
  }
}

/**
 * The motion and sound from one state to the next: call it after the new state is on the page.
 * @param {View | null} previous @param {View} view
 */
export function animateChange(previous, view) {
  if (typeof document === "undefined") return;
  const log = /** @type {Entry[]} */ (view.log || []);
  if (view.code !== lastTable) {
    // A new table (or a reload): what happened before it was shown is not played again.
    lastTable = view.code;
    lastEntry = log.length ? log[log.length - 1].n : 0;
    return;
  }
  const fresh = log.filter((entry) => entry.n > lastEntry);
  if (!fresh.length) return;
  lastEntry = fresh[fresh.length - 1].n;
  const still = prefs.motionReduced;
  const now = performance.now();
  if (busyUntil - now > MAX_BEHIND_MS) skipAnimations();
  let at = Math.max(0, busyUntil - now);
  // A burst of many moves at once (a reconnect, a fast bot chain): only the last few are shown.
  for (const entry of fresh.slice(-6)) {
    at += entryEffect(entry, view, at, still);
  }
  busyUntil = now + at;
  // The turn's cue: the decision just became yours.
  const mine = (/** @type {View | null} */ v) => !!v && !!v.game && v.game.pending.seat !== null && v.game.pending.seat === v.you &&
    !["round_over", "game_over"].includes(v.game.pending.kind);
  if (mine(view) && !mine(previous)) later(at, () => sound.play("turn"));
  void previous;
}
