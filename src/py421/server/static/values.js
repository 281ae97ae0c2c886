/* Choices and what they are worth, in words: the hints at a table and the
 * analysis page show them alike. Values are fractions (the chance of not
 * losing, or one minus a share of the loss); a cost is the best value minus
 * a choice's, shown in points (hundredths), as `421 analyse` does.
 */

/** @import { Choice } from "./protocol" */
import { h } from "./dom.js";
import { lang, plural, t } from "./i18n.js";

/** The costs the colours stand for, in points: up to each bound, the level of its place. */
export const LEVELS = [0.005, 0.02, 0.1];

/**
 * How bad a cost is, from 0 (within half a point of the best) to 3 (more than ten points).
 * @param {number} cost
 * @param {number} [accurate] the analysis's own bound for an accurate decision
 */
export function costLevel(cost, accurate = LEVELS[0]) {
  if (cost <= accurate) return 0;
  const level = LEVELS.findIndex((bound) => cost <= bound);
  return level < 0 ? LEVELS.length : Math.max(level, 1);
}

/**
 * A move as records write it ("keep 41", "stop", "bon 42", "stake est"), in the page's words.
 * @param {string} text
 */
export function actionWords(text) {
  const [verb, arg = ""] = text.split(" ");
  if (verb === "stop") return t("action.stop");
  if (verb === "stake") return t(`action.${arg}`);
  if (verb === "bon") return arg ? t("action.bon_keep", { kept: arg }) : t("action.bon");
  if (verb === "keep") return t("action.keep", { kept: arg });
  return t("action.throw");
}

/**
 * @param {number} value a fraction
 * @param {number} [digits]
 */
export function percent(value, digits = 2) {
  return new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/**
 * A cost's points as a number, "8.30" (in French "8,30").
 * @param {number} cost a fraction
 */
export function pointsNumber(cost) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cost * 100);
}

/**
 * A cost in points with its word, "8.30 points" (in French « 0,50 point »: the plural as written).
 * @param {number} cost a fraction
 */
export function pointsWords(cost) {
  return t("unit.points", { n: pointsNumber(cost), s: plural(Number((cost * 100).toFixed(2))) });
}

/**
 * A cost in points, "8.30 pts".
 * @param {number} cost a fraction
 */
export function points(cost) {
  return t("an.points", { n: pointsNumber(cost) });
}

/**
 * Every choice, best first, with its value and what it gives away against the best;
 * `chosen` (the analysis) is marked.
 * @param {Choice[]} choices best first
 * @param {string | null} [chosen]
 * @param {number} [accurate]
 */
export function rankedChoices(choices, chosen = null, accurate = LEVELS[0]) {
  const best = choices.length ? choices[0].value : 0;
  return h(
    "ol",
    { class: "ranking", testid: "ranking" },
    choices.map((c, i) => {
      const cost = Math.max(0, best - c.value);
      const classes = ["ranking-row", `level-${costLevel(cost, accurate)}`];
      if (c.action === chosen) classes.push("is-chosen");
      return h(
        "li",
        { class: classes.join(" "), testid: `choice-${i}`, "data-action": c.action },
        h(
          "span",
          { class: "ranking-action" },
          actionWords(c.action),
          c.action === chosen ? h("span", { class: "tag tag-you", text: t("an.chosen") }) : null,
        ),
        h("span", { class: "ranking-value", text: percent(c.value) }),
        h("span", { class: "ranking-cost", text: cost > 1e-12 ? `−${points(cost)}` : t("an.best") }),
      );
    }),
  );
}
