/* The page's worker: py421's own Python, run by Pyodide (CPython compiled to
 * WebAssembly), plays the tables of this device (py421.page). The page sends
 * it requests as JSON text and shows what it answers; no rule of 421 is
 * written in JavaScript.
 */

/**
 * What the worker uses of Pyodide (the npm package's types need Node's).
 * @typedef {object} Pyodide
 * @property {(archive: ArrayBuffer, format: string, options: { extractDir: string }) => void} unpackArchive
 * @property {(code: string) => unknown} runPython
 * @property {(name: string) => { handle: (request: string) => string }} pyimport
 */

/** What the worker is sent: a request for py421.page.worker.handle, and its number. */
/** @typedef {{ id: number, request: string }} Asked */

const scope = /** @type {{ postMessage(message: unknown): void }} */ (/** @type {unknown} */ (self));

/** @returns {Promise<(request: string) => string>} */
async function start() {
  const runtime = "/pyodide/pyodide.mjs"; // served by py421, or beside the page by 421 site
  const { loadPyodide } = /** @type {{ loadPyodide: (o: object) => Promise<Pyodide>}} */ (await import(runtime));
  const pyodide = await loadPyodide({ indexURL: "/pyodide/" });
  const bundle = await fetch("/py421.zip");
  if (!bundle.ok) throw new Error(`/py421.zip: ${bundle.status}`);
  pyodide.unpackArchive(await bundle.arrayBuffer(), "zip", { extractDir: "/py421" });
  pyodide.runPython("import sys; sys.path.insert(0, '/py421')");
  return pyodide.pyimport("py421.page.worker").handle;
}

const ready = start();

self.addEventListener("message", async (event) => {
  const { id, request } = /** @type {Asked} */ (/** @type {MessageEvent} */ (event).data);
  try {
    const handle = await ready;
    scope.postMessage({ id, answer: handle(request) });
  } catch (err) {
    scope.postMessage({ id, failure: err instanceof Error ? err.message : String(err) });
  }
});
