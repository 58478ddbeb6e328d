// @ts-check
/** Small helpers shared by the browser's modules: localStorage that never throws, and styles a module adds once. */

/**
 * Reads a JSON value kept in localStorage; `fallback` when it is missing, unreadable or storage is blocked.
 * @template T
 * @param {string} key
 * @param {T} fallback
 * @returns {T}
 */
export function readStored(key, fallback) {
  try {
    const raw = window.localStorage.getItem(key);
    if (raw === null) return fallback;
    const value = JSON.parse(raw);
    return value === null || value === undefined ? fallback : value;
  } catch {
    return fallback;
  }
}

/**
 * Keeps a JSON value in localStorage; does nothing when storage is blocked or full.
 * @param {string} key
 * @param {unknown} value
 */
export function writeStored(key, value) {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* private mode or a full storage: the value lives only for this visit */
  }
}

/**
 * Adds a module's stylesheet to the page once (so a module brings its own look wherever it is mounted).
 * @param {string} id
 * @param {string} css
 */
export function addStyle(id, css) {
  if (typeof document === "undefined" || document.getElementById(id)) return;
  const style = document.createElement("style");
  style.id = id;
  style.textContent = css;
  document.head.appendChild(style);
}

addStyle("rr-base-style", `
.visually-hidden { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
`);
