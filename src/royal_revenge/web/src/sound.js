// @ts-check
/**
 * The game's sounds, synthesized with WebAudio (no audio files): short, distinct cues for your turn, a
 * play, a draw, UNO, a catch, a win, the fanfare (the longest), the deal, a chat line and a clock tick.
 *
 * Volume and mute are kept in localStorage (`rr.sound`). Browsers block audio until the page has had a
 * user gesture: nothing plays before one, the AudioContext is created or resumed on the first gesture,
 * and `play` never throws, whatever the browser refuses.
 */
import { readStored, writeStored } from "./storage.js";

/** @typedef {'turn'|'play'|'draw'|'uno'|'catch'|'win'|'fanfare'|'deal'|'chat'|'tick'} SoundName */

/** Every sound `play` knows. @type {readonly SoundName[]} */
export const SOUND_NAMES = Object.freeze(["turn", "play", "draw", "uno", "catch", "win", "fanfare", "deal", "chat", "tick"]);

const KEY = "rr.sound";
const DEFAULT_VOLUME = 0.7;

/** @param {unknown} value */
function clampVolume(value) {
  const number = typeof value === "number" && Number.isFinite(value) ? value : DEFAULT_VOLUME;
  return Math.min(1, Math.max(0, number));
}

/**
 * @typedef {object} Tone
 * @property {number} freq start frequency (Hz)
 * @property {number} [to] frequency glided to by the end
 * @property {OscillatorType} [type]
 * @property {number} dur seconds
 * @property {number} [gain] peak level (0..1)
 * @property {number} [attack] seconds
 * @property {number} [at] start, seconds from now
 * @property {number} [filter] low-pass cutoff (Hz), opening from a third of it (a brass-like swell)
 * @property {number} [vibrato] vibrato depth in Hz (at 5.5 Hz)
 * @property {number} [detune] cents
 */

/**
 * @typedef {object} Noise
 * @property {number} dur seconds
 * @property {number} [gain]
 * @property {number} [at] start, seconds from now
 * @property {BiquadFilterType} [filter]
 * @property {number} [freq] filter frequency (Hz)
 * @property {number} [to] filter frequency swept to (Hz)
 * @property {number} [q]
 */

class Sound {
  constructor() {
    const stored = readStored(KEY, /** @type {{volume?: unknown, muted?: unknown}} */ ({}));
    /** The volume, 0..1. */
    this.volume = clampVolume(stored && stored.volume);
    /** Whether every sound is off. */
    this.muted = Boolean(stored && stored.muted);
    /** How many sounds were actually started (for tests and the curious). */
    this.played = 0;
    /** @type {AudioContext | null} */
    this._ctx = null;
    /** @type {GainNode | null} */
    this._master = null;
    /** @type {AudioBuffer | null} */
    this._noise = null;
    this._failed = false;
    /** @type {Set<() => void>} */
    this._listeners = new Set();
    this._unlock = this._unlock.bind(this);
    if (typeof window !== "undefined") {
      for (const type of ["pointerdown", "keydown", "touchend"]) {
        window.addEventListener(type, this._unlock, { capture: true, passive: true });
      }
    }
  }

  /**
   * Sets the volume (0..1, kept between visits).
   * @param {number} volume
   */
  setVolume(volume) {
    this.volume = clampVolume(volume);
    this._save();
    this._applyVolume();
  }

  /**
   * Turns every sound off (true) or on again (false), kept between visits.
   * @param {boolean} muted
   */
  setMuted(muted) {
    this.muted = Boolean(muted);
    this._save();
    this._applyVolume();
  }

  /**
   * Calls `listener` whenever the volume or mute changes; returns the function that stops it.
   * @param {() => void} listener
   * @returns {() => void}
   */
  subscribe(listener) {
    this._listeners.add(listener);
    return () => { this._listeners.delete(listener); };
  }

  /**
   * Plays one cue. Never throws: blocked audio, a missing WebAudio or an unknown name is silence.
   * @param {SoundName | string} name
   * @returns {boolean} whether a sound was started
   */
  play(name) {
    try {
      if (this.muted || this.volume <= 0) return false;
      const recipe = RECIPES[/** @type {SoundName} */ (name)];
      if (!recipe) return false;
      const ctx = this._context();
      if (!ctx || ctx.state === "closed") return false;
      if (ctx.state === "suspended") this._resume(ctx);
      recipe(this, ctx.currentTime + 0.01);
      this.played += 1;
      return true;
    } catch {
      return false;
    }
  }

  // --- internals -------------------------------------------------------------------------------------

  _save() {
    writeStored(KEY, { volume: this.volume, muted: this.muted });
    for (const listener of [...this._listeners]) {
      try { listener(); } catch { /* a listener's fault is not the sound's */ }
    }
  }

  _applyVolume() {
    try {
      if (this._master && this._ctx) {
        this._master.gain.setTargetAtTime(this._level(), this._ctx.currentTime, 0.02);
      }
    } catch { /* ignore */ }
  }

  /** The master level: volume on a squared curve (closer to how loudness is heard). */
  _level() {
    return this.muted ? 0 : this.volume * this.volume * 0.9;
  }

