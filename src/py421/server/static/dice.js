/* Dice drawn with their pips, in SVG. */

import { h } from "./dom.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** @type {Record<number, [number, number][]>} */
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

/**
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number>} attrs
 * @returns {SVGElementTagNameMap[K]}
 */
function svg(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * One die face drawn with its pips.
 * @param {number} face
 */
export function dieFace(face) {
  const root = svg("svg", { viewBox: "0 0 100 100", class: "die-face", "aria-hidden": "true", focusable: "false" });
  root.append(svg("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18, class: "die-body" }));
  for (const [cx, cy] of PIPS[face] || []) {
    root.append(svg("circle", { cx, cy, r: face === 1 ? 11 : 9, class: face === 1 ? "pip pip-ace" : "pip" }));
  }
  return root;
}

/**
 * Small dice for a result written as digits, e.g. "421".
 * @param {string} text
 */
export function miniDice(text) {
  return h(
    "span",
    { class: "mini-dice", "aria-label": text, role: "img" },
    [...String(text)].filter((c) => c >= "1" && c <= "6").map((c) => dieFace(Number(c))),
  );
}
