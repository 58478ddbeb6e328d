// @ts-check
/**
 * The start page: your name and age, one click against three bots, a table of your own (a friend or a bot
 * level per other seat), joining by code, watching, and the public tables.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { normalizeCode, displayCode } from "./state.js";
import { readStored, writeStored } from "./storage.js";
import { storedSeat, storedTables } from "./session.js";

const html = htm.bind(h);

const LEVELS = [["friend", "A friend"], ["easy", "Easy bot"], ["normal", "Normal bot"], ["hard", "Hard bot"], ["expert", "Expert bot"]];

/**
 * The message of an HTTP error answer, in plain words.
 * @param {any} data
 */
export function errorMessage(data) {
  const detail = data && data.detail;
  if (detail && typeof detail.message === "string") return detail.message;
  if (Array.isArray(detail) && detail[0] && detail[0].msg) return String(detail[0].msg);
  return "Something went wrong; please try again.";
}

/**
 * POSTs JSON; answers `{ok, status, data}` (never throws).
 * @param {string} url @param {any} body
 */
export async function postJson(url, body) {
  try {
    const response = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    return { ok: response.ok, status: response.status, data };
  } catch {
    return { ok: false, status: 0, data: { detail: { message: "The server cannot be reached. Check your connection and try again." } } };
  }
}

/**
 * @typedef {object} StartProps
 * @property {string} [code] a code to join (a shared link)
 * @property {(result: {code: string, seat: number, token: string}, name: string, autostart: boolean) => void} onSeated
 * @property {(code: string) => void} onWatch
 * @property {(code: string) => void} onNotFound
 */

