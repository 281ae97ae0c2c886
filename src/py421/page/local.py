"""Tables played on one device: against bots, hot-seat, or keeping a real table's score.

The page talks to these tables as it talks to a server: the same requests
(create, look at, rematch) and the same socket messages (``act``, ``report``,
``undo``), answered with the same shapes (``TablePublic``, the ``table``
message). So the table page is the same online and offline; only the link
differs. Dice are thrown here, by the session's seeded dice, never by the page.

A game record (a file of ``421 play``, ``421 serve`` or this page) is imported
as a table of its own, mode ``replay``: it takes no moves, and ``look`` with
a ``step`` shows the game as it stood after that many steps.

Every answer that changes a table carries its save (``saves``), which the page
keeps (IndexedDB) and hands back with :meth:`LocalTables.restore` after a reload.
A save is read (its game replayed) only when its table is opened: a phone
keeps hundreds of games. A finished game's save carries its players' counts
(``stats``), so the leaderboard reads none of them.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.actions import Action, action_from_data
from ..core.engine import name_key, players_refused
from ..core.errors import InvalidRecord, Message, Py421Error
from ..core.record import Record
from ..core.rules import Ruleset, preset_names, rules_name
from ..core.state import State
from ..core.views import seat_view
from ..i18n import LANGS, error_text, guillemets
from ..play.answers import apply_report
from ..play.session import Seat, Session, parse_seats
from ..players import accepted, bot_level, is_bot_name, levels, listing
from ..sim.stats import game_stats
from ..text import describe

CODE_PREFIX = "local-"  # the page sends what starts so to its worker, the rest to the server
LOG_LINES = 50  # as many log lines as the server sends
MOST_SEATS = 20  # as many as a table of 421 serve seats by default (--max-seats)
SAVE_KIND = "py421-local-table"
MODES = ("play", "scorekeeper", "replay")
RECORD_MOST = 5_000_000  # characters of a record imported: a long game's is a few hundred kilobytes
# a player's counts, as the server's leaderboard has them (the history's columns)
COUNTED = ("games", "losses", "rounds_lost", "throws_421", "nenettes", "tokens_taken")

Mode = Literal["play", "scorekeeper", "replay"]


class LocalError(Exception):
    """A refused request, as the server refuses one: a stable code and what is accepted, in English
    (an HTTP answer's, which the page words by its code), and in the page's language where the
    catalog words it (a socket's error message, like the server's)."""

    def __init__(
        self, error: str, message: str | Message, status: int = 400, said: tuple[str, str] | None = None
    ) -> None:
        super().__init__(str(message))
        self.error, self.message, self.status = error, str(message), status
        self.words = message if isinstance(message, Message) else None
        self.said = said

    def body(self) -> dict[str, Any]:
        return {"detail": {"error": self.error, "message": self.message}}

    def said_in(self, lang: str) -> tuple[str, str]:
        """The refusal in the page's language ``lang`` where the catalog words it (else in English)."""
        if self.said is not None:
            return self.said
        if self.words is not None:
            return guillemets(error_text(lang, self.words)), lang
        return self.message, "en"

    def said_text(self, lang: str) -> dict[str, str]:
        text, lang = self.said_in(lang)
        return {"said": text, "lang": lang}

    def socket_message(self, lang: str) -> dict[str, Any]:
        text, lang = self.said_in(lang)
        return {"type": "error", "error": self.error, "message": text, "lang": lang}


def _refused(error: str, exc: Py421Error, lang: str) -> LocalError:
    return LocalError(error, str(exc), said=(guillemets(error_text(lang, exc)), lang))


@dataclass
class LocalTable:
    code: str
    mode: Mode
    session: Session
    rematch: str | None = None
    at: int = 0  # a replay: the steps shown (a reload starts it again from the beginning)
    _log: dict[str, list[str]] = field(default_factory=dict)

    @property
    def shown(self) -> State:
        """The state the page shows: the game's, or a replay's at the step it is at."""
        if self.mode == "replay":
            return self.session.game.states[self.at]
        return self.session.state

    @property
    def status(self) -> str:
        return "over" if self.shown.is_over else "playing"

    @property
    def version(self) -> int:
        return self.session.state.steps

    def public(self) -> dict[str, Any]:
        """What the server's ``GET /api/tables/CODE`` says of a table, for this one."""
        over = self.shown.is_over
        return {
            "code": self.code,
            "mode": self.mode,
            "rules": self.session.rules.name,
            "options": self.session.rules.changed_options(),
            "named": rules_name(self.session.rules),
            "status": self.status,
            "timeout": 0,
            "seats": [
                {
                    "seat": i,
                    "kind": "human" if s.human else "bot",
                    "bot": s.bot,
                    "name": s.name,
                    "taken": True,
                    "connected": s.human,
                    "away": False,
                }
                for i, s in enumerate(self.session.seats)
            ],
            "seed_hash": "",
            "seed": self.session.dice.seed if over and self.mode != "replay" else None,  # a replay has none
            "version": self.version,
            "rematch": self.rematch,
            "hints": False,
        }

    def seen_by(self) -> int | None:
        """Whose view the device shows: the person to move (hot-seat passes the phone), else the
        first person at the table; the scorekeeper's device is its first seat's, like its creator's;
        a replay is watched, from no seat."""
        if self.mode == "replay":
            return None
        if self.mode == "scorekeeper":
            return 0
        moving = self.session.human_to_move()
        if moving is not None:
            return moving
        humans = self.session.humans
        return humans[0] if humans else None

    def log(self, lang: str) -> list[str]:
        names = self.session.game.players
        events = [e for s in self.session.game.states for e in s.events]
        lines = self._log.setdefault(lang, [])
        if len(lines) > len(events):  # an undo: described again
            lines.clear()
        lines.extend(guillemets(describe(e, names, lang)) for e in events[len(lines) :])
        return lines

    def message(self, lang: str) -> dict[str, Any]:
        """The server's ``table`` message, as one connection at this table is sent it, with what the
        game waits for (the page paces the bots by it); a replay's, at the step it shows."""
        lines = self.log(lang)
        replay = None
        if self.mode == "replay":
            states = self.session.game.states
            lines = lines[: sum(len(s.events) for s in states[: self.at + 1])]
            replay = {"step": self.at, "steps": len(states) - 1}
        start = max(0, len(lines) - LOG_LINES)
        message = {
            "type": "table",
            "table": self.public(),
            "view": seat_view(self.shown, self.seen_by()),
            "version": self.version,
            "log_start": start,
            "log": lines[start:],
            "waiting": self.session.waiting() if self.mode == "play" else "person",
        }
        if replay is not None:
            message["replay"] = replay
        return message

    def save(self) -> dict[str, Any]:
        extra: dict[str, Any] = {
            "kind": SAVE_KIND,
            "code": self.code,
            "mode": self.mode,
            "rematch": self.rematch,
        }
        counted = self.counts()
        if counted is not None:
            extra["stats"] = counted
        return self.session.to_save(**extra)

    def counts(self) -> list[dict[str, Any]] | None:
        """Each player's counts for the leaderboard (the history's columns, one game), once the game
        is over and was played here (a game imported to be watched counts for nobody)."""
        game = self.session.game
        if self.mode == "replay" or game.state.outcome is None:
            return None
        return [
            {"name": p.name, "games": 1, "losses": int(p.lost)}
            | {key: getattr(p, key) for key in COUNTED[2:]}
            for p in game_stats(game)
        ]

    @staticmethod
    def kept_code(data: Any) -> str:
        """The code of a table's save, checked as far as it can be without replaying its game."""
        if not isinstance(data, dict) or data.get("kind") != SAVE_KIND:
            raise InvalidRecord(Message("local.not_kept", {"kind": repr(SAVE_KIND)}))
        code = data.get("code")
        if not isinstance(code, str) or not code.startswith(CODE_PREFIX) or data.get("mode") not in MODES:
            raise InvalidRecord(Message("local.kept_table", {}))
        return code

    @staticmethod
    def from_save(data: dict[str, Any]) -> LocalTable:
        code = LocalTable.kept_code(data)
        rematch = data.get("rematch")
        return LocalTable(
            code, data["mode"], Session.from_save(data), rematch if isinstance(rematch, str) else None
        )


class LocalTables:
    """The tables of this device, answering the page's requests as the server would."""

    def __init__(self) -> None:
        self.tables: dict[str, LocalTable] = {}  # those read
        self.kept: dict[str, dict[str, Any]] = {}  # the saves of the others, read when opened

    # -- the requests ------------------------------------------------------------

    def request(
        self, method: str, path: str, body: Any, lang: str = "en"
    ) -> tuple[int, Any, list[dict[str, Any]]]:
        """One of the server's HTTP requests: its status, its answer, and the saves it changed."""
        lang = lang if lang in LANGS else "en"
        try:
            answer, changed = self._route(method, path, body, lang)
        except LocalError as e:
            return e.status, e.body() | e.said_text(lang), []
        return 200, answer, [t.save() for t in changed]

    def _route(self, method: str, path: str, body: Any, lang: str) -> tuple[Any, list[LocalTable]]:
        if method == "GET" and path == "/api/presets":
            return self.presets(), []
        if method == "GET" and path == "/api/bots":
            return listing(), []
        if method == "POST" and path == "/api/tables":
            table = self.create(body if isinstance(body, dict) else {}, lang)
            return {"code": table.code, "seat": 0, "token": "", "seed_hash": ""}, [table]
        if method == "POST" and path == "/api/tables/import":
            table = self.import_record(body if isinstance(body, dict) else {}, lang)
            return {"code": table.code}, [table]
        if method == "GET" and path.split("?")[0] == "/api/leaderboard":
            rules = re.search(r"[?&]rules=([^&]+)", path)
            read = self._read_for_counts()
            return self.leaderboard(rules[1] if rules else None), read
        found = re.fullmatch(r"/api/tables/([^/]+)(/start|/rematch|/record)?", path)
        if found is None:
            raise LocalError("not_found", Message("local.no_route", {"method": method, "path": path}), 404)
        table = self.table(found[1])
        action = found[2]
        if method == "GET" and action is None:
            return table.public(), []
        if method == "GET" and action == "/record":
            return table.session.game.record({"table": table.code}).to_dict(), []
        if method == "POST" and action == "/start":
            return table.public(), []  # started when made: every seat is on this device
        if method == "POST" and action == "/rematch":
            new = self.rematch(table)
            return {"code": new.code}, [table, new]
        raise LocalError("not_found", Message("local.no_route", {"method": method, "path": path}), 404)

    def leaderboard(self, rules: str | None = None) -> list[dict[str, Any]]:
        """Per player, the finished games of this device (of one preset's rules, if named): the
        server's ``GET /api/leaderboard`` rows, most games first."""
        self._read_for_counts()
        games: list[tuple[str | None, Any]] = [
            (t.session.game.rules.name, t.counts()) for t in self.tables.values()
        ]
        games += [(_rules_name(data), data.get("stats")) for data in self.kept.values()]
        rows: dict[str, dict[str, Any]] = {}
        for name, counted in games:
            if not isinstance(counted, list) or (rules is not None and name != rules):
                continue
            for player in counted:
                row = rows.setdefault(player["name"], {"name": player["name"], **dict.fromkeys(COUNTED, 0)})
                for key in COUNTED:
                    row[key] += player[key]
        for row in rows.values():
            row["loss_rate"] = row["losses"] / row["games"]
        return sorted(rows.values(), key=lambda r: (-r["games"], r["name"]))

    def presets(self) -> list[dict[str, Any]]:
        found = []
        for name in preset_names():
            r = Ruleset.preset(name)
            most = min(r.max_players or MOST_SEATS, MOST_SEATS)
            found.append(
                {
                    "name": name,
                    "description": r.description,
                    "min_players": r.min_players,
                    "max_players": most,
                    "no_limit": not r.max_players,
                }
            )
        return found

    def create(self, body: dict[str, Any], lang: str) -> LocalTable:
        """A new table from the server's ``CreateTable``: ``players`` name every seat (a name, or
        ``bot:LEVEL`` at a game), else ``seats`` (``human`` or ``bot:LEVEL``) with the creator's
        ``name``, the other people named after their seat."""
        mode = body.get("mode", "play")
        if mode not in ("play", "scorekeeper"):
            raise LocalError("malformed", Message("local.mode", {"got": repr(mode)}))
        rules = self._rules(body, lang)
        seats = self._seats(mode, body, lang)
        if not rules.seats(len(seats)):
            raise LocalError("bad_seats", players_refused(rules, len(seats)))
        if len(seats) > MOST_SEATS:
            raise LocalError("bad_seats", Message("local.most_seats", {"most": MOST_SEATS, "n": len(seats)}))
        folded = [name_key(s.name) for s in seats]
        if len(set(folded)) < len(folded):
            raise LocalError("name_taken", Message("local.same_name", {}))
        seed = body.get("seed")  # as 421 play --seed: the same dice and bots' choices
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | str)):
            raise LocalError("malformed", Message("local.seed", {"got": repr(seed)}))
        try:
            session = Session(rules, seats, seed=secrets.token_hex(16) if seed is None else seed)
        except Py421Error as e:
            raise _refused("bad_name", e, lang) from e
        table = LocalTable(self._new_code(), mode, session)
        self.tables[table.code] = table
        if mode == "play":
            self._throw(table)
        return table

    def import_record(self, body: dict[str, Any], lang: str) -> LocalTable:
        """A game record (``record``: the text of its file), replayed whole and kept as a table
        to watch step by step; a record that does not replay is refused and says why."""
        text = body.get("record")
        if not isinstance(text, str):
            raise LocalError("malformed", Message("local.record_text", {}))
        if len(text) > RECORD_MOST:
            raise LocalError("too_large", Message("local.record_size", {"most": RECORD_MOST}))
        try:
            record = Record.from_json(text)
            game = record.replay_game()
            seats = [Seat(name) for name in record.players]
            session = Session(record.rules, seats, seed=secrets.token_hex(16), game=game)
        except Py421Error as e:
            raise _refused("malformed", e, lang) from e
        table = LocalTable(self._new_code(), "replay", session)
        self.tables[table.code] = table
        return table

    def _rules(self, body: dict[str, Any], lang: str) -> Ruleset:
        name = body.get("rules", "classic-11")
        settings = body.get("settings") or []
        if (
            not isinstance(name, str)
            or not isinstance(settings, list)
            or not all(isinstance(s, str) for s in settings)
        ):
            raise LocalError("malformed", Message("local.rules", {}))
        try:
            return Ruleset.preset(name).with_settings(settings)
        except Py421Error as e:
            raise _refused("bad_rules", e, lang) from e

    def _seats(self, mode: str, body: dict[str, Any], lang: str) -> list[Seat]:
        players = body.get("players")
        if players is None and mode == "play":
            specs = body.get("seats") or []
            name = body.get("name")
            if not isinstance(specs, list) or not isinstance(name, str):
                raise LocalError("malformed", Message("local.seats", {}))
            if is_bot_name(name):  # « bot:heuristic » would be read below as a bot, not a person
                raise LocalError("bad_seats", Message("players.bot_name", {"name": repr(name.strip())}))
            humans = 0
            players = []
            for spec in specs:
                if spec == "human":
                    humans += 1
                    players.append(name if humans == 1 else f"{name} {humans}")
                else:
                    players.append(spec)
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise LocalError("malformed", Message("local.players", {}))
        try:
            seats = parse_seats([" ".join(p.split()) for p in players], lang)
        except Py421Error as e:
            raise _refused("bad_seats", e, lang) from e
        for seat in seats:
            if seat.bot is not None and (mode == "scorekeeper" or not bot_level(seat.bot).offline):
                here = accepted(tuple(level for level in levels() if level.offline))
                raise LocalError(
                    "bad_seats",
                    Message("local.bot_offline", {"bot": seat.bot, "accepted": here})
                    if mode == "play"
                    else Message("local.scorekeeper_bots", {}),
                )
        return seats

    def table(self, code: str) -> LocalTable:
        """The table ``code``, its save read (its game replayed) the first time it is asked for."""
        table = self.tables.get(code)
        if table is None and code in self.kept:
            try:
                table = LocalTable.from_save(self.kept[code])
            except Py421Error as e:
                said = {"code": code, "reason": e.message or str(e)}
                raise LocalError("not_found", Message("local.unreadable", said), 404) from e
            del self.kept[code]
            self.tables[code] = table
        if table is None:
            raise LocalError("not_found", Message("local.no_table", {"code": repr(code)}), 404)
        return table

    def _read_for_counts(self) -> list[LocalTable]:
        """The finished games kept without their counts (saved by an earlier page), read: their saves
        then carry them, for the page to keep."""
        read = []
        for code, data in list(self.kept.items()):
            record = data.get("record")
            final = record.get("final") if isinstance(record, dict) else None
            over = isinstance(final, dict) and final.get("phase") == "over"
            if data.get("mode") == "replay" or "stats" in data or not over:
                continue
            try:
                read.append(self.table(code))
            except LocalError:
                continue  # a save that cannot be read counts for nobody (opening it says why)
        return read

    def rematch(self, table: LocalTable) -> LocalTable:
        if table.mode == "replay":
            raise LocalError("over", Message("local.replay_rematch", {}))
        if table.status != "over":
            raise LocalError("not_over", Message("local.rematch_after", {}))
        if table.rematch is not None:
            return self.table(table.rematch)
        old = table.session
        seats = [Seat(s.name, s.bot) for s in old.seats]
        loser = next((i for i, lost in enumerate(old.state.manche_losses) if lost), 0)  # who lost starts
        session = Session(old.rules, seats, seed=secrets.token_hex(16), first_seat=loser)
        new = LocalTable(self._new_code(), table.mode, session)
        self.tables[new.code] = new
        table.rematch = new.code
        if new.mode == "play":
            self._throw(new)
        return new

    # -- the socket's messages ---------------------------------------------------

    def receive(
        self, code: str, message: Any, lang: str = "en"
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A socket message from the page: the ``table`` message after it (or an ``error``), and
        the saves it changed. ``look`` asks for the table as it is; ``advance`` plays one bot's move."""
        lang = lang if lang in LANGS else "en"
        try:
            table = self.table(code)
            changed = self._receive(table, message if isinstance(message, dict) else {}, lang)
        except LocalError as e:
            return e.socket_message(lang), []
        return table.message(lang), [table.save()] if changed else []

    def _receive(self, table: LocalTable, message: dict[str, Any], lang: str) -> bool:
        kind = message.get("type")
        if kind in ("look", "ping"):
            if table.mode == "replay" and "step" in message:
                table.at = _step(message["step"], len(table.session.game.states) - 1)
            return False
        if table.mode == "replay":
            raise LocalError("over", Message("local.replay_moves", {}))
        session = table.session
        if kind == "advance":
            if table.mode == "play" and session.waiting() == "bot":
                session.step()
                self._throw(table)
                return True
            return False
        if kind not in ("act", "report", "undo"):
            raise LocalError("unknown_type", Message("local.type", {"got": repr(kind)}))
        if kind == "undo":
            if table.mode != "scorekeeper":
                raise LocalError("unknown_type", Message("local.undo_scorekeeper", {}))
            if not session.game.steps:
                raise LocalError("illegal", Message("local.nothing_to_undo", {}))
            session.game.undo()
            return True
        if message.get("version") != table.version:
            raise LocalError("stale", Message("local.stale", {"step": table.version}))
        if session.state.is_over:
            raise LocalError("over", Message("refusal.over", {}))
        try:
            if kind == "act":
                if table.mode != "play":
                    raise LocalError("unknown_type", Message("local.scorekeeper_act", {}))
                if session.human_to_move() is None:
                    raise LocalError("not_your_turn", Message("local.bot_decides", {}))
                session.act(_action(message.get("action")))
                self._throw(table)
            else:
                if table.mode != "scorekeeper":
                    raise LocalError("unknown_type", Message("local.report_play", {}))
                turn = message.get("turn")
                if not isinstance(turn, str) or not turn.strip():
                    raise LocalError("malformed", Message("local.turn", {}))
                apply_report(session.game, turn)
        except Py421Error as e:
            raise _refused("illegal", e, lang) from e
        return True

    @staticmethod
    def _throw(table: LocalTable) -> None:
        """The dice a game waits for, thrown at once, as the server throws its own."""
        while table.session.waiting() == "dice":
            table.session.step()

    # -- what the page keeps -----------------------------------------------------

    def restore(self, saves: list[Any]) -> list[str]:
        """The tables the page kept, back after a reload; says why of each one it cannot read."""
        problems = []
        for data in saves:
            try:
                code = LocalTable.kept_code(data)
            except Py421Error as e:
                problems.append(str(e))
                continue
            self.tables.pop(code, None)  # read again from this save (a tab taking the table over)
            self.kept[code] = data
        return problems

    def forget(self, code: str) -> bool:
        """Drop a table the phone no longer keeps; whether it was here."""
        return (self.tables.pop(code, None) or self.kept.pop(code, None)) is not None

    def _new_code(self) -> str:
        while True:
            code = CODE_PREFIX + secrets.token_hex(4)
            if code not in self.tables and code not in self.kept:
                return code


def _rules_name(data: dict[str, Any]) -> str | None:
    """The preset's name of a kept game's rules, as its save holds them."""
    record = data.get("record")
    rules = record.get("rules") if isinstance(record, dict) else None
    name = rules.get("name") if isinstance(rules, dict) else None
    return name if isinstance(name, str) else None


def _step(raw: Any, steps: int) -> int:
    """The step a replay is asked to show: a whole number from 0 (the start) to ``steps``."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= steps:
        raise LocalError("malformed", Message("local.step", {"steps": steps, "got": repr(raw)}))
    return raw


def _action(raw: Any) -> Action | str:
    """The action a page sends: its fields, as the server reads them, or its text."""
    return raw if isinstance(raw, str) else action_from_data(raw)
