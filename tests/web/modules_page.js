// A test-only page for the browser's standalone modules (bundled by tests/web/test_modules.py with esbuild):
// it mounts the chat panel, the settings panel and the tour as the game's page would, and exposes the modules
// on `window.rrTest` so a test can drive them.
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { ChatPanel, REACTIONS } from "../../src/royal_revenge/web/src/chat.js";
import { updateCues } from "../../src/royal_revenge/web/src/cues.js";
import { prefs, SettingsPanel } from "../../src/royal_revenge/web/src/settings.js";
import { SOUND_NAMES, sound } from "../../src/royal_revenge/web/src/sound.js";
import { Tour, tourSeen } from "../../src/royal_revenge/web/src/tour.js";

const html = htm.bind(h);

const sent = [];
const reacted = [];
const mutes = [];
let setProps = () => {};

function App() {
  const [props, update] = useState({
    chat: [], you: 0, isHost: true, muted: [],
    seats: [{ kind: "human", name: "Ann" }, { kind: "human", name: "<b>Bob</b>" }, { kind: "bot", name: "Easy bot 3" }],
  });
  const [touring, setTouring] = useState(!tourSeen());
  useEffect(() => { setProps = (changes) => update((old) => ({ ...old, ...changes })); }, []);
  return html`
    <main>
      <h1>Modules</h1>
      <button id="btn-how" type="button" onClick=${() => setTouring(true)}>How to play</button>
      <${SettingsPanel} />
      <${ChatPanel} ...${props} onSend=${(text) => sent.push(text)} onReact=${(emoji) => reacted.push(emoji)}
        onMute=${(seat, mute) => mutes.push([seat, mute])} />
      ${touring && html`<${Tour} onDone=${() => setTouring(false)} />`}
    </main>`;
}

window.rrTest = { sound, SOUND_NAMES, prefs, updateCues, REACTIONS, sent, reacted, mutes, setProps: (c) => setProps(c) };
render(html`<${App} />`, document.body);
