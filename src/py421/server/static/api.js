/* The server's HTTP API as the page calls it, each route with the types of
 * the protocol, and the server's rule for a name, checked before sending.
 */

/**
 * @import { Analysis, BotOffer, CreateTable, Created, ErrorDetail, GameSummary, JoinTable, Joined,
 *   PlayerStats, Preset, Rematch, Solving, TablePublic } from "./protocol"
 */
import { errorText, lang as pageLang, t } from "./i18n.js";
import { isLocal, localCall } from "./local.js";
import { address } from "./router.js";

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code an error code, or "http" when the answer named none
   * @param {string} message
   * @param {string} [lang] the message's language (a table of this device words it in the page's)
   */
  constructor(status, code, message, lang = "en") {
    super(message);
    this.status = status;
    this.code = code;
    this.lang = lang;
  }
}

/**
 * What to tell of a failed call: a refusal in the page's language, or what went wrong on the way.
 * @param {unknown} err
 */
export function refusal(err) {
  if (err instanceof ApiError) return errorText(err.code, err.message, err.lang);
  return err instanceof Error ? err.message : String(err);
}

/**
 * Calls the HTTP API; a refusal throws an ApiError with the server's message.
 * The answer's type is the route's (the wrappers below): the server shapes
 * every answer with the same models. A table of this device (and a request
 * made `here`) is answered by the page's worker, in the same shapes.
 * @template T
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @param {string | null} [token]
 * @param {boolean} [here]
 * @returns {Promise<T>}
 */
async function call(method, path, body, token, here = isLocal(path.split("/")[3] || "")) {
  if (here) {
    const answer = await localCall(method, path, body);
    if (answer.status >= 400) {
      const { said, lang } = answer.data;
      if (said) throw new ApiError(answer.status, answer.data.detail.error, said, lang);
      throw refused(answer.status, "", answer.data);
    }
    return answer.data;
  }
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", "Accept-Language": pageLang }; // a refusal worded in it
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  /** @type {any} */
  let data = null;
  try {
    data = await res.json();
  } catch {
    /* an empty or non-JSON answer */
  }
  if (!res.ok) throw refused(res.status, res.statusText, data);
  return data;
}

/**
 * The ApiError of a refused request, from its answer.
 * @param {number} status
 * @param {string} statusText
 * @param {any} data
 */
function refused(status, statusText, data) {
  /** @type {unknown} */
  const detail = data && data.detail;
  let code = "http";
  let message = `${status} ${statusText}`;
  let said = "en";
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    const known = /** @type {Partial<ErrorDetail>} */ (detail);
    code = known.error || code;
    message = known.message || message;
    if (known.lang) said = known.lang;
  } else if (typeof detail === "string") {
    message = detail;
  } else if (Array.isArray(detail) && detail.length) {
    // FastAPI's own validation errors, should one get past the server's handler
    message = detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  }
  return new ApiError(status, code, message, said);
}

/** @type {Record<string, Preset[]>} */
const presetsCache = {};

/**
 * The presets, asked once per visit, of the server or of this device (whose tables seat as many).
 * @param {boolean} [here]
 */
export async function presets(here = false) {
  const key = String(here);
  presetsCache[key] ??= /** @type {Preset[]} */ (await call("GET", "/api/presets", undefined, null, here));
  return presetsCache[key];
}

/** @type {Record<string, BotOffer[]>} */
const botsCache = {};

/**
 * The bot levels a seat may be given, asked once per visit: the server's, or with `here` those of
 * this device's Python (each says whether it plays there).
 * @param {boolean} [here]
 */
export async function botLevels(here = false) {
  const key = String(here);
  botsCache[key] ??= /** @type {BotOffer[]} */ (await call("GET", "/api/bots", undefined, null, here));
  return botsCache[key];
}

/**
 * A new table: the server's, or with `here` one of this device, which takes ``players`` (names
 * and bot:LEVEL) at a game as well.
 * @param {CreateTable} body
 * @param {boolean} [here]
 * @returns {Promise<Created>}
 */
export const createTable = (body, here = false) => call("POST", "/api/tables", body, null, here);

/**
 * What creating this server table would spend solving its rules (hints, a bot:optimal seat), by
 * the server's estimate: what the page says while it waits.
 * @param {CreateTable} body
 * @returns {Promise<Solving>}
 */
export const estimateTable = (body) => call("POST", "/api/tables/estimate", body, null, false);

/**
 * A game record (the text of its file) kept on this device as a table to watch step by step.
 * @param {string} record
 * @returns {Promise<{ code: string }>}
 */
