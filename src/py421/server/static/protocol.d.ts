// What the page and the server say to each other: written from py421.server.protocol by
// `python scripts/page_types.py`, not by hand. The page's modules import these types in JSDoc.

/** Why a request or a message was refused. */
export type ErrorCode =
  | "malformed"
  | "too_large"
  | "unknown_type"
  | "rate_limited"
  | "too_many_tables"
  | "too_many_connections"
  | "too_many_spectators"
  | "slow_client"
  | "no_table"
  | "not_waiting"
  | "full"
  | "name_taken"
  | "bad_name"
  | "bad_rules"
  | "bad_seats"
  | "optimal_too_costly"
  | "optimal_busy"
  | "no_analysis"
  | "analysis_too_costly"
  | "analysis_busy"
  | "not_creator"
  | "not_started"
  | "over"
  | "spectator"
  | "no_seat"
  | "seat_handed"
  | "not_seated"
  | "seat_here"
  | "not_your_turn"
  | "illegal"
  | "stale"
  | "not_over"
  | "no_game"
  | "no_player"
  | "not_found"
  | "cross_site"
  | "internal";

/** Every refused HTTP request, whatever its status. */
export interface ErrorBody {
  detail: ErrorDetail;
}

export interface ErrorDetail {
  /** a stable code (the page words it in English or French) */
  error: ErrorCode;
  /** what was wrong and what is accepted */
  message: string;
  /** the message's language, French where Accept-Language prefers it to English */
  lang?: "en" | "fr";
}

export interface Preset {
  name: string;
  description: string;
  min_players: number;
  /** the most an online table of this preset seats */
  max_players: number;
  /** the rules set no most (the server's own cap applies) */
  no_limit: boolean;
}

export interface BotOffer {
  /** what a seat is given to seat it: `bot:KEY` */
  spec: string;
  /** by language: its name, without the number it gets at a table */
  names: Record<string, string>;
  /** by language: how it plays */
  about: Record<string, string>;
  /** it plays in the page with no server */
  offline: boolean;
}

/** `POST /api/tables`: a table to play (seats) or the scorekeeper of a real one (players). */
export interface CreateTable {
  /** play online, or keep a real table's score */
  mode?: "play" | "scorekeeper";
  /** a preset name */
  rules?: string;
  /** house settings such as `pot=21` */
  settings?: string[];
  /** play: `human` or `bot:LEVEL`, the creator first */
  seats?: string[];
  /** play: the creator's name, required (a scorekeeper's are `players`) */
  name?: string | null;
  /** scorekeeper: every name, in order */
  players?: string[] | null;
  /** seconds a person has to act before a bot stands in (0: none) */
  timeout?: number;
  /** play: each player is sent their choices ranked on their turn (everyone sees it) */
  hints?: boolean;
}

export interface Created {
  code: string;
  seat: number;
  /** keep it: it holds the seat (Authorization: Bearer TOKEN) */
  token: string;
  /** SHA-256 of the secret seed of the table's dice */
  seed_hash: string;
}

/** `POST /api/tables/estimate`: what creating that table would spend solving its rules. */
export interface Solving {
  /** by estimate, solving the rules for the hints or a bot:optimal seat (0: nothing to solve) */
  seconds: number;
}

/** `POST /api/tables/{code}/join`. */
export interface JoinTable {
  /** the name to sit under */
  name: string;
}

export interface Joined {
  code: string;
  seat: number;
  token: string;
}

export interface Rematch {
  code: string;
}

/** What anyone may know of a table. */
export interface TablePublic {
  code: string;
  /** replay: a game record watched step by step (a table of the page's own, never a server's) */
  mode: "play" | "scorekeeper" | "replay";
  rules: string;
  /** the options that differ from the common rule */
  options: Record<string, unknown>;
  /** the rules as players name them: the preset and the options set for this table, `vache-41 (pot=15, queue_de_la_vache=true)` */
  named: string;
  /** abandoned: nobody played for the server's idle time; its game is in the history */
  status: "waiting" | "playing" | "over" | "abandoned";
  /** seconds a person has to act before a bot stands in (0: none) */
  timeout: number;
  seats: SeatPublic[];
  seed_hash: string;
  /** revealed once the game is over or abandoned */
  seed: string | null;
  /** steps played: send it back with every move */
  version: number;
  rematch: string | null;
  /** created with hints: each player sees their choices ranked */
  hints?: boolean;
}

export interface SeatPublic {
  seat: number;
  kind: "human" | "bot";
  bot: string | null;
  name: string | null;
  taken: boolean;
  connected: boolean;
  /** timed out: a bot plays for them until they act again */
  away: boolean;
}

/** A finished game, as `GET /api/games` lists them. */
export interface GameSummary {
  id: number;
  finished_at: string;
  rules: string;
  players: string[];
  losers: string[];
  kind: string;
  source: string;
}

/** `GET /api/players/{name}` and each row of `GET /api/leaderboard`. */
export interface PlayerStats {
  name: string;
  /** finished games (an abandoned one counts for nobody) */
  games: number;
  losses: number | null;
  /** losses / games */
  loss_rate: number;
  rounds_lost: number;
  /** 421s thrown */
  throws_421: number;
  /** nénettes (2-2-1) thrown */
  nenettes: number;
  tokens_taken: number;
}

/** What a client sends over the WebSocket. */
export type Inbound = Act | Report | Undo | Back | Ping;

/** A player's move at an online table. */
export interface Act {
  type: "act";
  version: number;
  action: string | ActionMove;
}

