/* A table's page, for players, spectators and a scorekeeper: the table is
 * read once over HTTP, then a WebSocket brings every change (each seat's own
 * view) and takes the moves, the scorekeeper's reports and undos.
 */

/**
 * @import { HintsMessage, Inbound, LegalAction, Outbound, OutcomeView, ReplayAt, TablePublic, View, SeatPublic } from "./protocol"
 * @import { HeldSeat } from "./saved.js"
 */
import { ApiError, NAME_MAX, getTable, handSeat, joinTable, nameProblem, refusal, rematchTable, startTable } from "./api.js";
import { dieFace, miniDice } from "./dice.js";
import { LocalSocket, TAKEN_ELSEWHERE, isLocal, localCall } from "./local.js";
import { app, append, fill, fillFrom, h, hideError, setText, show, showError } from "./dom.js";
import { errorText, lang, outcomeSentences, t } from "./i18n.js";
import { address, navigate, whenLeaving } from "./router.js";
import { forgetSeat, lastName, loadSeat, rememberName, saveSeat } from "./saved.js";
import { rankedChoices } from "./values.js";

const LOG_LINES = 50; // as many as the server sends a new connection
// An answer slower than this shows the choices as busy. Drawn at once, the busy look would cost
// a slow phone a frame of its own before most answers (a table of this device answers in a few ms).
const BUSY_LOOK = 150; // ms
// A socket can die with neither end told (a bar's wifi drops): a ping every PING_EVERY that brings
// nothing back within HEARD_WITHIN means the connection is gone, and a new one is made.
const PING_EVERY = 20000; // ms
const HEARD_WITHIN = 10000; // ms

/**
 * Everything the table page knows; reset on each visit.
 * @typedef {object} TableState
 * @property {HeldSeat | null} seat
 * @property {TablePublic | null} table
 * @property {View | null} view
 * @property {number | null} version
 * @property {string[]} log
 * @property {number} logStart the number of log[0] in the game's log
 * @property {WebSocket | LocalSocket | null} ws a table of this device talks to the worker instead
 * @property {boolean} closing
 * @property {boolean} elsewhere a table of this device that another tab took over: it is played there
 * @property {number} backoff
 * @property {number | undefined} retryTimer
 * @property {number | undefined} pingTimer
 * @property {number | undefined} silenceTimer runs from a ping until the server is heard from
 * @property {Set<number>} kept indexes of the dice tapped to keep
 * @property {string | null} diceKey
 * @property {string} lastKeep the dice kept at the throw in flight, which do not roll
 * @property {boolean} busy an action was sent and no answer came yet
 * @property {number | undefined} busyLook the timer that shows the choices as busy
 * @property {number | null} reportSentAt
 * @property {number | null} sentAt the version at which this page sent its last move, report or undo
 * @property {boolean} refused the error banner shows the server's refusal of one of them
 * @property {boolean | undefined} rematchAtLoad whether the rematch already existed when we arrived
 * @property {boolean} wasMyTurn
 * @property {HintsMessage | null} hint the last hints sent to this seat (a table with hints)
 * @property {ReplayAt | null} replay a game record watched step by step: the step shown
 */

/**
 * A seat handed to this phone by a player at the table (its link ends `#seat=N.TOKEN`): kept as
 * this phone's, and the token taken out of the address bar at once. A phone that holds another
 * seat at the table keeps its own (a phone plays one seat): the player is told.
 * @param {string} code
 */
function takeHandedSeat(code) {
  // opened where the table already shows, only the link's end changes: the router draws it again
  const handed = /^#seat=(\d+)\.([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!handed || isLocal(code)) return;
  history.replaceState(history.state, "", location.pathname + location.search);
  const seat = Number(handed[1]);
  const held = loadSeat(code);
  if (held && held.seat !== seat) showError(t("handed_held"));
  else saveSeat(code, { seat, token: handed[2] });
}