  /** The first user gesture creates (or resumes) the AudioContext, as browsers require. */
  _unlock() {
    try {
      const ctx = this._context(true);
      if (ctx && ctx.state === "suspended") this._resume(ctx);
      if (ctx && ctx.state === "running") {
        for (const type of ["pointerdown", "keydown", "touchend"]) {
          window.removeEventListener(type, this._unlock, { capture: true });
        }
      }
    } catch { /* ignore */ }
  }

  /** @param {AudioContext} ctx */
  _resume(ctx) {
    try {
      const promise = ctx.resume();
      if (promise && typeof promise.catch === "function") promise.catch(() => {});
    } catch { /* ignore */ }
  }

  /**
   * The AudioContext, created on demand once the page has had a user gesture.
   * @param {boolean} [fromGesture]
   * @returns {AudioContext | null}
   */
  _context(fromGesture = false) {
    if (this._ctx) return this._ctx;
    if (this._failed || typeof window === "undefined") return null;
    const activation = /** @type {{hasBeenActive?: boolean} | undefined} */ (
      /** @type {any} */ (navigator).userActivation);
    if (!fromGesture && activation && activation.hasBeenActive === false) return null;
    const Ctor = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!Ctor) { this._failed = true; return null; }
    try {
      const ctx = /** @type {AudioContext} */ (new Ctor());
      const master = ctx.createGain();
      master.gain.value = this._level();
      const compressor = ctx.createDynamicsCompressor();
      compressor.threshold.value = -14;
      compressor.ratio.value = 4;
      master.connect(compressor);
      compressor.connect(ctx.destination);
      this._ctx = ctx;
      this._master = master;
      return ctx;
    } catch {
      this._failed = true;
      return null;
    }
  }

  /**
   * One oscillator voice with a short attack and an exponential fall.
   * @param {number} start
   * @param {Tone} tone
   */
  tone(start, tone) {
    const ctx = /** @type {AudioContext} */ (this._ctx);
    const t = start + (tone.at || 0);
    const end = t + tone.dur;
    const osc = ctx.createOscillator();
    osc.type = tone.type || "sine";
    osc.frequency.setValueAtTime(tone.freq, t);
    if (tone.to) osc.frequency.exponentialRampToValueAtTime(tone.to, end);
    if (tone.detune) osc.detune.value = tone.detune;
    const env = ctx.createGain();
    const peak = tone.gain ?? 0.3;
    const attack = tone.attack ?? 0.005;
    env.gain.setValueAtTime(0.0001, t);
    env.gain.exponentialRampToValueAtTime(peak, t + attack);
    env.gain.exponentialRampToValueAtTime(0.0001, end);
    /** @type {AudioNode} */
    let last = osc;
    if (tone.filter) {
      const filter = ctx.createBiquadFilter();
      filter.type = "lowpass";
      filter.Q.value = 1.2;
      filter.frequency.setValueAtTime(tone.filter / 3, t);
      filter.frequency.exponentialRampToValueAtTime(tone.filter, t + Math.min(0.08, tone.dur / 2));
      filter.frequency.exponentialRampToValueAtTime(tone.filter / 2, end);
      last.connect(filter);
      last = filter;
    }
    if (tone.vibrato) {
      const lfo = ctx.createOscillator();
      const depth = ctx.createGain();
      lfo.frequency.value = 5.5;
      depth.gain.value = tone.vibrato;
      lfo.connect(depth);
      depth.connect(osc.frequency);
      lfo.start(t);
      lfo.stop(end + 0.05);
    }
    last.connect(env);
    env.connect(/** @type {GainNode} */ (this._master));
    osc.start(t);
    osc.stop(end + 0.05);
  }

  /**
   * A burst of filtered noise (flicks, riffles, ticks).
   * @param {number} start
   * @param {Noise} noise
   */
  noise(start, noise) {
    const ctx = /** @type {AudioContext} */ (this._ctx);
    if (!this._noise) {
      const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * 0.5), ctx.sampleRate);
      const data = buffer.getChannelData(0);
      let seed = 12345;
      for (let i = 0; i < data.length; i += 1) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        data[i] = (seed / 0x3fffffff) - 1;
      }
      this._noise = buffer;
    }
    const t = start + (noise.at || 0);
    const end = t + noise.dur;
    const source = ctx.createBufferSource();
    source.buffer = this._noise;
    const filter = ctx.createBiquadFilter();
    filter.type = noise.filter || "bandpass";
    filter.Q.value = noise.q ?? 1;
    filter.frequency.setValueAtTime(noise.freq ?? 2500, t);
    if (noise.to) filter.frequency.exponentialRampToValueAtTime(noise.to, end);
    const env = ctx.createGain();
    env.gain.setValueAtTime(0.0001, t);
    env.gain.exponentialRampToValueAtTime(noise.gain ?? 0.3, t + 0.004);
    env.gain.exponentialRampToValueAtTime(0.0001, end);
    source.connect(filter);
    filter.connect(env);
    env.connect(/** @type {GainNode} */ (this._master));
    source.start(t, Math.random() * 0.3);
    source.stop(end + 0.02);
  }
}