/** @param {StartProps} props */
export function StartPage({ code = "", onSeated, onWatch, onNotFound }) {
  const [name, setName] = useState(() => String(readStored("rr.name", "")));
  const [age, setAge] = useState("");
  const [players, setPlayers] = useState(4);
  const [seats, setSeats] = useState(() => ["normal", "normal", "normal", "normal", "normal"]);
  const [single, setSingle] = useState(false);
  const [target, setTarget] = useState("500");
  const [pace, setPace] = useState("1.2");
  const [turn, setTurn] = useState("30");
  const [isPublic, setPublic] = useState(false);
  const [joinCode, setJoinCode] = useState(code ? displayCode(code) : "");
  const [error, setErrorText] = useState("");
  /** Where the error shows: beside the name for a missing name, else beside the button that was pressed. */
  const [errorAt, setErrorAt] = useState(/** @type {"you" | "create" | "join"} */ ("you"));
  /** Whether the refused join can be a watch instead (the game has started). */
  const [canWatch, setCanWatch] = useState(false);
  /** @param {string} text @param {"you" | "create" | "join"} [at] @param {boolean} [watchable] */
  function setError(text, at = "you", watchable = false) {
    setErrorText(text);
    setErrorAt(at);
    setCanWatch(watchable);
  }
  const [busy, setBusy] = useState(false);
  /** @type {[any[], (tables: any[]) => void]} */
  const [tables, setTables] = useState(/** @type {any[]} */ ([]));

  /** The tables this browser holds a seat at that are still being played or waited for. */
  const [mine, setMine] = useState(/** @type {{code: string, phase: string, name: string}[]} */ ([]));
  useEffect(() => {
    let live = true;
    Promise.all(storedTables().map((table) => fetch(`/api/tables/${table}`)
      .then((r) => (r.ok ? r.json() : null)).catch(() => null)
      .then((data) => {
        const seat = storedSeat(table);
        const view = data && (data.view || data);
        if (!view || !view.phase || view.phase === "finished" || view.closed || !seat) return null;
        const info = Array.isArray(view.seats) ? view.seats[seat.seat] : null;
        return { code: table, phase: String(view.phase), name: info && info.name ? String(info.name) : "" };
      }))).then((found) => { if (live) setMine(found.filter((x) => x !== null)); });
    return () => { live = false; };
  }, []);

  useEffect(() => {
    let live = true;
    fetch("/api/tables").then((r) => (r.ok ? r.json() : { tables: [] })).then((data) => {
      if (live && data && Array.isArray(data.tables)) setTables(data.tables);
    }).catch(() => {});
    return () => { live = false; };
  }, []);

  function person() {
    const trimmed = name.trim();
    if (!trimmed) {
      setError("Please enter your name");
      const field = document.getElementById("name");
      if (field) field.focus();
      return null;
    }
    writeStored("rr.name", trimmed);
    /** @type {any} */
    const body = { name: trimmed };
    if (age !== "") body.age = Number(age);
    return body;
  }

  function settings(count = players) {
    const out = /** @type {any} */ ({ players: count, single_round: single, public: isPublic });
    // Sent as typed (an empty field keeps the default): the server refuses a bad one in plain words.
    if (target !== "") out.target_score = Number(target);
    if (pace !== "") out.bot_delay_seconds = Number(pace);
    if (turn !== "") out.turn_seconds = Number(turn);
    return out;
  }

  /** @param {any} body @param {boolean} autostart */
  async function create(body, autostart) {
    setBusy(true);
    setError("");
    const answer = await postJson("/api/tables", body);
    setBusy(false);
    if (!answer.ok) { setError(errorMessage(answer.data), autostart ? "you" : "create"); return; }
    onSeated(answer.data, body.name, autostart);
  }

  function playBots() {
    const body = person();
    if (!body) return;
    create({ ...body, settings: settings(4), bots: ["normal", "normal", "normal"] }, true);
  }

  /** @param {Event} event */
  function createTable(event) {
    event.preventDefault();
    const body = person();
    if (!body) return;
    const bots = seats.slice(0, players - 1).map((level) => (level === "friend" ? null : level));
    create({ ...body, settings: settings(), bots }, false);
  }

  /** @param {Event} event */
  async function join(event) {
    event.preventDefault();
    const wanted = normalizeCode(joinCode);
    if (!wanted) { setError("Enter the table's code", "join"); return; }
    const body = person();
    if (!body) return;
    setBusy(true);
    setError("");
    const answer = await postJson(`/api/tables/${encodeURIComponent(wanted)}/join`, body);
    setBusy(false);
    if (answer.status === 404) { onNotFound(wanted); return; }
    if (!answer.ok) {
      const detail = answer.data && answer.data.detail;
      setError(errorMessage(answer.data), "join", !!detail && detail.code === "wrong_phase");
      return;
    }
    onSeated(answer.data, body.name, false);
  }

  function watch() {
    const wanted = normalizeCode(joinCode);
    if (!wanted) { setError("Enter the table's code to watch it", "join"); return; }
    onWatch(wanted);
  }

  const errorLine = html`<p id="start-error" class="error" role="alert">${error}${canWatch && html` <button
    id="btn-watch-instead" type="button" onClick=${watch}>Watch it</button>`}</p>`;
  return html`
    <main id="start" class="start">
      <header class="start-head">
        <h1><span aria-hidden="true">👑</span> UNO Royal Revenge</h1>
        <p class="tagline">UNO with a King, a Jester and a scepter that can sound at any moment.</p>
      </header>
      ${mine.length > 0 && html`<section id="your-tables" class="panel" aria-labelledby="your-tables-title">
        <h2 id="your-tables-title">Back to your table</h2>
        <ul class="public-list">${mine.map((table) => html`<li key=${table.code}>
          <a class="button primary" href=${`/t/${table.code}`}>${displayCode(table.code)}</a>
          <span class="muted">${table.phase === "lobby" ? "waiting in the lobby" : "being played"}${table.name ? ` · your seat: ${table.name}` : ""}</span></li>`)}</ul>
      </section>`}
      <section class="panel you-panel" aria-labelledby="you-title">
        <h2 id="you-title" class="visually-hidden">You</h2>
        <div class="field">
          <label for="name">Your name</label>
          <input id="name" maxlength="24" autocomplete="nickname" value=${name}
            onInput=${(/** @type {any} */ e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field small">
          <label for="age">Age <span class="muted">(optional: the youngest is the first King)</span></label>
          <input id="age" type="number" min="0" max="150" inputmode="numeric" value=${age}
            onInput=${(/** @type {any} */ e) => setAge(e.currentTarget.value)} />
        </div>
        <button id="btn-play-bots" class="primary big" type="button" disabled=${busy} onClick=${playBots}>
          Play now against 3 bots</button>
        ${error && errorAt === "you" && errorLine}
      </section>
      <div class="start-grid">
        <form class="panel" onSubmit=${createTable} aria-labelledby="create-title">
          <h2 id="create-title">Open a table for friends</h2>
          <div class="field">
            <label for="players">Seats</label>
            <select id="players" value=${String(players)}
              onChange=${(/** @type {any} */ e) => setPlayers(Number(e.currentTarget.value))}>
              ${[2, 3, 4, 5, 6].map((n) => html`<option key=${n} value=${String(n)}>${n}</option>`)}
            </select>
          </div>
          <ol class="seat-choices">
            ${Array.from({ length: players - 1 }, (_, i) => html`
              <li key=${i}>
                <label for=${`seat-choice-${i + 1}`}>Seat ${i + 2}</label>
                <select id=${`seat-choice-${i + 1}`} class="seat-choice" value=${seats[i]}
                  onChange=${(/** @type {any} */ e) => {
                    const next = [...seats];
                    next[i] = e.currentTarget.value;
                    setSeats(next);
                  }}>
                  ${LEVELS.map(([value, label]) => html`<option key=${value} value=${value}>${label}</option>`)}
                </select>
              </li>`)}
          </ol>
          <details>
            <summary>Rules and clocks</summary>
            <div class="field check">
              <input id="opt-single-round" type="checkbox" checked=${single}
                onChange=${(/** @type {any} */ e) => setSingle(e.currentTarget.checked)} />
              <label for="opt-single-round">A single round</label>
            </div>
            <div class="field">
              <label for="opt-target">Points to win</label>
              <input id="opt-target" type="number" min="1" value=${target}
                onInput=${(/** @type {any} */ e) => setTarget(e.currentTarget.value)} />
            </div>
            <div class="field">
              <label for="opt-turn">Seconds per decision</label>
              <input id="opt-turn" type="number" min="3" max="600" value=${turn}
                onInput=${(/** @type {any} */ e) => setTurn(e.currentTarget.value)} />
            </div>
            <div class="field">
              <label for="opt-bot-delay">Bot pace (seconds per move)</label>
              <input id="opt-bot-delay" type="number" min="0" max="30" step="0.1" value=${pace}
                onInput=${(/** @type {any} */ e) => setPace(e.currentTarget.value)} />
            </div>
            <div class="field check">
              <input id="opt-public" type="checkbox" checked=${isPublic}
                onChange=${(/** @type {any} */ e) => setPublic(e.currentTarget.checked)} />
              <label for="opt-public">List the table publicly while it waits for players</label>
            </div>
          </details>
          <button id="btn-create" class="primary" type="submit" disabled=${busy}>Open the table</button>
          ${error && errorAt === "create" && errorLine}
        </form>
        <form class="panel" onSubmit=${join} aria-labelledby="join-title">
          <h2 id="join-title">Join or watch a table</h2>
          <div class="field">
            <label for="join-code">Table code</label>
            <input id="join-code" maxlength="80" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="K7QMP-WXAB3"
              value=${joinCode} onInput=${(/** @type {any} */ e) => setJoinCode(e.currentTarget.value)} />
          </div>
          <div class="buttons">
            <button id="btn-join" class="primary" type="submit" disabled=${busy}>Join</button>
            <button id="btn-watch" type="button" onClick=${watch}>Watch</button>
          </div>
          ${error && errorAt === "join" && errorLine}
          <h3>Public tables</h3>
          <ul id="public-list" class="public-list">
            ${tables.length === 0 && html`<li class="muted">No public table is waiting right now.</li>`}
            ${tables.map((t) => html`<li key=${t.code}>
              <button type="button" class="link" onClick=${() => setJoinCode(displayCode(t.code))}>
                ${t.host}'s table · ${t.taken}/${t.seats} seats</button></li>`)}
          </ul>
        </form>
      </div>
      <p class="start-foot"><a id="btn-help" class="button" href="/help">How to play: every rule</a></p>
    </main>`;
}
