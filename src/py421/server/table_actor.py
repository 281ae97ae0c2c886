"""A live table of this process: the changes it takes, one at a time, and the game's own steps.

A :class:`TableActor` handles the commands that change its table (:mod:`.commands`: join,
start, act, report, undo), each under the table's lock, so that they come one at a time and
in order; it also throws the server's dice, plays the bots' moves, hands a seat whose
player timed out to a bot (expiry), lets a connection go (leave) and, where another process
owns the table, brings this process's copy up to its news (follow). Every step is applied
to the table's session, written in one transaction, taken back if the write fails, and only
then shown.

What it needs of its process (the writer, the database, the bots' worker, the other tables)
comes from the :class:`~py421.server.hub.Hub`, through :class:`Services`: the hub registers the
tables and routes each command to the table's owner; the table's rules of life are here.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Protocol, assert_never

from sqlalchemy.exc import SQLAlchemyError

from ..core.actions import Action, ChooseStake, Stop, Throw, parse_action
from ..core.engine import name_key
from ..core.errors import Message, Py421Error
from ..core.game import Step
from ..core.state import State
from ..history import History, game_rows
from ..play.answers import apply_report
from ..play.session import Session
from ..players import bot_name
from .cluster import Moved, Solo, first_line
from .commands import Act, Answer, Back, Done, Hand, Join, Report, Seated, Start, Undo
from .database import Store
from .limits import Limits
from .optimal_seats import OptimalBots
from .policy_seats import PolicyBots
from .protocol import ActionMove
from .table import Connection, Table, TableError, clean_name, hash_token
from .writer import Writer

log = logging.getLogger(__name__)
# With no timeout, how long a player with no page open at the table (gone, or never there) has for
# their turn before a bot plays for them until they come back: the others would wait for ever.
GONE_SECONDS = 120.0

# Why a table that is no longer waiting cannot start, by its status.
_ALREADY: dict[str, Message] = {
    "playing": Message("server.already_playing"),
    "over": Message("server.already_over"),
    "abandoned": Message("server.already_abandoned"),
}


class Services(Protocol):
    """What a table needs of its process (:class:`py421.server.hub.Hub`)."""

    writer: Writer
    store: Store
    history: History
    cluster: Solo
    optimal: OptimalBots
    policies: PolicyBots
    bot_delay: float
    limits: Limits

    def spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]: ...

    def end_soon(self, table: Table) -> None:
        """End the table, abandoned, once its lock is free (a game past the steps a table may take)."""
        ...

    def session_of(self, table: Table) -> Session:
        """The table's game and seats as a session: its dice, its bots."""
        ...

    def owning(self, table: Table) -> None:
        """Under the table's lock, before changing it: still this process's (or :class:`Moved`)."""
        ...

    def forget_if_done(self, table: Table) -> None: ...

    async def read_again(self, table: Table, *, if_changed: bool = False) -> bool: ...


class RemoteBot:
    """Marks a seat whose decisions come from a worker: the optimal bot's (:class:`.OptimalBots`), or
    the policies' the operator named (:class:`.PolicyBots`)."""

    def __init__(self, level: str = "optimal") -> None:
        self.level = level

    def choose(self, state: Any) -> Action:
        raise AssertionError("the table asks the worker for this seat's moves")


