// @ts-check
/**
 * The page's state: which table, the seat's token, the merged view, the connection and what the page shows
 * (notices, not-found). Components read it with `useSession()`; it is on `window.rr` for tests.
 */
import { useEffect, useState } from "preact/hooks";
import { Connection } from "./protocol.js";
import { mergeState, normalizeCode } from "./state.js";
import { readStored, writeStored } from "./storage.js";

/** @typedef {import("./state.js").View} View */

/** @type {Set<() => void>} */
const listeners = new Set();

export const session = {
  /** @type {string | null} */
  code: null,
  /** @type {string | null} */
  token: null,
  /** @type {View | null} */
  view: null,
  /** @type {View | null} the view before the last state */
  previous: null,
  /** @type {Connection | null} */
  conn: null,
  serverOffset: 0,
  /** @type {'connecting' | 'open' | 'closed' | 'idle'} */
  status: /** @type {'connecting' | 'open' | 'closed' | 'idle'} */ ("idle"),
  closeCode: 0,
  notFound: false,
  /** @type {{text: string, kind: string, at: number} | null} */
  notice: null,
  /** @type {Map<string, (ok: boolean, message?: any) => void>} */
  waiting: new Map(),
  /** @type {((view: View, previous: View | null) => void)[]} */
  stateHooks: [],
  changed() { for (const listener of [...listeners]) listener(); },
};

/** The seat kept for a table (localStorage `rr:CODE`, as the first page kept it). @param {string} code */
export function storedSeat(code) {
  return /** @type {{token: string, seat: number} | null} */ (readStored(`rr:${code}`, null));
}

/** The codes of the tables this browser keeps a seat at (newest storage order; at most `limit`). */
export function storedTables(limit = 5) {
  /** @type {string[]} */
  const codes = [];
  try {
    for (let i = 0; i < localStorage.length && codes.length < limit; i += 1) {
      const key = localStorage.key(i);
      if (key && /^rr:[A-Z0-9]{10}$/.test(key)) codes.push(key.slice(3));
    }
  } catch { /* storage blocked */ }
  return codes;
}

/** @param {string} code @param {{token: string, seat: number} | null} seat */
export function storeSeat(code, seat) {
  if (seat) writeStored(`rr:${code}`, seat);
  else { try { localStorage.removeItem(`rr:${code}`); } catch { /* blocked */ } }
}

/** Shows a notice (errors and hints) for a few seconds. @param {string} text @param {string} [kind] */
export function notify(text, kind = "error") {
  session.notice = { text, kind, at: Date.now() };
  session.changed();
  const at = session.notice.at;
  setTimeout(() => { if (session.notice && session.notice.at === at) { session.notice = null; session.changed(); } }, 6000);
}

/**
 * Opens a table's connection (a seat's when a token is kept, else a spectator's).
 * @param {string} code @param {string | null} token @param {string | null} [name]
 */
export function openTable(code, token, name = null) {
  closeTable();
  session.code = normalizeCode(code);
  session.token = token;
  session.view = null;
  session.previous = null;
  session.notFound = false;
  session.conn = new Connection(session.code, token, {
    onState(message) {
      session.serverOffset = message.server_time * 1000 - Date.now();
      const before = session.view;
      session.previous = before;
      session.view = mergeState(before, message);
      if (message.ack) resolve(message.ack, true, message);
      for (const hook of session.stateHooks) {
        try { hook(session.view, before); } catch (error) { console.warn(error); }
      }
      session.changed();
    },
    onError(message) {
      if (message.id) resolve(message.id, false, message);
      if (message.code === "no_table") { session.notFound = true; session.changed(); return; }
      if (message.code === "bad_token" && session.code) storeSeat(session.code, null);
      if (message.code === "wrong_phase" && /rematch|start/i.test(String(message.message)) && session.view &&
          session.view.phase !== "finished") return;
      notify(message.message || "That did not work.");
    },
    onStatus(status, closeCode) {
      session.status = status;
      if (closeCode) session.closeCode = closeCode;
      if (status === "closed" && closeCode === 4404) session.notFound = true;
      session.changed();
    },
  }, name);
  session.changed();
}

/** @param {string} id @param {boolean} ok @param {any} message */
function resolve(id, ok, message) {
  const callback = session.waiting.get(id);
  if (callback) { session.waiting.delete(id); callback(ok, message); }
}

export function closeTable() {
  if (session.conn) session.conn.close();
  session.conn = null;
  session.code = null;
  session.view = null;
  session.status = "idle";
}

/**
 * Sends a message and calls `then` with its answer.
 * @param {any} message @param {(ok: boolean, message?: any) => void} [then]
 */
export function send(message, then) {
  if (!session.conn) return null;
  const id = session.conn.send(message);
  if (then) session.waiting.set(id, then);
  return id;
}

/**
 * Sends a legal action, for the game on screen (the server refuses it in a later game, e.g. one a rematch began while
 * the connection was away). @param {any} action
 */
export function act(action) {
  const game = session.view ? session.view.game_no : undefined;
  return send(game === undefined ? { type: "action", action } : { type: "action", action, game });
}

/** A host command. @param {string} command @param {any} [extra] */
export function host(command, extra = {}) { return send({ type: "host", command, ...extra }); }

/** The server's clock now, in seconds. */
export function serverNow() { return (Date.now() + session.serverOffset) / 1000; }

/** Re-renders a component whenever the session changes. */
export function useSession() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    return () => { listeners.delete(listener); };
  }, []);
  return session;
}