/** A move as data: one of the view's `legal_actions` as it is, or its fields alone. */
export interface ActionMove {
  kind: "stop" | "throw" | "stake";
  keep?: number[];
  bon?: boolean;
  stake?: "est" | "vient" | null;
  /** the same move in words, as the legal action has it (it must agree) */
  text?: string | null;
}

/** A player the timeout handed to a bot takes their seat back, before their turn comes. */
export interface Back {
  type: "back";
}

export interface Ping {
  type: "ping";
}

/** Scorekeeper: the dice (`421`, `654/2`, `123;221;421`, `555/2 bon`), or the stake (`e`, `vient`). */
export interface Report {
  type: "report";
  version: number;
  turn: string;
}

/** Scorekeeper: take the last entry back. */
export interface Undo {
  type: "undo";
  version: number;
}

/** What the server sends over the WebSocket. */
export type Outbound = TableMessage | ErrorMessage | Pong | HintsMessage;

export interface DrawView {
  purpose: string;
  seats: number[];
  thrown: string[];
}

export interface ErrorMessage {
  type: "error";
  error: ErrorCode;
  message: string;
  /** the message's language: the connection's for a refusal of the rules, else English */
  lang?: "en" | "fr";
}

export interface HintChoice {
  /** a legal move in the record's notation (`keep 41`, `stop`…) */
  action: string;
  /** its value to the player, as the analysis's (`method`) */
  value: number;
}

/** At a table with hints, to the connections of the person to move only, after the table message. */
export interface HintsMessage {
  type: "hints";
  /** the table's version these hints are for */
  version: number;
  seat: number;
  /** what the values are, as in the analysis */
  method: "heads_up" | "game" | "rounds";
  kind: "turn" | "stake";
  /** the dice held (a stake: the result that tied) */
  dice: string;
  throws_left: number;
  /** the results already final in the round, leader first */
  before: string[];
  /** every legal move, best first (none: not valued) */
  choices: HintChoice[];
}

/** One move the seat may make now; send `text` (or this object) back as the action. */
export interface LegalAction {
  kind: "stop" | "throw" | "stake";
  /** throw: the dice kept (none: throw all three) */
  keep: number[];
  /** throw: « le bon », this throw is the last */
  bon: boolean;
  /** stake: « pour ce qui est » or « vient » */
  stake: "est" | "vient" | null;
  /** the move in the record's notation: `keep 42`, `bon 5`, `stop`… */
  text: string;
}

export interface OutcomeView {
  losers: number[];
  kind: string;
  winners: number[][];
  manche_losers: number[];
}

export interface PlayerView {
  seat: number;
  name: string;
  tokens: number;
  in_manche: boolean;
  manches_lost: number;
  debt: number;
}

export interface Pong {
  type: "pong";
}

/** Where a game record watched step by step stands: send `look` with a `step` to move. */
export interface ReplayAt {
  /** the steps played at the view shown, from 0 (the start) */
  step: number;
  /** the steps of the whole record */
  steps: number;
}

export interface RoundView {
  order: number[];
  turns: TurnView[];
  current: number | null;
  dice: string;
  throws: number;
  throws_allowed: number | null;
  limit: number | null;
  stake: number | null;
  tie: TieView | null;
}

/** After every change of the table, to every connection (its own seat's view). */
export interface TableMessage {
  type: "table";
  table: TablePublic;
  /** null until the game starts */
  view: View | null;
  version: number;
  /** the number of the first log line sent */
  log_start: number;
  /** the lines this connection does not have yet (at most the last 50) */
  log: string[];
  /** a replay: the step shown (the view is the game then) */
  replay?: ReplayAt | null;
}

export interface TieView {
  seats: number[];
  thrown: string[];
  replay: number;
}

export interface TurnView {
  seat: number;
  result: string;
  throws: number;
}

/** The game as one seat sees it (`seat` null: a spectator). */
export interface View {
  seat: number | null;
  players: PlayerView[];
  rules: string;
  phase: string;
  manche: number;
  pot: number;
  leader: number;
  step: number;
  waiting_for: Waiting | null;
  your_turn: boolean;
  /** empty unless it is your turn */
  legal_actions: LegalAction[];
  round: RoundView | null;
  draw?: DrawView | null;
  outcome: OutcomeView | null;
}

export interface Waiting {
  seat: number;
  step: "dice" | "decision";
  dice?: number | null;
  kept?: string | null;
  purpose?: string | null;
}

/** `GET /api/tables/{code}/analysis`, `GET /api/games/{id}/analysis`. */
export interface Analysis {
  rules: string;
  players: string[];
  method: "heads_up" | "game" | "rounds";
  objective: string;
  bots: boolean;
  accurate_within: number;
  decisions: Decision[];
  summaries: PlayerSummary[];
}

/** A legal action, as records write it, and its value to the mover. */
export interface Choice {
  action: string;
  value: number;
}

/** One decision: where it was taken, the choice made, the best one and every legal choice ranked. `kind` is `turn` (stop, or which dice to keep, « le bon » included) or `stake` (« main chaude »); `dice` the dice held (a stake: the result that tied); `before` the results already final in the round, leader first. */
export interface Decision {
  step: number;
  seat: number;
  player: string;
  bot: boolean;
  manche: number;
  phase: string;
  pot: number;
  tokens: number[];
  kind: "turn" | "stake";
  dice: string;
  throws_left: number;
  before: string[];
  chosen: string;
  chosen_value: number;
  best: string;
  best_value: number;
  cost: number;
  choices: Choice[];
}

/** One player's decisions in short: how many, how many accurate, their cost, the worst. */
export interface PlayerSummary {
  seat: number;
  player: string;
  bot: boolean;
  decisions: number;
  accurate: number;
  accuracy: number | null;
  cost: number;
  mistakes: number[];
  unvalued: number;
}
