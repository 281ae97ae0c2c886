/* The tables of this device: played by py421's own Python in a worker
 * (worker.js), with no server. The table page reaches them through the same
 * calls as a server's tables: localCall() answers the HTTP requests and
 * LocalSocket stands for the WebSocket. The worker keeps each table changed in
 * IndexedDB (store.js) itself, off the page's thread, and reads them back at
 * its start after a reload.
 *
 * Each tab has its own worker, and so its own copy of the tables: a table is
 * played in one tab at a time. The tab that opens it last takes it over (a
 * Web Lock per table, taken from the tab that held it), reading it again from
 * what the device keeps; the tab it was taken from closes its socket (4409)
 * and takes no more moves, where it would have played on from a game that had
 * moved on and its save would have wiped the other tab's moves.
 */

import { lang, t } from "./i18n.js";
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
  return post({ request: JSON.stringify(request) });
}

/**
 * One message to the worker, started when first needed: a request, or a table to read again.
 * @param {{ request: string } | { reload: string } | { forget: string }} message
 * @returns {Promise<any>}
 */
function post(message) {
  if (!worker) {
    worker = new Worker(address("/static/worker.js"), { type: "module" });
    worker.addEventListener("message", (event) => {
      const { id, answer, failure } = event.data;
      const pending = waiting.get(id);
      waiting.delete(id);
      if (!pending) return;
      // Python could not start (worker.js: START_FAILED): said in the page's words
      if (failure) pending.reject(new Error(failure === "start" ? t("here.start_failed") : failure));
      else pending.resolve(answer);
    });
  }
  const id = ++asked;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    /** @type {Worker} */ (worker).postMessage({ id, ...message });
  });
}

/**
 * Delete a game this device keeps: its save, and the worker's copy.
 * @param {string} code
 * @returns {Promise<void>}
 */
export function forgetLocal(code) {
  return post({ forget: code });
}

/** Where a tab that loses its table says so (a WebSocket's close code: the application's 4000s). */
export const TAKEN_ELSEWHERE = 4409;

/**
 * Hold the table ``code`` for this tab, taking it from another tab that holds it; ``lost`` is called
 * once another tab takes it in turn. Where the browser has no Web Locks (an address that is not
 * https or localhost), nothing is held: each tab still reads the table again as it opens it.
 * @param {string} code
 * @param {() => void} lost
 * @returns {Promise<() => void>} what lets the table go
 */
function hold(code, lost) {
  if (!navigator.locks) return Promise.resolve(() => {});
  return new Promise((held) => {
    navigator.locks
      .request(`py421 table ${code}`, { steal: true }, () => new Promise((release) => held(() => release(undefined))))
      .catch(lost); // taken by another tab (an AbortError)
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
    /** @type {() => void} */
    this.release = () => {};
    this.open();
  }

  async open() {
    const release = await hold(this.code, () => this.takenElsewhere());
    if (this.readyState !== WebSocket.CONNECTING) {
      release(); // closed, or taken by another tab, while waiting
      return;
    }
    this.release = release;
    try {
      await post({ reload: this.code });
    } catch {
      /* Python could not start: the look below says so */
    }
    if (this.readyState !== WebSocket.CONNECTING) return;
    this.readyState = WebSocket.OPEN;
    this.onopen?.();
    this.send(JSON.stringify({ type: "look" }));
  }

  /** Another tab opened this table: it is played there from now on. */
  takenElsewhere() {
    if (this.readyState === WebSocket.CLOSED) return;
    this.onmessage?.({ data: JSON.stringify({ type: "error", error: "elsewhere" }) });
    this.close(TAKEN_ELSEWHERE);
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
    this.release();
    this.readyState = WebSocket.CLOSED;
    this.onclose?.({ code: code ?? 1000 });
  }
}
