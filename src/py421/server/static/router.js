/* Addresses without reloading: the views call navigate(), app.js draws the
 * view of the address, and a view that opened a socket or timers says how to
 * undo them when the page moves on.
 */

/**
 * Where the app is: "/" from 421 serve, or the folder a static host serves 421 site's files
 * from (index.html's <base>, which 421 site --base writes). The views speak of app paths
 * ("/t/CODE", "/here"); these turn them into addresses and back.
 */
export const BASE = new URL(document.baseURI).pathname.replace(/[^/]*$/, "");

/**
 * The address of an app path: "/here" is BASE + "here".
 * @param {string} path
 */
export const address = (path) => BASE + path.replace(/^\//, "");

/**
 * The app path of an address of the app (the current one by default).
 * @param {string} [pathname]
 */
export function appPath(pathname = location.pathname) {
  return pathname.startsWith(BASE) ? `/${pathname.slice(BASE.length)}` : pathname;
}

let draw = () => {};
let undo = () => {};

/**
 * Draws the view of the current address now and after each move through the history.
 * @param {() => void} route
 */
export function startRouting(route) {
  draw = route;
  window.addEventListener("popstate", () => draw());
  draw();
}

/** @param {string} path an app path */
export function navigate(path) {
  const to = address(path);
  if (to !== location.pathname) history.pushState(null, "", to);
  draw();
}

/**
 * What to undo when the page leaves the current view (a socket, timers).
 * @param {() => void} then
 */
export function whenLeaving(then) {
  undo = then;
}

/** Undoes what the current view set up; app.js calls it before drawing the next. */
export function leave() {
  const then = undo;
  undo = () => {};
  then();
}
