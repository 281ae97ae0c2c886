/* Games on this phone, with no server: the set-up of a game against bots or
 * passed from hand to hand, and the list of the games this device keeps. The
 * table page plays them (local.js links it to the worker).
 */

import { NAME_MAX, botLevels, createTable, importRecord, leaderboard, nameProblem, presets as loadPresets, refusal } from "./api.js";
import { leaderboardTable } from "./board.js";
import { app, byId, fill, h, showError } from "./dom.js";
import { locale, t } from "./i18n.js";
import { forgetLocal } from "./local.js";
import { keptTables } from "./store.js";
import { address, navigate } from "./router.js";
import { lastName, rememberName } from "./saved.js";
import { botOption, presetOf, presetSelect, presetSummary, seatList, settingsInput, splitSettings } from "./seats.js";
/** The largest record file read (py421.page.local.RECORD_MOST characters). */
const RECORD_MOST = 5_000_000;

/** @typedef {{ kind: string, name: string }} Row */

export function herePage() {
  document.title = `421 · ${t("here.title")}`;
  // Python starts in the page first (seconds on a phone): the title shows at once
  const root = fill(
    app(),
    h("section", { class: "card" }, h("h1", { text: t("here.title") }), h("p", { class: "muted", testid: "here-loading", text: t("here.loading") })),
  );
  Promise.all([loadPresets(true), botLevels(true)]).then(
    ([presets, offers]) => {
      const description = h("p", { class: "hint", testid: "preset-about" });
      const chosen = () => {
        const rules = presetOf(presets, presetSel.value);
        seats.fit(rules);
        description.textContent = presetSummary(rules);
      };
      const presetSel = presetSelect(presets, "preset", chosen);
      const seats = seatList({
        legend: t("seats"),
        rows: /** @type {Row[]} */ ([
          { kind: "human", name: lastName() },
          { kind: "bot:heuristic", name: "" },
        ]),
        blank: () => ({ kind: "bot:heuristic", name: "" }),
        name: (i) => t("seat_n", { n: i + 1 }),
        addText: t("add_seat"),
        field: (row, i, set) => {
          const select = h("select", { id: `seat-kind-${i}`, testid: `seat-kind-${i}`, "aria-label": t("seat_n", { n: i + 1 }) });
          select.append(h("option", { value: "human", text: t("here.person"), selected: row.kind === "human" }));
          // a bot that needs no solver plays on a phone
          for (const offer of offers) if (offer.offline) select.append(botOption(offer, offer.spec === row.kind));
          const name = h("input", {
            type: "text",
            id: `seat-name-${i}`,
            testid: `seat-name-${i}`,
            maxlength: String(NAME_MAX),
            autocomplete: "off",
            value: row.name,
            "aria-label": t("here.person_name", { n: i + 1 }),
            placeholder: t("your_name"),
            hidden: row.kind !== "human",
          });
          const changed = () => {
            name.hidden = select.value !== "human";
            set({ kind: select.value, name: name.value });
          };
          select.addEventListener("change", changed);
          name.addEventListener("input", changed);
          return h("span", { class: "row" }, select, name);
        },
      });
      const settings = settingsInput();
      const create = h("button", { type: "submit", class: "btn btn-primary btn-wide", testid: "create-here", text: t("here.create") });

      /** @param {SubmitEvent} event */
      async function submit(event) {
        event.preventDefault();
        const rows = /** @type {Row[]} */ (seats.values());
        const people = rows.filter((r) => r.kind === "human").map((r) => r.name.trim());
        const problem = people.some((n) => !n) ? t("here.names_needed") : people.map(nameProblem).find(Boolean);
        if (problem) {
          showError(problem);
          return;
        }
        create.disabled = true;
        try {
          const players = rows.map((r) => (r.kind === "human" ? r.name.trim() : r.kind));
          const res = await createTable({ mode: "play", rules: presetSel.value, settings: splitSettings(settings.value), players }, true);
          if (people.length) rememberName(people[0]);
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
          h("h1", { text: t("here.title") }),
          h("p", { class: "hint", text: t("here.intro") }),
          offlineNote(),
          h("label", { for: "preset", text: t("rules") }),
          presetSel,
          description,
          h("label", { for: "settings", text: t("settings") }),
          settings,
          h("p", { class: "hint", text: t("settings_hint") }),
          seats.element,
          create,
          h("p", { class: "hint", testid: "here-no-solver", text: t("here.no_solver") }),
        ),
        replaySection(),
        keptSection(),
      );
      chosen();
    },
    (err) => fill(root, h("p", { class: "error", testid: "here-failed", text: refusal(err) })),
  );
}

/** A game record chosen on the phone, opened as a table to watch step by step. */
function replaySection() {
  const file = h("input", { type: "file", id: "replay-file", testid: "replay-file", accept: ".json,application/json" });
  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    if (chosen.size > RECORD_MOST) {
      const size = (chosen.size / 1e6).toLocaleString(locale(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
      showError(t("here.replay_too_big", { size }));
      file.value = "";
      return;
    }
    try {
      const res = await importRecord(await chosen.text());
      navigate(`/t/${encodeURIComponent(res.code)}`);
    } catch (err) {
      showError(refusal(err));
      file.value = "";
    }
  });
  return h(
    "section",
    { class: "card" },
    h("h2", { text: t("here.replay_title") }),
    h("p", { class: "hint", text: t("here.replay_intro") }),
    h("label", { for: "replay-file", text: t("here.replay_file") }),
    file,
  );
}

