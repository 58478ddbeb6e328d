// UNO Royal Revenge in the browser: a client of the server's WebSocket protocol (docs/protocol.md).
// The page holds no rules: it draws the view the server sends and sends the actions the server lists as legal.

const $ = (id) => document.getElementById(id);
const COLOURS = { R: "red", Y: "yellow", G: "green", B: "blue" };
const SYMBOLS = { R: ["⇄", "Reverse"], S: ["⊘", "Skip"], K: ["♔+1", "King's Choice"], J: ["🃏+1", "Jester"] };
const KIND_TEXT = {
  turn: "play a card or draw",
  drawn: "play the drawn card or keep it",
  colour: "choose the Wild's colour",
  victim: "choose who draws for the King's Choice",
  jester: "choose the Jester",
  round_over: "the round is over",
  game_over: "the game is over",
};

const app = {
  code: null, token: null, seat: null, spectator: false,
  ws: null, view: null, serverOffset: 0, retry: 0, idCounter: 0,
  lastLog: 0, selected: 0, muted: localStorage.getItem("rr:muted") === "1",
  shownResult: null, closing: false,
};

// ---------------------------------------------------------------- table codes

// A code as typed or read aloud ("k7qmp-wxab3", "K7QMP WXAB3"), in the server's form: no dashes or spaces,
// upper case (the server accepts either; session/table.py normalize_code).
const normalizeCode = (text) => text.replace(/[\s-]+/g, "").toUpperCase();
// A code as people read it: a long one in groups of five, an old 6-letter one whole (display_code).
const displayCode = (code) => (code.length <= 6 ? code : code.match(/.{1,5}/g).join("-"));

// ---------------------------------------------------------------- cards

function cardParts(text) {
  if (text === "W") return { colour: null, label: "W", symbol: "★", name: "Wild" };
  const colour = COLOURS[text[0]];
  const rest = text.slice(1);
  if (/^[1-8]$/.test(rest)) return { colour, label: rest, symbol: rest, name: `${colour} ${rest}` };
  const [symbol, word] = SYMBOLS[rest];
  return { colour, label: rest, symbol, name: `${colour} ${word}`, word };
}

function cardElement(text, { tag = "div", playable = false } = {}) {
  const parts = cardParts(text);
  const el = document.createElement(tag);
  el.className = `card ${parts.colour || "wild"}` + (playable ? " playable" : "");
  el.dataset.card = text;
  if (tag !== "button") el.setAttribute("role", "img");
  el.setAttribute("aria-label", parts.name + (playable ? ", playable" : ""));
  el.innerHTML = `<span class="corner">${text}</span><span class="symbol">${parts.symbol}</span>` +
    `<span class="word">${parts.word || (parts.colour ? parts.colour : "Wild")}</span>`;
  return el;
}

// ---------------------------------------------------------------- sound

let audio = null;
function fanfareSound() {
  if (app.muted) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const notes = [523.25, 659.25, 783.99, 1046.5, 783.99, 1046.5];
    const lengths = [0.12, 0.12, 0.12, 0.3, 0.12, 0.5];
    let t = audio.currentTime + 0.02;
    notes.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.25, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + lengths[i]);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + lengths[i] + 0.05);
      t += lengths[i];
    });
  } catch (e) { /* no audio available: the banner still shows */ }
}

function setMuted(muted) {
  app.muted = muted;
  localStorage.setItem("rr:muted", muted ? "1" : "0");
  $("mute").textContent = muted ? "🔇" : "🔊";
  $("mute").setAttribute("aria-pressed", String(muted));
  $("mute").setAttribute("aria-label", muted ? "Unmute the fanfare" : "Mute the fanfare");
}

let bannerTimer = null;
function banner(text, kind = "") {
  const el = $("banner");
  el.textContent = text;
  el.className = `banner ${kind}`;
  el.hidden = false;
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => { el.hidden = true; }, 3500);
}

// ---------------------------------------------------------------- routing

function show(page) {
  for (const id of ["start", "table", "replay"]) $(id).hidden = id !== page;
}

