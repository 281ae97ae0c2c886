/* Building the page. Every piece of text that comes from the server or from
 * players is put in with textContent or as an attribute value, never as HTML:
 * player names are typed by anyone holding the link (eslint refuses innerHTML
 * and its kin).
 */

/** @typedef {Node | string | number | boolean | null | undefined} Leaf */

/**
 * What may be put in an element: strings and numbers become text nodes;
 * null, undefined and false are left out; lists (of lists) are flattened.
 * @typedef {Leaf | (Leaf | Leaf[])[]} Child
 */

/**
 * An element's attributes and properties: `text` is its text, `testid` its
 * data-testid, `on…` a listener; null, undefined and false leave one out. The
 * `href` of a link with `data-link` (the app's own) is an app path.
 * @typedef {{ [key: string]: unknown, onclick?: (event: MouseEvent) => void, onsubmit?: (event: SubmitEvent) => void }} Props
 */

import { address } from "./router.js";

const BOOLEAN_PROPS = new Set(["hidden", "disabled", "selected", "checked", "required"]);

/**
 * Builds an element; strings become text nodes, so nothing is parsed as HTML.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  const fields = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el));
  // a link of the app's own names an app path ("/here"): its address is under the app's folder
  const own = Boolean(props && props["data-link"]);
  for (const [key, given] of Object.entries(props || {})) {
    const value = own && key === "href" && typeof given === "string" && given.startsWith("/") ? address(given) : given;
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === "class") el.className = String(value);
    else if (key === "text") el.textContent = String(value);
    else if (key === "value") fields.value = String(value);
    else if (key === "testid") el.setAttribute("data-testid", String(value));
    else if (BOOLEAN_PROPS.has(key)) fields[key] = Boolean(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  return append(el, ...children);
}

/**
 * @template {Node & ParentNode} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function append(el, ...children) {
  for (const child of children) {
    if (Array.isArray(child)) append(el, ...child);
    else if (child !== null && child !== undefined && child !== false) {
      el.append(child instanceof Node ? child : String(child));
    }
  }
  return el;
}

/**
 * Replaces what `el` holds.
 * @template {Node & ParentNode} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, ...children);
}

/** The data each part was last drawn from, as JSON (parts made afresh start with none). */
const drawnFrom = new WeakMap();

/**
 * Fills `el` with what `build` makes, unless it was last filled from equal `data`: a part
 * drawn again unchanged would still be laid out and painted again, which a slow phone feels
 * at every step.
 * @template {HTMLElement} E
 * @param {E} el
 * @param {unknown} data what the part shows, compared as JSON
 * @param {() => Child} build
 * @returns {boolean} whether it was drawn again
 */
export function fillFrom(el, data, build) {
  const key = JSON.stringify(data);
  if (drawnFrom.get(el) === key) return false;
  drawnFrom.set(el, key);
  fill(el, build());
  return true;
}

/**
 * Sets an element's text where it changed (setting it anew replaces its text node).
 * @param {HTMLElement} el
 * @param {string} text
 */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * @param {HTMLElement} el
 * @param {boolean} visible
 */
export function show(el, visible) {
  if (el.hidden === visible) el.hidden = !visible; // set only where it changes: a page drawn again stays clean
}

/**
 * An element of index.html, which the page cannot do without.
 * @param {string} id
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html has no #${id}`);
  return el;
}

/** Where the views are drawn. */
export const app = () => byId("app");

/** @param {string} message */
export function showError(message) {
  byId("error-text").textContent = String(message);
  byId("error-banner").hidden = false;
}

export function hideError() {
  byId("error-banner").hidden = true;
}
