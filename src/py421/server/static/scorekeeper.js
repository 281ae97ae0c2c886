/* The scorekeeper's set-up: the rules and the names of a real table's
 * players, in seating order. The table page then takes the reports.
 */

import { NAME_MAX, createTable, nameProblem, presets as loadPresets, refusal, serverAnswers } from "./api.js";
import { app, fill, h, show, showError } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./router.js";
import { saveSeat } from "./saved.js";
import { presetOf, presetSelect, seatList, settingsInput, splitSettings } from "./seats.js";

export function scorekeeperPage() {
  document.title = `421 · ${t("sk.title")}`;
  const root = fill(app(), h("p", { class: "muted", text: t("loading") }));

  // With no server, the score is kept on this phone (py421 runs in the page); with one, either.
  serverAnswers()
    .then(async (online) => /** @type {const} */ ([online, await loadPresets(!online)]))
    .then(
    ([online, presets]) => {
      const here = h("input", { type: "checkbox", id: "sk-here", testid: "sk-here", checked: !online, disabled: !online });
      // others follow the standings only from a server's table
      const followed = h("span", { testid: "sk-followed", text: t("sk.intro_online"), hidden: !online });
      here.addEventListener("change", () => show(followed, !here.checked));
      const presetSel = presetSelect(presets, "preset", () => names.fit(rules()));
      const settings = settingsInput(); // the house's, as `421 table --set` takes them
      const names = seatList({
        legend: t("sk.players"),
        rows: ["", "", ""],
        blank: () => "",
        focusAdded: true,
        name: (i) => t("sk.player_n", { n: i + 1 }),
        addText: t("sk.add"),
        field: (value, i, set) => {
          const input = h("input", {
            type: "text",
            maxlength: String(NAME_MAX),
            testid: `sk-player-${i}`,
            id: `sk-player-${i}`,
            "aria-label": t("sk.player_n", { n: i + 1 }),
            placeholder: t("sk.player_n", { n: i + 1 }),
            value,
          });
          input.addEventListener("input", () => set(input.value));
          return input;
        },
      });
      const create = h("button", {
        type: "submit",
        class: "btn btn-primary btn-wide",
        id: "create-table",
        testid: "create-table",
        text: t("sk.create"),
      });
      const rules = () => presetOf(presets, presetSel.value);

      /** @param {SubmitEvent} event */
      async function submit(event) {
        event.preventDefault();
        // A row left empty is nobody: the players are the names given, in seating order.
        const players = names.values().map((n) => n.trim()).filter(Boolean);
        const fewest = Math.max(2, rules().min_players);
        if (players.length < fewest) {
          showError(t("sk.names_needed", { n: fewest }));
          return;
        }
        const problem = players.map(nameProblem).find(Boolean);
        if (problem) {
          showError(problem);
          return;
        }
        create.disabled = true;
        try {
          const settingsAsked = splitSettings(settings.value);
          const res = await createTable({ mode: "scorekeeper", rules: presetSel.value, settings: settingsAsked, players }, here.checked);
          saveSeat(res.code, { seat: res.seat, token: res.token, creator: true });
          navigate(`/t/${encodeURIComponent(res.code)}`);
        } catch (err) {
          showError(refusal(err));
          create.disabled = false;
        }
      }

      fill(
        root,
        h(
          "form",
          { class: "card", novalidate: true, onsubmit: submit },
          h("h1", { text: t("sk.title") }),
          h("p", { class: "hint" }, t("sk.intro"), " ", followed),
          h("label", { for: "preset", text: t("rules") }),
          presetSel,
          h("label", { for: "settings", text: t("settings") }),
          settings,
          h("p", { class: "hint", text: t("settings_hint") }),
          names.element,
          h("label", { class: "check", for: "sk-here" }, here, h("span", { text: t("here.sk_here") })),
          create,
        ),
      );
      names.fit(rules());
    },
    (err) => showError(refusal(err)),
  );
}
