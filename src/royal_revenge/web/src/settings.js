// @ts-check
/**
 * The player's preferences (kept in localStorage `rr.prefs`) and the settings panel.
 *
 * `prefs` is a small signal-like store: read a preference as a property (`prefs.unoAssist`), change some
 * with `prefs.set({...})`, follow changes with `prefs.subscribe(fn)` or, in a component, `usePrefs()`.
 * The sound's volume and mute live in sound.js (`rr.sound`); the panel shows both.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { sound } from "./sound.js";
import { addStyle, readStored, writeStored } from "./storage.js";

const html = htm.bind(h);
const KEY = "rr.prefs";

/**
 * @typedef {object} Prefs
 * @property {boolean} unoAssist call UNO for me when I play my next-to-last card
 * @property {boolean} colourBlind a shape per colour on the cards
 * @property {'colour'|'number'|'none'} sort how the hand is sorted
 * @property {'system'|'on'|'off'} reducedMotion less motion: as the system says, always, or never
 * @property {boolean} notifications a desktop notification when I must decide and the tab is hidden
 */

/** @type {Readonly<Prefs>} */
export const DEFAULT_PREFS = Object.freeze({
  unoAssist: false, colourBlind: false, sort: "colour", reducedMotion: "system", notifications: false,
});

const SORTS = ["colour", "number", "none"];
const MOTIONS = ["system", "on", "off"];

/**
 * Keeps only known keys with valid values.
 * @param {unknown} raw
 * @returns {Prefs}
 */
function clean(raw) {
  const value = /** @type {Record<string, unknown>} */ (raw && typeof raw === "object" ? raw : {});
  return {
    unoAssist: typeof value.unoAssist === "boolean" ? value.unoAssist : DEFAULT_PREFS.unoAssist,
    colourBlind: typeof value.colourBlind === "boolean" ? value.colourBlind : DEFAULT_PREFS.colourBlind,
    sort: /** @type {Prefs['sort']} */ (SORTS.includes(/** @type {string} */ (value.sort)) ? value.sort : DEFAULT_PREFS.sort),
    reducedMotion: /** @type {Prefs['reducedMotion']} */ (
      MOTIONS.includes(/** @type {string} */ (value.reducedMotion)) ? value.reducedMotion : DEFAULT_PREFS.reducedMotion),
    notifications: typeof value.notifications === "boolean" ? value.notifications : DEFAULT_PREFS.notifications,
  };
}

/** @type {Prefs} */
let current = clean(readStored(KEY, {}));
/** @type {Set<(prefs: Prefs) => void>} */
const listeners = new Set();

/** Whether the system asks for less motion. */
function systemReducedMotion() {
  try {
    return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  } catch {
    return false;
  }
}

/** Mirrors the preferences that styles need on the root element (`data-colour-blind`, `data-reduced-motion`). */
function applyToDocument() {
  if (typeof document === "undefined") return;
  const root = document.documentElement;
  root.dataset.colourBlind = String(current.colourBlind);
  root.dataset.reducedMotion = String(prefs.motionReduced);
}

export const prefs = {
  get unoAssist() { return current.unoAssist; },
  get colourBlind() { return current.colourBlind; },
  get sort() { return current.sort; },
  get reducedMotion() { return current.reducedMotion; },
  get notifications() { return current.notifications; },
  /** All preferences at once (a copy). @returns {Prefs} */
  get value() { return { ...current }; },
  /** Whether motion should be reduced now: `reducedMotion` resolved against the system's setting. */
  get motionReduced() {
    return current.reducedMotion === "on" || (current.reducedMotion === "system" && systemReducedMotion());
  },
  /**
   * Changes some preferences (invalid values are ignored) and keeps them.
   * @param {Partial<Prefs>} changes
   */
  set(changes) {
    const next = clean({ ...current, ...changes });
    if (JSON.stringify(next) === JSON.stringify(current)) return;
    current = next;
    writeStored(KEY, current);
    applyToDocument();
    for (const listener of [...listeners]) {
      try { listener(prefs.value); } catch { /* ignore a listener's fault */ }
    }
  },
  /**
   * Calls `listener` with the preferences after every change; returns the function that stops it.
   * @param {(prefs: Prefs) => void} listener
   * @returns {() => void}
   */
  subscribe(listener) {
    listeners.add(listener);
    return () => { listeners.delete(listener); };
  },
  /** Reads the stored preferences again (another tab may have changed them). */
  reload() {
    current = clean(readStored(KEY, {}));
    applyToDocument();
    for (const listener of [...listeners]) {
      try { listener(prefs.value); } catch { /* ignore */ }
    }
  },
};

if (typeof window !== "undefined") {
  applyToDocument();
  window.addEventListener("storage", (event) => { if (event.key === KEY) prefs.reload(); });
  try {
    window.matchMedia("(prefers-reduced-motion: reduce)").addEventListener("change", applyToDocument);
  } catch { /* old browsers */ }
}

/**
 * The preferences as component state, re-rendering on every change.
 * @returns {Prefs}
 */
export function usePrefs() {
  const [value, setValue] = useState(prefs.value);
  useEffect(() => prefs.subscribe(setValue), []);
  return value;
}

