/* py421 in the browser: lobby, table and scorekeeper, one page, no build step.
 *
 * Every piece of text that comes from the server or from players is put in
 * the page with textContent or as an attribute value, never as HTML: player
 * names are typed by anyone holding the link.
 */
"use strict";

(() => {
  // ---------------------------------------------------------------- words

  // The game's own vocabulary follows py421/i18n.py (charge, décharge,
  // « le bon », est / vient, manche); table-side words are the page's own.
  const STRINGS = {
    en: {
      "nav.scorekeeper": "Scorekeeper",
      "lang.switch": "Passer en français",
      dismiss: "Dismiss",
      loading: "Loading…",
      "lobby.title": "A table of 421",
      "lobby.intro": "Play with friends on their phones; bots fill the empty seats and the server throws every die.",
      rules: "Rules",
      players_range: "{min} to {max} players",
      players_or_more: "{min} players or more",
      settings: "House settings (optional)",
      settings_hint: "comma separated key=value, e.g. pot=21",
      seats: "Seats",
      seat_n: "Seat {n}",
      "kind.you": "You",
      "kind.human": "A friend",
      "kind.bot:random": "Bot: random",
      "kind.bot:heuristic": "Bot: good",
      "kind.bot:optimal": "Bot: optimal",
      add_seat: "Add a seat",
      remove: "Remove",
      your_name: "Your name",
      timeout: "Seconds to play before a bot stands in (0: no limit)",
      create: "Create the table",
      join_title: "Join with a code",
      code: "Code",
      go: "Go",
      sk_promo: "Real dice on a real table? The scorekeeper keeps the score.",
      sk_open: "Open the scorekeeper",
      games: "Finished games",
      no_games: "No finished game yet.",
      leaderboard: "Leaderboard",
      no_leaderboard: "Nobody has finished a game with these rules yet.",
      "lb.player": "Player",
      "lb.games": "Games",
      "lb.losses": "Lost",
      "lb.rate": "Loss rate",
      lost_by: "lost: {who}",
      unavailable: "Not available.",
      name_needed: "Type your name first.",
      "error.malformed": "The request was not understood.",
      "error.too_large": "That is too long.",
      "error.unknown_type": "Unknown message.",
      "error.rate_limited": "Too fast: wait a moment.",
      "error.too_many_tables": "Too many new tables: try again in a minute.",
      "error.too_many_connections": "Too many tabs open from this connection: close some.",
      "error.too_many_spectators": "This table has all the spectators it can take.",
      "error.slow_client": "The connection was too slow: reconnecting.",
      "error.no_table": "There is no such table.",
      "error.not_waiting": "This table is no longer waiting for players.",
      "error.full": "Every seat is taken; you can watch.",
      "error.name_taken": "That name is already at the table.",
      "error.bad_name": "A name is 1 to 24 visible characters, and not a bot's (such as “Heuristic 1”).",
      "error.bad_rules": "These rules are not accepted.",
      "error.bad_seats": "These seats are not accepted.",
      "error.optimal_too_costly": "This server cannot solve these rules for the optimal bot: choose another bot.",
      "error.not_creator": "Only the table's creator can do that.",
      "error.not_started": "The game has not started.",
      "error.over": "The game is over.",
      "error.spectator": "Spectators watch; join the table to play.",
      "error.not_your_turn": "It is not your turn.",
      "error.illegal": "That move is not allowed now.",
      "error.stale": "The table moved on: look again.",
      "error.not_over": "Only once the game is over.",
      "error.no_game": "There is no such game.",
      "error.no_player": "No finished game has this player.",
      "error.not_found": "Nothing here.",
      "error.internal": "The server failed: try again.",
      "status.waiting": "Waiting for players",
      "status.playing": "Playing",
      "status.over": "Game over",
      table_code: "Table {code}",
      share: "Invite with this link or the code {code}",
      copy: "Copy",
      copied: "Copied",
      "conn.connecting": "connecting…",
      "conn.open": "live",
      "conn.closed": "reconnecting…",
      take_seat: "Take a seat",
      join: "Join",
      watching: "You are watching.",
      start: "Start the game",
      start_hint: "Seats nobody took are played by bots.",
      wait_start: "The table's creator starts the game.",
      rematch: "Rematch",
      rematch_go: "Rematch: go to table {code}",
      free_seat: "free seat",
      bot: "bot",
      "level.random": "random",
      "level.heuristic": "good",
      "level.optimal": "optimal",
      you: "you",
      online: "here",
      offline: "not here",
      away: "away: a bot plays",
      tokens: "{n} token{s}",
      out: "out",
      manches_lost: "{n} manche{s} lost",
      debt: "owes {n}",
      leads: "leads",
      pot: "Pot",
      phase: "Phase",
      manche: "Manche",
      leader: "Leader",
      limit: "Limit",
      throw_of: "throw {n} of {allowed}",
      limit_call: "{n} throw{s} {call}",
      "turn.decision": "{who} plays",
      "turn.dice": "{who} throws…",
      "turn.stake": "{who} chooses « est » or « vient »",
      "turn.report": "waiting for {who}'s turn",
      your_turn: "Your turn!",
      keep_hint: "Tap the dice to keep, then throw the others.",
      throw_all: "Throw all",
      throw_keep: "Keep {kept}, throw {n}",
      stop: "Stop",
      bon: "« Le bon »",
      bon_keep: "« Le bon », keep {kept}",
      est: "« Est »",
      vient: "« Vient »",
      stake_q: "« Main chaude »: play « pour ce qui est » (the value already thrown) or « pour ce qui vient » (the replay's value)?",
      keep_refused: "Keeping {kept} is not allowed. Allowed: {allowed}.",
      nothing: "nothing",
      this_round: "This round",
      turn_result: "{result} in {n} throw{s}",
      tie: "Tie-break",
      replay: "replay {n}",
      "draw.first_player": "Draw for the first player",
      "draw.decharge_leader": "Draw for the décharge leader",
      "draw.tie": "Tie-break",
      "draw.turn": "Draw",
      outcome: "Result",
      "outcome.grand_perdant": "{who} lost every manche: « grand perdant »",
      "outcome.shared": "shared loss: {who} each lost as many manches",
      "outcome.loser": "{who} loses the game",
      "outcome.winners": "winners, in order: {who}",
      "outcome.manches": "manches lost: {who}",
      "outcome.manche": "manche {n}: {who}",
      log: "Log",
      fair: "Fair dice",
      seed_hash: "Seed hash, published at the start",
      seed: "Seed, revealed at the end",
      seed_hidden: "revealed when the game is over",
      record: "Game record (JSON)",
      verify: "Check every throw with: 421 verify game.json",
      not_found: "There is no table {code}.",
      back: "Back to the lobby",
      "phase.first_player": "choosing the first player",
      "phase.charge": "charge",
      "phase.decharge": "décharge",
      "phase.over": "over",
      "call.1": "« sec ! »",
      "call.2": "« en 2 ! »",
      "call.3": "« à fond ! »",
      "sk.title": "Scorekeeper",
      "sk.intro": "For a real table with real dice: this phone keeps the score, anyone with the link follows the standings.",
      "sk.players": "Players, in seating order",
      "sk.player_n": "Player {n}",
      "sk.add": "Add a player",
      "sk.create": "Keep the score",
      "sk.names_needed": "Every player needs a name.",
      "sk.report_title": "Report the turn",
      "sk.report": "Report",
      "sk.undo": "Undo",
      "sk.watch": "The scorekeeper reports each turn; the standings follow here.",
      "sk.help": "421 or 4-2-1 · 654/2: two throws · 123;221;421: every throw · 555/2 bon: after « le bon » · est / vient",
      "rp.turn": "{who}: the dice{limit}",
      "rp.turn_all": "{who}: every throw in order{limit}, e.g. 123;221;421",
      "rp.limit": " (at most {n} throw{s})",
      "rp.tie": "{who}: tie-break coup sec",
      "rp.draw_die": "{who}: one die for the first player (1 to 6)",
      "rp.draw_throw": "{who}: three dice for the first player",
      "rp.draw_leader": "{who}: coup sec for the décharge leader",
      "rp.stake": "{who}: « est » or « vient »?",
    },
    fr: {
      "nav.scorekeeper": "Marqueur",
      "lang.switch": "Switch to English",
      dismiss: "Fermer",
      loading: "Chargement…",
      "lobby.title": "Une table de 421",
      "lobby.intro": "Jouez avec vos amis sur leurs téléphones ; des robots prennent les places vides et le serveur lance tous les dés.",
      rules: "Règle",
      players_range: "{min} à {max} joueurs",
      players_or_more: "{min} joueurs ou plus",
      settings: "Réglages maison (facultatif)",
      settings_hint: "clé=valeur séparés par des virgules, ex. pot=21",
      seats: "Places",
      seat_n: "Place {n}",
      "kind.you": "Vous",
      "kind.human": "Un ami",
      "kind.bot:random": "Robot : au hasard",
      "kind.bot:heuristic": "Robot : bon joueur",
      "kind.bot:optimal": "Robot : optimal",
      add_seat: "Ajouter une place",
      remove: "Retirer",
      your_name: "Votre nom",
      timeout: "Secondes pour jouer avant qu'un robot remplace (0 : sans limite)",
      create: "Créer la table",
      join_title: "Rejoindre avec un code",
      code: "Code",
      go: "Aller",
      sk_promo: "De vrais dés sur une vraie table ? Le marqueur tient les comptes.",
      sk_open: "Ouvrir le marqueur",
      games: "Parties terminées",
      no_games: "Aucune partie terminée.",
      leaderboard: "Classement",
      no_leaderboard: "Personne n'a encore fini de partie avec cette règle.",
      "lb.player": "Joueur",
      "lb.games": "Parties",
      "lb.losses": "Perdues",
      "lb.rate": "Taux de perte",
      lost_by: "perdant : {who}",
      unavailable: "Indisponible.",
      name_needed: "Tapez d'abord votre nom.",
      "error.malformed": "La requête n'a pas été comprise.",
      "error.too_large": "C'est trop long.",
      "error.unknown_type": "Message inconnu.",
      "error.rate_limited": "Trop vite : attendez un instant.",
      "error.too_many_tables": "Trop de nouvelles tables : réessayez dans une minute.",
      "error.too_many_connections": "Trop d'onglets ouverts depuis cette connexion : fermez-en.",
      "error.too_many_spectators": "Cette table a tous les spectateurs qu'elle peut accueillir.",
      "error.slow_client": "La connexion était trop lente : reconnexion.",
      "error.no_table": "Cette table n'existe pas.",
      "error.not_waiting": "Cette table n'attend plus de joueurs.",
      "error.full": "Toutes les places sont prises ; vous pouvez regarder.",
      "error.name_taken": "Ce nom est déjà à la table.",
      "error.bad_name": "Un nom fait 1 à 24 caractères visibles et n'est pas celui d'un bot (comme « Heuristic 1 »).",
      "error.bad_rules": "Ces règles ne sont pas acceptées.",
      "error.bad_seats": "Ces places ne sont pas acceptées.",
      "error.optimal_too_costly": "Ce serveur ne peut pas résoudre ces règles pour le bot optimal : choisissez un autre bot.",
      "error.not_creator": "Seul le créateur de la table peut faire cela.",
      "error.not_started": "La partie n'a pas commencé.",
      "error.over": "La partie est finie.",
      "error.spectator": "Les spectateurs regardent ; rejoignez la table pour jouer.",
      "error.not_your_turn": "Ce n'est pas votre tour.",
      "error.illegal": "Ce coup n'est pas permis maintenant.",
      "error.stale": "La table a avancé : regardez à nouveau.",
      "error.not_over": "Seulement une fois la partie finie.",
      "error.no_game": "Cette partie n'existe pas.",
      "error.no_player": "Aucune partie finie n'a ce joueur.",
      "error.not_found": "Rien ici.",
      "error.internal": "Le serveur a échoué : réessayez.",
      "status.waiting": "En attente des joueurs",
      "status.playing": "En jeu",
      "status.over": "Partie terminée",
      table_code: "Table {code}",
      share: "Invitez avec ce lien ou le code {code}",
      copy: "Copier",
      copied: "Copié",
      "conn.connecting": "connexion…",
      "conn.open": "en direct",
      "conn.closed": "reconnexion…",
      take_seat: "Prendre une place",
      join: "S'asseoir",
      watching: "Vous regardez la partie.",
      start: "Lancer la partie",
      start_hint: "Les places libres sont jouées par des robots.",
      wait_start: "Le créateur de la table lance la partie.",
      rematch: "Revanche",
      rematch_go: "Revanche : aller à la table {code}",
      free_seat: "place libre",
      bot: "robot",
      "level.random": "au hasard",
      "level.heuristic": "bon joueur",
      "level.optimal": "optimal",
      you: "vous",
      online: "là",
      offline: "absent",
      away: "absent : un robot joue",
      tokens: "{n} jeton{s}",
      out: "sorti",
      manches_lost: "{n} manche{s} perdue{s}",
      debt: "doit {n}",
      leads: "entame",
      pot: "Pot",
      phase: "Phase",
      manche: "Manche",
      leader: "Entame",
      limit: "Limite",
      throw_of: "lancer {n} sur {allowed}",
      limit_call: "{n} lancer{s} {call}",
      "turn.decision": "{who} joue",
      "turn.dice": "{who} lance…",
      "turn.stake": "{who} choisit « est » ou « vient »",
      "turn.report": "en attente du coup de {who}",
      your_turn: "À vous !",
      keep_hint: "Touchez les dés à garder, puis relancez les autres.",
      throw_all: "Tout lancer",
      throw_keep: "Garder {kept}, lancer {n}",
      stop: "Rester",
      bon: "« Le bon »",
      bon_keep: "« Le bon », garder {kept}",
      est: "« Est »",
      vient: "« Vient »",
      stake_q: "« Main chaude » : jouer « pour ce qui est » (la valeur déjà faite) ou « pour ce qui vient » (la valeur du nouveau lancer) ?",
      keep_refused: "Garder {kept} n'est pas permis. Possible : {allowed}.",
      nothing: "rien",
      this_round: "Ce tour",
      turn_result: "{result} en {n} lancer{s}",
      tie: "Départage",
      replay: "relance {n}",
      "draw.first_player": "Tirage du premier joueur",
      "draw.decharge_leader": "Tirage de l'entame de la décharge",
      "draw.tie": "Départage",
      "draw.turn": "Tirage",
      outcome: "Résultat",
      "outcome.grand_perdant": "{who} a perdu toutes les manches : « grand perdant »",
      "outcome.shared": "perte partagée : {who} ont perdu autant de manches",
      "outcome.loser": "{who} perd la partie",
      "outcome.winners": "gagnants, dans l'ordre : {who}",
      "outcome.manches": "manches perdues : {who}",
      "outcome.manche": "manche {n} : {who}",
      log: "Journal",
      fair: "Dés équitables",
      seed_hash: "Empreinte de la graine, publiée au départ",
      seed: "Graine, révélée à la fin",
      seed_hidden: "révélée à la fin de la partie",
      record: "Enregistrement de la partie (JSON)",
      verify: "Vérifiez chaque lancer : 421 verify game.json",
      not_found: "Il n'y a pas de table {code}.",
      back: "Retour à l'accueil",
      "phase.first_player": "tirage du premier joueur",
      "phase.charge": "charge",
      "phase.decharge": "décharge",
      "phase.over": "terminée",
      "call.1": "« sec ! »",
      "call.2": "« en 2 ! »",
      "call.3": "« à fond ! »",
      "sk.title": "Marqueur",
      "sk.intro": "Pour une vraie table avec de vrais dés : ce téléphone tient les comptes, et qui a le lien suit le classement.",
      "sk.players": "Joueurs, dans l'ordre de la table",
      "sk.player_n": "Joueur {n}",
      "sk.add": "Ajouter un joueur",
      "sk.create": "Tenir les comptes",
      "sk.names_needed": "Chaque joueur doit avoir un nom.",
      "sk.report_title": "Saisir le coup",
      "sk.report": "Valider",
      "sk.undo": "Annuler",
      "sk.watch": "Le marqueur saisit chaque coup ; le classement suit ici.",
      "sk.help": "421 ou 4-2-1 · 654/2 : deux lancers · 123;221;421 : chaque lancer · 555/2 bon : après « le bon » · est / vient",
      "rp.turn": "{who} : les dés{limit}",
      "rp.turn_all": "{who} : chaque lancer dans l'ordre{limit}, ex. 123;221;421",
      "rp.limit": " (en {n} lancer{s} au plus)",
      "rp.tie": "{who} : coup sec de départage",
      "rp.draw_die": "{who} : un dé pour le premier joueur (1 à 6)",
      "rp.draw_throw": "{who} : trois dés pour le premier joueur",
      "rp.draw_leader": "{who} : coup sec pour l'entame de la décharge",
      "rp.stake": "{who} : « est » ou « vient » ?",
    },
  };

  const LANG_KEY = "py421:lang";
  let lang = pickLang();

  function pickLang() {
    const saved = safeGet(LANG_KEY);
    if (saved === "en" || saved === "fr") return saved;
    return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
  }

  /** The message `key` with `{field}`s filled; `{s}` is the plural mark of `n`. */
  function t(key, fields = {}) {
    const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
    const n = fields.n;
    // French keeps 0 and 1 singular, English only 1.
    const s = typeof n === "number" && (lang === "fr" ? n > 1 : n !== 1) ? "s" : "";
    return text.replace(/\{(\w+)\}/g, (_, f) => (f === "s" && !("s" in fields) ? s : String(fields[f] ?? "")));
  }

  // ---------------------------------------------------------------- small helpers

  function safeGet(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null; // storage can be disabled (private mode)
    }
  }

  function safeSet(key, value) {
    try {
      localStorage.setItem(key, value);
    } catch {
      /* the seat then lasts as long as the tab */
    }
  }

  /** The seat and secret token this browser holds at table `code`, if any. */
  function loadSeat(code) {
    try {
      const c = JSON.parse(safeGet(`py421:${code}`));
      return c && typeof c.token === "string" ? c : null;
    } catch {
      return null;
    }
  }

  function saveSeat(code, seat) {
    safeSet(`py421:${code}`, JSON.stringify(seat));
  }

  const BOOLEAN_PROPS = new Set(["hidden", "disabled", "selected", "checked", "required"]);

  /** Builds an element; strings become text nodes, so nothing is parsed as HTML. */
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else if (key === "class") el.className = value;
      else if (key === "text") el.textContent = String(value);
      else if (key === "value") el.value = String(value);
      else if (key === "testid") el.setAttribute("data-testid", value);
      else if (BOOLEAN_PROPS.has(key)) el[key] = Boolean(value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    append(el, children);
    return el;
  }

  function append(el, ...children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function fill(el, ...children) {
    el.replaceChildren();
    return append(el, children);
  }

  function show(el, visible) {
    el.hidden = !visible;
  }

  const app = () => document.getElementById("app");

  // ---------------------------------------------------------------- errors

  /** A refusal in the page's language: the server's own words in English, the catalog's in French. */
  function errorText(code, message) {
    const key = `error.${code}`;
    if (lang !== "en" && key in STRINGS[lang]) return STRINGS[lang][key];
    return message || STRINGS.en[key] || String(code);
  }

  // The server's rules for a name (py421.server.table.clean_name): 1 to 24 characters, no control,
  // invisible or direction-changing character, and not a bot's name.
  const NAME_MAX = 24;
  const NOT_IN_NAMES = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;
  const BOT_NAME = /^(random|heuristic|optimal) [0-9]+$/i;

  /** Why a typed name would be refused, or "" when it is fine. */
  function nameProblem(raw) {
    const name = raw.trim().split(/\s+/).join(" ");
    if (!name) return t("name_needed");
    if ([...name].length > NAME_MAX || NOT_IN_NAMES.test(name) || BOT_NAME.test(name)) return t("error.bad_name");
    return "";
  }

  function showError(message) {
    const banner = document.getElementById("error-banner");
    document.getElementById("error-text").textContent = String(message);
    banner.hidden = false;
  }

  function hideError() {
    document.getElementById("error-banner").hidden = true;
  }

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  /** Calls the HTTP API; a refusal throws an ApiError with the server's message. */
  async function api(method, path, body, token) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try {
      data = await res.json();
    } catch {
      /* an empty or non-JSON answer */
    }
    if (!res.ok) {
      const detail = data && data.detail;
      let code = "http";
      let message = `${res.status} ${res.statusText}`;
      if (detail && typeof detail === "object" && !Array.isArray(detail)) {
        code = detail.error || code;
        message = detail.message || message;
      } else if (typeof detail === "string") {
        message = detail;
      } else if (Array.isArray(detail) && detail.length) {
        // FastAPI's own validation errors
        message = detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
      }
      throw new ApiError(res.status, code, message);
    }
    return data;
  }

  // ---------------------------------------------------------------- routing

  let leaveView = () => {}; // undoes what the current view set up (socket, timers)

  function route() {
    leaveView();
    leaveView = () => {};
    hideError();
    const path = location.pathname;
    const table = path.match(/^\/t\/([^/]+)\/?$/);
    document.documentElement.lang = lang;
    if (table) tablePage(decodeURIComponent(table[1]));
    else if (/^\/scorekeeper\/?$/.test(path)) scorekeeperPage();
    else lobbyPage();
    applyChrome();
  }

  function navigate(path) {
    if (path !== location.pathname) history.pushState(null, "", path);
    route();
  }

  /** Text of the parts of index.html outside the views. */
  function applyChrome() {
    document.getElementById("nav-scorekeeper").textContent = t("nav.scorekeeper");
    const toggle = document.getElementById("lang-toggle");
    toggle.textContent = lang === "fr" ? "EN" : "FR";
    toggle.setAttribute("aria-label", t("lang.switch"));
    toggle.title = t("lang.switch");
    document.getElementById("error-dismiss").setAttribute("aria-label", t("dismiss"));
  }

  // ---------------------------------------------------------------- lobby

  const BOT_KINDS = ["bot:random", "bot:heuristic", "bot:optimal"];

  let presetsCache = null;

  async function loadPresets() {
    if (!presetsCache) presetsCache = await api("GET", "/api/presets");
    return presetsCache;
  }

  function presetSelect(presets, testid, onchange) {
    const select = h("select", { id: testid, testid, name: "rules", onchange });
    for (const p of presets) {
      select.append(h("option", { value: p.name, text: p.name }));
    }
    return select;
  }

  function presetOf(presets, name) {
    return presets.find((p) => p.name === name) || { min_players: 2, max_players: 8, description: "" };
  }

  function lobbyPage() {
    document.title = "421";
    const root = fill(app(), h("p", { class: "muted", text: t("loading") }));
    const seats = ["you", "bot:heuristic", "bot:heuristic"];

    loadPresets().then(
      (presets) => {
        const presetSel = presetSelect(presets, "preset", () => {
          clampSeats();
          describe();
          loadLeaderboard();
        });
        const description = h("p", { class: "hint" });
        const settings = h("input", {
          id: "settings",
          testid: "settings",
          type: "text",
          autocomplete: "off",
          autocapitalize: "off",
          spellcheck: "false",
          placeholder: "pot=21",
        });
        const seatList = h("ol", { class: "seat-list", testid: "seat-list" });
        const addSeat = h("button", {
          type: "button",
          class: "btn btn-ghost",
          id: "add-seat",
          testid: "add-seat",
          text: `+ ${t("add_seat")}`,
          onclick: () => {
            seats.push("bot:heuristic");
            drawSeats();
          },
        });
        const name = h("input", {
          id: "player-name",
          testid: "player-name",
          type: "text",
          maxlength: String(NAME_MAX),
          autocomplete: "nickname",
          value: safeGet("py421:name") || "",
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
        const create = h("button", {
          type: "submit",
          class: "btn btn-primary btn-wide",
          id: "create-table",
          testid: "create-table",
          text: t("create"),
        });

        const rules = () => presetOf(presets, presetSel.value);

        function describe() {
          const p = rules();
          const range = p.no_limit
            ? t("players_or_more", { min: p.min_players })
            : t("players_range", { min: p.min_players, max: p.max_players });
          description.textContent = [p.description, range]
            .filter(Boolean)
            .join(" — ");
        }

        function clampSeats() {
          const p = rules();
          while (seats.length > p.max_players) seats.pop();
          while (seats.length < p.min_players) seats.push("bot:heuristic");
          drawSeats();
        }

        function drawSeats() {
          const p = rules();
          seatList.replaceChildren();
          seats.forEach((kind, i) => {
            const select = h("select", {
              id: `seat-kind-${i}`,
              testid: `seat-kind-${i}`,
              "aria-label": t("seat_n", { n: i + 1 }),
              disabled: i === 0,
              onchange: (e) => {
                seats[i] = e.target.value;
              },
            });
            const kinds = i === 0 ? ["you"] : ["human", ...BOT_KINDS];
            for (const k of kinds) {
              select.append(h("option", { value: k, text: t(`kind.${k}`), selected: k === kind }));
            }
            const remove =
              i === 0
                ? null
                : h("button", {
                    type: "button",
                    class: "btn btn-icon",
                    testid: `remove-seat-${i}`,
                    "aria-label": `${t("remove")} ${t("seat_n", { n: i + 1 })}`,
                    title: t("remove"),
                    text: "−",
                    disabled: seats.length <= p.min_players,
                    onclick: () => {
                      seats.splice(i, 1);
                      drawSeats();
                    },
                  });
            seatList.append(h("li", { class: "seat-row" }, h("span", { class: "seat-no", text: i + 1 }), select, remove));
          });
          addSeat.disabled = seats.length >= p.max_players;
        }

        const form = h(
          "form",
          { class: "card", id: "create-form", novalidate: true, onsubmit: submit },
          h("h2", { text: t("lobby.title") }),
          h("p", { class: "hint", text: t("lobby.intro") }),
          h("label", { for: "preset", text: t("rules") }),
          presetSel,
          description,
          h("label", { for: "settings", text: t("settings") }),
          settings,
          h("p", { class: "hint", text: t("settings_hint") }),
          h("fieldset", { class: "seats" }, h("legend", { text: t("seats") }), seatList, addSeat),
          h("label", { for: "player-name", text: t("your_name") }),
          name,
          h("label", { for: "timeout", text: t("timeout") }),
          timeout,
          create,
        );

        async function submit(event) {
          event.preventDefault();
          const player = name.value.trim();
          const problem = nameProblem(player);
          if (problem) {
            showError(problem);
            name.focus();
            return;
          }
          const body = {
            rules: presetSel.value,
            settings: splitSettings(settings.value),
            seats: seats.map((k) => (k === "you" ? "human" : k)),
            name: player,
            timeout: Number.parseInt(timeout.value, 10) || 0,
          };
          create.disabled = true;
          try {
            const res = await api("POST", "/api/tables", body);
            safeSet("py421:name", player);
            saveSeat(res.code, { seat: res.seat, token: res.token, creator: true });
            navigate(`/t/${encodeURIComponent(res.code)}`);
          } catch (err) {
            showError(errorText(err.code, err.message));
            create.disabled = false;
          }
        }

        const games = h("div", { testid: "games" }, h("p", { class: "muted", text: t("loading") }));
        const board = h("div", { testid: "leaderboard" });
        const boardTitle = h("h2");

        function loadLeaderboard() {
          const rulesName = presetSel.value;
          boardTitle.textContent = `${t("leaderboard")} · ${rulesName}`;
          fill(board, h("p", { class: "muted", text: t("loading") }));
          api("GET", `/api/leaderboard?rules=${encodeURIComponent(rulesName)}`).then(
            (data) => rulesName === presetSel.value && fill(board, leaderboardTable(data)),
            () => fill(board, h("p", { class: "muted", text: t("unavailable") })),
          );
        }

        fill(
          root,
          form,
          joinByCode(),
          h(
            "section",
            { class: "card promo" },
            h("p", { text: t("sk_promo") }),
            h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn-ghost", testid: "scorekeeper-link", text: t("sk_open") }),
          ),
          h("section", { class: "card" }, h("h2", { text: t("games") }), games),
          h("section", { class: "card" }, boardTitle, board),
        );
        clampSeats();
        describe();
        loadLeaderboard();
        api("GET", "/api/games?limit=10").then(
          (data) => fill(games, gamesList(data)),
          () => fill(games, h("p", { class: "muted", text: t("unavailable") })),
        );
      },
      (err) => {
        fill(root, joinByCode());
        showError(errorText(err.code, err.message));
      },
    );
  }

  /** "pot=21, le_bon=false" → ["pot=21", "le_bon=false"] */
  function splitSettings(text) {
    return text
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter(Boolean);
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

  function playerName(p) {
    return typeof p === "string" ? p : (p && (p.name ?? p.player)) || "?";
  }

  /** The finished games, whatever fields the server gives, shown compactly. */
  function gamesList(data) {
    const rows = Array.isArray(data) ? data : (data && (data.games || data.items)) || [];
    if (!rows.length) return h("p", { class: "muted", text: t("no_games") });
    return h(
      "ul",
      { class: "compact-list" },
      rows.map((g) => {
        const players = Array.isArray(g.players) ? g.players.map(playerName) : [];
        const losers = Array.isArray(g.losers)
          ? g.losers.map((l) => (typeof l === "number" ? players[l] ?? `#${l}` : playerName(l)))
          : [];
        const when = g.finished_at || g.ended_at || g.created_at;
        const date = when ? new Date(when) : null;
        const title = [g.rules, players.join(", ")].filter(Boolean).join(" · ");
        return h(
          "li",
          {},
          g.code
            ? h("a", { href: `/t/${encodeURIComponent(g.code)}`, "data-link": true, text: title || g.code })
            : typeof g.id === "number"
              ? h("a", { href: `/api/games/${g.id}/record`, title: t("record"), text: title || `#${g.id}` })
              : h("span", { text: title }),
          losers.length ? h("span", { class: "muted", text: ` — ${t("lost_by", { who: losers.join(", ") })}` }) : null,
          date && !Number.isNaN(date.getTime())
            ? h("span", { class: "muted small", text: ` · ${date.toLocaleDateString(lang)}` })
            : null,
        );
      }),
    );
  }

  function leaderboardTable(data) {
    const rows = Array.isArray(data) ? data : (data && (data.players || data.rows)) || [];
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
          const rate = r.loss_rate ?? r.rate;
          const shown =
            typeof rate === "number" ? `${Math.round((rate <= 1 ? rate * 100 : rate) * 10) / 10} %` : rate ?? "";
          return h(
            "tr",
            {},
            h("td", { text: playerName(r) }),
            h("td", { class: "num", text: r.games ?? "" }),
            h("td", { class: "num", text: r.losses ?? "" }),
            h("td", { class: "num", text: shown }),
          );
        }),
      ),
    );
  }

  // ---------------------------------------------------------------- scorekeeper creation

  function scorekeeperPage() {
    document.title = `421 · ${t("sk.title")}`;
    const root = fill(app(), h("p", { class: "muted", text: t("loading") }));
    const names = ["", "", ""];

    loadPresets().then(
      (presets) => {
        const presetSel = presetSelect(presets, "preset", () => clamp());
        const list = h("ol", { class: "seat-list" });
        const add = h("button", {
          type: "button",
          class: "btn btn-ghost",
          id: "add-seat",
          testid: "add-seat",
          text: `+ ${t("sk.add")}`,
          onclick: () => {
            names.push("");
            draw();
            list.querySelector("li:last-child input")?.focus();
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

        function clamp() {
          const p = rules();
          while (names.length > p.max_players) names.pop();
          while (names.length < p.min_players) names.push("");
          draw();
        }

        function draw() {
          const p = rules();
          list.replaceChildren();
          names.forEach((value, i) => {
            list.append(
              h(
                "li",
                { class: "seat-row" },
                h("span", { class: "seat-no", text: i + 1 }),
                h("input", {
                  type: "text",
                  maxlength: String(NAME_MAX),
                  testid: `sk-player-${i}`,
                  id: `sk-player-${i}`,
                  "aria-label": t("sk.player_n", { n: i + 1 }),
                  placeholder: t("sk.player_n", { n: i + 1 }),
                  value,
                  oninput: (e) => {
                    names[i] = e.target.value;
                  },
                }),
                h("button", {
                  type: "button",
                  class: "btn btn-icon",
                  testid: `remove-seat-${i}`,
                  "aria-label": `${t("remove")} ${t("sk.player_n", { n: i + 1 })}`,
                  text: "−",
                  disabled: names.length <= p.min_players,
                  onclick: () => {
                    names.splice(i, 1);
                    draw();
                  },
                }),
              ),
            );
          });
          add.disabled = names.length >= p.max_players;
        }

        async function submit(event) {
          event.preventDefault();
          const players = names.map((n) => n.trim());
          if (players.some((n) => !n)) {
            showError(t("sk.names_needed"));
            return;
          }
          const problem = players.map(nameProblem).find(Boolean);
          if (problem) {
            showError(problem);
            return;
          }
          create.disabled = true;
          try {
            const res = await api("POST", "/api/tables", { mode: "scorekeeper", rules: presetSel.value, players });
            saveSeat(res.code, { seat: res.seat ?? 0, token: res.token, creator: true });
            navigate(`/t/${encodeURIComponent(res.code)}`);
          } catch (err) {
            showError(errorText(err.code, err.message));
            create.disabled = false;
          }
        }

        fill(
          root,
          h(
            "form",
            { class: "card", novalidate: true, onsubmit: submit },
            h("h2", { text: t("sk.title") }),
            h("p", { class: "hint", text: t("sk.intro") }),
            h("label", { for: "preset", text: t("rules") }),
            presetSel,
            h("fieldset", { class: "seats" }, h("legend", { text: t("sk.players") }), list, add),
            create,
          ),
        );
        clamp();
      },
      (err) => showError(errorText(err.code, err.message)),
    );
  }

  // ---------------------------------------------------------------- dice

  const LOG_LINES = 50; // as many as the server sends a new connection
  const SVG_NS = "http://www.w3.org/2000/svg";
  const PIPS = {
    1: [[50, 50]],
    2: [[28, 28], [72, 72]],
    3: [[26, 26], [50, 50], [74, 74]],
    4: [[28, 28], [72, 28], [28, 72], [72, 72]],
    5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
    6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
  };

  function svg(tag, attrs) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    return el;
  }

  /** One die face drawn with its pips. */
  function dieFace(face) {
    const root = svg("svg", { viewBox: "0 0 100 100", class: "die-face", "aria-hidden": "true", focusable: "false" });
    root.append(svg("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18, class: "die-body" }));
    for (const [cx, cy] of PIPS[face] || []) {
      root.append(svg("circle", { cx, cy, r: face === 1 ? 11 : 9, class: face === 1 ? "pip pip-ace" : "pip" }));
    }
    return root;
  }

  /** Small dice for a result written as digits, e.g. "421". */
  function miniDice(text) {
    return h(
      "span",
      { class: "mini-dice", "aria-label": text, role: "img" },
      [...String(text)].filter((c) => c >= "1" && c <= "6").map((c) => dieFace(Number(c))),
    );
  }

  // ---------------------------------------------------------------- table page

  /** Everything the table page knows; reset on each visit. */
  function tablePage(code) {
    document.title = `421 · ${code}`;
    const T = {
      code,
      seat: loadSeat(code),
      table: null,
      view: null,
      version: null,
      log: [],
      logStart: 0, // the number of T.log[0] in the game's log
      ws: null,
      closing: false,
      backoff: 1000,
      retryTimer: null,
      pingTimer: null,
      kept: new Set(), // indexes of the dice tapped to keep
      diceKey: null,
      lastKeep: "", // the dice kept at the throw in flight, which do not roll
      busy: false, // an action was sent and no answer came yet
      reportSentAt: null,
      rematchAtLoad: undefined, // whether the rematch already existed when we arrived
      wasMyTurn: false,
    };
    const url = `${location.origin}/t/${encodeURIComponent(code)}`;

    // --- persistent parts: built once, so typed text and focus survive updates
    const status = h("span", { class: "status", testid: "status", "data-status": "waiting" });
    const conn = h("span", { class: "conn", testid: "connection" });
    const copyBtn = h("button", { type: "button", class: "btn btn-small", testid: "copy-link", text: t("copy"), onclick: copyLink });
    const share = h(
      "section",
      { class: "share" },
      h("p", { class: "hint", text: t("share", { code }) }),
      h(
        "div",
        { class: "row" },
        h("a", { href: url, class: "share-link", id: "share-link", testid: "share-link", text: url }),
        copyBtn,
      ),
    );

    const joinName = h("input", {
      id: "join-name",
      testid: "join-name",
      type: "text",
      maxlength: String(NAME_MAX),
      autocomplete: "nickname",
      value: safeGet("py421:name") || "",
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

    const reportInput = h("input", {
      id: "report-input",
      testid: "report-input",
      type: "text",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      inputmode: "text",
      enterkeyhint: "send",
      placeholder: "654/2",
    });
    const reportPrompt = h("label", { for: "report-input", class: "report-prompt" });
    const reportBtn = h("button", { type: "submit", class: "btn btn-primary", id: "report-button", testid: "report-button", text: t("sk.report") });
    const undoBtn = h("button", { type: "button", class: "btn btn-light", id: "undo-button", testid: "undo-button", text: t("sk.undo"), onclick: undo });
    const reportForm = h(
      "form",
      { class: "card report", hidden: true, onsubmit: report },
      h("h2", { text: t("sk.report_title") }),
      reportPrompt,
      h("div", { class: "row" }, reportInput, reportBtn),
      h("p", { class: "hint", text: t("sk.help") }),
      undoBtn,
    );
    const skWatch = h("p", { class: "muted", hidden: true, text: t("sk.watch") });

    const roundBox = h("section", { class: "round", testid: "round" });
    const outcome = h("section", { class: "card outcome", testid: "outcome", hidden: true });
    const fair = h("section", { class: "card fair", testid: "fair" });
    const log = h("ol", { class: "log", id: "log", testid: "log", "aria-live": "polite" });

    fill(
      app(),
      h(
        "section",
        { class: "table-head" },
        h("div", { class: "row spread" }, h("h1", { text: t("table_code", { code }) }), conn),
        status,
      ),
      share,
      joinForm,
      watching,
      startBtn,
      startHint,
      outcome,
      rematchBtn,
      rematchLink,
      h(
        "section",
        { class: "felt", hidden: true },
        info,
        turnLine,
        yourTurn,
        dice,
        keepHint,
        actions,
        roundBox,
      ),
      reportForm,
      skWatch,
      h("section", { class: "card" }, players),
      h("section", { class: "card" }, h("h2", { text: t("log") }), log),
      fair,
    );
    renderAll();

    // The table is fetched once over HTTP so that a wrong code says so
    // instead of retrying a socket forever.
    api("GET", `/api/tables/${encodeURIComponent(code)}`).then(
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
          showError(errorText(err.code, err.message));
          connect();
        }
      },
    );

    const onVisible = () => {
      // Phones freeze background tabs: come back at once rather than after the backoff.
      if (document.visibilityState === "visible" && (!T.ws || T.ws.readyState > WebSocket.OPEN)) {
        clearTimeout(T.retryTimer);
        connect();
      }
    };
    document.addEventListener("visibilitychange", onVisible);

    leaveView = () => {
      T.closing = true;
      clearTimeout(T.retryTimer);
      clearInterval(T.pingTimer);
      document.removeEventListener("visibilitychange", onVisible);
      if (T.ws) T.ws.close(1000);
      document.title = "421";
    };

    // --- connection

    function connect() {
      if (T.closing) return;
      if (T.ws && T.ws.readyState <= WebSocket.OPEN) return;
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      const params = new URLSearchParams();
      if (T.seat) params.set("token", T.seat.token);
      params.set("lang", lang);
      const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(code)}?${params}`);
      T.ws = ws;
      T.log = []; // a new connection is sent the log's last lines again
      T.logStart = 0;
      setConn("connecting");
      ws.onopen = () => {
        setConn("open");
        clearInterval(T.pingTimer);
        T.pingTimer = setInterval(() => send({ type: "ping" }), 20000);
      };
      ws.onmessage = (event) => {
        let msg;
        try {
          msg = JSON.parse(event.data);
        } catch {
          return;
        }
        receive(msg);
      };
      ws.onclose = (event) => {
        clearInterval(T.pingTimer);
        if (T.ws !== ws || T.closing) return;
        T.ws = null;
        if (event.code === 4404) {
          // The table is gone: its error message already says so; retrying cannot help.
          setConn("closed");
          return;
        }
        T.busy = false;
        setConn("closed");
        renderAll();
        T.retryTimer = setTimeout(connect, T.backoff + Math.random() * 300);
        T.backoff = Math.min(T.backoff * 2, 15000);
      };
    }

    /** Drops the socket and opens a new one at once (a new token or language). */
    function reconnect() {
      clearTimeout(T.retryTimer);
      const old = T.ws;
      T.ws = null;
      if (old) old.close(1000);
      connect();
    }

    function setConn(state) {
      conn.textContent = t(`conn.${state}`);
      conn.dataset.state = state;
    }

    function send(msg) {
      if (!T.ws || T.ws.readyState !== WebSocket.OPEN) return false;
      T.ws.send(JSON.stringify(msg));
      return true;
    }

    // Each message brings the log lines this connection has not had yet, from line
    // number `start`; after an undo it starts again further back.
    function addLog(start, lines) {
      if (!Number.isInteger(start) || !Array.isArray(lines)) return;
      const cut = start - T.logStart;
      if (cut < 0 || cut > T.log.length) {
        T.log = lines.slice();
        T.logStart = start;
      } else {
        T.log = T.log.slice(0, cut).concat(lines);
      }
      const extra = T.log.length - LOG_LINES;
      if (extra > 0) {
        T.log = T.log.slice(extra);
        T.logStart += extra;
      }
    }

    function receive(msg) {
      if (msg.type === "table") {
        // A message that made it through: the server is healthy again.
        T.backoff = 1000;
        T.table = msg.table;
        T.view = msg.view ?? null;
        T.version = msg.version;
        addLog(msg.log_start, msg.log);
        T.busy = false;
        const w = T.view && T.view.waiting_for;
        // Someone's keep is known while their dice are in the air.
        if (w && w.step === "dice" && w.kept) T.lastKeep = w.kept;
        if (T.reportSentAt !== null && T.version !== T.reportSentAt) {
          reportInput.value = "";
          T.reportSentAt = null;
        }
        noteRematchAtLoad();
        renderAll();
        followRematch();
      } else if (msg.type === "error") {
        T.busy = false;
        T.reportSentAt = null;
        showError(errorText(msg.error, msg.message));
        renderActions();
      }
      // "pong" needs nothing: the socket being alive is the point.
    }

    // --- the creator's and the joiners' requests

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
        const res = await api("POST", `/api/tables/${encodeURIComponent(code)}/join`, { name });
        safeSet("py421:name", name);
        T.seat = { seat: res.seat, token: res.token };
        saveSeat(res.code || code, T.seat);
        hideError();
        reconnect();
      } catch (err) {
        showError(errorText(err.code, err.message));
      } finally {
        joinBtn.disabled = false;
        renderControls();
      }
    }

    async function start() {
      startBtn.disabled = true;
      try {
        const table = await api("POST", `/api/tables/${encodeURIComponent(code)}/start`, {}, T.seat && T.seat.token);
        if (table && table.status && (T.version === null || !(table.version < T.version))) {
          T.table = table;
          renderAll();
        }
      } catch (err) {
        showError(errorText(err.code, err.message));
      } finally {
        startBtn.disabled = false;
      }
    }

    async function rematch() {
      rematchBtn.disabled = true;
      try {
        const res = await api("POST", `/api/tables/${encodeURIComponent(code)}/rematch`, {}, T.seat && T.seat.token);
        goRematch(res.code);
      } catch (err) {
        showError(errorText(err.code, err.message));
        rematchBtn.disabled = false;
      }
    }

    function noteRematchAtLoad() {
      if (T.rematchAtLoad === undefined && T.table) T.rematchAtLoad = Boolean(T.table.rematch);
    }

    /** Players follow a rematch; someone opening an old finished table only gets a link. */
    function followRematch() {
      const next = T.table && T.table.rematch;
      if (next && (T.seat || !T.rematchAtLoad)) goRematch(next);
    }

    function goRematch(next) {
      if (T.closing || !next || next === code) return;
      // The server copies seats and tokens to the rematch.
      if (T.seat && !loadSeat(next)) saveSeat(next, T.seat);
      navigate(`/t/${encodeURIComponent(next)}`);
    }

    async function copyLink() {
      let ok = false;
      try {
        await navigator.clipboard.writeText(url);
        ok = true;
      } catch {
        // No clipboard API outside https (a phone on the local network): the old way.
        const area = h("textarea", { value: url, readonly: true, class: "offscreen" });
        document.body.append(area);
        area.select();
        try {
          ok = document.execCommand("copy");
        } catch {
          ok = false;
        }
        area.remove();
      }
      copyBtn.textContent = ok ? t("copied") : t("copy");
      if (!ok) {
        // Leave the link selected so that the phone's own menu can copy it.
        const range = document.createRange();
        range.selectNodeContents(share.querySelector(".share-link"));
        getSelection().removeAllRanges();
        getSelection().addRange(range);
      }
      setTimeout(() => (copyBtn.textContent = t("copy")), 2000);
    }

    // --- playing

    function actionButton(testid, style, onclick) {
      return h("button", { type: "button", class: `btn ${style}`, id: testid, testid, hidden: true, onclick });
    }

    /** The moves the server allows this seat now: {kind, keep, bon, stake, text} each. */
    function legal() {
      return T.view && T.view.your_turn && Array.isArray(T.view.legal_actions) ? T.view.legal_actions : [];
    }

    /** The « main chaude » move for `est` or `vient`, if allowed. */
    function legalStake(which) {
      return legal().find((a) => a.kind === "stake" && a.stake === which);
    }

    /** The throw keeping `kept` (digits, highest first), with or without « le bon », if allowed. */
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

    /** Sends one of the moves of legal(), as data. */
    function act(move) {
      if (!move || T.busy) return;
      actionHint.hidden = true;
      const action = { kind: move.kind, keep: move.keep, bon: move.bon, stake: move.stake };
      const sent = send({ type: "act", version: T.version, action });
      if (!sent) return;
      T.busy = true;
      T.lastKeep = move.kind === "throw" ? move.keep.join("") : "";
      renderActions();
    }

    function tryKeep(verb) {
      const kept = keptDice();
      const bon = verb === "bon";
      const move = legalThrow(kept, bon);
      if (move) {
        act(move);
        return;
      }
      // Tell which keeps the rules accept rather than sending a sure refusal.
      const options = legal()
        .filter((a) => a.kind === "throw" && a.bon === bon)
        .map((a) => a.keep.join("") || t("nothing"));
      actionHint.textContent = t("keep_refused", { kept: kept || t("nothing"), allowed: options.join(", ") || "—" });
      actionHint.hidden = false;
    }

    function onThrow() {
      tryKeep("keep");
    }

    function onBon() {
      tryKeep("bon");
    }

    function toggleDie(i) {
      if (!T.view || !T.view.your_turn || T.busy) return;
      if (T.kept.has(i)) T.kept.delete(i);
      else T.kept.add(i);
      actionHint.hidden = true;
      renderDiceState();
      renderActions();
    }

    // --- scorekeeper

    function report(event) {
      event.preventDefault();
      const turn = reportInput.value.trim();
      if (!turn) return;
      if (send({ type: "report", version: T.version, turn })) T.reportSentAt = T.version;
    }

    function undo() {
      send({ type: "undo", version: T.version });
    }

    // --- rendering

    function nameOf(seat) {
      const p = T.view && T.view.players && T.view.players[seat];
      if (p && p.name) return p.name;
      const s = T.table && T.table.seats && T.table.seats[seat];
      return (s && s.name) || t("seat_n", { n: seat + 1 });
    }

    function isScorekeeper() {
      return Boolean(T.table && T.table.mode === "scorekeeper");
    }

    function isCreator() {
      return Boolean(T.seat && (T.seat.creator || T.seat.seat === 0));
    }

    function mySeat() {
      if (T.view && typeof T.view.seat === "number") return T.view.seat;
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
      status.dataset.status = st;
      status.textContent = t(`status.${st}`) || st;
    }

    function renderControls() {
      const table = T.table;
      const st = table ? table.status : null;
      const seats = (table && table.seats) || [];
      const freeHuman = seats.some((s) => s.kind === "human" && !s.taken);
      const canJoin = st === "waiting" && !T.seat && freeHuman && !isScorekeeper();
      show(joinForm, canJoin);
      show(watching, Boolean(table) && !T.seat && !canJoin);
      show(share, st !== "over");
      show(startBtn, st === "waiting" && isCreator());
      startHint.textContent = isCreator() ? t("start_hint") : t("wait_start");
      show(startHint, st === "waiting" && !isScorekeeper());
      show(rematchBtn, st === "over" && isCreator() && !(table && table.rematch));
      const next = table && table.rematch;
      show(rematchLink, Boolean(next));
      if (next) {
        rematchLink.href = `/t/${encodeURIComponent(next)}`;
        rematchLink.textContent = t("rematch_go", { code: next });
      }
    }

    function renderPlayers() {
      const table = T.table;
      const view = T.view;
      const seats = (table && table.seats) || [];
      const me = mySeat();
      players.replaceChildren();
      const count = view ? view.players.length : seats.length;
      const waiting = view && view.waiting_for;
      for (let i = 0; i < count; i++) {
        const p = view ? view.players[i] : null;
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
        if (view && view.leader === i && view.phase !== "over") tags.push(h("span", { class: "tag tag-lead", text: t("leads") }));
        if (p && !p.in_manche && view.phase !== "over") tags.push(h("span", { class: "tag tag-out", text: t("out") }));
        const stats = p
          ? [
              h("span", { class: "tokens", text: t("tokens", { n: p.tokens }) }),
              p.manches_lost ? h("span", { class: "muted", text: t("manches_lost", { n: p.manches_lost }) }) : null,
              p.debt ? h("span", { class: "muted", text: t("debt", { n: p.debt }) }) : null,
            ]
          : [];
        const name = (p && p.name) || s.name || (s.kind === "human" && !s.taken ? "—" : t("seat_n", { n: i + 1 }));
        const classes = ["player"];
        if (waiting && waiting.seat === i) classes.push("is-turn");
        if (p && !p.in_manche && view.phase !== "over") classes.push("is-out");
        if (s.kind === "human" && !s.connected && s.taken && !isScorekeeper()) classes.push("is-gone");
        players.append(
          h(
            "li",
            { class: classes.join(" "), testid: `player-${i}`, "data-seat": i },
            h("div", { class: "player-main" }, h("span", { class: "player-name", text: name }), tags),
            h("div", { class: "player-stats" }, stats),
          ),
        );
      }
    }

    function infoItem(label, value, testid) {
      return h("div", { class: "info-item", testid }, h("dt", { text: label }), h("dd", { text: value, title: value }));
    }

    function renderInfo() {
      const v = T.view;
      info.replaceChildren();
      turnLine.textContent = "";
      show(info.parentElement, Boolean(v)); // the felt is empty before the game
      if (!v) return;
      const r = v.round;
      append(
        info,
        infoItem(t("pot"), v.pot, "pot"),
        infoItem(t("phase"), t(`phase.${v.phase}`), "phase"),
        infoItem(t("manche"), v.manche, "manche"),
        infoItem(t("leader"), nameOf(v.leader), "leader"),
      );
      if (r && r.limit) {
        // The call already says how many throws: « sec ! », « en 2 ! », « à fond ! ».
        const item = infoItem(t("limit"), t(`call.${r.limit}`), "limit");
        item.title = t("limit_call", { n: r.limit, call: "" }).trim();
        info.append(item);
      }
      const w = v.waiting_for;
      if (!w) return;
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
      turnLine.textContent = line;
    }

    function renderDice() {
      const v = T.view;
      const r = v && v.round;
      const faces = r && r.dice ? String(r.dice) : "";
      const key = r ? `${v.manche}|${r.order}|${r.turns.length}|${r.current}|${r.throws}|${faces}` : "";
      if (key === T.diceKey) {
        renderDiceState();
        return;
      }
      const fresh = T.diceKey !== null; // no roll on arrival: only for throws seen live
      T.diceKey = key;
      T.kept.clear();
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
      dice.querySelectorAll(".die").forEach((btn, i) => {
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
      if (mine && !T.wasMyTurn && navigator.vibrate) navigator.vibrate(60);
      T.wasMyTurn = mine;
      document.title = `${mine ? "● " : ""}421 · ${code}`;
      show(actions, mine);
      const stake = allowed.some((a) => a.kind === "stake");
      const kept = keptDice();
      const rest = 3 - kept.length;
      show(stakeQ, mine && stake);
      show(actEst, mine && Boolean(legalStake("est")));
      show(actVient, mine && Boolean(legalStake("vient")));
      show(actThrow, mine && allowed.some((a) => a.kind === "throw" && !a.bon));
      show(actBon, mine && allowed.some((a) => a.kind === "throw" && a.bon));
      show(actStop, mine && allowed.some((a) => a.kind === "stop"));
      actThrow.textContent = kept ? t("throw_keep", { kept, n: rest }) : t("throw_all");
      actBon.textContent = kept ? t("bon_keep", { kept }) : t("bon");
      actStop.textContent = t("stop");
      actEst.textContent = t("est");
      actVient.textContent = t("vient");
      const offline = !T.ws || T.ws.readyState !== WebSocket.OPEN;
      for (const b of [actThrow, actBon, actStop, actEst, actVient]) b.disabled = T.busy || offline;
      if (!mine) actionHint.hidden = true;
      renderDiceState();
    }

    function renderRound() {
      const v = T.view;
      roundBox.replaceChildren();
      if (!v) return;
      const r = v.round;
      if (r && r.turns && r.turns.length) {
        roundBox.append(
          h("h3", { text: t("this_round") }),
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
        roundBox.append(drawBox(`${t("tie")} · ${t("replay", { n: r.tie.replay })}`, r.tie.seats, r.tie.thrown, "tie"));
      }
      if (v.draw) {
        roundBox.append(drawBox(t(`draw.${v.draw.purpose}`), v.draw.seats, v.draw.thrown, "draw"));
      }
    }

    /** A draw or tie-break: who throws, in order, and what came up so far. */
    function drawBox(title, seats, thrown, testid) {
      return h(
        "div",
        { class: "draw", testid },
        h("h3", { text: title }),
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
      outcome.replaceChildren();
      show(outcome, Boolean(out));
      if (!out) return;
      const names = (seats) => seats.map(nameOf).join(", ");
      const lines = [t(`outcome.${out.kind}`, { who: names(out.losers) })];
      if (out.winners && out.winners.length) {
        lines.push(t("outcome.winners", { who: out.winners.map(names).join("; ") }));
      }
      if (out.manche_losers && out.manche_losers.length > 1) {
        const each = out.manche_losers.map((s, i) => t("outcome.manche", { n: i + 1, who: nameOf(s) })).join("; ");
        lines.push(t("outcome.manches", { who: each }));
      }
      append(
        outcome,
        h("h2", { text: t("outcome") }),
        lines.map((line, i) => h("p", { class: i === 0 ? "outcome-main" : "", text: line })),
      );
    }

    function renderReport() {
      const sk = isScorekeeper();
      // Undo stays possible after the last turn: a wrong entry may have ended the game.
      const started = T.table && T.table.status !== "waiting";
      show(reportForm, sk && isCreator() && started);
      show(skWatch, sk && !isCreator());
      if (!sk) return;
      const v = T.view;
      const w = v && v.waiting_for;
      const offline = !T.ws || T.ws.readyState !== WebSocket.OPEN;
      reportBtn.disabled = offline || !w;
      undoBtn.disabled = offline;
      if (!w) {
        reportPrompt.textContent = "";
        return;
      }
      const who = nameOf(w.seat);
      const r = v.round;
      let prompt;
      if (w.step === "decision") prompt = r && r.tie ? t("rp.stake", { who }) : t("rp.turn", { who, limit: "" });
      else if (w.purpose === "tie") prompt = t("rp.tie", { who });
      else if (w.purpose === "first_player") prompt = w.dice === 1 ? t("rp.draw_die", { who }) : t("rp.draw_throw", { who });
      else if (w.purpose === "decharge_leader") prompt = t("rp.draw_leader", { who });
      else {
        const n = r && r.throws_allowed;
        const limit = n ? t("rp.limit", { n }) : "";
        // Where every throw adds to the stake, each throw must be told.
        prompt = r && r.stake !== null && r.stake !== undefined ? t("rp.turn_all", { who, limit }) : t("rp.turn", { who, limit });
      }
      reportPrompt.textContent = prompt;
    }

    function renderLog() {
      const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
      fill(log, T.log.map((line) => h("li", { text: line })));
      show(log.parentElement, T.log.length > 0);
      // Follow new lines unless the reader scrolled back.
      if (atBottom) log.scrollTop = log.scrollHeight;
    }

    function renderFair() {
      const table = T.table;
      fair.replaceChildren();
      if (!table || !table.seed_hash) {
        show(fair, false);
        return;
      }
      show(fair, true);
      const over = table.status === "over";
      append(
        fair,
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
      );
    }
  }

  // ---------------------------------------------------------------- start

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[data-link]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const target = new URL(link.href, location.href);
    if (target.origin !== location.origin) return;
    event.preventDefault();
    navigate(target.pathname);
  });

  window.addEventListener("popstate", route);

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("error-dismiss").addEventListener("click", hideError);
    document.getElementById("lang-toggle").addEventListener("click", () => {
      lang = lang === "fr" ? "en" : "fr";
      safeSet(LANG_KEY, lang);
      // Rebuilding the view also reconnects the table's socket, so the log
      // comes back in the new language.
      route();
    });
    route();
  });
})();