export const importRecord = (record) => call("POST", "/api/tables/import", { record }, null, true);

/** Whether a py421 server answers this page (it does not on a static host, nor offline). */
export async function serverAnswers() {
  try {
    const res = await fetch(address("/healthz"), { headers: { Accept: "application/json" } });
    return res.ok && (res.headers.get("content-type") || "").includes("json");
  } catch {
    return false;
  }
}

/**
 * The table as anyone sees it; a seat's token lets its player reach it while another phone behind
 * the same address (a bar's Wi-Fi) is stopped for guessing table codes.
 * @param {string} code
 * @param {string} [token]
 * @returns {Promise<TablePublic>}
 */
export const getTable = (code, token) => call("GET", `/api/tables/${encodeURIComponent(code)}`, undefined, token);

/**
 * @param {string} code
 * @param {JoinTable} body
 * @returns {Promise<Joined>}
 */
export const joinTable = (code, body) => call("POST", `/api/tables/${encodeURIComponent(code)}/join`, body);

/**
 * @param {string} code
 * @param {string | undefined} token
 * @returns {Promise<TablePublic>}
 */
export const startTable = (code, token) => call("POST", `/api/tables/${encodeURIComponent(code)}/start`, {}, token);

/**
 * A seat handed to another phone by the player of `token`: the answer's token holds it from then on.
 * @param {string} code
 * @param {number} seat
 * @param {string | undefined} token
 * @returns {Promise<Joined>}
 */
export const handSeat = (code, seat, token) =>
  call("POST", `/api/tables/${encodeURIComponent(code)}/seats/${seat}/hand`, {}, token);

/**
 * @param {string} code
 * @param {string | undefined} token
 * @returns {Promise<Rematch>}
 */
export const rematchTable = (code, token) =>
  call("POST", `/api/tables/${encodeURIComponent(code)}/rematch`, {}, token);

/**
 * @param {number} limit
 * @returns {Promise<GameSummary[]>}
 */
export const finishedGames = (limit) => call("GET", `/api/games?limit=${limit}`);

/**
 * A finished table's analysis (the first of a ruleset solves it: seconds).
 * @param {string} code
 * @param {boolean} bots whether the bots' decisions are analysed too
 * @returns {Promise<Analysis>}
 */
export const tableAnalysis = (code, bots) =>
  call("GET", `/api/tables/${encodeURIComponent(code)}/analysis${bots ? "?bots=true" : ""}`);

/**
 * The analysis of a game of the history.
 * @param {number} id
 * @param {boolean} bots
 * @returns {Promise<Analysis>}
 */
export const gameAnalysis = (id, bots) => call("GET", `/api/games/${id}/analysis${bots ? "?bots=true" : ""}`);

/**
 * The players of a preset's finished games: the server's, or with `here` this device's (of every
 * preset when `rules` is empty).
 * @param {string} rules
 * @param {boolean} [here]
 * @returns {Promise<PlayerStats[]>}
 */
export const leaderboard = (rules, here = false) =>
  call("GET", rules ? `/api/leaderboard?rules=${encodeURIComponent(rules)}` : "/api/leaderboard", undefined, null, here);

// The server's rules for a name (py421.server.table.clean_name): 1 to 24 characters in NFKC form, no
// control, invisible or direction-changing character, no filler that shows nothing, no combining
// mark first, and not a bot's name in any language (py421.players).
export const NAME_MAX = 24;
const NOT_IN_NAMES = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u115F\u1160\u2800\u3164\uFFA0]|^\p{M}/u;
// a zero-width joiner after a character and before an emoji (« 👩‍🦰 »): one picture, not hidden
const JOINED_EMOJI = /([^\s\u200D])\u200D(?=\p{So})/gu;
// « bot:heuristic » in a list of seats is a bot: no person is named so
const BOT_NAME = /^(random|heuristic|optimal|policy|aléatoire|heuristique|politique) [0-9]+$|^bot:/iu;

/**
 * Why a typed name would be refused, or "" when it is fine.
 * @param {string} raw
 */
export function nameProblem(raw) {
  const name = raw.trim().split(/\s+/).join(" ").normalize("NFKC");
  if (!name) return t("name_needed");
  const shown = name.replace(JOINED_EMOJI, "$1");
  if ([...name].length > NAME_MAX || NOT_IN_NAMES.test(shown) || BOT_NAME.test(name)) return t("error.bad_name");
  return "";
}
