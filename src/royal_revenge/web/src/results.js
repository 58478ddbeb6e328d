// @ts-check
/**
 * The results: after a round, who went out and the points it brought (counting up), the scores and the
 * countdown to the next deal; after the game, the winner's celebration and the rematch (anyone may ask; the
 * host's asking, or everyone's, starts it).
 */
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import htm from "htm";
import { seatName } from "./state.js";
import { send, serverNow } from "./session.js";
import { prefs } from "./settings.js";

const html = htm.bind(h);

/** @typedef {import("./state.js").View} View */

/**
 * A number that counts up from 0 to `to` over about a second (at once when motion is reduced).
 * @param {{to: number}} props
 */
export function CountUp({ to }) {
  const [shown, setShown] = useState(prefs.motionReduced ? to : 0);
  useEffect(() => {
    if (prefs.motionReduced || to <= 0) { setShown(to); return undefined; }
    const start = performance.now();
    let frame = 0;
    const step = (/** @type {number} */ now) => {
      const done = Math.min(1, (now - start) / 1100);
      setShown(Math.round(to * (1 - (1 - done) ** 3)));
      if (done < 1) frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [to]);
  return html`<span class="count-up">${shown}</span>`;
}

/** Confetti for the winner: a few dozen coloured pieces that fall once (none when motion is reduced). */
function Confetti() {
  if (prefs.motionReduced) return null;
  const colours = ["#d32f2f", "#f4c20d", "#2e8b3a", "#1e6fd0", "#f2c14e"];
  return html`<div class="confetti" aria-hidden="true">${Array.from({ length: 36 }, (_, i) => html`
    <i key=${i} style=${`left:${(i * 37) % 100}%; background:${colours[i % colours.length]};` +
      `animation-delay:${(i % 9) * 0.12}s; --drift:${((i * 53) % 60) - 30}px`}></i>`)}</div>`;
}

/**
 * The round's (or the game's) results over the table; `onClose` shows the table under them again (the chat,
 * the Leave button), `onLeave` leaves the table (or stops watching).
 * @param {{view: View, onClose: () => void, onLeave: () => void}} props
 */
export function Results({ view, onClose, onLeave }) {
  const game = /** @type {import("./state.js").Game} */ (view.game);
  const [asked, setAsked] = useState(false);
  const [, setTick] = useState(0);
  const heading = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  const over = view.phase === "finished" || game.pending.kind === "game_over";
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 500);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => { if (heading.current) heading.current.focus(); }, [over, game.round_no]);
  useEffect(() => { if (!over) setAsked(false); }, [over]);

  const last = game.last_round;
  const target = view.settings && view.settings.target_score;
  const winners = over && game.outcome ? game.outcome.winners : [];
  const you = view.you;
  const youWon = you !== null && winners.includes(you);
  const requests = view.rematch_requests || [];
  const isHost = you !== null && you === view.host;
  const left = view.next_round_deadline ? Math.max(0, Math.ceil(view.next_round_deadline - serverNow())) : null;
  const order = view.seats.map((_, seat) => seat).sort((a, b) => game.scores[b] - game.scores[a] || a - b);

  let title;
  if (over) {
    const names = winners.map((seat) => (seat === you ? "You" : seatName(view, seat)));
    title = youWon && winners.length === 1 ? "You win the game!" : `${names.join(" and ")} ${names.length === 1 ? "wins" : "win"} the game`;
  } else if (last && last.winner !== null && last.winner !== undefined) {
    title = last.winner === you ? `You win round ${last.round_no}!` : `${seatName(view, last.winner)} wins round ${last.round_no}`;
  } else {
    title = `Round ${last ? last.round_no : game.round_no} is blocked: nobody can play`;
  }

  function rematch() {
    setAsked(true);
    send({ type: "rematch" }, (ok) => { if (!ok) setAsked(false); });
  }

  const mine = you !== null && requests.includes(you);
  return html`
    <section id="results" class=${`results panel${over ? " game-over" : ""}`} role="dialog" aria-modal="false"
      aria-labelledby="results-title">
      ${over && winners.length > 0 && html`<${Confetti} />`}
      <h2 id="results-title" tabindex="-1" ref=${heading}>${over && html`<span aria-hidden="true">👑 </span>`}${title}</h2>
      ${last && last.winner !== null && last.winner !== undefined && html`<p class="round-points">
        ${last.winner === you ? "You score" : `${seatName(view, last.winner)} scores`}
        <strong> <${CountUp} to=${last.points} /> points</strong> from the cards left in the other hands.</p>`}
      <table class="scores">
        <thead><tr><th scope="col">Player</th><th scope="col">This round</th><th scope="col">Total</th></tr></thead>
        <tbody>
          ${order.map((seat) => html`<tr key=${seat} class=${`${winners.includes(seat) ? "winner" : ""}${seat === you ? " you" : ""}`}>
            <th scope="row">${seatName(view, seat)}${seat === you ? " (you)" : ""}</th>
            <td>${last && last.hand_points ? `${last.hand_points[seat]} in hand` : ""}</td>
            <td><strong>${game.scores[seat]}</strong></td></tr>`)}
        </tbody>
      </table>
      ${!over && target && !(view.settings && view.settings.single_round) && html`<p class="muted">First to ${target} points wins.</p>`}
      ${!over && left !== null && html`<p id="next-round-countdown" class="countdown" aria-live="off">
        The next round is dealt in <strong>${left}</strong> second${left === 1 ? "" : "s"}</p>`}
      ${over && html`<div class="rematch">
        ${requests.length > 0 && html`<ul class="rematch-requests">
          ${requests.map((seat) => html`<li key=${seat} class="rematch-request">${seat === you ? "You ask" : `${seatName(view, seat)} asks`} for a rematch</li>`)}</ul>`}
        ${you !== null && html`<button id="btn-rematch" type="button" class="primary big" disabled=${asked && !isHost || mine}
          onClick=${rematch}>${isHost ? (requests.length ? "Accept: play again" : "Play again") : mine ? "Asked for a rematch" : "Ask for a rematch"}</button>`}
        ${you !== null && !isHost && html`<p class="muted">The game starts again when ${seatName(view, view.host) || "the host"} accepts, or when everyone asks.</p>`}
      </div>`}
      <div class="results-actions">
        <button id="btn-results-close" type="button" onClick=${onClose}>${over ? "See the table" : "See the table until the deal"}</button>
        ${over && html`<button id="btn-results-leave" type="button" onClick=${onLeave}>${you === null ? "Stop watching" : "Leave the table"}</button>`}
      </div>
    </section>`;
}