/** @param {string} code */
export function tablePage(code) {
  document.title = `421 · ${code}`;
  takeHandedSeat(code);
  /** @type {TableState} */
  const T = {
    // every seat of a table of this device is this device's
    seat: isLocal(code) ? { seat: 0, token: "", creator: true } : loadSeat(code),
    table: null,
    view: null,
    version: null,
    log: [],
    logStart: 0,
    ws: null,
    closing: false,
    elsewhere: false,
    backoff: 1000,
    retryTimer: undefined,
    pingTimer: undefined,
    silenceTimer: undefined,
    kept: new Set(),
    diceKey: null,
    lastKeep: "",
    busy: false,
    busyLook: undefined,
    reportSentAt: null,
    sentAt: null,
    refused: false,
    rematchAtLoad: undefined,
    wasMyTurn: false,
    hint: null,
    replay: null,
  };
  const url = `${location.origin}${address(`/t/${encodeURIComponent(code)}`)}`;

  // --- persistent parts: built once, so typed text and focus survive updates
  const status = h("span", { class: "status", testid: "status", "data-status": "waiting" });
  const hintsTag = h("span", { class: "tag tag-hints", testid: "hints-on", hidden: true, text: t("hints_on") });
  // the rules the table plays, its house settings with them: « vache-41 (pot=15) »
  const rulesLine = h("p", { class: "muted rules-line", testid: "rules-named" });
  const conn = h("span", { class: "conn", testid: "connection" });
  const copyBtn = h("button", { type: "button", class: "btn btn-small", testid: "copy-link", text: t("copy"), onclick: () => copyFrom(shareLink, copyBtn) });
  const shareLink = h("a", { href: url, class: "share-link", id: "share-link", testid: "share-link", text: url });
  const share = h(
    "section",
    { class: "share" },
    h("p", { class: "hint", text: t("share", { code }) }),
    h("div", { class: "row" }, shareLink, copyBtn),
  );
  // a seat handed to another phone: the link that phone opens
  const handedText = h("p", { class: "hint" });
  const handedLink = h("a", { class: "share-link", testid: "handed-link" });
  const handedCopy = h("button", { type: "button", class: "btn btn-small", text: t("copy"), onclick: () => copyFrom(handedLink, handedCopy) });
  const handed = h("section", { class: "share", testid: "handed", hidden: true }, handedText, h("div", { class: "row" }, handedLink, handedCopy));

  const joinName = h("input", {
    id: "join-name",
    testid: "join-name",
    type: "text",
    maxlength: String(NAME_MAX),
    autocomplete: "nickname",
    value: lastName(),
    "aria-label": t("your_name"),
    placeholder: t("your_name"),
  });
  const joinBtn = h("button", { type: "submit", class: "btn btn-primary", id: "join-button", testid: "join-button", text: t("join") });
  const joinForm = h(
    "form",
    { class: "card join", hidden: true, onsubmit: join },
    h("h2", { text: t("take_seat") }),
    h("div", { class: "row" }, joinName, joinBtn),
  );
  const watching = h("p", { class: "muted watching", hidden: true, text: t("watching") });

  const startBtn = h("button", {
    type: "button",
    class: "btn btn-primary btn-wide",
    id: "start-button",
    testid: "start-button",
    hidden: true,
    text: t("start"),
    onclick: start,
  });
  const startHint = h("p", { class: "hint", hidden: true });
  const rematchBtn = h("button", {
    type: "button",
    class: "btn btn-primary btn-wide",
    id: "rematch-button",
    testid: "rematch-button",
    hidden: true,
    text: t("rematch"),
    onclick: rematch,
  });
  const rematchLink = h("a", { class: "btn btn-ghost btn-wide", "data-link": true, testid: "rematch-link", hidden: true });

  const players = h("ul", { class: "players", testid: "players" });
  const info = h("dl", { class: "info", testid: "info" });
  const turnLine = h("p", { class: "turn-line", testid: "turn" });
  const yourTurn = h("div", { class: "your-turn", id: "your-turn", testid: "your-turn", hidden: true, role: "status" }, t("your_turn"));
  const dice = h("div", { class: "dice", testid: "dice" });
  const keepHint = h("p", { class: "hint center", hidden: true, text: t("keep_hint") });

  const actThrow = actionButton("action-throw", "btn-primary", onThrow);
  const actBon = actionButton("action-bon", "btn-gold", onBon);
  const actStop = actionButton("action-stop", "btn-light", () => act(legal().find((a) => a.kind === "stop")));
  const actEst = actionButton("action-est", "btn-primary", () => act(legalStake("est")));
  const actVient = actionButton("action-vient", "btn-gold", () => act(legalStake("vient")));
  const stakeQ = h("p", { class: "hint center", hidden: true, text: t("stake_q") });
  const actionHint = h("p", { class: "action-hint", testid: "action-hint", role: "status", hidden: true });
  const actions = h("div", { class: "actions", testid: "actions", hidden: true }, stakeQ, h("div", { class: "action-row" }, actThrow, actBon, actStop, actEst, actVient), actionHint);
  const hintsBox = h("section", { class: "hints", testid: "hints", hidden: true, "aria-live": "polite" });
  // this seat handed to a bot by the timeout: taken back at a tap, before the bot plays the next turn
  const backBtn = h("button", { type: "button", class: "btn btn-primary", testid: "back-button", text: t("take_back"), onclick: () => send({ type: "back" }) });
  const awayCard = h("section", { class: "card away", testid: "away", hidden: true }, h("p", { text: t("away_you") }), backBtn);

  const reportInput = h("input", {
    id: "report-input",
    testid: "report-input",
    type: "text",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    inputmode: "text",
    enterkeyhint: "send",
  });
  const reportPrompt = h("label", { for: "report-input", class: "report-prompt" });
  const reportBtn = h("button", { type: "submit", class: "btn btn-primary", id: "report-button", testid: "report-button", text: t("sk.report") });
  const undoBtn = h("button", { type: "button", class: "btn btn-light", id: "undo-button", testid: "undo-button", text: t("sk.undo"), onclick: undo });
  // What is typed and how: hidden once the game is over, when only an undo is left to do.
  const reportHelp = h("p", { class: "hint", testid: "report-help" });
  const reportEntry = h("div", {}, reportPrompt, h("div", { class: "row" }, reportInput, reportBtn), reportHelp);
  const reportForm = h("form", { class: "card report", hidden: true, onsubmit: report }, h("h2", { text: t("sk.report_title") }), reportEntry, undoBtn);
  const skWatch = h("p", { class: "muted", hidden: true, text: t("sk.watch") });
  // the keeper's phone gone (a flat battery): a phone watching goes on with the score
  const skTake = h("button", { type: "button", class: "btn btn-small", testid: "take-score", hidden: true, text: t("sk.take"), onclick: () => takeScore() });
  // the scorekeeper's phone running low: the score goes on from another
  const skHand = h("button", { type: "button", class: "btn btn-small", testid: "hand-scorekeeper", hidden: true, text: t("sk.hand"), onclick: () => handOn(0) });

  // A record watched step by step (a table of this device): the step shown, moved by these.
  const replayLabel = h("p", { class: "center", testid: "replay-step", role: "status" });
  const replayButton = (/** @type {string} */ testid, /** @type {string} */ text, /** @type {string} */ label, /** @type {() => number} */ to) =>
    h("button", { type: "button", class: "btn btn-light", testid, text, "aria-label": label, title: label, onclick: () => look(to()) });
  const replayFirst = replayButton("replay-first", "◀◀", t("replay.first"), () => 0);
  const replayBack = replayButton("replay-back", "◀", t("replay.back"), () => (T.replay ? T.replay.step - 1 : 0));
  const replayNext = replayButton("replay-next", "▶", t("replay.next"), () => (T.replay ? T.replay.step + 1 : 0));
  const replayLast = replayButton("replay-last", "▶▶", t("replay.last"), () => (T.replay ? T.replay.steps : 0));
  const replayBar = h(
    "section",
    { class: "card replay", testid: "replay", hidden: true },
    replayLabel,
    h("div", { class: "action-row" }, replayFirst, replayBack, replayNext, replayLast),
  );

  const roundBox = h("section", { class: "round", testid: "round" });
  const outcome = h("section", { class: "card outcome", testid: "outcome", hidden: true });
  const fair = h("section", { class: "card fair", testid: "fair" });
  // It scrolls: a keyboard reaches it (tabindex) to scroll it.
  const log = h("ol", { class: "log", id: "log", testid: "log", "aria-live": "polite", tabindex: "0", "aria-label": t("log") });
  const felt = h("section", { class: "felt", hidden: true }, info, turnLine, awayCard, yourTurn, dice, keepHint, actions, hintsBox, roundBox);
  const logCard = h("section", { class: "card" }, h("h2", { text: t("log") }), log);
  const playersCard = h("section", { class: "card" }, players);
  // Follow new lines unless the reader scrolled back.
  let followLog = true;
  log.addEventListener("scroll", () => (followLog = log.scrollHeight - log.scrollTop - log.clientHeight < 24), { passive: true });

  fill(
    app(),
    h(
      "section",
      { class: "table-head" },
      h("div", { class: "row spread" }, h("h1", { text: t("table_code", { code }) }), conn),
      h("div", { class: "row" }, status, hintsTag),
      rulesLine,
    ),
    share,
    handed,
    joinForm,
    watching,
    startBtn,
    startHint,
    replayBar,
    outcome,
    rematchBtn,
    rematchLink,
    felt,
    reportForm,
    skHand,
    skWatch,
    skTake,
    playersCard,
    logCard,
    fair,
  );
  renderAll();

  // The table is fetched once over HTTP so that a wrong code says so
  // instead of retrying a socket forever.
  getTable(code, T.seat?.token).then(
    (table) => {
      if (T.closing) return;
      if (!T.table) {
        T.table = table;
        T.version = table.version;
        noteRematchAtLoad();
        renderAll();
      }
      connect();
    },
    (err) => {
      if (T.closing) return;
      if (err instanceof ApiError && err.status === 404) {
        T.closing = true; // nothing to connect to
        fill(
          app(),
          h("section", { class: "card" }, h("p", { text: t("not_found", { code }) }), h("a", { href: "/", "data-link": true, class: "btn btn-primary", text: t("back") })),
        );
      } else {
        showError(refusal(err));
        connect();
      }
    },
  );

  const onVisible = () => {
    // Phones freeze background tabs: come back at once rather than after the backoff.
    if (document.visibilityState !== "visible") return;
    if (!T.ws || T.ws.readyState > WebSocket.OPEN) {
      clearTimeout(T.retryTimer);
      connect();
    } else {
      checkAlive(); // a phone asleep for a while may hold a socket that died meanwhile
    }
  };
  document.addEventListener("visibilitychange", onVisible);
  // The phone knows when its network goes: say so rather than « live », and come back as soon as it does.
  const onOffline = () => {
    if (T.ws && !isLocal(code)) lose(T.ws);
  };
  const onOnline = () => {
    if (isLocal(code)) return;
    T.backoff = 1000;
    clearTimeout(T.retryTimer);
    if (T.ws) checkAlive();
    else connect();
  };
  window.addEventListener("offline", onOffline);
  window.addEventListener("online", onOnline);

  whenLeaving(() => {
    T.closing = true;
    clearTimeout(T.retryTimer);
    stopWatching();
    document.removeEventListener("visibilitychange", onVisible);
    window.removeEventListener("offline", onOffline);
    window.removeEventListener("online", onOnline);
    if (T.ws) T.ws.close(1000);
    document.title = "421";
  });

  // --- connection

  function connect() {
    if (T.closing || T.elsewhere) return;
    if (T.ws && T.ws.readyState <= WebSocket.OPEN) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const params = new URLSearchParams({ lang });
    // The seat's token goes in a header (a browser sets no other on a WebSocket), never in the URL,
    // which proxies write to their logs: the protocols offered are "py421" and "py421.token.TOKEN".
    const protocols = T.seat ? ["py421", `py421.token.${T.seat.token}`] : ["py421"];
    const ws = isLocal(code)
      ? new LocalSocket(code)
      : new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(code)}?${params}`, protocols);
    T.ws = ws;
    T.log = []; // a new connection is sent the log's last lines again
    T.logStart = 0;
    setConn("connecting");
    ws.onopen = () => {
      setConn("open");
      clearInterval(T.pingTimer);
      if (!isLocal(code)) T.pingTimer = setInterval(checkAlive, PING_EVERY);
    };
    ws.onmessage = (/** @type {{ data: string }} */ event) => {
      if (T.ws !== ws) return;
      clearTimeout(T.silenceTimer);
      T.silenceTimer = undefined;
      /** @type {Outbound} */
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      receive(msg);
    };
    ws.onclose = (/** @type {{ code: number }} */ event) => {
      if (T.ws !== ws || T.closing) return;
      stopWatching();
      T.ws = null;
      if (event.code === 4404) {
        // The table is gone: its error message already says so; retrying cannot help.
        setConn("closed");
        return;
      }
      if (event.code === TAKEN_ELSEWHERE) {
        // Another tab plays it now (its error message says so): taking it back would be a reload.
        T.elsewhere = true;
        setBusy(false);
        setConn("elsewhere");
        renderAll();
        return;
      }
      retry();
    };
  }

  /** Shows the connection lost and tries again after the backoff. */
  function retry() {
    setBusy(false);
    setConn("closed");
    renderAll();
    T.retryTimer = setTimeout(connect, T.backoff + Math.random() * 300);
    T.backoff = Math.min(T.backoff * 2, 15000);
  }

  /**
   * Gives up a socket at once, without waiting for a closing handshake that a dead network never
   * carries, and tries again.
   * @param {WebSocket | LocalSocket} ws
   */
  function lose(ws) {
    if (T.ws !== ws || T.closing) return;
    stopWatching();
    T.ws = null;
    ws.onclose = null;
    ws.onmessage = null;
    ws.close(1000);
    clearTimeout(T.retryTimer);
    retry();
  }

  /** No more pings, nor waiting for an answer to one: the socket they were for is gone. */
  function stopWatching() {
    clearInterval(T.pingTimer);
    clearTimeout(T.silenceTimer);
    T.silenceTimer = undefined;
  }

  /** Pings the server: unless something comes back in time, the socket is given up. */
  function checkAlive() {
    const ws = T.ws;
    if (!ws || isLocal(code) || !send({ type: "ping" })) return;
    if (T.silenceTimer === undefined) T.silenceTimer = setTimeout(() => lose(ws), HEARD_WITHIN);
  }

  /** Drops the socket and opens a new one at once (a new token or language). */
  function reconnect() {
    clearTimeout(T.retryTimer);
    const old = T.ws;
    T.ws = null;
    if (old) old.close(1000);
    connect();
  }

  /** @param {"connecting" | "open" | "closed" | "elsewhere"} state */
  function setConn(state) {
    // A table of this device is never online: it says where it is played rather than « live ».
    if (state === "open" && isLocal(code)) conn.textContent = t("conn.here");
    else if (state === "closed" && !isLocal(code) && !navigator.onLine) {
      conn.textContent = t("conn.offline"); // the phone says it has no network: retrying waits for it
      conn.dataset.state = "offline";
      return;
    } else conn.textContent = t(`conn.${state}`);
    conn.dataset.state = state;
  }

  /**
   * A replay's step: the game as it stood after `step` steps (the worker answers with the table).
   * @param {number} step
   */
  function look(step) {
    if (!T.replay || step < 0 || step > T.replay.steps) return;
    T.ws?.send(JSON.stringify({ type: "look", step }));
  }

  /** @param {Inbound} msg */
  function send(msg) {
    if (!T.ws || T.ws.readyState !== WebSocket.OPEN) return false;
    T.ws.send(JSON.stringify(msg));
    return true;
  }

  /**
   * Each message brings the log lines this connection has not had yet, from line
   * number `first`; after an undo it starts again further back.
   * @param {number} first
   * @param {string[]} lines
   */
  function addLog(first, lines) {
    if (!Number.isInteger(first) || !Array.isArray(lines)) return;
    const cut = first - T.logStart;
    if (cut < 0 || cut > T.log.length) {
      T.log = lines.slice();
      T.logStart = first;
    } else {
      T.log = T.log.slice(0, cut).concat(lines);
    }
    const extra = T.log.length - LOG_LINES;
    if (extra > 0) {
      T.log = T.log.slice(extra);
      T.logStart += extra;
    }
  }

  /** @param {Outbound} msg */
  function receive(msg) {
    if (msg.type === "table") {
      // A message that made it through: the server is healthy again.
      T.backoff = 1000;
      T.table = msg.table;
      T.view = msg.view ?? null;
      T.version = msg.version;
      T.replay = msg.replay ?? null;
      if (T.replay) T.seat = null; // watched, from no seat
      addLog(msg.log_start, msg.log);
      const accepted = T.sentAt !== null && T.version !== T.sentAt;
      if (accepted) T.sentAt = null;
      setBusy(false);
      const w = T.view && T.view.waiting_for;
      // Someone's keep is known while their dice are in the air.
      if (w && w.step === "dice" && w.kept) T.lastKeep = w.kept;
      if (T.reportSentAt !== null && T.version !== T.reportSentAt) {
        reportInput.value = "";
        T.reportSentAt = null;
      }
      if (accepted && T.refused) {
        // The refusal was of an earlier entry: the game has moved on since.
        hideError();
        T.refused = false;
      }
      noteRematchAtLoad();
      renderAll();
      followRematch();
    } else if (msg.type === "hints") {
      T.hint = msg;
      renderHints();
    } else if (msg.type === "error") {
      // another phone holds the seat now (handed on while this page was open, or while it was
      // away: then told before the table): this one watches
      if (msg.error === "seat_handed" || msg.error === "not_seated") {
        forgetSeat(code);
        T.seat = null;
      }
      setBusy(false);
      T.reportSentAt = null;
      T.sentAt = null;
      T.refused = true;
      showError(errorText(msg.error, msg.message, msg.lang));
      renderActions();
    }
    // "pong" needs nothing: the socket being alive is the point.
  }

  // --- the creator's and the joiners' requests

  /** @param {SubmitEvent} event */
  async function join(event) {
    event.preventDefault();
    const name = joinName.value.trim();
    const problem = nameProblem(name);
    if (problem) {
      showError(problem);
      joinName.focus();
      return;
    }
    joinBtn.disabled = true;
    try {
      const res = await joinTable(code, { name });
      rememberName(name);
      T.seat = { seat: res.seat, token: res.token };
      saveSeat(res.code, T.seat);
      hideError();
      reconnect();
    } catch (err) {
      showError(refusal(err));
    } finally {
      joinBtn.disabled = false;
      renderControls();
    }
  }

  async function start() {
    startBtn.disabled = true;
    try {
      const table = await startTable(code, T.seat?.token);
      // A table message may have overtaken this answer.
      if (T.version === null || !(table.version < T.version)) {
        T.table = table;
        renderAll();
      }
    } catch (err) {
      showError(refusal(err));
    } finally {
      startBtn.disabled = false;
    }
  }

  async function rematch() {
    rematchBtn.disabled = true;
    try {
      const res = await rematchTable(code, T.seat?.token);
      goRematch(res.code);
    } catch (err) {
      showError(refusal(err));
      rematchBtn.disabled = false;
    }
  }

  function noteRematchAtLoad() {
    if (T.rematchAtLoad === undefined && T.table) T.rematchAtLoad = Boolean(T.table.rematch);
  }

  /** Whoever watches a game end follows its rematch; a finished table opened again stays, with a
   * link to its rematch (its record is taken from there, a seat's holder's too). Either way the
   * seat held here is held there: a page closed when the rematch was made takes it by the link. */
  function followRematch() {
    const next = T.table && T.table.rematch;
    if (!next) return;
    keepSeatAt(next);
    if (!T.rematchAtLoad) goRematch(next);
  }

  /** @param {string} next */
  function goRematch(next) {
    if (T.closing || !next || next === code) return;
    keepSeatAt(next);
    navigate(`/t/${encodeURIComponent(next)}`);
  }

  /** The seat held here, held at the rematch `next` too: the server copies seats and tokens to it.
   * @param {string} next */
  function keepSeatAt(next) {
    if (T.seat && next !== code && !loadSeat(next)) saveSeat(next, T.seat);
  }

  /**
   * Copies the link of `anchor`, or leaves it selected for the phone's own menu; `button` says which.
   * @param {HTMLAnchorElement} anchor
   * @param {HTMLButtonElement} button
   */
  async function copyFrom(anchor, button) {
    const link = anchor.href;
    let ok = false;
    try {
      await navigator.clipboard.writeText(link);
      ok = true;
    } catch {
      // No clipboard API outside https (a phone on the local network): the old way.
      const area = h("textarea", { value: link, readonly: true, class: "offscreen" });
      document.body.append(area);
      area.select();
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      area.remove();
    }
    button.textContent = ok ? t("copied") : t("copy");
    if (!ok) {
      // Leave the link selected so that the phone's own menu can copy it.
      const range = document.createRange();
      range.selectNodeContents(anchor);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
    }
    setTimeout(() => (button.textContent = t("copy")), 2000);
  }

  /**
   * Hands `seat` (this phone's, or that of a player whose phone died) to another phone, and shows
   * the link it opens.
   * @param {number} seat
   */
  async function handOn(seat) {
    try {
      const res = await handSeat(code, seat, T.seat?.token);
      const link = `${url}#seat=${res.seat}.${res.token}`;
      handedLink.href = link;
      handedLink.textContent = link;
      handedText.textContent = isScorekeeper() ? t("handed_score") : t("handed", { name: nameOf(res.seat) });
      show(handed, true);
      hideError();
    } catch (err) {
      showError(refusal(err));
    }
  }

  /** This phone keeps the score from where it was left: the keeper's phone is gone (a flat battery). */
  async function takeScore() {
    try {
      const res = await handSeat(code, 0, undefined);
      T.seat = { seat: res.seat, token: res.token, creator: true };
      saveSeat(code, T.seat);
      hideError();
      reconnect();
    } catch (err) {
      showError(refusal(err));
    }
  }

  // --- playing

  /**
   * @param {string} testid
   * @param {string} style
   * @param {() => void} onclick
   */
  function actionButton(testid, style, onclick) {
    return h("button", { type: "button", class: `btn ${style}`, id: testid, testid, hidden: true, onclick });
  }

  /**
   * The moves the server allows this seat now.
   * @returns {LegalAction[]}
   */
  function legal() {
    return T.view && T.view.your_turn && Array.isArray(T.view.legal_actions) ? T.view.legal_actions : [];
  }

  /**
   * The « main chaude » move for `est` or `vient`, if allowed.
   * @param {"est" | "vient"} which
   */
  function legalStake(which) {
    return legal().find((a) => a.kind === "stake" && a.stake === which);
  }

  /**
   * The throw keeping `kept` (digits, highest first), with or without « le bon », if allowed.
   * @param {string} kept
   * @param {boolean} bon
   */
  function legalThrow(kept, bon) {
    return legal().find((a) => a.kind === "throw" && a.bon === bon && a.keep.join("") === kept);
  }

  /** The tapped dice in descending order, as the notation wants them. */
  function keptDice() {
    const faces = currentDice();
    return [...T.kept]
      .map((i) => faces[i])
      .filter(Boolean)
      .sort((a, b) => b - a)
      .join("");
  }

  function currentDice() {
    const r = T.view && T.view.round;
    return r && r.dice ? [...r.dice].map(Number) : [];
  }

  /**
   * Sends one of the moves of legal(), as data.
   * @param {LegalAction | undefined} move
   */
  function act(move) {
    if (!move || T.busy || T.version === null) return;
    show(actionHint, false);
    const action = { kind: move.kind, keep: move.keep, bon: move.bon, stake: move.stake };
    const sent = send({ type: "act", version: T.version, action });
    if (!sent) return;
    T.sentAt = T.version;
    setBusy(true);
    T.lastKeep = move.kind === "throw" ? move.keep.join("") : "";
  }

  /**
   * Whether an action was sent and its answer not come: the choices then take no tap. They say so
   * at once to assistive technology (aria-busy), but look busy only past BUSY_LOOK.
   * @param {boolean} on
   */
  function setBusy(on) {
    T.busy = on;
    clearTimeout(T.busyLook);
    if (on) {
      actions.setAttribute("aria-busy", "true");
      T.busyLook = setTimeout(renderActions, BUSY_LOOK);
    } else {
      actions.removeAttribute("aria-busy");
    }
  }

  /** @param {"keep" | "bon"} verb */
  function tryKeep(verb) {
    const kept = keptDice();
    const bon = verb === "bon";
    const move = legalThrow(kept, bon);
    if (move) {
      act(move);
      return;
    }
    refuseKeep(kept, bon);
  }

  /**
   * Tell which keeps the rules accept rather than send a sure refusal.
   * @param {string} kept
   * @param {boolean} bon
   */
  function refuseKeep(kept, bon) {
    const options = legal()
      .filter((a) => a.kind === "throw" && a.bon === bon)
      .map((a) => a.keep.join("") || t("nothing"));
    actionHint.textContent = t("keep_refused", { kept: kept || t("nothing"), allowed: options.join(", ") || "—" });
    actionHint.dataset.kept = kept; // said of the dice tapped: goes once they are a keep the rules take
    actionHint.hidden = false;
  }

  function onThrow() {
    tryKeep("keep");
  }

  function onBon() {
    tryKeep("bon");
  }

  /** @param {number} i */
  function toggleDie(i) {
    if (!T.view || !T.view.your_turn || T.busy) return;
    if (T.kept.has(i)) T.kept.delete(i);
    else T.kept.add(i);
    rememberKept();
    show(actionHint, false);
    renderDiceState();
    renderActions();
  }

  // The dice tapped, for this tab only: a phone may reload a page it dropped while the player talked.
  const KEPT_KEY = `py421:kept:${code}`;

  function rememberKept() {
    try {
      sessionStorage.setItem(KEPT_KEY, JSON.stringify({ dice: T.diceKey, kept: [...T.kept] }));
    } catch {
      /* no storage: a reload forgets them */
    }
  }

  /**
   * The dice this tab had tapped on the throw `key`, if that is the throw shown again.
   * @param {string} key
   * @returns {number[]}
   */
  function keptBefore(key) {
    try {
      const saved = JSON.parse(sessionStorage.getItem(KEPT_KEY) ?? "null");
      if (!saved || saved.dice !== key || !Array.isArray(saved.kept)) return [];
      return saved.kept.filter((/** @type {unknown} */ i) => Number.isInteger(i) && Number(i) >= 0 && Number(i) < 3);
    } catch {
      return [];
    }
  }

  // --- scorekeeper

  /** @param {SubmitEvent} event */
  function report(event) {
    event.preventDefault();
    const turn = reportInput.value.trim();
    if (!turn || T.version === null) return;
    if (send({ type: "report", version: T.version, turn })) T.reportSentAt = T.sentAt = T.version;
  }

  function undo() {
    if (T.version !== null && send({ type: "undo", version: T.version })) T.sentAt = T.version;
  }

  // --- rendering

  /** @param {number} seat */
  function nameOf(seat) {
    const p = T.view?.players[seat];
    if (p && p.name) return p.name;
    const s = T.table?.seats[seat];
    return (s && s.name) || t("seat_n", { n: seat + 1 });
  }

  /** Every seat's name, as the parts that name seats show them. */
  function names() {
    const count = T.view ? T.view.players.length : (T.table?.seats.length ?? 0);
    return Array.from({ length: count }, (_, i) => nameOf(i));
  }

  function isScorekeeper() {
    return Boolean(T.table && T.table.mode === "scorekeeper");
  }

  function isCreator() {
    return Boolean(T.seat && (T.seat.creator || T.seat.seat === 0));
  }

  function mySeat() {
    if (isScorekeeper()) return null; // the score of the whole table, as it is played
    if (T.view && (typeof T.view.seat === "number" || isLocal(code))) return T.view.seat ?? null; // a game of bots only: nobody
    return T.seat ? T.seat.seat : null;
  }

  function renderAll() {
    renderStatus();
    renderControls();
    renderPlayers();
    renderInfo();
    renderDice();
    renderActions();
    renderRound();
    renderOutcome();
    renderReport();
    renderLog();
    renderFair();
  }

  function renderStatus() {
    const st = (T.table && T.table.status) || "waiting";
    if (status.dataset.status !== st) status.dataset.status = st;
    setText(status, t(`status.${st}`) || st);
    setText(rulesLine, T.table ? t("rules_named", { rules: T.table.named }) : "");
  }

  function renderControls() {
    const table = T.table;
    const st = table ? table.status : null;
    const seats = (table && table.seats) || [];
    const freeHuman = seats.some((s) => s.kind === "human" && !s.taken);
    const canJoin = st === "waiting" && !T.seat && freeHuman && !isScorekeeper();
    show(joinForm, canJoin);
    show(watching, Boolean(table) && !T.seat && !canJoin && !isScorekeeper()); // a scorekeeper's watchers are told apart
    // why one only watches: every seat taken, or the game begun (a seat is played from the phone that took it)
    setText(watching, t(st === "waiting" ? "watching_full" : "watching"));
    show(share, st !== "over" && st !== "abandoned" && !isLocal(code)); // nobody joins a table of this device
    if (st !== "waiting" && st !== "playing") show(handed, false); // a seat is handed on until the game ends
    // Waiting, the link is what the table needs; in play, the dice come first (on a small phone the
    // link pushed « Throw » off the screen) and the link, to ask friends to watch, below the players.
    if (st === "waiting" && share.nextElementSibling !== joinForm) joinForm.before(share);
    else if (st !== "waiting" && share.previousElementSibling !== playersCard) playersCard.after(share);
    show(startBtn, st === "waiting" && isCreator());
    setText(startHint, isCreator() ? t("start_hint") : t("wait_start"));
    show(startHint, st === "waiting" && !isScorekeeper());
    show(rematchBtn, st === "over" && isCreator() && !(table && table.rematch) && table?.mode !== "replay");
    const next = table && table.rematch;
    show(rematchLink, Boolean(next));
    if (next) {
      rematchLink.href = address(`/t/${encodeURIComponent(next)}`);
      setText(rematchLink, t("rematch_go", { code: next }));
    }
    const replay = T.replay;
    show(replayBar, Boolean(replay));
    if (replay) {
      setText(replayLabel, t("replay.label", { step: replay.step, steps: replay.steps }));
      replayFirst.disabled = replayBack.disabled = replay.step === 0;
      replayNext.disabled = replayLast.disabled = replay.step === replay.steps;
    }
  }

  function renderPlayers() {
    const view = T.view;
    const seats = (T.table && T.table.seats) || [];
    const me = mySeat();
    const over = view?.phase === "over";
    const count = view ? view.players.length : seats.length;
    const turn = view && view.waiting_for ? view.waiting_for.seat : null;
    fillFrom(players, [view?.players, seats, me, turn, over, view?.leader, isScorekeeper()], () => {
      const items = [];
      for (let i = 0; i < count; i++) items.push(playerItem(i, turn, me, over));
      return items;
    });
  }

  /**
   * One seat of the players' list.
   * @param {number} i
   * @param {number | null} turn the seat to move
   * @param {number | null} me
   * @param {boolean} over
   */
  function playerItem(i, turn, me, over) {
    const view = T.view;
    const seats = (T.table && T.table.seats) || [];
    const p = view ? view.players[i] : null;
    /** @type {Partial<SeatPublic>} */
    const s = seats[i] || {};
    const tags = [];
    if (i === me) tags.push(h("span", { class: "tag tag-you", text: t("you") }));
    if (s.kind === "bot") {
      const level = s.bot ? String(s.bot).replace(/^bot:/, "") : "";
      tags.push(h("span", { class: "tag", text: level ? `${t("bot")} · ${t(`level.${level}`)}` : t("bot") }));
    } else if (s.kind === "human" && !isScorekeeper()) {
      if (!s.taken) tags.push(h("span", { class: "tag", text: t("free_seat") }));
      else if (s.away) tags.push(h("span", { class: "tag tag-away", text: t("away") }));
      else tags.push(h("span", { class: `tag ${s.connected ? "tag-on" : "tag-off"}`, text: s.connected ? t("online") : t("offline") }));
    }
    if (view && view.leader === i && !over) tags.push(h("span", { class: "tag tag-lead", text: t("leads") }));
    if (p && !p.in_manche && !over) tags.push(h("span", { class: "tag tag-out", text: t("out") }));
    // a seated player hands on their own seat, or that of a player whose phone is gone (the
    // creator's too, before the start: only its holder starts the game)
    const st = T.table?.status;
    const handable = T.seat && !isLocal(code) && (st === "waiting" || st === "playing") && s.kind === "human" && s.taken;
    if (handable && !isScorekeeper() && (i === me || !s.connected || s.away)) {
      tags.push(h("button", { type: "button", class: "btn btn-small", testid: `hand-${i}`, text: t("hand"), onclick: () => handOn(i) }));
    }
    const stats = p
      ? [
          h("span", { class: "tokens", text: t("tokens", { n: p.tokens }) }),
          p.manches_lost ? h("span", { class: "muted", text: t("manches_lost", { n: p.manches_lost }) }) : null,
          p.debt ? h("span", { class: "muted", text: t("debt", { n: p.debt }) }) : null,
        ]
      : [];
    const name = (p && p.name) || s.name || (s.kind === "human" && !s.taken ? "—" : t("seat_n", { n: i + 1 }));
    const classes = ["player"];
    if (turn === i) classes.push("is-turn");
    if (p && !p.in_manche && !over) classes.push("is-out");
    if (s.kind === "human" && !s.connected && s.taken && !isScorekeeper()) classes.push("is-gone");
    return h(
      "li",
      { class: classes.join(" "), testid: `player-${i}`, "data-seat": i },
      h("div", { class: "player-main" }, h("span", { class: "player-name", text: name }), tags),
      h("div", { class: "player-stats" }, stats),
    );
  }

  /**
   * @param {string} label
   * @param {string | number} value
   * @param {string} testid
   */
  function infoItem(label, value, testid) {
    return h("div", { class: "info-item", testid }, h("dt", { text: label }), h("dd", { text: value, title: value }));
  }

  function renderInfo() {
    const v = T.view;
    show(felt, Boolean(v)); // the felt is empty before the game
    const limit = v && v.round ? v.round.limit : null;
    const stake = v && v.round ? v.round.stake : null; // accumulated stakes: the round's so far
    fillFrom(info, v && [v.pot, v.phase, v.manche, nameOf(v.leader), limit, stake], () => {
      if (!v) return null;
      const items = [
        infoItem(t("pot"), v.pot, "pot"),
        infoItem(t("phase"), t(`phase.${v.phase}`), "phase"),
        infoItem(t("manche"), v.manche, "manche"),
      ];
      if (v.phase !== "over") items.push(infoItem(t("leader"), nameOf(v.leader), "leader"));
      if (limit) {
        // The call already says how many throws: « sec ! », « en 2 ! », « à fond ! ».
        const item = infoItem(t("limit"), t(`call.${limit}`), "limit");
        item.title = t("limit_call", { n: limit, call: "" }).trim();
        items.push(item);
      }
      if (stake !== null) items.push(infoItem(t("stake"), stake, "stake"));
      return items;
    });
    setText(turnLine, v ? turnText(v) : "");
  }

  /**
   * Whose turn it is and to do what, with the throw they are at.
   * @param {View} v
   */
  function turnText(v) {
    const r = v.round;
    const w = v.waiting_for;
    if (!w) return "";
    const who = nameOf(w.seat);
    let line;
    if (isScorekeeper()) line = t("turn.report", { who });
    else if (w.step === "dice") line = t("turn.dice", { who });
    else if (r && r.tie) line = t("turn.stake", { who });
    else line = t("turn.decision", { who });
    if (!isScorekeeper() && r && r.current === w.seat && r.throws_allowed && (w.purpose === "turn" || w.step === "decision") && !r.tie) {
      const n = w.step === "dice" ? r.throws + 1 : r.throws;
      line += ` — ${t("throw_of", { n: Math.max(n, 1), allowed: r.throws_allowed })}`;
    }
    return line;
  }

  function renderDice() {
    const v = T.view;
    const r = v && v.round;
    const faces = r && r.dice ? String(r.dice) : "";
    const key = v && r ? `${v.manche}|${r.order}|${r.turns.length}|${r.current}|${r.throws}|${faces}` : "";
    if (key === T.diceKey) {
      renderDiceState();
      return;
    }
    const fresh = T.diceKey !== null; // no roll on arrival: only for throws seen live
    T.diceKey = key;
    T.kept.clear();
    for (const i of keptBefore(key)) T.kept.add(i); // the page was reloaded on this very throw
    dice.replaceChildren();
    // The dice kept at the last throw stay still while the others roll.
    const still = [...T.lastKeep];
    T.lastKeep = "";
    [...faces].forEach((c, i) => {
      const face = Number(c);
      const at = still.indexOf(c);
      const rolls = fresh && at < 0;
      if (at >= 0) still.splice(at, 1);
      const btn = h(
        "button",
        {
          type: "button",
          class: rolls ? "die rolling" : "die",
          id: `die-${i}`,
          testid: `die-${i}`,
          "aria-pressed": "false",
          "aria-label": String(face),
          "data-face": face,
          onclick: () => toggleDie(i),
        },
        dieFace(face),
      );
      if (rolls) {
        btn.style.setProperty("--spin", `${(Math.random() < 0.5 ? -1 : 1) * (280 + Math.floor(Math.random() * 160))}deg`);
        btn.addEventListener("animationend", () => btn.classList.remove("rolling"), { once: true });
      }
      dice.append(btn);
    });
    show(dice, faces.length > 0);
    renderDiceState();
  }

  /** Reflects the kept dice and whether they can be tapped. */
  function renderDiceState() {
    const mine = Boolean(T.view && T.view.your_turn) && !isScorekeeper();
    const canKeep = mine && legal().some((a) => a.kind === "throw" && !a.bon);
    dice.classList.toggle("tappable", canKeep);
    /** @type {NodeListOf<HTMLButtonElement>} */ (dice.querySelectorAll(".die")).forEach((btn, i) => {
      const kept = T.kept.has(i);
      btn.setAttribute("aria-pressed", kept ? "true" : "false");
      btn.classList.toggle("kept", kept);
      btn.disabled = !canKeep || T.busy;
    });
    show(keepHint, canKeep);
  }

  function renderActions() {
    const v = T.view;
    const mine = Boolean(v && v.your_turn) && !isScorekeeper();
    const allowed = legal();
    show(yourTurn, mine);
    if (mine && !T.wasMyTurn) {
      if (navigator.vibrate) navigator.vibrate(60);
      // The turn's choices on the screen, wherever the reader was: the least scroll that shows them,
      // once they are drawn.
      const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
      requestAnimationFrame(() => actions.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" }));
    }
    T.wasMyTurn = mine;
    document.title = `${mine ? "● " : ""}421 · ${code}`;
    show(actions, mine);
    const seat = mySeat();
    const away = seat !== null && T.table?.status === "playing" && Boolean(T.table.seats[seat]?.away);
    show(awayCard, away && !isLocal(code));
    const stake = allowed.some((a) => a.kind === "stake");
    const kept = keptDice();
    const rest = 3 - kept.length;
    show(stakeQ, mine && stake);
    show(actEst, mine && Boolean(legalStake("est")));
    show(actVient, mine && Boolean(legalStake("vient")));
    // only a keep the rules take is offered (all three dice kept is none); else the page says which are
    const throwing = allowed.some((a) => a.kind === "throw" && !a.bon);
    const bonning = allowed.some((a) => a.kind === "throw" && a.bon);
    show(actThrow, mine && throwing && Boolean(legalThrow(kept, false)));
    show(actBon, mine && bonning && Boolean(legalThrow(kept, true)));
    if (mine && (throwing || bonning) && !legalThrow(kept, false) && !legalThrow(kept, true)) {
      refuseKeep(kept, !throwing);
    } else if (actionHint.dataset.kept !== undefined) {
      delete actionHint.dataset.kept;
      show(actionHint, false);
    }
    show(actStop, mine && allowed.some((a) => a.kind === "stop"));
    setText(actThrow, kept ? t("throw_keep", { kept, n: rest }) : t("throw_all"));
    setText(actBon, kept ? t("bon_keep", { kept }) : t("bon"));
    setText(actStop, t("stop"));
    setText(actEst, t("est"));
    setText(actVient, t("vient"));
    const offline = !T.ws || T.ws.readyState !== WebSocket.OPEN;
    for (const b of [actThrow, actBon, actStop, actEst, actVient]) b.disabled = T.busy || offline;
    if (!mine) show(actionHint, false);
    renderDiceState();
    renderHints();
  }

  /** At a table with hints: the player to move's choices, ranked by the solver (sent to that seat only). */
  function renderHints() {
    const on = Boolean(T.table && T.table.hints);
    show(hintsTag, on);
    const mine = on && Boolean(T.view && T.view.your_turn) && !isScorekeeper();
    show(hintsBox, mine);
    if (!mine) return;
    const hint = T.hint && T.hint.version === T.version ? T.hint : null;
    fillFrom(hintsBox, hint, () => [
      h("h2", { class: "minor", text: t("hints_title") }),
      !hint
        ? h("p", { class: "muted", testid: "hints-wait", text: t("hints_wait") })
        : hint.choices.length
          ? rankedChoices(hint.choices)
          : h("p", { class: "muted", text: t("hints_unvalued") }),
    ]);
  }

  function renderRound() {
    const v = T.view;
    const r = v && v.round;
    fillFrom(roundBox, v && [r?.turns, r?.tie, v.draw, names()], () => (v ? roundParts(v) : null));
  }

  /**
   * The round's turns so far, and a tie-break or draw under way.
   * @param {View} v
   */
  function roundParts(v) {
    const r = v.round;
    const parts = [];
    if (r && r.turns && r.turns.length) {
      parts.push(
        h("h2", { class: "minor", text: t("this_round") }),
        h(
          "ul",
          { class: "turns", testid: "turns" },
          r.turns.map((turn) =>
            h(
              "li",
              {},
              h("span", { class: "turn-who", text: nameOf(turn.seat) }),
              miniDice(turn.result),
              h("span", { class: "muted", text: t("turn_result", { result: turn.result, n: turn.throws }) }),
            ),
          ),
        ),
      );
    }
    if (r && r.tie) {
      parts.push(drawBox(`${t("tie")} · ${t("replay", { n: r.tie.replay })}`, r.tie.seats, r.tie.thrown, "tie"));
    }
    if (v.draw) {
      parts.push(drawBox(t(`draw.${v.draw.purpose}`), v.draw.seats, v.draw.thrown, "draw"));
    }
    return parts;
  }

  /**
   * A draw or tie-break: who throws, in order, and what came up so far.
   * @param {string} title
   * @param {number[]} seats
   * @param {string[]} thrown
   * @param {string} testid
   */
  function drawBox(title, seats, thrown, testid) {
    return h(
      "div",
      { class: "draw", testid },
      h("h2", { class: "minor", text: title }),
      h(
        "ul",
        { class: "turns" },
        seats.map((seat, i) =>
          h("li", {}, h("span", { class: "turn-who", text: nameOf(seat) }), thrown[i] ? miniDice(thrown[i]) : h("span", { class: "muted", text: "…" })),
        ),
      ),
    );
  }

  function renderOutcome() {
    const out = T.view && T.view.outcome;
    show(outcome, Boolean(out));
    fillFrom(outcome, out && [out, names(), T.table?.status, isScorekeeper()], () => (out ? outcomeParts(out) : null));
  }

  /**
   * Who lost the game, and who won it.
   * @param {OutcomeView} out
   */
  function outcomeParts(out) {
    // The terminal's sentences, which it prints after a colon: here each starts a line.
    const lines = outcomeSentences(out, nameOf);
    return [
      h("h2", { text: t("outcome") }),
      lines.map((line, i) => h("p", { class: i === 0 ? "outcome-main" : "", text: line })),
      // a game of this phone is analysed by 421 analyse, from its record (the solvers need numpy)
      T.table && T.table.status === "over" && !isScorekeeper() && !isLocal(code)
        ? h("a", {
            href: `/t/${encodeURIComponent(code)}/analysis`,
            "data-link": true,
            class: "btn btn-primary btn-wide",
            testid: "analysis-link",
            text: t("analysis_link"),
          })
        : null,
    ];
  }

  function renderReport() {
    const sk = isScorekeeper();
    // Undo stays possible after the last turn: a wrong entry may have ended the game.
    const started = T.table && T.table.status !== "waiting";
    show(reportForm, sk && isCreator() && Boolean(started));
    show(skWatch, sk && !isCreator());
    const keeperGone = T.table?.seats?.[0] ? !T.table.seats[0].connected : false;
    show(skTake, sk && !isCreator() && keeperGone && T.table?.status === "playing" && !isLocal(code));
    show(skHand, sk && isCreator() && T.table?.status === "playing" && !isLocal(code));
    if (!sk) return;
    const v = T.view;
    const w = v && v.waiting_for;
    const offline = !T.ws || T.ws.readyState !== WebSocket.OPEN;
    // Nothing to report (the game over, or nobody's throw awaited yet): no entry, rather than a
    // field whose label says nothing (a screen reader would announce an unnamed field).
    show(reportEntry, v?.phase !== "over" && Boolean(w));
    reportBtn.disabled = offline || !w;
    undoBtn.disabled = offline;
    if (!v || !w) {
      setText(reportPrompt, "");
      setText(reportHelp, "");
      reportInput.placeholder = "";
      return;
    }
    const who = nameOf(w.seat);
    const r = v.round;
    let prompt;
    // The placeholder is an entry the server would take now: one throw where only one is allowed;
    // the help under it says only what this prompt takes.
    let example = "654";
    let help = "sk.help_coup_sec";
    if (w.step === "decision") {
      prompt = r && r.tie ? t("rp.stake", { who }) : t("rp.turn", { who, limit: "" });
      if (r && r.tie) [example, help] = ["est", "sk.help_stake"];
    } else if (w.purpose === "tie") prompt = t("rp.tie", { who });
    else if (w.purpose === "first_player") {
      prompt = w.dice === 1 ? t("rp.draw_die", { who }) : t("rp.draw_throw", { who });
      if (w.dice === 1) [example, help] = ["4", "sk.help_die"];
    } else if (w.purpose === "decharge_leader") prompt = t("rp.draw_leader", { who });
    else {
      const n = r && r.throws_allowed;
      const limit = n ? t("rp.limit", { n }) : "";
      // Where every throw adds to the stake, each throw must be told.
      const every = !!r && r.stake !== null && r.stake !== undefined;
      prompt = every ? t("rp.turn_all", { who, limit }) : t("rp.turn", { who, limit });
      help = "sk.help_one";
      if (n !== 1) [example, help] = every ? ["221;654", "sk.help_every"] : ["654/2", "sk.help"];
    }
    setText(reportPrompt, prompt);
    setText(reportHelp, t(help));
    reportInput.placeholder = example;
  }

  /**
   * Only the lines that changed: the first ones dropped as the log moves on, the new ones added.
   * Nothing is measured here (a measure after the other parts changed the page would lay it out
   * again at once): whether the reader follows the log is known from its scroll events.
   */
  function renderLog() {
    const shown = Array.from(log.children, (li) => li.textContent);
    let dropped = 0;
    while (dropped < shown.length && !shown.slice(dropped).every((line, i) => T.log[i] === line)) dropped++;
    for (let i = 0; i < dropped; i++) log.firstElementChild?.remove();
    append(log, T.log.slice(shown.length - dropped).map((line) => h("li", { text: line })));
    show(logCard, T.log.length > 0);
    if (followLog && shown.length - dropped < T.log.length) {
      requestAnimationFrame(() => {
        log.scrollTop = log.scrollHeight;
      });
    }
  }

  /** A game of this device, as a record file that 421 replay and 421 analyse read. */
  async function downloadRecord() {
    const { status: answered, data } = await localCall("GET", `/api/tables/${encodeURIComponent(code)}/record`);
    if (answered !== 200) return;
    const link = h("a", {
      href: URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" })),
      download: `421-${code}.json`,
    });
    link.click();
    URL.revokeObjectURL(link.href);
  }

  function renderFair() {
    const table = T.table;
    const local = Boolean(table && isLocal(code) && table.status === "over");
    // a game of this device: its record, a real table's score too; a server's: how its dice are checked
    // (a real table's dice have no seed)
    const shown = Boolean(table) && (local || (!isScorekeeper() && Boolean(table?.seed_hash)));
    show(fair, shown);
    fillFrom(fair, shown && table && [local, table.seed_hash, table.seed, table.status], () => (shown && table ? fairParts(table, local) : null));
  }

  /**
   * The record of a game of this device once over; else how a table's dice can be checked.
   * @param {TablePublic} table
   * @param {boolean} local
   */
  function fairParts(table, local) {
    if (local) {
      return [
        h("h2", { text: t("local.record_title") }),
        h("button", { type: "button", class: "btn btn-ghost", testid: "record-link", text: t("record"), onclick: downloadRecord }),
        h("p", { class: "hint", text: t("local.record_hint") }),
      ];
    }
    if (!table.seed_hash) return null;
    const over = table.status === "over" || table.status === "abandoned";
    return [
      h("h2", { text: t("fair") }),
      h("p", { class: "hint", text: t("seed_hash") }),
      h("code", { class: "hash", testid: "seed-hash", text: table.seed_hash }),
      h("p", { class: "hint", text: t("seed") }),
      table.seed
        ? h("code", { class: "hash", testid: "seed", text: table.seed })
        : h("p", { class: "muted", text: t("seed_hidden") }),
      over
        ? [
            h("a", {
              href: `/api/tables/${encodeURIComponent(code)}/record`,
              class: "btn btn-ghost",
              testid: "record-link",
              download: `421-${code}.json`,
              text: t("record"),
            }),
            h("p", { class: "hint", text: t("verify") }),
          ]
        : null,
    ];
  }
}
