/* The page's words in English and French, and the language it is shown in.
 *
 * The words are the page's part of py421's one catalog (py421/i18n), written
 * into messages.js by scripts/page_types.py; the outcomes and limit calls are
 * the same sentences the terminal prints.
 */

/** @import { ErrorCode } from "./protocol" */
import { MESSAGES } from "./messages.js";
import { safeGet, safeSet } from "./saved.js";

/** @typedef {"en" | "fr"} Lang */

/**
 * Messages by key. Every error code of the protocol has its words: a code
 * added on the server fails the type check until both languages word it.
 * @typedef {Record<`error.${ErrorCode}`, string> & Record<string, string>} Catalog
 */

/** @type {Record<Lang, Catalog>} */
const STRINGS = MESSAGES;

const LANG_KEY = "py421:lang";
// A vowel, or h (« d'Hugo »), or y before a consonant (« d'Yves », but « de Yasmine »).
const VOWEL_SOUND = /^(?:[aeiouàâäéèêëîïôöûùœh]|y[^aeiouy])/i;

/** The language the page is shown in; switchLang() changes it. */
export let lang = pickLang();

/** @returns {Lang} */
function pickLang() {
  const saved = safeGet(LANG_KEY);
  if (saved === "en" || saved === "fr") return saved;
  return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
}

/** Goes to the other language, and remembers it for the next visit. */
export function switchLang() {
  lang = lang === "fr" ? "en" : "fr";
  safeSet(LANG_KEY, lang);
}

/**
 * Where dates are written: the browser's own locale where it speaks the page's language (en-GB,
 * fr-CA), so a date reads as its reader writes it; else the page's language.
 * @returns {string}
 */
export function locale() {
  const asked = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
  const fits = (/** @type {string} */ tag) => {
    try {
      return tag.toLowerCase().split("-")[0] === lang && Intl.DateTimeFormat.supportedLocalesOf(tag).length > 0;
    } catch {
      return false; // a tag the browser cannot read
    }
  };
  return asked.find(fits) || lang;
}

/**
 * Whether the page has words of its own for `key`.
 * @param {string} key
 */
export function known(key) {
  return key in STRINGS.en;
}

/**
 * The message `key` with `{field}`s filled; `{s}` is the plural mark of `n`.
 * @param {string} key
 * @param {Record<string, string | number>} [fields]
 */
export function t(key, fields = {}) {
  let text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  if (lang === "fr") {
    // « d'Ana », « d'engranjeu-21 »: a person's or a ruleset's name, as the terminal's words are
    text = text.replace(/\bde \{(who|rules)\}/g, (de, f) => (VOWEL_SOUND.test(String(fields[f] ?? "")) ? `d'{${f}}` : de));
  }
  const n = fields.n;
  const s = typeof n === "number" ? plural(n) : "";
  return text.replace(/\{(\w+)\}/g, (_, f) => (f === "s" && !("s" in fields) ? s : String(fields[f] ?? "")));
}

/**
 * The plural mark of a count: "s", or "" where `n` is singular. French keeps 0 and 1 (and what
 * lies between) singular, English only 1 (py421.i18n.plural, the same rule).
 * @param {number} n
 */
export function plural(n) {
  return (lang === "fr" ? Math.abs(n) >= 2 : n !== 1) ? "s" : "";
}

/**
 * The message `key` as a sentence, its first letter capitalised ("shared loss: …" → "Shared
 * loss: …"), in either language. A message whose first word is a field ({who}) is left as it
 * is: a player's name is shown as it was typed.
 * @param {string} key
 * @param {Record<string, string | number>} [fields]
 */
export function sentence(key, fields = {}) {
  const text = t(key, fields);
  const template = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  if (/^[^\p{L}{]*\{/u.test(template)) return text;
  return text.replace(/\p{L}/u, (letter) => letter.toLocaleUpperCase(lang));
}

/**
 * Names as a sentence lists them, as the terminal does (py421.text.names): « Ana, Bob et Zoé ».
 * @param {string[]} names
 */
export function listNames(names) {
  if (names.length < 2) return names.join("");
  return names.slice(0, -1).join(", ") + t("list.and") + names[names.length - 1];
}

/**
 * The end of a game in sentences, each to start a line, worded as the terminal words it after a
 * colon (py421.text.outcome_text): who lost, the winners in order, who lost each manche.
 * @param {{ kind: string, losers: number[], winners?: number[][] | null, manche_losers?: number[] | null }} out
 * @param {(seat: number) => string} nameOf
 */
export function outcomeSentences(out, nameOf) {
  const listed = (/** @type {number[]} */ seats) => listNames(seats.map(nameOf));
  const between = t("list.semicolon");
  const lines = [sentence(`outcome.${out.kind}`, { who: listed(out.losers) })];
  if (out.winners && out.winners.length) {
    // "in order" only where there is an order
    const alone = out.winners.length === 1;
    const key = !alone ? "outcome.winners" : out.winners[0].length === 1 ? "outcome.winner" : "outcome.winners.tied";
    lines.push(sentence(key, { who: out.winners.map(listed).join(between) }));
  }
  if (out.manche_losers && out.manche_losers.length > 1) {
    const each = out.manche_losers.map((s, i) => t("outcome.manche", { n: i + 1, who: nameOf(s) })).join(between);
    lines.push(sentence("outcome.manches", { who: each }));
  }
  return lines;
}

/**
 * A preset's description in the page's language (the server's English for a preset the catalog lacks).
 * @param {string} name
 * @param {string} description the server's words
 */
export function presetText(name, description) {
  return STRINGS[lang][`preset.${name}`] ?? description;
}

/**
 * A refusal in the page's language: the server's own words when they are in it (a refused
 * move is worded in the connection's language), else the catalog's for the code.
 * @param {string} code an error code, or "http" when the answer named none
 * @param {string} [message] the server's words
 * @param {string} [messageLang] the language of `message` (English unless the server says)
 */
export function errorText(code, message, messageLang = "en") {
  const key = `error.${code}`;
  if (message && messageLang === lang) return message;
  if (lang !== "en" && key in STRINGS[lang]) return STRINGS[lang][key];
  return message || STRINGS.en[key] || String(code);
}
