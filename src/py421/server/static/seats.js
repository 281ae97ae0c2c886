/* What the set-ups of a table share (the lobby, the scorekeeper, a game on
 * this phone): the choice of rules, the house settings, and the seat-list
 * editor (who sits where, within the rules' fewest and most players).
 */

/** @import { BotOffer, Preset } from "./protocol" */
import { h } from "./dom.js";
import { known, lang, presetText, t } from "./i18n.js";

/**
 * The presets' select, named `rules` like the request's field.
 * @param {Preset[]} presets
 * @param {string} testid
 * @param {() => void} onchange
 */
export function presetSelect(presets, testid, onchange) {
  const select = h("select", { id: testid, testid, name: "rules", onchange });
  for (const p of presets) {
    select.append(h("option", { value: p.name, text: p.name }));
  }
  return select;
}

/**
 * A bot level as a choice of a seat's select, its way of playing as the option's title.
 * @param {BotOffer} offer
 * @param {boolean} selected
 */
export function botOption(offer, selected) {
  const own = `kind.${offer.spec}`; // py421's own levels have the page's words; a level added, the server's
  const text = known(own) ? t(own) : t("kind.bot", { name: offer.names[lang] ?? offer.names.en ?? offer.spec });
  return h("option", { value: offer.spec, text, title: offer.about[lang] ?? offer.about.en ?? "", selected });
}

/**
 * What a preset is, and how many players it seats (beside the rules' choice of a form).
 * @param {Preset} p
 */
export function presetSummary(p) {
  const range = p.no_limit
    ? t("players_or_more", { min: p.min_players })
    : p.min_players === p.max_players
      ? t("players_exactly", { n: p.min_players })
      : t("players_range", { min: p.min_players, max: p.max_players });
  return [presetText(p.name, p.description), range].filter(Boolean).join(" — ");
}

/**
 * @param {Preset[]} presets
 * @param {string} name
 * @returns {Preset}
 */
export function presetOf(presets, name) {
  return (
    presets.find((p) => p.name === name) || { name, description: "", min_players: 2, max_players: 8, no_limit: false }
  );
}

/**
 * @template V
 * @typedef {object} SeatListOptions
 * @property {string} legend the list's title
 * @property {V[]} rows the rows at first
 * @property {() => V} blank what a new row holds
 * @property {(value: V, i: number, set: (value: V) => void) => HTMLElement} field a row's control
 * @property {(i: number) => string} name a row's name for screen readers ("Seat 2")
 * @property {string} addText the add button's words
 * @property {number} [fixed] rows at the top that cannot be taken out (the creator's own seat)
 * @property {boolean} [focusAdded] move the focus to the control of a row just added
 */

/**
 * The list of a new table's seats: one row each (a number, a control, a
 * button to take it out) and a button to add one, kept within the preset's
 * fewest and most players. Rows are added and dropped at the end.
 * @template V
 * @param {SeatListOptions<V>} options
 */
export function seatList({ legend, rows: first, blank, field, name, addText, fixed = 0, focusAdded = false }) {
  const rows = first.slice();
  let room = { min_players: 0, max_players: Infinity };
  /** @type {HTMLElement[]} */
  let controls = [];
  const list = h("ol", { class: "seat-list", testid: "seat-list" });
  const add = h("button", {
    type: "button",
    class: "btn btn-ghost",
    id: "add-seat",
    testid: "add-seat",
    text: `+ ${addText}`,
    onclick: () => {
      rows.push(blank());
      draw();
      if (focusAdded) controls[controls.length - 1].focus();
    },
  });

  function draw() {
    controls = rows.map((value, i) =>
      field(value, i, (changed) => {
        rows[i] = changed;
      }),
    );
    list.replaceChildren(
      ...controls.map((control, i) =>
        h(
          "li",
          { class: "seat-row" },
          h("span", { class: "seat-no", text: i + 1 }),
          control,
          i < fixed
            ? null
            : h("button", {
                type: "button",
                class: "btn btn-icon",
                testid: `remove-seat-${i}`,
                "aria-label": `${t("remove")} ${name(i)}`,
                title: t("remove"),
                text: "−",
                disabled: rows.length <= room.min_players,
                onclick: () => {
                  rows.splice(i, 1);
                  draw();
                },
              }),
        ),
      ),
    );
    add.disabled = rows.length >= room.max_players;
  }

  return {
    element: h("fieldset", { class: "seats" }, h("legend", { text: legend }), list, add),
    /**
     * Fits the rows to a preset and draws them.
     * @param {Preset} preset
     */
    fit(preset) {
      room = preset;
      while (rows.length > preset.max_players) rows.pop();
      while (rows.length < preset.min_players) rows.push(blank());
      draw();
    },
    /** The rows, in seating order. */
    values: () => rows.slice(),
  };
}

/**
 * "pot=21, le_bon=false" → ["pot=21", "le_bon=false"]
 * @param {string} text
 */
export function splitSettings(text) {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The house settings' text box (`pot=21, le_bon=false`), named `settings` like the request's field. */
export function settingsInput() {
  return h("input", {
    id: "settings",
    testid: "settings",
    type: "text",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    placeholder: "pot=21",
  });
}