/** Note frequencies (equal temperament, A4 = 440 Hz). */
const N = { G4: 392, A4: 440, C5: 523.25, D5: 587.33, E5: 659.25, F5: 698.46, G5: 783.99, A5: 880, B5: 987.77, C6: 1046.5, E6: 1318.5, G6: 1568 };

/** @type {Record<SoundName, (s: Sound, t: number) => void>} */
const RECIPES = {
  // Your turn: a soft two-note bell (a fifth up), with a quiet octave shimmer.
  turn(s, t) {
    s.tone(t, { freq: N.G5, dur: 0.55, gain: 0.22, attack: 0.008 });
    s.tone(t, { freq: N.G5 * 2, dur: 0.3, gain: 0.05 });
    s.tone(t, { freq: N.C6, at: 0.11, dur: 0.7, gain: 0.22, attack: 0.008 });
    s.tone(t, { freq: N.C6 * 2, at: 0.11, dur: 0.35, gain: 0.05 });
  },
  // A card played: a crisp flick and a small thump as it lands on the pile.
  play(s, t) {
    s.noise(t, { dur: 0.07, gain: 0.45, filter: "bandpass", freq: 3200, to: 1600, q: 0.9 });
    s.tone(t, { freq: 190, to: 110, at: 0.03, dur: 0.09, gain: 0.28 });
  },
  // A card drawn: a soft slide upwards.
  draw(s, t) {
    s.noise(t, { dur: 0.16, gain: 0.42, filter: "bandpass", freq: 700, to: 2200, q: 1.4 });
    s.tone(t, { freq: 330, to: 420, at: 0.04, dur: 0.12, gain: 0.06, type: "triangle" });
  },
  // UNO!: two bright tones, "U - NO".
  uno(s, t) {
    s.tone(t, { freq: N.E5, dur: 0.14, gain: 0.2, type: "square", filter: 3200 });
    s.tone(t, { freq: N.A5, at: 0.15, dur: 0.26, gain: 0.22, type: "square", filter: 3600 });
    s.tone(t, { freq: N.A5 * 1.5, at: 0.15, dur: 0.2, gain: 0.04 });
  },
  // Caught!: a falling, slightly sour sting.
  catch(s, t) {
    s.tone(t, { freq: N.B5, to: N.E5, dur: 0.32, gain: 0.16, type: "sawtooth", filter: 2600 });
    s.tone(t, { freq: N.F5, to: 350, dur: 0.36, gain: 0.12, type: "sawtooth", filter: 2200, detune: -8 });
    s.noise(t, { dur: 0.06, gain: 0.3, filter: "highpass", freq: 3000 });
  },
  // A win: a rising major arpeggio that rings out.
  win(s, t) {
    [N.C5, N.E5, N.G5, N.C6].forEach((freq, index) => {
      s.tone(t, { freq, at: index * 0.11, dur: index === 3 ? 0.9 : 0.3, gain: 0.2, type: "triangle" });
    });
    s.tone(t, { freq: N.E6, at: 0.33, dur: 0.8, gain: 0.06 });
    s.tone(t, { freq: N.G6, at: 0.44, dur: 0.7, gain: 0.04 });
  },
  // The scepter's fanfare: a brass-like call (filtered saws swelling open, a little vibrato), the longest cue.
  fanfare(s, t) {
    /** @type {[number, number, number][]} freq, start, length */
    const call = [[N.G4, 0, 0.13], [N.G4, 0.15, 0.13], [N.G4, 0.3, 0.13], [N.C5, 0.45, 0.38], [N.G4, 0.86, 0.13],
      [N.C5, 1.0, 0.75]];
    for (const [freq, at, dur] of call) {
      s.tone(t, { freq, at, dur, gain: 0.28, type: "sawtooth", attack: 0.03, filter: 2400, vibrato: dur > 0.3 ? 4 : 0 });
      s.tone(t, { freq, at, dur, gain: 0.14, type: "sawtooth", attack: 0.03, filter: 1800, detune: 9 });
    }
    for (const freq of [N.E5, N.G5]) {
      s.tone(t, { freq, at: 1.0, dur: 0.75, gain: 0.13, type: "sawtooth", attack: 0.04, filter: 2600, vibrato: 3 });
    }
  },
  // The deal: a riffle of quick card flicks.
  deal(s, t) {
    for (let i = 0; i < 9; i += 1) {
      s.noise(t, { at: i * 0.045, dur: 0.035, gain: 0.18 + (i % 3) * 0.05, filter: "bandpass", freq: 2600 + (i % 4) * 300, q: 1.1 });
    }
  },
  // A chat line: a tiny blip.
  chat(s, t) {
    s.tone(t, { freq: 1200, to: 1550, dur: 0.08, gain: 0.1 });
  },
  // The clock's tick when time runs low.
  tick(s, t) {
    s.noise(t, { dur: 0.018, gain: 0.2, filter: "highpass", freq: 4000 });
    s.tone(t, { freq: 2100, dur: 0.03, gain: 0.05 });
  },
};

/** The one sound player of the page. */
export const sound = new Sound();