/** The sound's volume and mute as component state. */
export function useSound() {
  const [, setTick] = useState(0);
  useEffect(() => sound.subscribe(() => setTick((tick) => tick + 1)), []);
  return { volume: sound.volume, muted: sound.muted };
}

addStyle("rr-settings-style", `
#settings { display: grid; gap: 0.75rem; margin: 0; padding: 0; border: 0; min-width: 0; }
#settings .opt { display: flex; align-items: center; gap: 0.6rem; flex-wrap: wrap; min-height: 36px; }
#settings .opt input[type="checkbox"] { flex: none; width: 1.25rem; height: 1.25rem; margin: 0; accent-color: var(--gold, #f2c14e); }
#settings .opt input[type="checkbox"] + label { flex: 1 1 0; min-width: 0; }
#settings .opt:has(> input[type="checkbox"]) { flex-wrap: nowrap; }
#settings .opt input[type="range"] { flex: 1 1 8rem; min-width: 6rem; accent-color: var(--gold, #f2c14e); }
#settings .opt select { min-height: 36px; }
#settings .opt-help { margin: -0.4rem 0 0 1.85rem; font-size: 0.85rem; color: var(--muted, #c3cce0); }
#settings .opt-note { margin: 0; font-size: 0.85rem; color: #ffd8a8; }
`);

/** The settings: UNO assist, colour-blind cards, hand order, motion, notifications, volume and mute. */
export function SettingsPanel() {
  const value = usePrefs();
  const audio = useSound();
  const [note, setNote] = useState("");

  /** @param {Event} event */
  async function onNotify(event) {
    const box = /** @type {HTMLInputElement} */ (event.currentTarget);
    const wanted = box.checked;
    setNote("");
    if (!wanted) { prefs.set({ notifications: false }); return; }
    if (typeof Notification === "undefined") {
      box.checked = false;
      setNote("This browser cannot show notifications.");
      return;
    }
    let permission = Notification.permission;
    if (permission === "default") {
      try { permission = await Notification.requestPermission(); } catch { permission = "denied"; }
    }
    if (permission === "granted") {
      prefs.set({ notifications: true });
    } else {
      box.checked = false;
      prefs.set({ notifications: false });
      setNote("Notifications are blocked for this site: allow them in the browser's site settings to use this.");
    }
  }

  /** @param {Event} event */
  const checked = (event) => /** @type {HTMLInputElement} */ (event.currentTarget).checked;
  /** @param {Event} event */
  const chosen = (event) => /** @type {HTMLSelectElement | HTMLInputElement} */ (event.currentTarget).value;

  return html`
    <fieldset id="settings" class="settings">
      <legend class="visually-hidden">Settings</legend>
      <div class="opt">
        <input id="opt-uno-assist" type="checkbox" checked=${value.unoAssist}
          onChange=${(/** @type {Event} */ e) => prefs.set({ unoAssist: checked(e) })} />
        <label for="opt-uno-assist">Call UNO for me</label>
      </div>
      <p class="opt-help" id="opt-uno-assist-help">Off: you must press UNO yourself with your next-to-last card, or be caught.</p>
      <div class="opt">
        <input id="opt-colour-blind" type="checkbox" checked=${value.colourBlind}
          onChange=${(/** @type {Event} */ e) => prefs.set({ colourBlind: checked(e) })} />
        <label for="opt-colour-blind">Colour-blind cards (a shape for each colour)</label>
      </div>
      <div class="opt">
        <label for="opt-sort">Sort my hand</label>
        <select id="opt-sort" value=${value.sort}
          onChange=${(/** @type {Event} */ e) => prefs.set({ sort: /** @type {Prefs['sort']} */ (chosen(e)) })}>
          <option value="colour">by colour</option>
          <option value="number">by number</option>
          <option value="none">as dealt</option>
        </select>
      </div>
      <div class="opt">
        <label for="opt-motion">Less motion</label>
        <select id="opt-motion" value=${value.reducedMotion}
          onChange=${(/** @type {Event} */ e) => prefs.set({ reducedMotion: /** @type {Prefs['reducedMotion']} */ (chosen(e)) })}>
          <option value="system">as my system says</option>
          <option value="on">always</option>
          <option value="off">never</option>
        </select>
      </div>
      <div class="opt">
        <input id="opt-notify" type="checkbox" checked=${value.notifications} onChange=${onNotify} />
        <label for="opt-notify">Notify me when I must decide and this tab is hidden</label>
      </div>
      ${note && html`<p class="opt-note" role="status">${note}</p>`}
      <div class="opt">
        <label for="opt-volume">Volume</label>
        <input id="opt-volume" type="range" min="0" max="100" step="5" value=${Math.round(audio.volume * 100)}
          aria-valuetext=${`${Math.round(audio.volume * 100)} percent`}
          onInput=${(/** @type {Event} */ e) => sound.setVolume(Number(chosen(e)) / 100)}
          onChange=${() => sound.play("play")} />
      </div>
      <div class="opt">
        <input id="opt-mute" type="checkbox" checked=${audio.muted}
          onChange=${(/** @type {Event} */ e) => sound.setMuted(checked(e))} />
        <label for="opt-mute">Mute all sounds</label>
      </div>
    </fieldset>`;
}
