// @ts-check
/**
 * The browser game: routes between the start page, a table's lobby, the table and its results, over one
 * WebSocket per table (protocol.js, session.js). The page holds no rules: it draws the view the server sends
 * and sends the actions the server lists as legal.
 */
import "./main.css";
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { StartPage } from "./start.js";
import { Lobby } from "./lobby.js";
import { Table } from "./table.js";
import { ChatPanel } from "./chat.js";
import { SettingsPanel } from "./settings.js";
import { Tour, tourSeen } from "./tour.js";
import { normalizeCode } from "./state.js";
import { session, useSession, openTable, closeTable, storedSeat, storeSeat, send, host, notify } from "./session.js";

const html = htm.bind(h);

/** The table's code and whether to watch, from `/t/CODE`, `?t=CODE` or `#CODE`. */
function parseRoute() {
  const params = new URLSearchParams(location.search);
  let code = params.get("t") || "";
  const match = location.pathname.match(/^\/t\/([^/?#]+)/);
  if (match) {
    try { code = decodeURIComponent(match[1]); } catch { code = match[1]; }
  }
  if (!code && location.hash.length > 1) code = location.hash.slice(1);
  return { code: normalizeCode(code), watch: params.has("watch") };
}

/** Whether the page is served as the site's own page (`/`, `/t/CODE`) rather than as a file under `/static/`. */
const servedAsIndex = () => location.pathname === "/" || location.pathname.startsWith("/t/");

/** @param {string} code @param {boolean} [watch] */
export function tableUrl(code, watch = false) {
  if (servedAsIndex()) return `/t/${code}${watch ? "?watch=1" : ""}`;
  return `${location.pathname}?t=${code}${watch ? "&watch=1" : ""}`;
}
export const homeUrl = () => (servedAsIndex() ? "/" : location.pathname);

/** @param {string} url */
function navigate(url) {
  history.pushState({}, "", url);
  window.dispatchEvent(new Event("rr-route"));
}

let autostart = false;
session.stateHooks.push((view) => {
  if (autostart && view.phase === "lobby" && view.you !== null && view.you === view.host &&
      !view.seats.some((s) => s.kind === "open")) {
    autostart = false;
    host("start");
  }
});

/** @param {{code: string}} props */
function NotFound({ code }) {
  return html`<main id="not-found" class="panel not-found">
    <h1>No table here</h1>
    <p>There is no table with the code <strong>${code}</strong>. Check the code, or open a table of your own.</p>
    <a id="btn-home" class="button primary" href=${homeUrl()}
      onClick=${(/** @type {Event} */ e) => { e.preventDefault(); navigate(homeUrl()); }}>Back to the start</a>
  </main>`;
}

function App() {
  const s = useSession();
  const [route, setRoute] = useState(parseRoute);
  const [touring, setTouring] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [missing, setMissing] = useState("");

  useEffect(() => {
    const update = () => { setMissing(""); setRoute(parseRoute()); };
    window.addEventListener("popstate", update);
    window.addEventListener("rr-route", update);
    window.addEventListener("hashchange", update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener("rr-route", update);
      window.removeEventListener("hashchange", update);
    };
  }, []);

  const seated = route.code ? storedSeat(route.code) : null;
  const onTable = !!route.code && (route.watch || !!seated);
  useEffect(() => {
    if (!onTable) { closeTable(); return; }
    if (session.code !== route.code || !session.conn) {
      openTable(route.code, route.watch ? null : seated ? seated.token : null);
    }
  }, [route.code, route.watch, onTable]);
  // The settings close with Escape or a click outside them, as a pop-up does.
  useEffect(() => {
    if (!settingsOpen) return undefined;
    const onKey = (/** @type {KeyboardEvent} */ event) => { if (event.key === "Escape") setSettingsOpen(false); };
    const onDown = (/** @type {MouseEvent} */ event) => {
      const target = /** @type {Element | null} */ (event.target);
      if (target && !target.closest(".settings-pop") && !target.closest("#btn-settings")) setSettingsOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onDown);
    return () => { document.removeEventListener("keydown", onKey); document.removeEventListener("mousedown", onDown); };
  }, [settingsOpen]);

  const view = s.view;
  // The first visit's tour comes before any game clock runs for this person: on the start page, or in a lobby
  // (never over a game being played, where their time would run out while they read).
  const playing = onTable && (!view || view.phase !== "lobby");
  useEffect(() => { if (!playing && !tourSeen()) setTouring(true); }, [playing]);

  const isHost = !!view && view.you !== null && view.you === view.host;

  function leave() {
    const code = session.code;
    if (!view || view.you === null || !code) { navigate(homeUrl()); return; }
    if (view.phase === "playing" && !confirm("Leave the table? A bot plays your seat for the rest of the game.")) return;
    send({ type: "leave" }, (ok) => {
      if (!ok) return;
      storeSeat(code, null);
      navigate(homeUrl());
    });
  }

  let body;
  if (missing) body = html`<${NotFound} code=${missing} />`;
  else if (!onTable) {
    body = html`<${StartPage} code=${route.code}
      onSeated=${(/** @type {any} */ result, /** @type {string} */ _name, /** @type {boolean} */ auto) => {
        storeSeat(result.code, { token: result.token, seat: result.seat });
        autostart = auto;
        navigate(tableUrl(result.code));
      }}
      onWatch=${(/** @type {string} */ code) => navigate(tableUrl(code, true))}
      onNotFound=${(/** @type {string} */ code) => setMissing(code)} />`;
  } else if (s.notFound) body = html`<${NotFound} code=${route.code} />`;
  else if (!view) {
    body = html`<main class="panel connecting"><p>${s.status === "closed" ? closedText(s.closeCode) : "Connecting to the table…"}</p>
      ${s.status === "closed" && html`<a id="btn-home" class="button" href=${homeUrl()}>Back to the start</a>`}</main>`;
  } else {
    const chat = html`<${ChatPanel} chat=${view.chat || []} you=${view.you} seats=${view.seats} muted=${view.muted || []}
      isHost=${isHost} onSend=${(/** @type {string} */ text) => send({ type: "chat", text })}
      onReact=${(/** @type {string} */ emoji) => send({ type: "react", emoji })}
      onMute=${(/** @type {number} */ seat, /** @type {boolean} */ mute) => host(mute ? "mute" : "unmute", { seat })} />`;
    if (view.phase === "lobby") {
      body = html`<main class="lobby-page">
        <${Lobby} view=${view} shareUrl=${`${location.origin}${tableUrl(view.code)}`}
          onStart=${() => host("start")} onLeave=${leave}
          onAddBot=${(/** @type {number} */ seat, /** @type {string} */ level) => host("add_bot", { seat, level })}
          onRemove=${(/** @type {number} */ seat) => host("remove", { seat })} />
        <aside class="panel chat-side" aria-label="Chat">${chat}</aside>
      </main>`;
    } else {
      body = html`<${Table} view=${view} chat=${chat} onLeave=${leave} />`;
    }
  }
  const closed = s.status === "closed" && view && !s.notFound;
  return html`
    <header class="topbar">
      <a class="brand" href=${homeUrl()} onClick=${(/** @type {Event} */ e) => { e.preventDefault(); navigate(homeUrl()); }}>
        <span aria-hidden="true">👑</span> UNO Royal Revenge</a>
      <span class="topbar-right">
        ${onTable && s.status === "connecting" && view && html`<span class="conn warn" role="status">Reconnecting…</span>`}
        <button id="btn-how" type="button" class="icon-btn" aria-label="How to play" onClick=${() => setTouring(true)}>?</button>
        <button id="btn-settings" type="button" class="icon-btn" aria-label="Settings" aria-expanded=${settingsOpen}
          onClick=${() => setSettingsOpen(!settingsOpen)}>⚙</button>
      </span>
    </header>
    ${settingsOpen && html`<div class="settings-pop panel" role="dialog" aria-label="Settings">
      <${SettingsPanel} />
      <button type="button" id="btn-settings-close" onClick=${() => setSettingsOpen(false)}>Close</button></div>`}
    ${closed && html`<p class="banner bad" role="alert">${closedText(s.closeCode)}</p>`}
    ${s.notice && (!onTable || !view || view.phase === "lobby") &&
      html`<p id="notice" class=${`notice ${s.notice.kind}`} role="status">${s.notice.text}</p>`}
    ${body}
    ${touring && html`<${Tour} onDone=${() => setTouring(false)} />`}`;
}

/** Why the connection stopped, in plain words. @param {number} code */
function closedText(code) {
  if (code === 4409) return "This seat was opened in another window or on another device. Reload to play here again.";
  if (code === 4403) return "Your seat at this table is no longer yours. You can watch as a spectator.";
  if (code === 4429) return "Too many tries from your address: wait a minute and reload.";
  if (code === 4400) return "This page is out of date for the server: reload it.";
  return "The connection to the table stopped.";
}

// @ts-ignore: a read-only hook for browser tests and debugging
window.rr = session;
render(html`<${App} />`, document.getElementById("app") || document.body);
void notify;
