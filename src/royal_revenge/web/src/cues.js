// @ts-check
/**
 * Cues that reach a player who is looking elsewhere: the tab's title and icon when they must decide, an
 * optional desktop notification when the tab is hidden (the `notifications` preference), and a short
 * vibration on phones. Call `updateCues` after every state: it only acts when something changed.
 */
import { prefs } from "./settings.js";

const APP = "UNO Royal Revenge";

/** The icon drawn as an SVG data URL: the Crown, with a red badge when `badge`. @param {boolean} badge */
function iconUrl(badge) {
  const dot = badge ? "<circle cx='76' cy='24' r='22' fill='%23e53935' stroke='white' stroke-width='6'/>" : "";
  return "data:image/svg+xml," + "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'>"
    + "<text y='.9em' font-size='90'>%F0%9F%91%91</text>" + dot + "</svg>";
}

/** @type {{mustDecide: boolean, text: string} | null} */
let shown = null;
/** @type {Notification | null} */
let notification = null;
/** @type {string | null} */
let baseTitle = null;

/** The page's own title (before any cue). */
function pageTitle() {
  if (baseTitle === null) {
    const title = document.title.replace(/^\(!\)\s*/, "");
    baseTitle = title || APP;
  }
  return baseTitle;
}

/** @param {boolean} badge */
function setIcon(badge) {
  let link = /** @type {HTMLLinkElement | null} */ (document.querySelector("link[rel~='icon']"));
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.appendChild(link);
  }
  const href = iconUrl(badge);
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

function closeNotification() {
  try { if (notification) notification.close(); } catch { /* ignore */ }
  notification = null;
}

/** @param {string} text */
function notify(text) {
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
    if (typeof navigator.vibrate === "function") navigator.vibrate([120, 60, 120]);
  } catch { /* ignore */ }
}

/**
 * Shows (or clears) the "you must decide" cues.
 * @param {{mustDecide: boolean, text?: string | null}} cue `text` is what to decide (the server's prompt)
 */
export function updateCues({ mustDecide, text }) {
  if (typeof document === "undefined") return;
  const words = String(text || "");
  const decide = Boolean(mustDecide);
  if (shown && shown.mustDecide === decide && shown.text === words) return;
  const started = decide && !(shown && shown.mustDecide);
  shown = { mustDecide: decide, text: words };
  const base = pageTitle();
  if (decide) {
    document.title = `(!) Your turn - ${APP}`;
    setIcon(true);
    if (started || words) {
      if (document.hidden) notify(words);
      if (started) vibrate();
    }
  } else {
    document.title = base;
    setIcon(false);
    closeNotification();
  }
}

if (typeof document !== "undefined") {
  // Coming back to the tab: the notification has done its work.
  document.addEventListener("visibilitychange", () => { if (!document.hidden) closeNotification(); });
}
