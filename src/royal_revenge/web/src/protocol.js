// @ts-check
/**
 * One table's WebSocket (docs/protocol.md, protocol 4): `/ws/CODE`, a first `hello` with the seat's token,
 * reconnection with backoff (0.5 s doubling to 10 s; at once on 4307, the table moved; never on 4400, 4403, 4404,
 * 4409, 4429), an id on every
 * message and the unacknowledged actions resent with the same id after a reconnection.
 */

/**
 * @typedef {object} Handlers
 * @property {(message: any) => void} onState a `state` message
 * @property {(message: any) => void} onError an `error` message
 * @property {(status: 'connecting' | 'open' | 'closed', code?: number) => void} onStatus
 */

const FINAL = new Set([4400, 4403, 4404, 4409, 4429]);
/** The table moved to another server process of a cluster: reconnect at once (the balancer finds it). */
const MOVED = 4307;
const PREFIX = Math.random().toString(36).slice(2, 7);

export class Connection {
  /**
   * @param {string} code
   * @param {string | null} token
   * @param {Handlers} handlers
   * @param {string | null} [name] a spectator's chat name
   */
  constructor(code, token, handlers, name = null) {
    this.code = code;
    this.token = token;
    this.name = name;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = 0;
    this.counter = 0;
    this.stopped = false;
    /** @type {Map<string, any>} actions sent and not yet acknowledged, by id */
    this.unacked = new Map();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.opened = false;
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    this.handlers.onStatus("connecting");
    ws.onopen = () => {
      /** @type {any} */
      const hello = { type: "hello", token: this.token };
      if (!this.token && this.name) hello.name = this.name;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => {
      let message;
      try { message = JSON.parse(String(event.data)); } catch { return; }
      this.receive(message);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped || FINAL.has(event.code)) {
        this.stopped = true;
        this.handlers.onStatus("closed", event.code);
        return;
      }
      const delay = event.code === MOVED ? 50 : Math.min(10000, 500 * 2 ** this.retry++);
      this.handlers.onStatus("connecting", event.code);
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  /** @param {any} message */
  receive(message) {
    if (message.type === "state") {
      const first = this.retry > 0 || !this.opened;
      this.opened = true;
      this.retry = 0;
      if (message.ack) this.unacked.delete(message.ack);
      this.handlers.onStatus("open");
      this.handlers.onState(message);
      if (first) this.resend();
    } else if (message.type === "ack") {
      this.unacked.delete(message.id);
    } else if (message.type === "error") {
      if (message.id) this.unacked.delete(message.id);
      this.handlers.onError(message);
    }
  }

  resend() {
    for (const message of this.unacked.values()) this.raw(message);
  }

  /** @param {any} message */
  raw(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** A fresh message id. @param {string} kind */
  nextId(kind) {
    return `${kind}-${PREFIX}-${(this.counter++).toString(36)}`;
  }

  /**
   * Sends a message with a fresh id; an action is kept until acknowledged, and resent after a reconnection.
   * @param {any} message
   * @returns {string} the id
   */
  send(message) {
    const id = this.nextId(String(message.type)[0]);
    const full = { ...message, id };
    if (message.type === "action") this.unacked.set(id, full);
    this.raw(full);
    return id;
  }

  /** @param {string} command @param {any} [extra] */
  host(command, extra = {}) { return this.send({ type: "host", command, ...extra }); }

  close() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