class TableActor:
    """The changes of one table this process owns, made one at a time (see the module)."""

    def __init__(self, table: Table, services: Services) -> None:
        self.table = table
        self.services = services

    async def handle(self, command: Join | Start | Act | Report | Undo | Back | Hand) -> Answer:
        match command:
            case Join(name=name, token=token):
                assert token is not None
                seat, token = await self.join(name, token)
                return Seated(seat=seat, token=token)
            case Start(token=token):
                await self.start(token)
            case Act(seat=seat, version=version, move=move):
                await self.act(seat, version, move)
            case Report(seat=seat, version=version, turn=turn):
                await self.report(seat, version, turn)
            case Undo(seat=seat, version=version):
                await self.undo(seat, version)
            case Back(seat=seat):
                await self.back(seat)
            case Hand(token=token, seat=seat, new=new):
                await self.hand(token, seat, new)
                return Seated(seat=seat, token=new)
            case _:
                assert_never(command)
        return Done()

    # -- seats -----------------------------------------------------------------

    async def join(self, name: object, token: str) -> tuple[int, str]:
        clean = clean_name(name)
        async with self.table.lock:  # two people joining at once are given two seats
            self.services.owning(self.table)
            return await self._sit(clean, token)

    async def _sit(self, clean: str, token: str) -> tuple[int, str]:
        """A seat for ``clean``, held by ``token``; the same seat if ``token`` holds one already (the
        join asked again: its first owner made it and died before answering)."""
        table, services = self.table, self.services
        mine = table.seat_of(token)
        if mine is not None:
            return mine, token
        if table.mode != "play" or table.status != "waiting":
            raise TableError("not_waiting", Message("server.not_waiting"), 409)
        free = next((s for s in table.seats if s.kind == "human" and s.token_hash is None), None)
        if free is None:
            raise TableError("full", Message("server.seats_taken"), 409)
        if any(s.name is not None and name_key(s.name) == name_key(clean) for s in table.seats):
            raise TableError("name_taken", Message("server.name_at_table", {"name": repr(clean)}), 409)
        taken = free.copy()
        taken.name, taken.token_hash = clean, hash_token(token)
        if not await services.writer.call(services.store.take_seat, table.code, taken.row()):
            raise TableError("full", Message("server.seat_just_taken"), 409)  # memory follows the database
        free.name, free.token_hash = taken.name, taken.token_hash
        table.active = time.time()
        table.broadcast()
        return free.seat, token

    async def hand(self, token: str | None, seat: int, new: str) -> None:
        """A seated player hands ``seat`` to another phone, whose page holds ``new`` (a phone that
        died: its player goes on from a borrowed one; the creator's, before the start, starts the
        game from it). At a real table's score a phone watching (``token`` holding no seat) takes the
        keeper's. Another's seat is handed on only once no page has held it for the limits'
        ``hand_after_seconds``. The token that held the seat no longer does: its connections are
        told and watch (:meth:`.Table.broadcast`)."""
        table, services = self.table, self.services
        async with table.lock:
            services.owning(table)
            if table.seat_of(new) == seat:
                return  # asked again of another owner: already handed
            holder = table.seat_of(token)
            # a real table's score: a phone watching takes it where the keeper's died (nobody else
            # holds a seat there to hand it on)
            if holder is None and table.mode != "scorekeeper":
                raise TableError("spectator", Message("server.hand_seated"), 403)
            if table.finished:
                raise TableError("over", Message("server.hand_playing"), 409)
            people = [s.seat for s in table.seats if s.kind == "human" and s.token_hash is not None]
            if seat not in people:
                said = {"seat": seat, "seats": ", ".join(map(str, people))}
                raise TableError("no_seat", Message("server.hand_seat", said), 404)
            if seat != holder and table.present(seat):
                # anyone with the code may have joined: another's seat is theirs to hand on only once
                # that player's phone is gone, else they could take every seat and keep it
                raise TableError("seat_here", Message("server.hand_here", {"seat": seat}), 409)
            gone = time.time() - table.seats[seat].left
            wait = services.limits.hand_after_seconds
            if seat != holder and gone < wait:  # a dark screen, back in a moment
                if holder is None:
                    minutes = math.ceil(wait / 60)
                    raise TableError("seat_here", Message("server.keeper_recent", {"minutes": minutes}), 409)
                said = {"seat": seat, "seconds": math.ceil(wait - gone)}
                raise TableError("seat_here", Message("server.hand_recent", said), 409)
            # taken from a phone that did not hand it: the game reported so far stays
            floor = len(table.session.game.steps) if holder is None and table.session is not None else None
            handed = table.seats[seat].copy()
            old, handed.token_hash = handed.token_hash, hash_token(new)
            assert old is not None and handed.token_hash is not None
            if not await services.writer.call(
                services.store.hand_seat, table.code, seat, old, handed.token_hash, floor
            ):
                raise TableError("stale", Message("server.hand_raced"), 409)  # memory follows the database
            table.seats[seat].token_hash = handed.token_hash
            if floor is not None:
                table.undo_from = floor
            table.seats[seat].left = time.time()  # no page holds it yet: a watcher waits as long again
            table.active = time.time()
            table.broadcast()  # the page that held it watches: the seat may now have nobody there
            session = table.session
            if (
                table.mode == "play"
                and not table.timeout
                and session is not None
                and session.state.to_move == seat
            ):
                self._start_timer(seat)  # its turn: GONE_SECONDS for the new phone to come, then a bot

    def creator(self, token: str | None) -> None:
        if self.table.seat_of(token) != 0:
            raise TableError("not_creator", Message("server.creator_only"), 403)

    async def start(self, token: str | None) -> None:
        table, services = self.table, self.services
        self.creator(token)
        async with table.lock:
            services.owning(table)
            if table.status != "waiting":
                raise TableError("not_waiting", _ALREADY[table.status], 409)
            seats = [s.copy() for s in table.seats]
            counts: dict[str, int] = {}
            for s in seats:  # nobody came: a bot plays the seat
                if s.kind == "human" and s.token_hash is None:
                    s.kind, s.bot = "bot", "heuristic"
                if s.kind == "bot":
                    level = s.bot or "heuristic"
                    counts[level] = counts.get(level, 0) + 1
                    s.name = bot_name(level, counts[level])
            trial = Table(
                table.code, table.mode, table.rules, seats, table.seed, table.seed_hash, table.timeout
            )
            session = services.session_of(trial)  # the engine checks every name before anything is written
            if not await services.writer.start(table.code, [s.row() for s in seats]):
                raise TableError("not_waiting", Message("server.already_started"), 409)
            table.seats, table.session, table.status = seats, session, "playing"
            table.active = time.time()
            table.events = list(session.state.events)
            if table.timer is not None:
                table.timer.cancel()
            table.broadcast()
        services.spawn(self.advance())

    # -- playing -----------------------------------------------------------------

    async def act(self, seat: int | None, version: int, move: str | ActionMove) -> None:
        """A player's action, from their own seat only."""
        table = self.table
        async with table.lock:
            self.services.owning(table)
            session = self._playing(seat, version)
            if table.mode != "play":
                raise TableError("unknown_type", Message("server.scorekeeper_types"))
            assert seat is not None
            if session.state.to_move != seat:
                raise TableError("not_your_turn", Message("server.not_your_turn"))
            action = _action(move)
            table.seats[seat].away = False  # acting hands the seat back
            table.active = time.time()
            await self._commit(lambda: session.act(action))
        self.services.spawn(self.advance())

    async def back(self, seat: int | None) -> None:
        """A player the timeout handed to a bot takes the seat back (acting would too, but the bot
        plays their turn the bots' pause after it comes: a moment to catch)."""
        table = self.table
        async with table.lock:
            self.services.owning(table)
            if seat is None:
                raise TableError("spectator", Message("server.spectator"))
            if not table.seats[seat].away:
                return  # nothing to take back: the time limit of whoever is to move runs on
            table.seats[seat].away = False
            table.active = time.time()
            table.broadcast()
        self.services.spawn(self.advance())  # their turn, if it is: waited for, with the timeout

    async def report(self, seat: int | None, version: int, text: str) -> None:
        """Scorekeeper: the creator reports what the real dice showed."""
        table = self.table
        async with table.lock:
            self.services.owning(table)
            session = self._playing(seat, version)
            game = session.game
            if table.mode != "scorekeeper":
                raise TableError("unknown_type", Message("server.report_scorekeeper"))
            if seat != 0:
                raise TableError("not_creator", Message("server.creator_reports"))
            if not text.strip():
                raise TableError("malformed", Message("server.turn_format"))
            table.active = time.time()
            await self._commit(lambda: apply_report(game, text))

    async def undo(self, seat: int | None, version: int) -> None:
        """Scorekeeper: take the last entry back, even the one that ended the game."""
        table, services = self.table, self.services
        async with table.lock:
            services.owning(table)
            session = self._playing(seat, version, over_ok=True)
            game = session.game
            if table.mode != "scorekeeper" or seat != 0:
                raise TableError("not_creator", Message("server.creator_undoes"))
            if not game.steps:
                raise TableError("illegal", Message("server.nothing_to_undo"))
            if len(game.steps) <= table.undo_from:
                raise TableError("illegal", Message("server.undo_taken_over"))
            table.active = time.time()
            reopen = None
            if table.status == "over" and table.game_id is not None:
                game_id = table.game_id

                def reopen(conn: Any) -> None:  # the game leaves the history with its last step
                    services.history.remove(game_id, conn)

            await services.writer.call(
                services.store.remove_steps_from, table.code, len(game.steps) - 1, reopen
            )
            taken_back = len(game.state.events)  # the events are each state's, one after another
            game.undo()
            if table.status == "over":
                table.status, table.game_id = "playing", None
            del table.events[len(table.events) - taken_back :]
            table.forget_log()
            table.broadcast()

    def _playing(self, seat: int | None, version: int, over_ok: bool = False) -> Session:
        table = self.table
        if seat is None:
            raise TableError("spectator", Message("server.spectator"))
        if table.status == "waiting" or table.session is None:
            raise TableError("not_started", Message("server.not_started"))
        if table.status == "abandoned":
            raise TableError("over", Message("server.abandoned"))
        if table.status == "over" and not over_ok:
            raise TableError("over", Message("refusal.over"))
        if version != table.version:
            raise TableError("stale", Message("server.stale", {"seen": version, "version": table.version}))
        return table.session

    async def _commit(self, apply: Callable[[], object]) -> None:
        """Apply one step, then the server's dice it calls for; write them all in one
        transaction (with the history row if the game ends), then tell everyone.
        A failed write takes every one of them back."""
        table, services = self.table, self.services
        services.owning(table)  # every step is written by the table's owner only
        session = table.session
        assert session is not None
        game = session.game
        before = game.played
        try:
            apply()
        except Py421Error as e:
            raise TableError.of("illegal", e) from e
        # the dice a player asked for, thrown at once; one nobody asked for (a turn's first, a tie's)
        # is left to advance(), which throws it the bots' pause later (at once where there is none)
        paced = bool(services.bot_delay)
        while table.mode == "play" and session.waiting() == "dice":
            if paced and not _asked_for(session.state):
                break
            session.step()
        new, states = game.since(before)
        if not new:
            return
        finish = None
        if game.state.is_over:
            finish = game_rows(game, bots=bots_of(table), source="online", meta=table.record_meta())

        def written(game_id: int | None) -> None:  # told the moment the write is committed
            for state in states:
                table.events.extend(state.events)
            if game.state.is_over:
                table.status, table.game_id = "over", game_id
                table.let_go_of_states()
            table.broadcast()
            services.forget_if_done(table)
            if table.status == "playing" and len(game.steps) >= services.limits.steps_per_table:
                services.end_soon(table)

        try:
            await services.writer.add_steps(table.code, before, new, finish, written)
        except SQLAlchemyError:
            for _ in new:
                game.undo()
            await self._as_written()
            raise

    async def _as_written(self) -> None:
        """After a failed write, the table as the database has it: a connection lost after the
        commit fails a write that is there all the same, and the next steps would be refused."""
        table = self.table
        version = table.version
        try:
            await self.services.read_again(table, if_changed=True)
        except SQLAlchemyError as e:  # the database is away: the next write will tell
            log.warning("table %s could not be read again after a failed write: %s", table.code, e)
            return
        if table.version != version:
            log.warning("table %s: a write reported as failed was committed; read again", table.code)

    # -- connections and news ------------------------------------------------------------------

    async def leave(self, conn: Connection) -> None:
        """A connection closed: its seat is shown let go, and the table leaves memory if nobody
        here watches it any more and it is done with (:meth:`Services.forget_if_done`)."""
        table = self.table
        async with table.lock:
            if conn in table.connections:
                table.connections.remove(conn)
                if conn.seat is not None:
                    table.seats[conn.seat].connected -= 1
                    table.broadcast()
                    self.if_gone(conn.seat)
                self.services.forget_if_done(table)

    def if_gone(self, seat: int) -> None:
        """Under the table's lock, once a page holding ``seat`` closed (here, or in another process):
        if none holds it now and it is their turn, GONE_SECONDS for them to come back, then a bot."""
        table, session = self.table, self.table.session
        if not table.present(seat):
            table.seats[seat].left = time.time()  # no page holds it (elsewhere: until about now)
        if (
            not table.timeout
            and table.mode == "play"
            and table.status == "playing"
            and session is not None
            and session.state.to_move == seat
            and not table.present(seat)
            and self.services.cluster.owns(table.code)
        ):
            self._start_timer(seat)

    async def follow(self, news: dict[str, Any] | None) -> bool:
        """Another process changed this table (a copy of it is kept here): bring the copy up to
        the database's, from the ``news`` where it brings the steps that follow the copy's last
        one, else by reading again. False if the table is no longer in the database (its
        connections are told so)."""
        table = self.table
        async with table.lock:
            game = table.game
            if news and "steps" in news and game is not None and news["from"] == game.played:
                for seat, kind, text in news["steps"]:
                    game.apply_step(Step(seat, kind, text))
                    table.events.extend(game.state.events)
                table.broadcast()
                return True
            if await self.services.read_again(table):
                return True
            closed = Message("server.table_closed", {"code": repr(table.code)})
            for conn in list(table.connections):
                conn.close_after("no_table", closed)
            return False

    # -- the game's own steps: the server's dice, the bots, the timeouts -------------------------

    async def advance(self) -> None:
        """Throw the server's dice and play the bots' (and away players') moves.

        A step that cannot be written (the database is away) is taken back, said in one line, and
        tried again a moment later, each time twice as late up to half a minute: the game goes on
        when the database is back.
        """
        pause = 0.0
        while True:
            try:
                if not await self._advance_step():
                    return
                pause = 0.0
            except Moved:
                return  # given to another process while a bot chose: it plays on there
            except SQLAlchemyError as e:
                if not pause:
                    log.warning(
                        "table %s: a step of the server's could not be saved (%s); trying again",
                        self.table.code,
                        first_line(e),
                    )
                pause = min(max(2 * pause, 0.5), 30.0)
                await asyncio.sleep(pause)

    async def _advance_step(self) -> bool:
        """One server's throw or bot's move, if one is due; False when none is (or will be here)."""
        table, services = self.table, self.services
        async with table.lock:
            session = table.session
            if session is None or table.status != "playing" or table.mode != "play":
                return False
            if not services.cluster.owns(table.code):
                return False  # another process plays it now
            waiting = session.waiting(table.away)
            if waiting == "dice" and (_asked_for(session.state) or not services.bot_delay):
                await self._commit(session.step)
                return True
            if waiting not in ("dice", "bot"):
                seat = session.state.to_move
                if seat is not None:
                    self._start_timer(seat)
                return False
            step = session.state.steps
        # a bot's move, or a throw nobody asked for (a turn's first, a tie's), a moment after the last
        # step: each is seen, where a charge of coups secs was over before anyone saw a die
        await asyncio.sleep(services.bot_delay)
        async with table.lock:
            if not services.cluster.owns(table.code):
                return False  # given to another process meanwhile
            if table.session is not session or session.state.steps != step or table.status != "playing":
                return True  # someone else moved meanwhile, or the table was read again
            if waiting == "dice":
                if session.waiting(table.away) == "dice":
                    await self._commit(session.step)
                return True
            if session.waiting(table.away) != "bot":
                return True
            state = session.state
            seat = state.to_move
            assert seat is not None
            player = session.player(seat, table.away)
            if isinstance(player, RemoteBot) and player.level == "optimal":
                action = await services.optimal.choose(state)
            elif isinstance(player, RemoteBot):
                action = await services.policies.choose(player.level, state)
            else:
                try:
                    action = player.choose(state)
                except Exception as e:  # a level this server was given (421 --bot) that fails: play on
                    level = table.seats[seat].bot or "heuristic"
                    said = f"{type(e).__name__}: {e}"
                    log.warning(
                        "bot:%s could not choose (%s): the heuristic bot plays this move", level, said
                    )
                    action = session.stand_in.choose(state)
            await self._commit(partial(session.act, action))
            return True

    def _start_timer(self, seat: int) -> None:
        """The seat to move has the table's timeout to act, then a bot plays for them until they act
        again. With no timeout, a player with no page open at the table (gone, or never there) has
        GONE_SECONDS: else one who left stalls everyone for good."""
        table, services = self.table, self.services
        if table.timer is not None:
            table.timer.cancel()
        if table.session is None:
            return
        wait = table.timeout or (GONE_SECONDS if not table.present(seat) else 0)
        if not wait:
            return
        step = table.session.state.steps

        async def expire() -> None:
            await asyncio.sleep(wait)
            async with table.lock:
                session = table.session
                if session is None or session.state.steps != step or session.state.to_move != seat:
                    return
                if not services.cluster.owns(table.code):
                    return
                if not table.timeout and table.present(seat):
                    return  # back at the table (here or through another process): no limit then
                table.seats[seat].away = True  # a bot plays for them until they act again
                table.broadcast()
            await self.advance()

        table.timer = services.spawn(expire())


def _asked_for(state: State) -> bool:
    """Whether the dice awaited answer a player's throw (the dice they did not keep), rather than
    start a turn or settle a tie or a draw."""
    return state.draw is None and state.round is not None and state.round.pending is not None


def bots_of(table: Table) -> dict[int, str]:
    """Each bot's seat and level, as the history keeps them."""
    return {s.seat: s.bot or "heuristic" for s in table.seats if s.kind == "bot"}


def _action(move: str | ActionMove) -> Action:
    if isinstance(move, str):
        try:
            return parse_action(move)
        except Py421Error as e:
            raise TableError.of("illegal", e) from e
    action: Action
    if move.kind == "stop":
        action = Stop()
    elif move.kind == "stake":
        if move.stake is None:
            raise TableError("malformed", Message("server.stake_move"))
        action = ChooseStake(move.stake)
    else:
        action = Throw(tuple(move.keep), move.bon)
    if move.text is not None and _action(move.text) != action:
        raise TableError(
            "malformed", Message("server.move_text", {"text": repr(move.text), "action": str(action)})
        )
    return action
