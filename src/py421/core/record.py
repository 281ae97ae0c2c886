"""Game records: JSON that holds the ruleset, the players and every step.

Replaying a record re-applies every step through the engine, so a record
that replays proves the game was played by the rules; the final summary
stored with it must match the replay exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidRecord, Message, Py421Error
from .game import STEP_KINDS, Game, Step
from .rules import Ruleset
from .state import State
from .syntax import Unparsable, as_json, load

FORMAT = "py421-record"
VERSION = 1


def summarize(state: State) -> dict[str, Any]:
    """Where a game stands, by names: enough to check a replay."""
    names = state.players
    summary: dict[str, Any] = {
        "phase": state.phase.value,
        "manche": state.manche,
        "pot": state.pot,
        "tokens": dict(zip(names, state.tokens, strict=True)),
        "manche_losers": [names[s] for s in state.manche_losers],
        "steps": state.steps,
    }
    if any(state.debts):
        summary["debts"] = dict(zip(names, state.debts, strict=True))
    if state.outcome is not None:
        summary["losers"] = [names[s] for s in state.outcome.losers]
        summary["kind"] = state.outcome.kind
        summary["winners"] = [[names[s] for s in group] for group in state.outcome.winners]
    return summary


@dataclass(frozen=True)
class Record:
    """A whole game as data; ``final`` is the state reached, when known."""

    rules: Ruleset
    players: tuple[str, ...]
    first_seat: int
    steps: tuple[Step, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)
    final: State | None = None  # the state reached, when the record is made from a game
    expected: Mapping[str, Any] | None = None  # the summary stored in a file, checked on replay

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "first_seat": self.first_seat,
            "steps": [_step_dict(s) for s in self.steps],
        }
        if self.meta:
            data["meta"] = dict(self.meta)
        if self.final is not None:
            data["final"] = summarize(self.final)
        elif self.expected is not None:
            data["final"] = dict(self.expected)
        return data

    def to_json(self, indent: int | None = 1) -> str:
        """The record as a file holds it; ``indent=None``: on one line, five times faster to write."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent) + "\n"

    @staticmethod
    def from_json(text: str) -> Record:
        try:
            data = load(text)
        except Unparsable as exc:
            reason = exc.reason
            raise InvalidRecord(Message("record.not_json", {"reason": reason})) from None
        return Record.from_dict(data)

    @staticmethod
    def from_dict(data: Any) -> Record:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InvalidRecord(
                Message(
                    "record.not_a_record",
                    {"format": FORMAT},
                )
            )
        version = data.get("version")
        if version is None:
            raise InvalidRecord(
                Message(
                    "record.no_version",
                    {"version": VERSION},
                )
            )
        if not isinstance(version, int) or isinstance(version, bool):
            raise InvalidRecord(
                Message(
                    "record.version_type",
                    {"version": VERSION, "got": as_json(version)},
                )
            )
        if version != VERSION:
            raise InvalidRecord(
                Message(
                    "record.version",
                    {"got": version, "version": VERSION},
                )
            )
        for key in ("rules", "players", "steps"):
            if key not in data:
                raise InvalidRecord(Message("record.missing", {"name": repr(key)}))
        given = data["rules"]
        if not isinstance(given, dict):
            if isinstance(given, str):
                raise InvalidRecord(Message("record.rules_preset", {"got": as_json(given), "base": given}))
            raise InvalidRecord(Message("record.rules_type", {"got": as_json(given)}))
        if not isinstance(data["steps"], list):
            raise InvalidRecord(
                Message(
                    "record.steps_type",
                    {"got": as_json(data["steps"])},
                )
            )
        try:
            rules = Ruleset.from_mapping(given)
        except Py421Error as exc:
            raise InvalidRecord(Message("record.rules", {"reason": _said(exc)})) from None
        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise InvalidRecord(Message("record.players_type"))
        steps = []
        for i, raw in enumerate(data["steps"]):
            steps.append(_read_step(i, raw))
        first_seat = data.get("first_seat", 0)
        if not isinstance(first_seat, int):
            raise InvalidRecord(Message("record.first_seat_type"))
        final = data.get("final")
        if final is not None and not isinstance(final, dict):
            raise InvalidRecord(Message("record.final_type"))
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise InvalidRecord(Message("record.meta_type"))
        return Record(rules, tuple(players), first_seat, tuple(steps), meta, expected=final)

    def replay(self) -> State:
        """Apply every step again; return the final state or raise InvalidRecord."""
        return self.replay_game().state

    def replay_game(self) -> Game:
        """Apply every step again; return the game, each step's state in it, or raise InvalidRecord."""
        try:
            game = Game(self.rules, self.players, first_seat=self.first_seat)
        except Py421Error as exc:
            raise InvalidRecord(Message("record.seats", {"reason": _said(exc)})) from None
        for i, step in enumerate(self.steps, start=1):
            state = game.state
            due = state.chance.seat if state.chance else state.to_move
            if step.seat != due:
                kind = Message(f"record.kind.{step.kind}")  # the reader's word for dice, an action, a turn
                fields = {"i": i, "kind": kind, "text": repr(step.text), "seat": step.seat}
                if due is None:
                    raise InvalidRecord(Message("record.no_step_due", fields))
                who = self.players[due]
                raise InvalidRecord(Message("record.wrong_seat", {**fields, "who": who}))
            try:
                game.apply_step(step)
            except Py421Error as exc:
                raise InvalidRecord(
                    Message(
                        "record.step",
                        {"i": i, "text": repr(step.text), "reason": _said(exc)},
                    )
                ) from None
        final = game.state
        if self.expected is not None:
            got = summarize(final)
            if "kind" in self.expected and "kind" not in got:  # over as recorded, not as replayed
                raise InvalidRecord(Message("record.cut", {"steps": len(self.steps)}))
            if got != self.expected:
                diff = [
                    k for k in sorted(set(got) | set(self.expected)) if got.get(k) != self.expected.get(k)
                ]
                details = tuple(_difference(k, self.expected, got) for k in diff)
                raise InvalidRecord(Message("record.final", {"details": details}))
        return game


