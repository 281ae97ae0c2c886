/* The page's worker: py421's own Python, run by Pyodide (CPython compiled to
 * WebAssembly), plays the tables of this device (py421.page). The page sends
 * it requests as JSON text and shows what it answers; no rule of 421 is
 * written in JavaScript. The worker keeps the tables each answer changed in
 * IndexedDB, so that a slow phone's page thread only draws.
 */

import { keep, keptTable, keptTables, unkeep } from "./store.js";

/**
 * What the worker uses of Pyodide (the npm package's types need Node's).
 * @typedef {object} Pyodide
 * @property {(archive: ArrayBuffer, format: string, options: { extractDir: string }) => void} unpackArchive
 * @property {(code: string) => unknown} runPython
 * @property {(name: string) => { handle: (request: string) => string }} pyimport
 * @property {() => Uint8Array<ArrayBuffer>} makeMemorySnapshot
 */

/** What the worker is sent: a request for py421.page.handler.handle, a table to read again from
 * what this device keeps (``reload``: its code) or to forget (``forget``), and its number. */
/** @typedef {{ id: number, request?: string, reload?: string, forget?: string }} Asked */

const scope = /** @type {{ postMessage(message: unknown): void }} */ (/** @type {unknown} */ (self));
// beside the page: at / from 421 serve, in the folder of 421 site's files on a static host
const RUNTIME = new URL("../pyodide/", self.location.href).href;
const BUNDLE = new URL("../py421.zip", self.location.href).href;
// Python's memory once py421 is imported, kept between visits: Python then starts in a fraction of
// the time (its start-up and py421's imports are not done again). Named apart from the service
// worker's caches, which it clears at each new version (this one is cleared here), and by folder:
// two copies of the app on one host keep their own.
const STARTED = `py421.started ${new URL("../", self.location.href).pathname}`;

/** @returns {Promise<(request: string) => string>} */
async function start() {
  const { loadPyodide } = /** @type {{ loadPyodide: (o: object) => Promise<Pyodide>}} */ (await import(`${RUNTIME}pyodide.mjs`));
  const bundle = await fetch(BUNDLE);
  if (!bundle.ok) throw new Error(`${BUNDLE}: ${bundle.status}`);
  const zip = await bundle.arrayBuffer();
  // The files are not in the memory kept: unpacked at every start, for what is imported later.
  const unpack = (/** @type {Pyodide} */ pyodide) => pyodide.unpackArchive(zip, "zip", { extractDir: "/py421" });
  const kept = await keptStart(zip);
  if (kept?.memory) {
    try {
      const pyodide = await loadPyodide({ indexURL: RUNTIME, _loadSnapshot: kept.memory });
      unpack(pyodide);
      return pyodide.pyimport("py421.page.handler").handle;
    } catch {
      await kept.forget(); // another Pyodide, or a memory cut short: started afresh below
    }
  }
  const pyodide = await loadPyodide({ indexURL: RUNTIME, _makeSnapshot: Boolean(kept) });
  unpack(pyodide);
  pyodide.runPython("import sys; sys.path.insert(0, '/py421'); import py421.page.handler");
  if (kept) {
    try {
      await kept.keep(pyodide.makeMemorySnapshot()); // before the page holds any of its objects
    } catch {
      /* no memory to spare for the copy (the whole heap): started afresh next time */
    }
  }
  return pyodide.pyimport("py421.page.handler").handle;
}

/**
 * Python's memory as it was started with this py421.zip by this file, if kept (memory), and how to keep it
 * (keep) or drop it (forget); null where the browser keeps nothing (no Cache Storage outside
 * https and localhost), where the page starts Python afresh every time.
 * @param {ArrayBuffer} zip
 * @returns {Promise<{ memory: Uint8Array | null, keep: (memory: Uint8Array<ArrayBuffer>) => Promise<void>, forget: () => Promise<void> } | null>}
 */
async function keptStart(zip) {
  if (!("caches" in self)) return null;
  try {
    // this file too: how Python is started is part of what its memory holds
    const source = await (await fetch(self.location.href)).arrayBuffer();
    const both = new Uint8Array(zip.byteLength + source.byteLength);
    both.set(new Uint8Array(zip));
    both.set(new Uint8Array(source), zip.byteLength);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", both));
    const key = `/started/${Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("")}`;
    const cache = await caches.open(STARTED);
    const found = await cache.match(key);
    return {
      memory: found ? new Uint8Array(await found.arrayBuffer()) : null,
      async keep(memory) {
        try {
          for (const old of await cache.keys()) await cache.delete(old); // another version's
          await cache.put(key, new Response(memory));
        } catch {
          /* no room: started afresh next time */
        }
      },
      forget: () => cache.delete(key).then(() => undefined),
    };
  } catch {
    return null;
  }
}

/** What the worker answers every request with once Python could not start (local.js words it). */
const START_FAILED = "start";

// A file of Python's runtime that the network did not bring (cut during the first visit, before the
// app was kept on the phone): Pyodide says so on the console and waits for ever, so the start is
// given up as soon as one of the worker's fetches fails.
/** @type {(reason: unknown) => void} */
let fetchFailed = () => {};
const failedFetch = new Promise((_, reject) => (fetchFailed = reject));
const fetching = self.fetch.bind(self);
self.fetch = (input, init) =>
  fetching(input, init).catch((err) => {
    fetchFailed(err);
    throw err;
  });

/** Python started, with the tables this device keeps handed back to it. */
async function startWithTables() {
  const [handle, saves] = await Promise.race([Promise.all([start(), keptTables()]), failedFetch]);
  handle(JSON.stringify({ op: "restore", saves }));
  return handle;
}

const ready = startWithTables();

self.addEventListener("message", async (event) => {
  const { id, request, reload, forget } = /** @type {Asked} */ (/** @type {MessageEvent} */ (event).data);
  /** @type {(request: string) => string} */
  let handle;
  try {
    handle = await ready;
  } catch {
    scope.postMessage({ id, failure: START_FAILED });
    return;
  }
  try {
    if (forget !== undefined) {
      // gone from the phone, and from this worker's Python (another tab's keeps its copy until reloaded)
      await unkeep(forget);
      handle(JSON.stringify({ op: "forget", code: forget }));
      scope.postMessage({ id, answer: {} });
      return;
    }
    if (reload !== undefined) {
      // a tab takes a table over: played on from its last step kept, wherever it was played
      const save = await keptTable(reload);
      if (save) handle(JSON.stringify({ op: "restore", saves: [save] }));
      scope.postMessage({ id, answer: {} });
      return;
    }
    const answer = JSON.parse(handle(/** @type {string} */ (request)));
    const saves = answer.saves ?? [];
    delete answer.saves;
    if (answer.message) {
      // a step: shown first, kept at once after (the write does not hold the view back)
      scope.postMessage({ id, answer });
      await keep(saves);
    } else {
      // a table made or changed over "HTTP": kept before the page goes to it
      await keep(saves);
      scope.postMessage({ id, answer });
    }
  } catch (err) {
    scope.postMessage({ id, failure: err instanceof Error ? err.message : String(err) });
  }
});
