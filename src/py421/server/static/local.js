/* The tables of this device: played by py421's own Python in a worker
 * (worker.js), with no server. The table page reaches them through the same
 * calls as a server's tables: localCall() answers the HTTP requests and
 * LocalSocket stands for the WebSocket. Each table changed is kept in
 * IndexedDB at once, and handed back to the worker after a reload.
 */

import { lang } from "./i18n.js";
import { address } from "./router.js";

/** Codes of this device's tables start so (py421.page.local.CODE_PREFIX). */
export const LOCAL_PREFIX = "local-";
const BOT_PAUSE = 450; // ms between two bots' moves, as a server paces them, so each can be seen
const DB = "py421";
const STORE = "tables";

/** @param {string} code */
export const isLocal = (code) => code.startsWith(LOCAL_PREFIX);

/**
 * A kept table as py421.page.local.LocalTable.save writes it.
 * @typedef {{ code: string, mode: string, kept_at?: number, record: { rules: { name: string }, players: string[], final?: { phase?: string } } }} Kept
 */

/** @type {Promise<IDBDatabase> | null} */
let opened = null;

/** The page's database, opened once (a step's save goes in at once, with no opening before it). */
function openDb() {
  if (opened) return opened;
  opened = new Promise((resolve, reject) => {
    const asked = indexedDB.open(DB, 1);
    asked.onupgradeneeded = () => asked.result.createObjectStore(STORE, { keyPath: "code" });
    asked.onsuccess = () => {
      const db = asked.result;
      // closed by the browser (storage cleared, another version opened): opened again when next used
      db.onclose = () => (opened = null);
      db.onversionchange = () => {
        db.close();
        opened = null;
      };
      resolve(db);
    };
    asked.onerror = () => reject(asked.error);
  });
  opened.catch(() => (opened = null)); // tried again next time
  return opened;
}

/**
 * Every table kept on this device, the one changed last first.
 * @returns {Promise<Kept[]>}
 */
export async function keptTables() {
  try {
    const db = await openDb();
    return await new Promise((resolve, reject) => {
      const asked = db.transaction(STORE).objectStore(STORE).getAll();
      asked.onsuccess = () => resolve(asked.result.sort((a, b) => (b.kept_at ?? 0) - (a.kept_at ?? 0)));
      asked.onerror = () => reject(asked.error);
    });
  } catch {
    return []; // storage disabled (private mode): nothing outlives the tab
  }
}

/**
 * @param {Kept[]} saves
 * @param {boolean} [again] a second try, on a database opened afresh
 */
async function keep(saves, again = false) {
  if (!saves.length) return;
  try {
    const db = await openDb();
    await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, "readwrite");
      for (const save of saves) tx.objectStore(STORE).put({ ...save, kept_at: Date.now() });
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  } catch {
    // a connection the browser dropped (a phone's app in the background) fails every write on it
    opened = null;
    if (!again) await keep(saves, true);
    /* else not kept: the game goes on in this tab */
  }
}

/** @type {Worker | null} */
let worker = null;
let asked = 0;
/** @type {Map<number, { resolve: (answer: any) => void, reject: (err: Error) => void }>} */
const waiting = new Map();
/** @type {Promise<unknown> | null} */
let restored = null;

/**
 * One request to the worker's Python (py421.page.worker.handle); the tables kept go first.
 * @param {object} request
 * @returns {Promise<any>}
 */
async function ask(request) {
  if (!worker) {
    worker = new Worker(address("/static/worker.js"), { type: "module" });
    worker.addEventListener("message", (event) => {
      const { id, answer, failure } = event.data;
      const pending = waiting.get(id);
      waiting.delete(id);
      if (!pending) return;
      if (failure) pending.reject(new Error(failure));
      else pending.resolve(JSON.parse(answer));
    });
    restored = keptTables().then((saves) => send({ op: "restore", saves }));
  }
  if (request instanceof Object && /** @type {{ op?: string }} */ (request).op !== "restore") await restored;
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
export async function localCall(method, path, body) {
  const answer = await ask({ op: "http", method, path, body: body ?? null, lang });
  await keep(answer.saves);
  return answer;
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
        // shown first, kept at once after: the write does not hold the view back
        keep(answer.saves);
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
