/* Addresses without reloading: the views call navigate(), app.js draws the
 * view of the address, and a view that opened a socket or timers says how to
 * undo them when the page moves on.
 */

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

/** @param {string} path */
export function navigate(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
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
