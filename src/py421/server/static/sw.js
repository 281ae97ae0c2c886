/* The service worker: every file of the app kept in the browser, so that the
 * games on this phone open and play with no network. py421.page.site writes
 * VERSION and FILES in when it serves this file; a new version installs
 * beside the one in use and waits until the page takes it (app.js offers it).
 * The server's own answers (/api, /ws, /healthz) are never kept.
 */

const VERSION = "VERSION";
/** The app's files, by their address in its folder ("" is the page itself). @type {string[]} */
const FILES = ["FILES"];
// The app's folder: this file's (/ from 421 serve, the folder of 421 site's files on a static host).
const BASE = new URL("./", location.href).pathname;
const ADDRESSES = FILES.map((f) => BASE + f);
// Named by folder: two copies of the app on one host (/py421/ and /py421-dev/) keep their own.
const OURS = `py421 ${BASE} `;
const CACHE = OURS + VERSION;

const worker = /** @type {any} */ (self);

worker.addEventListener("install", (/** @type {any} */ event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(ADDRESSES)));
});

worker.addEventListener("activate", (/** @type {any} */ event) => {
  event.waitUntil(
    caches.keys().then((names) => Promise.all(names.filter((n) => n !== CACHE && (n.startsWith(OURS) || (BASE === "/" && n.startsWith("py421-")))).map((n) => caches.delete(n)))),
  );
});

worker.addEventListener("message", (/** @type {MessageEvent} */ event) => {
  if (event.data === "take-over") worker.skipWaiting();
});

worker.addEventListener("fetch", (/** @type {any} */ event) => {
  const request = /** @type {Request} */ (event.request);
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (request.mode === "navigate") {
    // A page of the app: the server's when it answers, else the kept one (a static host has no /here).
    event.respondWith(
      fetch(request)
        .then((res) => (res.ok ? res : caches.match(BASE).then((kept) => kept || res)))
        .catch(() => caches.match(BASE).then((kept) => kept || Response.error())),
    );
    return;
  }
  if (ADDRESSES.includes(url.pathname)) {
    event.respondWith(caches.match(url.pathname).then((kept) => kept || fetch(request)));
  }
});
