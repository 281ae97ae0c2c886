/* The analysis of a finished game (GET …/analysis, the JSON of `421 analyse`):
 * each player's summary, the game as a timeline of decisions coloured by what
 * they cost, and, for the decision tapped, the position and every choice ranked.
 */

/** @import { Analysis, Decision } from "./protocol" */
import { gameAnalysis, refusal, tableAnalysis } from "./api.js";
import { dieFace, miniDice } from "./dice.js";
import { app, append, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { whenLeaving } from "./router.js";
import { actionWords, costLevel, percent, points, pointsWords, rankedChoices } from "./values.js";

/**
 * @typedef {{ table: string } | { game: number }} Source
 */

/** @param {Source} source */
export function analysisPage(source) {
  const title = "table" in source ? t("an.title_table", { code: source.table }) : t("an.title_game", { n: source.game });
  document.title = `421 · ${title}`;
  let bots = new URLSearchParams(location.search).get("bots") === "1";
  let left = false;
  whenLeaving(() => {
    left = true;
    document.title = "421";
  });
  const back =
    "table" in source
      ? h("a", { href: `/t/${encodeURIComponent(source.table)}`, "data-link": true, class: "btn btn-ghost btn-wide", text: t("an.to_table") })
      : h("a", { href: "/", "data-link": true, class: "btn btn-ghost btn-wide", text: t("back") });
  const head = h("section", { class: "card", testid: "analysis-head" }, h("h1", { text: title }));
  const body = h("div", { class: "an-body", testid: "analysis" });
  const toggle = h("button", { type: "button", class: "btn btn-light btn-wide", testid: "analysis-bots", onclick: flip });
  fill(app(), head, body, toggle, back);
  load();

  function flip() {
    bots = !bots;
    const query = bots ? "?bots=1" : "";
    history.replaceState(null, "", location.pathname + query);
    load();
  }

  function load() {
    toggle.textContent = bots ? t("an.without_bots") : t("an.with_bots");
    toggle.disabled = true;
    fill(body, h("p", { class: "card muted", testid: "analysis-working", text: t("an.working") }));
    const asked = "table" in source ? tableAnalysis(source.table, bots) : gameAnalysis(source.game, bots);
    asked.then(
      (found) => {
        if (left) return;
        toggle.disabled = false;
        // Every seat analysed without the bots: there is no bot to add.
        toggle.hidden = !bots && found.summaries.length === found.players.length;
        show(found);
      },
      (err) => {
        if (left) return;
        toggle.disabled = false;
        fill(body, h("p", { class: "card", testid: "analysis-error", role: "alert", text: refusal(err) }));
      },
    );
  }

  /** @param {Analysis} found */
  function show(found) {
    fill(head, h("h1", { text: title }), h("p", { class: "muted", text: [found.rules, found.players.join(", ")].join(" · ") }));
    append(
      head,
      h("p", { class: "hint", text: t(`analysis.objective.${found.method}`, { n: found.players.length }) }),
      h("p", { class: "hint", text: t("analysis.cost") }),
    );
    fill(body, summaries(found), timeline(found));
  }
}

/** @param {Analysis} found */
function summaries(found) {
  const card = h("section", { class: "card", testid: "summaries" });
  if (!found.summaries.length) return append(card, h("p", { text: t("analysis.nobody") }));
  for (const s of found.summaries) {
    const row = h("div", { class: "an-summary", testid: `summary-${s.seat}` });
    if (s.accuracy === null) {
      row.append(h("p", { text: t("analysis.no_decision", { player: s.player }) }));
    } else {
      const fields = { player: s.player, n: s.decisions, accurate: s.accurate, accuracy: percent(s.accuracy, 1), cost: pointsWords(s.cost) };
      append(
        row,
        h("div", { class: "an-meter", role: "img", "aria-label": percent(s.accuracy, 1) }, meterBar(s.accuracy)),
        h("p", { text: t("analysis.summary", fields) }),
      );
    }
    if (s.unvalued) row.append(h("p", { class: "hint", text: t("analysis.unvalued", { n: s.unvalued }).trim() }));
    card.append(row);
  }
  return card;
}

/** @param {Analysis} found */
function timeline(found) {
  const card = h("section", { class: "card", testid: "timeline" }, h("h2", { text: t("an.timeline") }));
  if (!found.decisions.length) return append(card, h("p", { class: "muted", text: t("an.none") }));
  const legend = h(
    "ul",
    { class: "an-legend" },
    [0, 1, 2, 3].map((level) => h("li", {}, h("span", { class: `swatch level-${level}` }), t(`an.level.${level}`))),
  );
  append(card, h("p", { class: "hint", text: t("an.tap") }), legend);
  const many = new Set(found.decisions.map((d) => d.seat)).size > 1;
  const detail = h("div", { class: "an-detail", testid: "decision", hidden: true });
  /** @type {HTMLButtonElement | null} */
  let pressed = null;
  /** @type {Map<string, HTMLElement>} */
  const groups = new Map();
  for (const d of found.decisions) {
    const key = `${d.manche}|${d.phase}`;
    let chips = groups.get(key);
    if (!chips) {
      chips = h("div", { class: "an-chips" });
      groups.set(key, chips);
      card.append(h("section", { class: "an-group" }, h("h3", { text: t("an.group", { n: d.manche, phase: t(`phase.${d.phase}`) }) }), chips));
    }
    const level = costLevel(d.cost, found.accurate_within);
    const step = t("an.step", { step: d.step, player: d.player });
    const label = `${t("an.chip", { step, action: actionWords(d.chosen) })}${d.cost > found.accurate_within ? ` (−${points(d.cost)})` : ""}`;
    const chip = h(
      "button",
      { type: "button", class: `chip level-${level}`, testid: `decision-${d.step}`, "data-level": level, "aria-pressed": "false", "aria-label": label, title: label },
      many ? h("span", { class: "chip-who", text: initials(d.player) }) : null,
      miniDice(d.dice),
    );
    chip.addEventListener("click", () => {
      if (pressed) pressed.setAttribute("aria-pressed", "false");
      if (pressed === chip) {
        pressed = null;
        detail.hidden = true;
        return;
      }
      pressed = chip;
      chip.setAttribute("aria-pressed", "true");
      fill(detail, decisionDetail(d, found.accurate_within));
      detail.hidden = false;
      chips.after(detail); // under the decision's own group: no scrolling away on a phone
      detail.scrollIntoView({ block: "nearest", behavior: "smooth" });
    });
    chips.append(chip);
  }
  return card;
}

/**
 * The bar of a meter, its width set through the style object: the page's policy refuses a style
 * attribute written as text.
 * @param {number} share from 0 to 1
 */
function meterBar(share) {
  const bar = h("span", {});
  bar.style.width = `${Math.round(share * 100)}%`;
  return bar;
}

/** @param {string} name */
function initials(name) {
  return [...name.trim()].slice(0, 2).join("");
}

/**
 * The position of one decision and its choices.
 * @param {Decision} d
 * @param {number} accurate
 */
function decisionDetail(d, accurate) {
  const position =
    d.kind === "stake"
      ? t("analysis.stake", { dice: d.dice })
      : t("analysis.left", { dice: d.dice, n: d.throws_left }) + (d.before.length ? t("analysis.against", { before: d.before.join(", ") }) : "");
  const level = costLevel(d.cost, accurate);
  return [
    h("h3", { text: t("an.step", { step: d.step, player: d.player }) }),
    h("div", { class: "an-dice", testid: "decision-dice", "aria-label": d.dice, role: "img" }, [...d.dice].map((c) => dieFace(Number(c)))),
    h("p", { class: "an-position", text: position }),
    d.before.length ? h("p", { class: "an-before" }, d.before.map((r) => miniDice(r))) : null,
    h(
      "p",
      { class: `an-verdict level-${level}`, testid: "verdict" },
      d.cost > 1e-12 ? `${actionWords(d.chosen)} · −${points(d.cost)}` : `${actionWords(d.chosen)} · ${t("an.best")}`,
    ),
    h("h4", { text: t("an.choices") }),
    rankedChoices(d.choices, d.chosen, accurate),
  ];
}

