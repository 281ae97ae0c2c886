/* The lobby: create a table (rules, seats, name), join one by its code, and
 * the finished games and the leaderboard of the chosen rules.
 */

/** @import { CreateTable, GameSummary } from "./protocol" */
import { NAME_MAX, botLevels, createTable, estimateTable, finishedGames, leaderboard, nameProblem, presets as loadPresets, refusal, serverAnswers } from "./api.js";
import { app, fill, h, setText, show, showError } from "./dom.js";
import { leaderboardTable } from "./board.js";
import { herePromo, keptSection } from "./here.js";
import { listNames, locale, t } from "./i18n.js";
import { navigate } from "./router.js";
import { lastName, recentSeats, rememberName, saveSeat } from "./saved.js";
import { botOption, presetOf, presetSelect, presetSummary, seatList, settingsInput, splitSettings } from "./seats.js";

export function lobbyPage() {
  document.title = "421";
  const root = fill(app(), h("p", { class: "muted", text: t("loading") }));
  serverAnswers().then((online) => (online ? onlineLobby(root) : offlineLobby(root)));
}

/**
 * No server answers (a static host, or no network): what plays on this phone.
 * @param {HTMLElement} root
 */
function offlineLobby(root) {
  fill(
    root,
    h("h1", { class: "card", text: "421" }),
    h("p", { class: "card hint", testid: "no-server", text: t("here.no_server") }),
    herePromo(),
    h(
      "section",
      { class: "card promo" },
      h("p", { text: t("sk_promo") }),
      h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn-ghost", testid: "scorekeeper-link", text: t("sk_open") }),
    ),
    keptSection(),
  );
}

/** @param {HTMLElement} root */
function onlineLobby(root) {
  Promise.all([loadPresets(), botLevels()]).then(
    ([presets, offers]) => {
      const presetSel = presetSelect(presets, "preset", () => {
        seats.fit(rules());
        describe();
        loadLeaderboard();
      });
      const description = h("p", { class: "hint" });
      const settings = settingsInput();
      // "you" is the creator's own seat, always the first; the others are a friend or a bot.
      const seats = seatList({
        legend: t("seats"),
        rows: ["you", "bot:heuristic", "bot:heuristic"],
        blank: () => "bot:heuristic",
        fixed: 1,
        name: (i) => t("seat_n", { n: i + 1 }),
        addText: t("add_seat"),
        field: (kind, i, set) => {
          const select = h("select", {
            id: `seat-kind-${i}`,
            testid: `seat-kind-${i}`,
            "aria-label": t("seat_n", { n: i + 1 }),
            disabled: i === 0,
          });
          select.addEventListener("change", () => set(select.value));
          for (const k of i === 0 ? ["you"] : ["human"]) {
            select.append(h("option", { value: k, text: t(`kind.${k}`), selected: k === kind }));
          }
          if (i > 0) for (const offer of offers) select.append(botOption(offer, offer.spec === kind));
          return select;
        },
      });
      const name = h("input", {
        id: "player-name",
        testid: "player-name",
        type: "text",
        maxlength: String(NAME_MAX),
        autocomplete: "nickname",
        value: lastName(),
        required: true,
      });
      const timeout = h("input", {
        id: "timeout",
        testid: "timeout",
        type: "number",
        min: "0",
        max: "3600",
        step: "1",
        inputmode: "numeric",
        value: "60",
      });
      const hints = h("input", { type: "checkbox", id: "hints", testid: "hints" });
      const create = h("button", {
        type: "submit",
        class: "btn btn-primary btn-wide",
        id: "create-table",
        testid: "create-table",
        text: t("create"),
      });
      const solving = h("p", { class: "hint", testid: "create-solving", role: "status", hidden: true });

      const rules = () => presetOf(presets, presetSel.value);

      function describe() {
        description.textContent = presetSummary(rules());
      }

      const form = h(
        "form",
        { class: "card", id: "create-form", novalidate: true, onsubmit: submit },
        h("h1", { text: t("lobby.title") }),
        h("p", { class: "hint", text: t("lobby.intro") }),
        h("label", { for: "preset", text: t("rules") }),
        presetSel,
        description,
        h("label", { for: "settings", text: t("settings") }),
        settings,
        h("p", { class: "hint", text: t("settings_hint") }),
        seats.element,
        h("label", { for: "player-name", text: t("your_name") }),
        name,
        h("label", { for: "timeout", text: t("timeout") }),
        timeout,
        h("label", { class: "check", for: "hints" }, hints, h("span", { text: t("hints_option") })),
        create,
        solving,
      );

      /**
       * While the server makes a table whose rules it must solve first (hints, a bot:optimal seat),
       * how long it has taken of what the server expects; nothing for a table made at once.
       * @param {CreateTable} body
       * @returns {() => void} stops saying it
       */
      function sayTheSolving(body) {
        let timer = 0;
        let stopped = false;
        const began = Date.now();
        if (body.hints || (body.seats ?? []).includes("bot:optimal")) {
          estimateTable(body).then(
            ({ seconds }) => {
              if (stopped || seconds < 2) return; // made before the line would be read
              const total = Math.ceil(seconds);
              const tell = () => setText(solving, t("create_solving", { elapsed: Math.round((Date.now() - began) / 1000), total }));
              tell();
              show(solving, true);
              timer = window.setInterval(tell, 1000);
            },
            () => {}, // no estimate: the button alone says it is under way, as before
          );
        }
        return () => {
          stopped = true;
          window.clearInterval(timer);
          show(solving, false);
        };
      }

      /** @param {SubmitEvent} event */
      async function submit(event) {
        event.preventDefault();
        const player = name.value.trim();
        const problem = nameProblem(player);
        if (problem) {
          showError(problem);
          name.focus();
          return;
        }
        /** @type {CreateTable} */
        const body = {
          rules: presetSel.value,
          settings: splitSettings(settings.value),
          seats: seats.values().map((k) => (k === "you" ? "human" : k)),
          name: player,
          timeout: Number.parseInt(timeout.value, 10) || 0,
          hints: hints.checked,
        };
        create.disabled = true;
        const done = sayTheSolving(body);
        try {
          const res = await createTable(body);
          rememberName(player);
          saveSeat(res.code, { seat: res.seat, token: res.token, creator: true });
          navigate(`/t/${encodeURIComponent(res.code)}`);
        } catch (err) {
          showError(refusal(err));
          create.disabled = false;
        } finally {
          done();
        }
      }

      const games = h("div", { testid: "games" }, h("p", { class: "muted", text: t("loading") }));
      const board = h("div", { testid: "leaderboard" });
      const boardTitle = h("h2");

      function loadLeaderboard() {
        const rulesName = presetSel.value;
        boardTitle.textContent = `${t("leaderboard")} · ${rulesName}`;
        fill(board, h("p", { class: "muted", text: t("loading") }));
        leaderboard(rulesName).then(
          (rows) => rulesName === presetSel.value && fill(board, leaderboardTable(rows)),
          () => fill(board, h("p", { class: "muted", text: t("unavailable") })),
        );
      }

      fill(
        root,
        yourTables(),
        form,
        joinByCode(),
        herePromo(),
        h(
          "section",
          { class: "card promo" },
          h("p", { text: t("sk_promo") }),
          h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn-ghost", testid: "scorekeeper-link", text: t("sk_open") }),
        ),
        h("section", { class: "card" }, h("h2", { text: t("games") }), games),
        h("section", { class: "card" }, boardTitle, board),
        keptSection(),
      );
      seats.fit(rules());
      describe();
      loadLeaderboard();
      finishedGames(10).then(
        (rows) => fill(games, gamesList(rows)),
        () => fill(games, h("p", { class: "muted", text: t("unavailable") })),
      );
    },
    (err) => {
      fill(root, joinByCode());
      showError(refusal(err));
    },
  );
}