/** The service worker once it keeps every file of the app; null where it could not be registered. @type {Promise<unknown> | null} */
let appKept = null;

/**
 * The service worker keeps the app for offline use. A new version waits until
 * the player takes it: a game in progress is never reloaded under them.
 */
export function keepOffline() {
  if (!("serviceWorker" in navigator)) return;
  const registered = navigator.serviceWorker.register(address("/sw.js"));
  // A worker already kept answers `ready` at once; `register` may wait behind the browser's check
  // for a new version, which a host that takes requests and answers none holds for minutes.
  appKept = Promise.race([
    navigator.serviceWorker.ready,
    registered.then(
      () => navigator.serviceWorker.ready,
      () => null,
    ),
  ]);
  registered.then(
    (registration) => {
      const offer = () => {
        const waiting = registration.waiting;
        if (!waiting || !navigator.serviceWorker.controller) return; // the first install needs no reload
        const bar = byId("update-banner");
        byId("update-text").textContent = t("here.update");
        const take = byId("update-take");
        take.textContent = t("here.reload");
        take.onclick = () => waiting.postMessage("take-over");
        bar.hidden = false;
      };
      offer();
      registration.addEventListener("updatefound", () => {
        registration.installing?.addEventListener("statechange", offer);
      });
    },
    () => {}, // not served (a checkout never installed): online play only
  );
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (!reloading && document.getElementById("update-banner")?.hidden === false) {
      reloading = true;
      location.reload();
    }
  });
}

/**
 * Whether this phone keeps the app for use with no network, said under the promise of it: a
 * browser keeps nothing for an address that is not https or localhost (a laptop's address on the
 * bar's Wi-Fi), and keeps it only once every file is in (the first visit cut short keeps nothing).
 */
function offlineNote() {
  const note = h("p", { class: "hint", testid: "offline-ready" });
  if (!window.isSecureContext || !("serviceWorker" in navigator)) {
    note.dataset.state = "never";
    note.textContent = t("here.offline_never", { origin: location.origin });
    return note;
  }
  note.dataset.state = "keeping";
  note.textContent = t("here.offline_keeping");
  appKept?.then((ready) => {
    if (!ready) {
      note.hidden = true; // no service worker served (a checkout never installed): online play only
      return;
    }
    note.dataset.state = "ready";
    note.textContent = t("here.offline_ready");
  });
  return note;
}

/** The card that leads to a game on this phone. */
export function herePromo() {
  return h(
    "section",
    { class: "card promo" },
    h("p", { text: t("here.intro") }),
    offlineNote(),
    h("a", { href: "/here", "data-link": true, class: "btn btn-ghost", testid: "here-link", text: t("here.open") }),
  );
}

/** The games this device keeps, the latest first, each a link to its table; and their players. */
export function keptSection() {
  const list = h("div", { testid: "kept" }, h("p", { class: "muted", text: t("loading") }));
  const players = h("div", { testid: "kept-players" });
  keptTables().then((kept) => {
    if (!kept.length) {
      fill(list, h("p", { class: "muted", text: t("here.no_kept") }));
      return;
    }
    if (kept.some((k) => k.mode !== "replay" && k.record.final?.phase === "over")) {
      leaderboard("", true).then(
        (rows) => fill(players, h("h3", { text: t("here.players") }), leaderboardTable(rows)),
        (err) => fill(players, h("p", { class: "muted", text: refusal(err) })),
      );
    }
    // the latest first; each says where it stands and when it was last played, so that two games of
    // the same people tell apart, and the whole row is a link a thumb can tap
    const latest = [...kept].sort((a, b) => (b.kept_at ?? 0) - (a.kept_at ?? 0));
    fill(
      list,
      h(
        "ul",
        { class: "compact-list kept-list" },
        latest.map((k) => {
          const state = k.mode === "replay" ? "here.replayed" : k.record.final?.phase === "over" ? "here.finished" : "here.in_play";
          const when = k.kept_at ? new Date(k.kept_at).toLocaleString(locale(), { dateStyle: "short", timeStyle: "short" }) : "";
          const row = h(
            "li",
            { class: "kept-row" },
            h(
              "a",
              { href: `/t/${encodeURIComponent(k.code)}`, "data-link": true, testid: `kept-${k.code}` },
              [k.record.rules.name, k.record.players.join(", ")].join(" · "),
              h("span", { class: "muted", testid: "kept-state", text: ` — ${[t(state), when].filter(Boolean).join(" · ")}` }),
            ),
            h("button", {
              type: "button",
              class: "btn btn-small btn-light",
              testid: `forget-${k.code}`,
              text: t("here.forget"),
              "aria-label": t("here.forget_game", { game: [k.record.rules.name, k.record.players.join(", ")].join(" · ") }),
              onclick: async () => {
                // each game kept is played again as the page starts: forgetting old ones keeps it quick
                if (!confirm(t("here.forget_sure"))) return;
                try {
                  await forgetLocal(k.code);
                  row.remove();
                } catch (err) {
                  showError(refusal(err));
                }
              },
            }),
          );
          return row;
        }),
      ),
    );
  });
  return h("section", { class: "card" }, h("h2", { text: t("here.kept") }), list, players);
}