function route() {
  const match = location.pathname.match(/^\/t\/([^/?#]+)/);
  if (!match) { show("start"); setupStart(); return; }
  let typed = match[1];
  try { typed = decodeURIComponent(typed); } catch (e) { /* a malformed %-escape: the code as it stands */ }
  app.code = normalizeCode(typed);
  const params = new URLSearchParams(location.search);
  if (params.has("replay")) { show("replay"); loadReplay(); return; }
  const saved = JSON.parse(localStorage.getItem(`rr:${app.code}`) || "null");
  if (saved && !params.has("watch")) {
    app.token = saved.token;
    app.seat = saved.seat;
  } else if (!params.has("watch")) {
    show("start");
    setupStart();
    $("j-code").value = displayCode(app.code);
    $("j-name").focus();
    return;
  }
  app.spectator = !app.token;
  show("table");
  $("t-code").textContent = displayCode(app.code);
  connect();
}

// ---------------------------------------------------------------- start page

function setupStart() {
  const players = $("c-players");
  const renderBots = () => {
    const box = $("c-bots");
    box.innerHTML = "";
    for (let seat = 2; seat <= Number(players.value); seat++) {
      const id = `c-bot-${seat}`;
      const wrap = document.createElement("div");
      wrap.innerHTML = `<label for="${id}">Seat ${seat}</label>` +
        `<select id="${id}"><option value="">friend</option><option value="easy">easy bot</option>` +
        `<option value="normal" selected>normal bot</option><option value="hard">hard bot</option></select>`;
      box.appendChild(wrap);
    }
  };
  players.onchange = renderBots;
  renderBots();
  const remembered = localStorage.getItem("rr:name") || "";
  $("c-name").value = $("c-name").value || remembered;
  $("j-name").value = $("j-name").value || remembered;

  $("create-form").onsubmit = async (event) => {
    event.preventDefault();
    $("create-error").textContent = "";
    const n = Number(players.value);
    const bots = [];
    for (let seat = 2; seat <= n; seat++) { const v = $(`c-bot-${seat}`).value; if (v) bots.push(v); }
    const body = {
      name: $("c-name").value.trim(),
      age: $("c-age").value === "" ? null : Number($("c-age").value),
      bots,
      settings: {
        players: n,
        target_score: Number($("c-target").value),
        scoring: $("c-scoring").value,
        single_round: $("c-single").checked,
        two_player_reverse_skips: $("c-revskip").checked,
        turn_seconds: Number($("c-turn").value),
        scepter_min_seconds: Number($("c-smin").value),
        scepter_max_seconds: Number($("c-smax").value),
        bot_delay_seconds: Number($("c-botdelay").value),
      },
    };
    const result = await post("/api/tables", body, "create-error");
    if (result) enterTable(result, body.name);
  };

  $("join-form").onsubmit = async (event) => {
    event.preventDefault();
    $("join-error").textContent = "";
    const code = normalizeCode($("j-code").value);
    const name = $("j-name").value.trim();
    const body = { name, age: $("j-age").value === "" ? null : Number($("j-age").value) };
    const result = await post(`/api/tables/${encodeURIComponent(code)}/join`, body, "join-error");
    if (result) enterTable(result, name);
  };

  $("watch-btn").onclick = () => {
    const code = normalizeCode($("j-code").value);
    if (!code) { $("join-error").textContent = "Enter the table's code to watch it."; return; }
    location.href = `/t/${encodeURIComponent(code)}?watch=1`;
  };
}

async function post(url, body, errorId) {
  try {
    const response = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const detail = data.detail;
      let message = "Something went wrong.";
      if (detail && detail.message) message = detail.message;
      else if (Array.isArray(detail) && detail[0]) message = `${detail[0].loc.slice(-1)[0]}: ${detail[0].msg}`;
      $(errorId).textContent = message;
      return null;
    }
    return data;
  } catch (e) {
    $(errorId).textContent = "The server cannot be reached. Check your connection and try again.";
    return null;
  }
}

function enterTable(result, name) {
  localStorage.setItem("rr:name", name);
  localStorage.setItem(`rr:${result.code}`, JSON.stringify({ token: result.token, seat: result.seat }));
  history.pushState({}, "", result.url);
  route();
}

// ---------------------------------------------------------------- connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // Protocol 4: the seat token goes in the first message, never in the URL (URLs end up in logs).
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${app.code}`);
  app.ws = ws;
  setConn("connecting…", "warn");
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: "hello", token: app.token || null }));
    app.retry = 0;
    setConn(app.spectator ? "watching" : "connected", "ok");
  };
  ws.onmessage = (event) => onMessage(JSON.parse(event.data));
  ws.onclose = (event) => {
    if (app.ws !== ws) return;
    if (event.code === 4403) {
      localStorage.removeItem(`rr:${app.code}`);
      setConn("your seat is no longer yours", "bad");
      banner("Your seat token is not valid at this table any more (kicked?). You can watch as a spectator.", "bad");
      return;
    }
    if (event.code === 4404) { setConn("no such table", "bad"); banner(`There is no table ${displayCode(app.code)}.`, "bad"); return; }
    if (event.code === 4429) { setConn("too many tries", "bad"); banner("Too many tries from your address: reload the page in a minute.", "bad"); return; }
    if (event.code === 4409) {
      setConn("opened elsewhere", "bad");
      banner("This seat was opened in another window or on another device, so this page stopped. Reload it to play here again.", "bad");
      return;
    }
    if (event.code === 4400) {
      setConn("out of date", "bad");
      banner("This page is out of date for the server. Reload it.", "bad");
      return;
    }
    const delay = Math.min(10000, 500 * 2 ** app.retry++);
    setConn(`reconnecting in ${Math.round(delay / 1000)} s…`, "warn");
    setTimeout(connect, delay);
  };
}

function setConn(text, kind) {
  const el = $("conn");
  el.textContent = text;
  el.className = `conn ${kind}`;
}

function send(message) {
  if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify(message));
}

function act(action) {
  send({ type: "action", id: `a${Date.now().toString(36)}${(app.idCounter++).toString(36)}`, action });
}

function host(command, extra = {}) {
  send({ type: "host", id: `h${Date.now().toString(36)}${(app.idCounter++).toString(36)}`, command, ...extra });
}

// Protocol 2 (docs/protocol.md): a partial view holds only what changed, one level deep into game; log entries are appended.
function mergeState(previous, message) {
  if (message.full !== false || !previous) return message.view;
  const merged = { ...previous, ...message.view };
  if (message.view.game && previous.game) merged.game = { ...previous.game, ...message.view.game };
  const start = message.log_from || 0;
  merged.log = (previous.log || []).concat(message.view.log || []).filter((entry) => entry.n >= start);
  return merged;
}

function onMessage(message) {
  if (message.type === "state") {
    if (message.server_time) app.serverOffset = message.server_time * 1000 - Date.now();
    const previous = app.view;
    app.view = mergeState(previous, message);
    render(previous);
  } else if (message.type === "error") {
    if (message.code !== "rate_limited") banner(message.message, "bad");
  }
}

// ---------------------------------------------------------------- rendering

function seatName(seat) {
  const info = app.view && app.view.seats[seat];
  return (info && info.name) || `Seat ${seat + 1}`;
}

function legalOf(type) { return (app.view.legal || []).filter((a) => a.type === type); }

function render(previous) {
  const view = app.view;
  const game = view.game;
  $("lobby").hidden = view.phase !== "lobby";
  document.body.classList.toggle("in-lobby", view.phase === "lobby");
  renderPlayers();
  if (view.phase === "lobby") { renderLobby(); renderLog(); return; }
  $("t-round").textContent = `Round ${game.round_no} · to ${game.options.target_score} points` +
    (app.spectator ? " · spectating" : "");
  renderCentre(previous);
  renderPending();
  renderHand(previous);
  renderActions();
  renderDialogs();
  renderLog();
  renderResults(previous);
}

function renderPlayers() {
  const view = app.view;
  const game = view.game;
  const box = $("players");
  box.innerHTML = "";
  view.seats.forEach((info, seat) => {
    const el = document.createElement("div");
    el.className = "player";
    el.setAttribute("role", "listitem");
    if (game) {
      if (game.current === seat && ["turn", "drawn"].includes(game.pending.kind)) el.classList.add("current");
      if (game.pending.seat === seat) el.classList.add("deciding");
    }
    if (seat === view.you) el.classList.add("you");
    const badges = [];
    if (game && game.king === seat) badges.push('<span class="badge crown" title="King">👑 King</span>');
    if (game && game.jester === seat) badges.push('<span class="badge jester" title="Jester">🎭 Jester</span>');
    if (info.kind === "bot") badges.push(`<span class="badge">bot · ${info.level}</span>`);
    if (info.autopilot) badges.push('<span class="badge">bot playing</span>');
    if (info.kind === "human" && info.connected === false) badges.push('<span class="badge off">offline</span>');
    const count = game ? game.hand_sizes[seat] : "–";
    const score = game ? game.scores[seat] : 0;
    el.innerHTML = `<div class="pname">${escapeHtml(info.name || (info.kind === "open" ? "open seat" : `Seat ${seat + 1}`))}` +
      `${seat === view.you ? " (you)" : ""}</div>` +
      `<div class="pstats"><span aria-label="cards">🂠 ${count}</span> <span aria-label="score">★ ${score}</span></div>` +
      `<div class="badges">${badges.join(" ")}</div>`;
    el.setAttribute("aria-label", `${info.name || "open seat"}: ${count} cards, ${score} points` +
      (game && game.king === seat ? ", King" : "") + (game && game.jester === seat ? ", Jester" : ""));
    box.appendChild(el);
  });
}

function renderLobby() {
  const view = app.view;
  $("lobby-code").textContent = displayCode(view.code);
  const list = $("lobby-seats");
  list.innerHTML = "";
  const isHost = view.you !== null && view.you === view.host;
  view.seats.forEach((info, seat) => {
    const li = document.createElement("li");
    li.textContent = info.kind === "open" ? "open seat" : `${info.name}${info.kind === "bot" ? ` (${info.level} bot)` : ""}` +
      `${seat === view.host ? " · host" : ""}`;
    if (isHost && info.kind !== "open" && seat !== view.host) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "small";
      button.textContent = info.kind === "bot" ? "Remove" : "Kick";
      button.setAttribute("aria-label", `${button.textContent} ${info.name}`);
      button.onclick = () => host("remove", { seat });
      li.appendChild(button);
    }
    list.appendChild(li);
  });
  $("host-controls").hidden = !isHost;
  $("start-game").disabled = view.seats.some((s) => s.kind === "open");
}

function renderCentre(previous) {
  const game = app.view.game;
  const discard = $("discard");
  const changed = !previous || !previous.game || previous.game.discard_pile.length !== game.discard_pile.length ||
    previous.game.top !== game.top;
  discard.innerHTML = "";
  const top = cardElement(game.top);
  if (changed) top.classList.add("arrive");
  discard.appendChild(top);
  $("draw-count").textContent = game.draw_pile_size;
  const colour = game.active_colour ? COLOURS[game.active_colour] : null;
  const ac = $("active-colour");
  ac.className = `active-colour ${colour || ""}`;
  ac.textContent = colour ? `Colour: ${colour}` : "Colour: being chosen";
  $("direction").textContent = game.direction === 1 ? "Play goes left ↻" : "Play goes right ↺";
  const canDraw = legalOf("draw").length > 0;
  $("draw-pile").disabled = !canDraw;
  $("draw-pile").classList.toggle("playable", canDraw);
}

function renderPending() {
  const game = app.view.game;
  const pending = game.pending;
  let text;
  if (pending.seat === null || pending.seat === undefined) text = KIND_TEXT[pending.kind];
  else if (pending.seat === app.view.you) text = `Your move: ${KIND_TEXT[pending.kind]}`;
  else {
    const who = ["colour", "victim", "jester"].includes(pending.kind) ? `King ${seatName(pending.seat)}` : seatName(pending.seat);
    text = `${who} must ${KIND_TEXT[pending.kind]}`;
  }
  if (game.fanfare_queued) text += " · the fanfare has sounded!";
  $("pending-text").textContent = text;
  $("pending").classList.toggle("mine", pending.seat === app.view.you);
}

function tickCountdown() {
  const view = app.view;
  const bar = $("countdown-bar");
  if (!view || !view.decision_deadline || view.phase !== "playing") {
    bar.style.width = "0%";
    $("countdown-text").textContent = "";
    return;
  }
  const total = view.settings.turn_seconds;
  const left = Math.max(0, view.decision_deadline - (Date.now() + app.serverOffset) / 1000);
  bar.style.width = `${Math.min(100, (left / total) * 100)}%`;
  bar.classList.toggle("low", left < 5);
  $("countdown-text").textContent = `${Math.ceil(left)} s`;
}
setInterval(tickCountdown, 250);

function renderHand(previous) {
  const game = app.view.game;
  const hand = $("hand");
  hand.innerHTML = "";
  if (app.spectator) { hand.innerHTML = '<p class="muted">Spectators see no hand.</p>'; return; }
  const playable = new Set(legalOf("play").map((a) => a.card));
  const sorted = [...game.hand];
  const previousCount = previous && previous.game ? previous.game.hand.length : sorted.length;
  app.selected = Math.min(app.selected, Math.max(0, sorted.length - 1));
  sorted.forEach((text, index) => {
    const el = cardElement(text, { tag: "button", playable: playable.has(text) });
    el.type = "button";
    el.setAttribute("role", "option");
    el.setAttribute("aria-selected", String(index === app.selected));
    if (index === app.selected) el.classList.add("selected");
    if (game.drawn && text === game.drawn && index === sorted.lastIndexOf(text)) el.classList.add("drawn");
    if (index >= previousCount) el.classList.add("arrive");
    el.title = `${index + 1}`;
    el.onclick = () => { app.selected = index; playCard(text); };
    hand.appendChild(el);
  });
}

function playCard(text) {
  const options = legalOf("play").filter((a) => a.card === text);
  if (!options.length) { banner(`${cardParts(text).name} cannot be played now.`, "warn"); return; }
  // With the next-to-last card, call UNO with it: the thing a careful player does.
  const withUno = options.find((a) => a.uno);
  act(withUno || options[0]);
}

function renderActions() {
  const legal = app.view.legal || [];
  const has = (type) => legal.some((a) => a.type === type);
  $("btn-draw").disabled = !has("draw");
  $("btn-keep").hidden = !has("keep");
  $("btn-uno").hidden = !has("uno") && !legal.some((a) => a.type === "play" && a.uno);
  const catchable = legal.find((a) => a.type === "catch");
  $("btn-catch").hidden = !catchable;
  if (catchable) $("btn-catch").textContent = `Catch ${seatName(catchable.seat)}!`;
}

function renderDialogs() {
  const view = app.view;
  const pending = view.game.pending;
  const mine = pending.seat === view.you && !app.spectator;
  const colourDlg = $("dlg-colour");
  const seatDlg = $("dlg-seat");
  if (mine && pending.kind === "colour") {
    const box = $("colour-choices");
    box.innerHTML = "";
    legalOf("colour").forEach((a) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `colour-choice ${COLOURS[a.colour]}`;
      button.textContent = `${COLOURS[a.colour]} (${a.colour})`;
      button.onclick = () => { colourDlg.close(); act(a); };
      box.appendChild(button);
    });
    if (!colourDlg.open) colourDlg.showModal();
  } else if (colourDlg.open) colourDlg.close();

  if (mine && (pending.kind === "victim" || pending.kind === "jester")) {
    const victim = pending.kind === "victim";
    $("dlg-seat-title").textContent = victim ? "You are the King: who draws for the King's Choice?" :
      "You are the King: who wears the Jester Hat?";
    $("dlg-seat-text").textContent = victim ? "Any player, yourself included, draws one card." :
      "Anyone but you; the Jester draws for every Jester card.";
    const box = $("seat-choices");
    box.innerHTML = "";
    legalOf(pending.kind).forEach((a) => {
      const button = document.createElement("button");
      button.type = "button";
      const count = view.game.hand_sizes[a.seat];
      button.textContent = `${a.seat + 1}. ${seatName(a.seat)}${a.seat === view.you ? " (you)" : ""} · ${count} cards · ★ ${view.game.scores[a.seat]}`;
      button.onclick = () => { seatDlg.close(); act(a); };
      box.appendChild(button);
    });
    if (!seatDlg.open) seatDlg.showModal();
  } else if (seatDlg.open) seatDlg.close();
}

function renderLog() {
  const list = $("log");
  const entries = app.view.log || [];
  list.innerHTML = "";
  for (const entry of entries.slice(-40).reverse()) {
    const li = document.createElement("li");
    li.textContent = entry.text;
    li.className = `log-${entry.kind}`;
    list.appendChild(li);
  }
  const fresh = entries.filter((e) => e.n > app.lastLog);
  if (app.lastLog > 0) {
    for (const entry of fresh) {
      if (entry.kind === "FanfareSounded") { fanfareSound(); banner("🎺 FANFARE! The scepter sounds!", "fanfare"); }
      if (entry.kind === "CrownPassed") {
        banner(`👑 ${entry.text}`, "fanfare");
        document.querySelectorAll(".crown").forEach((el) => el.classList.add("moved"));
      }
      if (entry.kind === "Caught") banner(entry.text, "warn");
    }
  }
  if (entries.length) app.lastLog = entries[entries.length - 1].n;
}

function renderResults(previous) {
  const view = app.view;
  const game = view.game;
  const dlg = $("dlg-result");
  const over = view.phase === "finished" || game.pending.kind === "round_over" || game.pending.kind === "game_over";
  const key = over && game.last_round ? `${view.game_no}/${game.last_round.round_no}/${view.phase}` : null;
  if (!key) { if (dlg.open && view.phase === "playing") dlg.close(); return; }
  if (app.shownResult === key) return;
  app.shownResult = key;
  const result = game.last_round;
  const finished = view.phase === "finished";
  $("dlg-result-title").textContent = finished && game.outcome
    ? `${game.outcome.winners.map(seatName).join(" and ")} won the game!`
    : `${seatName(result.winner)} wins round ${result.round_no}${result.blocked ? " (blocked)" : ""}`;
  const rows = view.seats.map((_, seat) =>
    `<tr><th scope="row">${escapeHtml(seatName(seat))}</th><td>${result.hand_points[seat]}</td><td>${game.scores[seat]}</td></tr>`).join("");
  $("result-body").innerHTML = `<p>The round is worth ${result.points} points.</p>` +
    `<table class="scores"><thead><tr><th scope="col">Player</th><th scope="col">Left in hand</th>` +
    `<th scope="col">Score (to ${game.options.target_score})</th></tr></thead><tbody>${rows}</tbody></table>` +
    (finished ? "" : `<p class="muted">The next round is dealt in a few seconds.</p>`);
  $("rematch").hidden = !(finished && view.you === view.host);
  $("download-record").hidden = !finished;
  $("download-record").href = `/api/tables/${view.code}/record`;
  $("open-replay").hidden = !finished;
  $("open-replay").href = `/t/${view.code}?replay=1`;
  if (!dlg.open) dlg.showModal();
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// ---------------------------------------------------------------- replay

async function loadReplay() {
  $("r-code").textContent = displayCode(app.code);
  const response = await fetch(`/api/tables/${app.code}/replay`);
  const data = await response.json();
  if (!response.ok) { $("r-view").textContent = (data.detail && data.detail.message) || "No replay available."; return; }
  const frames = data.frames;
  const slider = $("r-slider");
  slider.max = frames.length - 1;
  const draw = (index) => {
    index = Math.max(0, Math.min(frames.length - 1, index));
    slider.value = index;
    const f = frames[index];
    $("r-pos").textContent = `move ${index} of ${frames.length - 1}${f.move ? `: ${f.move}` : ""}`;
    const box = $("r-view");
    box.innerHTML = `<p>Round ${f.round_no} · top ${f.discard_top}` +
      `${f.active_colour ? ` · colour ${COLOURS[f.active_colour]}` : ""} · ${f.direction === 1 ? "left ↻" : "right ↺"}</p>`;
    f.hands.forEach((hand, seat) => {
      const row = document.createElement("div");
      row.className = "replay-row";
      const label = document.createElement("div");
      label.className = "pname";
      label.textContent = `${data.seats[seat]}${f.king === seat ? " 👑" : ""}${f.jester === seat ? " 🎭" : ""} · ★ ${f.scores[seat]}`;
      row.appendChild(label);
      const cards = document.createElement("div");
      cards.className = "hand small";
      hand.forEach((c) => cards.appendChild(cardElement(c)));
      row.appendChild(cards);
      box.appendChild(row);
    });
    const log = document.createElement("ul");
    f.log.forEach((line) => { const li = document.createElement("li"); li.textContent = line; log.appendChild(li); });
    box.appendChild(log);
  };
  slider.oninput = () => draw(Number(slider.value));
  $("r-first").onclick = () => draw(0);
  $("r-prev").onclick = () => draw(Number(slider.value) - 1);
  $("r-next").onclick = () => draw(Number(slider.value) + 1);
  $("r-last").onclick = () => draw(frames.length - 1);
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") draw(Number(slider.value) - 1);
    if (e.key === "ArrowRight") draw(Number(slider.value) + 1);
  });
  draw(0);
}

// ---------------------------------------------------------------- controls

function bindControls() {
  setMuted(app.muted);
  $("mute").onclick = () => setMuted(!app.muted);
  $("help-btn").onclick = () => $("dlg-help").showModal();
  $("help-close").onclick = () => $("dlg-help").close();
  $("result-close").onclick = () => $("dlg-result").close();
  $("rematch").onclick = () => { $("dlg-result").close(); host("rematch"); };
  $("copy-link").onclick = async () => {
    const link = `${location.origin}/t/${app.code}`;
    try { await navigator.clipboard.writeText(link); banner("Invite link copied."); } catch (e) { banner(link); }
  };
  $("draw-pile").onclick = () => { const a = legalOf("draw")[0]; if (a) act(a); };
  $("btn-draw").onclick = () => { const a = legalOf("draw")[0]; if (a) act(a); };
  $("btn-keep").onclick = () => { const a = legalOf("keep")[0]; if (a) act(a); };
  $("btn-uno").onclick = () => {
    const call = legalOf("uno")[0];
    if (call) { act(call); return; }
    const card = $("hand").children[app.selected];
    const withCard = legalOf("play").find((a) => a.uno && (!card || a.card === card.dataset.card)) ||
      legalOf("play").find((a) => a.uno);
    if (withCard) act(withCard);
  };
  $("btn-catch").onclick = () => { const a = legalOf("catch")[0]; if (a) act(a); };
  $("add-bot").onclick = () => host("add_bot", { level: $("bot-level").value });
  $("start-game").onclick = () => host("start");
  window.addEventListener("popstate", route);

  document.addEventListener("keydown", (event) => {
    if (!app.view || !app.view.game || $("table").hidden) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const key = event.key;
    const pending = app.view.game.pending;
    const mine = pending.seat === app.view.you;
    if (mine && pending.kind === "colour" && "rygbRYGB".includes(key) && key.length === 1) {
      const a = legalOf("colour").find((c) => c.colour === key.toUpperCase());
      if (a) { $("dlg-colour").close(); act(a); }
      return;
    }
    if (mine && (pending.kind === "victim" || pending.kind === "jester") && /^[1-6]$/.test(key)) {
      const a = legalOf(pending.kind).find((c) => c.seat === Number(key) - 1);
      if (a) { $("dlg-seat").close(); act(a); }
      return;
    }
    const hand = $("hand").children;
    if (key === "ArrowRight" || key === "ArrowLeft") {
      if (!hand.length) return;
      app.selected = (app.selected + (key === "ArrowRight" ? 1 : hand.length - 1)) % hand.length;
      render(app.view);
      $("hand").children[app.selected]?.focus();
      event.preventDefault();
    } else if (key === "Enter" && hand[app.selected] && document.activeElement?.tagName !== "BUTTON") {
      playCard(hand[app.selected].dataset.card);
    } else if (/^[1-9]$/.test(key) && hand[Number(key) - 1]) {
      app.selected = Number(key) - 1;
      playCard(hand[app.selected].dataset.card);
    } else if (key === "d" || key === "D") $("btn-draw").click();
    else if (key === "k" || key === "K") $("btn-keep").click();
    else if (key === "u" || key === "U") $("btn-uno").click();
    else if (key === "c" || key === "C") $("btn-catch").click();
    else if (key === "?") $("dlg-help").showModal();
  });
}

window.rr = app; // read-only hook for browser tests and debugging
bindControls();
route();
