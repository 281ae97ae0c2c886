"""A game at a table of humans and bots: the single play loop every interface drives.

A :class:`Session` throws the dice (from a seed) and lets the bots decide,
one step at a time, and stops where a human must act. Line mode, the
terminal UI and the scorekeeper all advance a game through it, and it saves
to and loads from plain JSON so any game can be resumed.
"""

from __future__ import annotations

import getpass
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..core.actions import Action
from ..core.chance import SeededDice
from ..core.engine import MAX_NAME, check_name
from ..core.errors import IllegalAction, InvalidPlayers, InvalidRecord, Message
from ..core.game import Game
from ..core.record import Record
from ..core.rules import Ruleset
from ..core.state import State
from ..i18n import tr
from ..players import Player, bot_name, is_bot_name, make_bot, parse_bot
from ..players.registry import check_levels

SAVE_FORMAT = "py421-save"
SAVE_VERSION = 1


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits at a seat: a human by name, or a bot of a level."""

    name: str
    bot: str | None = None  # a bot level's key (py421.players.registry), or None for a human

    @property
    def human(self) -> bool:
        return self.bot is None


def parse_seats(specs: Sequence[str], lang: str = "en", *, new: bool = True) -> list[Seat]:
    """Seats from ``["Alice", "bot:heuristic", …]``; bots are named after their level, in ``lang``.

    The names are the game's from then on: a saved game keeps them, whatever language it is resumed in.
    A new game's names are held to :data:`~py421.core.engine.MAX_NAME`; ``new=False``: the names of a
    game saved before, which may be longer.
    """
    seats: list[Seat] = []
    counts: dict[str, int] = {}
    for raw in specs:
        level = parse_bot(raw)
        if level is not None:
            counts[level] = counts.get(level, 0) + 1
            seats.append(Seat(bot_name(level, counts[level], lang), level))
        elif is_bot_name(raw):
            raise InvalidPlayers(
                Message(
                    "players.bot_name",
                    {"name": repr(raw.strip())},
                )
            )
        else:
            seats.append(Seat(check_name(raw.strip()) if new else raw.strip()))
    return seats


def default_player_name(lang: str) -> str:
    """The person's name when none is given: the system's user name, capitalised (ana → Ana).

    A name, not « You », so that every sentence reads right: « Ana perd », "Ana takes 1".
    Without a user name, or with root's, a bot's or one longer than a name may be, a word for a player
    in ``lang``.
    """
    try:
        name = getpass.getuser().strip()
    except (OSError, KeyError):  # no user name in the environment nor the password database
        name = ""
    if not name or name.lower() == "root" or is_bot_name(name) or len(name) > MAX_NAME:
        return tr(lang, "default_player")
    return name[:1].upper() + name[1:]


# What a game waits for: the dice, a bot's decision (or a stand-in's for someone away),
# a person's decision, or nothing more.
Waiting = Literal["dice", "bot", "person", "over"]


class Session:
    """A game, its seats and its dice; ``bots`` may bring players made elsewhere (the server's)."""

    def __init__(
        self,
        rules: Ruleset,
        seats: Sequence[Seat],
        *,
        seed: str | int | None = None,
        first_seat: int = 0,
        game: Game | None = None,
        bots: Mapping[int, Player] | None = None,
    ) -> None:
        self.seats = list(seats)
        self.dice = SeededDice(seed)
        self.game = game or Game(rules, [s.name for s in self.seats], first_seat=first_seat)
        if bots is not None:
            self.bots = dict(bots)
        else:
            check_levels((s.bot for s in self.seats), rules, len(self.seats))
            self.bots = {
                i: make_bot(s.bot, f"{self.dice.seed}:bot{i}")
                for i, s in enumerate(self.seats)
                if s.bot is not None
            }
            if any(s.bot == "optimal" for s in self.seats):
                from ..players.optimal import prepare

                prepare(rules, len(self.seats))  # solve now, not in the middle of the game
        # plays for a person who is away (an online player who timed out) until they are back
        self.stand_in: Player = make_bot("heuristic", f"{self.dice.seed}:stand-in")

    @property
    def state(self) -> State:
        return self.game.state

    @property
    def rules(self) -> Ruleset:
        return self.game.rules

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.human]

    def human_to_move(self) -> int | None:
        """The human seat whose decision is awaited, if any."""
        seat = self.state.to_move
        return seat if seat is not None and self.seats[seat].human else None

    def human_to_throw(self) -> int | None:
        """The human seat whose throw is awaited (a UI may wait for a key press)."""
        request = self.state.chance
        return request.seat if request is not None and self.seats[request.seat].human else None

    def waiting(self, away: Collection[int] = ()) -> Waiting:
        """What the game waits for; the seats in ``away`` are played by a stand-in bot."""
        state = self.state
        if state.is_over:
            return "over"
        if state.chance is not None:
            return "dice"
        seat = state.to_move
        return "bot" if seat in self.bots or seat in away else "person"

    def player(self, seat: int, away: Collection[int] = ()) -> Player:
        """Who decides for a seat that a bot plays (its own, or the stand-in)."""
        bot = self.bots.get(seat)
        if bot is not None:
            return bot
        if seat in away:
            return self.stand_in
        name = self.seats[seat].name
        raise IllegalAction(Message("refusal.must_decide", {"who": name}))

    def step(self, away: Collection[int] = ()) -> State:
        """One automatic step: a throw of the dice, or a bot's decision."""
        state = self.state
        request = state.chance
        if request is not None:
            return self.game.throw(self.dice.throw(request))
        seat = state.to_move
        if seat is None:
            raise IllegalAction(Message("refusal.over"))
        return self.game.act(self.player(seat, away).choose(state))

    def act(self, action: Action | str) -> State:
        """A human's decision."""
        return self.game.act(action)

    # -- saving ------------------------------------------------------------

    def to_save(self, **extra: Any) -> dict[str, Any]:
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "seats": [{"name": s.name, "bot": s.bot} for s in self.seats],
            "seed": self.dice.seed,
            "record": self.game.record().to_dict(),
            **extra,
        }

    @staticmethod
    def from_save(data: Any) -> Session:
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise InvalidRecord(
                Message(
                    "save.not_a_save",
                    {"format": SAVE_FORMAT},
                )
            )
        if "version" not in data:
            raise InvalidRecord(Message("save.missing", {"name": repr("version")}))
        if data.get("version") != SAVE_VERSION:
            version = data.get("version")
            raise InvalidRecord(
                Message(
                    "save.version",
                    {"got": repr(version), "version": SAVE_VERSION},
                )
            )
        for key in ("seats", "seed", "record"):
            if key not in data:
                raise InvalidRecord(Message("save.missing", {"name": repr(key)}))
        raw = data["seats"]
        if not isinstance(raw, list) or not all(
            isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("bot"), str | None)
            for s in raw
        ):
            raise InvalidRecord(Message("save.seats_type"))
        seats = [Seat(s["name"], s.get("bot")) for s in raw]
        record = Record.from_dict(data["record"])
        if [s.name for s in seats] != list(record.players):
            names, players = ", ".join(s.name for s in seats), ", ".join(record.players)
            raise InvalidRecord(
                Message(
                    "save.seats_players",
                    {"seats": names, "players": players},
                )
            )
        game = Game(record.rules, record.players, first_seat=record.first_seat)
        for step in record.steps:
            game.apply_step(step)
        return Session(record.rules, seats, seed=str(data["seed"]), game=game)
