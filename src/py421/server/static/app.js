/* py421 in the browser: lobby, table and scorekeeper, one page of native ES
 * modules with no build step. This one starts the page: it draws the view of
 * the address, follows the page's own links without reloading, and words the
 * parts of index.html outside the views.
 *
 *   i18n.js         the words, in English and French
 *   saved.js        what the browser remembers (language, name, seat tokens)
 *   dom.js          building elements as text, never HTML; the error banner
 *   api.js          the HTTP API, typed by the server's protocol (protocol.d.ts)
 *   router.js       addresses without reloads
 *   seats.js        the rules' select and the seat-list editor, for both set-ups
 *   lobby.js        create or join a table; finished games and the leaderboard
 *   scorekeeper.js  set up the scorekeeper of a real table
 *   here.js         set up a game on this phone (no server), and the games it keeps
 *   board.js        players' losses as a table (the leaderboard, the players of this phone)
 *   local.js        the tables of this phone: the worker (worker.js) that runs py421 in Pyodide
 *   table.js        a table: the WebSocket, the moves, the reports, the hints
 *   analysis.js     a finished game's analysis: the timeline, each decision's choices
 *   values.js       choices and their values in words (hints and analyses)
 *   dice.js         dice drawn in SVG
 */

import { analysisPage } from "./analysis.js";
import { herePage, keepOffline } from "./here.js";
import { byId, hideError } from "./dom.js";
import { lang, switchLang, t } from "./i18n.js";
import { lobbyPage } from "./lobby.js";
import { appPath, leave, navigate, startRouting } from "./router.js";
import { scorekeeperPage } from "./scorekeeper.js";
import { tablePage } from "./table.js";

function route() {
  leave();
  hideError();
  const path = appPath();
  const table = path.match(/^\/t\/([^/]+)\/?$/);
  const analysis = path.match(/^\/t\/([^/]+)\/analysis\/?$/);
  const game = path.match(/^\/games\/(\d+)\/analysis\/?$/);
  document.documentElement.lang = lang;
  if (table) tablePage(decodeURIComponent(table[1]));
  else if (analysis) analysisPage({ table: decodeURIComponent(analysis[1]) });
  else if (game) analysisPage({ game: Number(game[1]) });
  else if (/^\/scorekeeper\/?$/.test(path)) scorekeeperPage();
  else if (/^\/here\/?$/.test(path)) herePage();
  else lobbyPage();
  applyChrome();
}

/** Text of the parts of index.html outside the views. */
function applyChrome() {
  byId("nav-scorekeeper").textContent = t("nav.scorekeeper");
  const toggle = byId("lang-toggle");
  const other = lang === "fr" ? "EN" : "FR";
  toggle.textContent = other;
  // The name read out starts with the letters shown, so that a voice command of them works too.
  toggle.setAttribute("aria-label", `${other} · ${t("lang.switch")}`);
  toggle.title = t("lang.switch");
  byId("error-dismiss").setAttribute("aria-label", t("dismiss"));
}

document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a[data-link]") : null;
  if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const target = new URL(link.href, location.href);
  if (target.origin !== location.origin) return;
  event.preventDefault();
  navigate(appPath(target.pathname));
});

byId("error-dismiss").addEventListener("click", hideError);
byId("lang-toggle").addEventListener("click", () => {
  switchLang();
  // Drawing the view again also reconnects the table's socket, so the log
  // comes back in the new language.
  route();
});

// A module runs once the document is parsed: index.html is all there.
keepOffline(); // first: the views say whether the app is kept for use with no network
startRouting(route);
