// @ts-check
/**
 * Cues that reach a player who is looking elsewhere: the tab's title and icon when they must decide, an
 * optional desktop notification when the tab is hidden (the `notifications` preference), and a short
 * vibration on phones. Call `updateCues` after every state: it only acts when something changed.
 */
import { prefs } from "./settings.js";

const APP = "UNO Royal Revenge";
const TITLE = `(!) Your turn - ${APP}`;

/** The icon as an SVG data URL: the Crown, with a red badge when `badge`. @param {boolean} badge */
function iconUrl(badge) {
  const dot = badge ? "<circle cx='76' cy='24' r='22' fill='%23e53935' stroke='white' stroke-width='6'/>" : "";
  return "data:image/svg+xml," + "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'>"
    + "<text y='.9em' font-size='90'>%F0%9F%91%91</text>" + dot + "</svg>";
}

/** @type {{mustDecide: boolean, text: string} | null} */
let shown = null;
/** @type {Notification | null} */
let notification = null;
/** Whether the current decision has had its notification. */
let notified = false;
/** The page's own title and icon, put back once the decision is made. @type {string | null} */
let savedTitle = null;
/** @type {string | null} */
let savedIcon = null;

/** Swaps the tab's icon for the badged Crown (`badge`), or puts the page's own icon back. @param {boolean} badge */
function setIcon(badge) {
  let link = /** @type {HTMLLinkElement | null} */ (document.querySelector("link[rel~='icon']"));
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.appendChild(link);
  }
  const badged = iconUrl(true);
  const current = link.getAttribute("href");
  if (badge) {
    if (current !== badged) savedIcon = current;
    link.setAttribute("href", badged);
  } else if (current === badged) {
    link.setAttribute("href", savedIcon || iconUrl(false));
  }
}

function closeNotification() {
  try { if (notification) notification.close(); } catch { /* ignore */ }
  notification = null;
}

/** @param {string} text */
function notify(text) {
  notified = true;
  try {
    if (!prefs.notifications || typeof Notification === "undefined" || Notification.permission !== "granted") return;
    closeNotification();
    const note = new Notification(APP, { body: text || "It's your move", tag: "rr-decide", icon: iconUrl(true) });
    note.onclick = () => { try { window.focus(); } catch { /* ignore */ } note.close(); };
    notification = note;
  } catch { /* some browsers only allow notifications from a service worker */ }
}

function vibrate() {
  try {
    // (only after the person has touched the page: before that the browser refuses, and says so in the console)
    const active = !navigator.userActivation || navigator.userActivation.hasBeenActive;
    if (active && typeof navigator.vibrate === "function") navigator.vibrate([120, 60, 120]);
  } catch { /* ignore */ }
}

/**
 * Shows (or clears) the "you must decide" cues.
 * @param {{mustDecide: boolean, text?: string | null}} cue `text` says what to decide (the server's prompt)
 */
export function updateCues({ mustDecide, text }) {
  if (typeof document === "undefined") return;
  const words = String(text || "");
  const decide = Boolean(mustDecide);
  if (shown && shown.mustDecide === decide && shown.text === words) return;
  const started = decide && !(shown && shown.mustDecide);
  shown = { mustDecide: decide, text: words };
  if (decide) {
    if (document.title !== TITLE) savedTitle = document.title;
    document.title = TITLE;
    setIcon(true);
    if (started) { notified = false; vibrate(); }
    if (document.hidden) notify(words);
  } else {
    if (document.title === TITLE) document.title = savedTitle || APP;
    setIcon(false);
    notified = false;
    closeNotification();
  }
}

if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) closeNotification();
    // Leaving the tab while a decision waits: say so, once.
    else if (shown && shown.mustDecide && !notified) notify(shown.text);
  });
}