def _difference(key: str, recorded: Mapping[str, Any], replayed: Mapping[str, Any]) -> Message:
    """How the record and the replay differ on ``key``; a side that does not hold it is said so."""
    fields = {"field": key, "recorded": _worded(recorded.get(key)), "replayed": _worded(replayed.get(key))}
    if key not in recorded:
        return Message("record.difference.missing", fields)
    return Message("record.difference" if key in replayed else "record.difference.unreplayed", fields)


def _worded(value: object) -> str:
    """A value of a game's summary as a reader reads it: names and counts, not Python's brackets
    (``{"Ana": 3}`` is ``Ana 3``; groups of names are parted by semicolons)."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_worded(v)}" for key, v in value.items())
    if isinstance(value, list):
        if not value:
            return "—"  # nobody
        nested = any(isinstance(v, list) for v in value)
        return ("; " if nested else ", ").join(_worded(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"  # as the file writes it
    return str(value)


def _said(exc: Py421Error) -> object:
    """An error inside another one, as a message the reader's language can word, or its text."""
    return exc.message if exc.message is not None else str(exc)


def _step_dict(step: Step) -> dict[str, Any]:
    return {"seat": step.seat, step.kind: step.text}


def _read_step(i: int, raw: Any) -> Step:
    if isinstance(raw, dict) and isinstance(raw.get("seat"), int) and len(raw) == 2:
        for kind in STEP_KINDS:
            if isinstance(raw.get(kind), str):
                return Step(raw["seat"], kind, raw[kind])
    raise InvalidRecord(
        Message(
            "record.step_shape",
            {"i": i + 1, "got": as_json(raw)},
        )
    )
