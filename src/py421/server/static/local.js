/* The tables of this device: played by py421's own Python in a worker
 * (worker.js), with no server. The table page reaches them through the same
 * calls as a server's tables: localCall() answers the HTTP requests and
 * LocalSocket stands for the WebSocket. The worker keeps each table changed in
 * IndexedDB (store.js) itself, off the page's thread, and reads them back at
 * its start after a reload.
 */

import { lang } from "./i18n.js";
import { address } from "./router.js";

/** Codes of this device's tables start so (py421.page.local.CODE_PREFIX). */
export const LOCAL_PREFIX = "local-";
const BOT_PAUSE = 450; // ms between two bots' moves, as a server paces them, so each can be seen

/** @param {string} code */
export const isLocal = (code) => code.startsWith(LOCAL_PREFIX);

/** @type {Worker | null} */
let worker = null;
let asked = 0;
/** @type {Map<number, { resolve: (answer: any) => void, reject: (err: Error) => void }>} */
const waiting = new Map();

/**
 * One request to the worker's Python (py421.page.handler.handle).
 * @param {object} request
 * @returns {Promise<any>}
 */
function ask(request) {
  if (!worker) {
    worker = new Worker(address("/static/worker.js"), { type: "module" });
    worker.addEventListener("message", (event) => {
      const { id, answer, failure } = event.data;
      const pending = waiting.get(id);
      waiting.delete(id);
      if (!pending) return;
      if (failure) pending.reject(new Error(failure));
      else pending.resolve(answer);
    });
  }
  return send(request);
}

/**
 * @param {object} request
 * @returns {Promise<any>}
 */
function send(request) {
  const id = ++asked;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    /** @type {Worker} */ (worker).postMessage({ id, request: JSON.stringify(request) });
  });
}

/**
 * A request of the server's HTTP API, answered by this device's tables.
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<{ status: number, data: any }>}
 */
export function localCall(method, path, body) {
  return ask({ op: "http", method, path, body: body ?? null, lang });
}

/**
 * What table.js uses of a WebSocket, for a table of this device: each message
 * sent is answered by the worker with the table as it is then; while a bot is
 * to move, its moves are asked for one at a time, a moment apart.
 */
export class LocalSocket {
  /** @param {string} code */
  constructor(code) {
    this.code = code;
    /** @type {number} */
    this.readyState = WebSocket.CONNECTING;
    /** @type {((event: { data: string }) => void) | null} */
    this.onmessage = null;
    /** @type {(() => void) | null} */
    this.onopen = null;
    /** @type {((event: { code: number }) => void) | null} */
    this.onclose = null;
    /** @type {number | undefined} */
    this.botTimer = undefined;
    queueMicrotask(() => {
      this.readyState = WebSocket.OPEN;
      this.onopen?.();
      this.send(JSON.stringify({ type: "look" }));
    });
  }

  /** @param {string} text */
  send(text) {
    const message = JSON.parse(text);
    if (message.type === "ping") return;
    ask({ op: "socket", code: this.code, message, lang }).then(
      (answer) => {
        if (this.readyState !== WebSocket.OPEN) return;
        this.onmessage?.({ data: JSON.stringify(answer.message) });
        clearTimeout(this.botTimer);
        if (answer.message.waiting === "bot") {
          this.botTimer = setTimeout(() => this.send(JSON.stringify({ type: "advance" })), BOT_PAUSE);
        }
      },
      (err) => this.onmessage?.({ data: JSON.stringify({ type: "error", error: "offline", message: String(err) }) }),
    );
  }

  /** @param {number} [code] */
  close(code) {
    clearTimeout(this.botTimer);
    this.readyState = WebSocket.CLOSED;
    this.onclose?.({ code: code ?? 1000 });
  }
}