/** The tables this phone took a seat at lately, to go back to one: nothing where it took none. */
function yourTables() {
  const seats = recentSeats().slice(0, 6);
  if (!seats.length) return null;
  return h(
    "section",
    { class: "card", testid: "your-tables" },
    h("h2", { text: t("your_tables") }),
    h(
      "ul",
      { class: "compact-list" },
      seats.map((s) =>
        h(
          "li",
          {},
          h(
            "a",
            { href: `/t/${encodeURIComponent(s.code)}`, "data-link": true, testid: `your-table-${s.code}` },
            t("table_code", { code: s.code }),
            h("span", {
              class: "muted",
              text: ` — ${t("seat_taken_at", { time: new Date(s.saved ?? 0).toLocaleTimeString(locale(), { timeStyle: "short" }) })}`,
            }),
          ),
        ),
      ),
    ),
  );
}

function joinByCode() {
  const input = h("input", {
    id: "join-code",
    testid: "join-code",
    type: "text",
    maxlength: "12",
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    placeholder: "ABCDE",
    "aria-label": t("code"),
  });
  return h(
    "form",
    {
      class: "card",
      onsubmit: (e) => {
        e.preventDefault();
        // Codes are letters; people type them in any case.
        const code = input.value.trim().toUpperCase();
        if (code) navigate(`/t/${encodeURIComponent(code)}`);
      },
    },
    h("h2", { text: t("join_title") }),
    h(
      "div",
      { class: "row" },
      input,
      h("button", { type: "submit", class: "btn btn-primary", testid: "join-code-button", text: t("go") }),
    ),
  );
}

/**
 * The finished games, shown compactly; each links to its record and its analysis.
 * @param {GameSummary[]} rows
 */
function gamesList(rows) {
  if (!rows.length) return h("p", { class: "muted", text: t("no_games") });
  return h(
    "ul",
    { class: "compact-list" },
    rows.map((g) => {
      const date = new Date(g.finished_at);
      const title = [g.rules, g.players.join(", ")].filter(Boolean).join(" · ");
      return h(
        "li",
        {},
        h("a", { href: `/api/games/${g.id}/record`, title: t("record"), text: title || `#${g.id}` }),
        " · ",
        h("a", { href: `/games/${g.id}/analysis`, "data-link": true, testid: `game-analysis-${g.id}`, text: t("analysis") }),
        g.kind === "abandoned"
          ? h("span", { class: "muted", text: ` — ${t("abandoned")}` })
          : g.losers.length
            ? h("span", { class: "muted", text: ` — ${t("lost_by", { who: listNames(g.losers) })}` })
            : null,
        Number.isNaN(date.getTime())
          ? null
          : h("span", { class: "muted small", text: ` · ${date.toLocaleDateString(locale())}` }),
      );
    }),
  );
}
