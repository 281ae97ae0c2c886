/* Players' losses as a table: the server's leaderboard of a preset, and the
 * players of the games kept on this phone.
 */

/** @import { PlayerStats } from "./protocol" */
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @param {PlayerStats[]} rows */
export function leaderboardTable(rows) {
  if (!rows.length) return h("p", { class: "muted", text: t("no_leaderboard") });
  return h(
    "table",
    { class: "board" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { text: t("lb.player") }),
        h("th", { class: "num", text: t("lb.games") }),
        h("th", { class: "num", text: t("lb.losses") }),
        h("th", { class: "num", text: t("lb.rate") }),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r) => {
        const rate = r.loss_rate;
        const shown = typeof rate === "number" ? `${Math.round(rate * 100 * 10) / 10} %` : "";
        return h(
          "tr",
          {},
          h("td", { text: r.name }),
          h("td", { class: "num", text: r.games }),
          h("td", { class: "num", text: r.losses ?? "" }),
          h("td", { class: "num", text: shown }),
        );
      }),
    ),
  );
}
