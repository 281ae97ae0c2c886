"""Many games between bots, counted: the work behind ``421 simulate``.

Games are numbered and split into batches of :data:`BATCH` games; batch ``b``
of seed ``s`` draws its dice from its own key (``SeedSequence(s)``'s child
``b``), and game ``g`` of a batch starts with seat ``g % players``. A batch's
counts depend on nothing else, and counts add up exactly, so a seed gives the
same totals however many processes (or Dask workers) play the batches, in any
order. Only the counts of finished batches are kept: memory does not grow with
the number of games. Stopped early (Ctrl-C, or :class:`Terminated` raised by a
SIGTERM handler), the totals passed to :func:`run` hold the batches finished so
far, and the worker processes are ended before the stop goes on.

The fast simulator (:mod:`.fast`) plays the games. :func:`engine_game` and
:func:`count_game` play and count a game of a batch in the engine instead,
from the same dice: the benchmark's engine loop and the tests use them, and
so does a simulation that seats a bot level with no compiled twin (its games
are played that way, in the calling process: a level registered at run time
exists only in the process that registered it).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import numpy as np

from ..core.chance import DiceSource
from ..core.engine import check_players as check_seats
from ..core.errors import InvalidParameter, Message
from ..core.events import Gave, LeaderChosen, RoundDecided, Thrown, Took
from ..core.game import Game
from ..core.rules import Ruleset, named_with, rules_fields
from ..core.state import ChanceRequest, OutcomeKind
from ..i18n import num, plural, points, tr
from ..players import make_bot
from ..players.registry import check_levels
from ..solver.tables import INDEX, RESULTS
from .fast import kernel as k
from .fast.counter_dice import batch_key, face, game_key, throw_code
from .fast.lineup import Lineup, check_players, parse_players
from .fast.policy import KINDS, LINEUP_KINDS, maxn_in_kernel
from .loop import play_out
from .stopping import Terminated

BATCH = 10_080  # games per batch: a multiple of 2 to 8, so first seats rotate evenly
Counts = k.I64
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Simulation:
    """What to simulate: the rules, one bot level per seat, how many games, from which seed."""

    rules: Ruleset
    levels: tuple[str, ...]
    games: int
    seed: int = 0
    batch: int = BATCH

    def __post_init__(self) -> None:
        if self.games < 1:
            raise InvalidParameter(Message("sim.games", {"games": self.games}))
        if self.seed < 0:
            raise InvalidParameter(Message("sim.seed", {"seed": self.seed}))
        if self.compiled:
            check_players(self.rules, self.levels)
        else:
            check_seats(self.rules, [f"P{s}" for s in range(len(self.levels))])
            for level in self.levels:
                make_bot(level, "check")  # an unknown level, or one that refuses these rules, says so now
            check_levels(self.levels, self.rules, len(self.levels))

    @property
    def compiled(self) -> bool:
        """Whether the fast simulator plays every seat; else the engine plays the games (far slower)."""
        return not self.engine_levels

    @property
    def engine_levels(self) -> tuple[str, ...]:
        """The bot levels the fast simulator does not play here: those with no compiled twin, and
        bot:optimal where it plays a whole game under « qui barre démarre » (throw counts compared,
        « main chaude » chosen), which the kernel does not hold."""
        slow = [level for level in self.levels if level not in LINEUP_KINDS]
        if "optimal" in self.levels and not maxn_in_kernel(self.rules, len(self.levels)):
            slow.append("optimal")
        return tuple(dict.fromkeys(slow))

    @property
    def batch_count(self) -> int:
        return math.ceil(self.games / self.batch)

    def batches(self) -> Iterator[tuple[int, int]]:
        """Each batch's number and its number of games."""
        for b in range(self.batch_count):
            yield b, min(self.batch, self.games - b * self.batch)


def play_batch(sim: Simulation, batch: int, games: int) -> Counts:
    """The counts of one batch (run in any process)."""
    counts = np.zeros(k.C_SIZE, dtype=np.int64)
    key = batch_key(sim.seed, batch)
    if sim.compiled:
        _lineup(sim.rules, sim.levels).play(key, 0, games, counts)
    else:
        for game in range(games):
            count_game(engine_game(sim.rules, sim.levels, key, game, f"{sim.seed}:{batch}"), counts)
    return counts


def warm_up(rules: Ruleset, players: int) -> None:
    """Compile the kernel in this process, or load it from numba's cache, before anything is timed.

    The kernel is the same for every ruleset and bot level, so a few games of
    heuristic bots compile it all; the worker processes started afterwards load
    it from the cache instead of each compiling it on its own.
    """
    play_batch(Simulation(rules, ("heuristic",) * players, players), 0, players)


_LINEUPS: dict[tuple[Ruleset, tuple[str, ...]], Lineup] = {}


def _lineup(rules: Ruleset, levels: tuple[str, ...]) -> Lineup:
    """The lineup of this process's simulation: the optimal bot's positions are built once and kept.

    Only the last one is kept: a process that plays many match-ups in turn (``421 report``)
    would otherwise hold every optimal bot's tables, hundreds of megabytes each.
    """
    found = _LINEUPS.get((rules, levels))
    if found is None:
        _LINEUPS.clear()
        found = _LINEUPS[(rules, levels)] = Lineup(rules, levels)
    return found


def new_counts() -> Counts:
    """Totals with no game in them, for :func:`run` to add to."""
    return np.zeros(k.C_SIZE, dtype=np.int64)


def run(
    sim: Simulation,
    workers: int = 1,
    progress: Progress | None = None,
    scheduler: str | None = None,
    pool: Executor | None = None,
    total: Counts | None = None,
) -> Counts:
    """Every batch played and added up, on ``workers`` processes or a Dask scheduler.

    ``pool`` lends processes already started, for many simulations in a row: starting
    them (and loading the bots in each) costs more than a small simulation. ``total``:
    the counts to add to (:func:`new_counts`); stopped early (Ctrl-C, :class:`Terminated`),
    they hold the batches finished so far.
    """
    total = new_counts() if total is None else total
    if scheduler is not None and not sim.compiled:
        compiled = ", ".join(f"bot:{level}" for level in KINDS)
        raise InvalidParameter(Message("sim.dask_engine", {"compiled": compiled}))
    if scheduler is not None:
        from .dask_cluster import run_on_dask

        return run_on_dask(sim, scheduler, progress, total=total)
    if workers < 1:
        raise InvalidParameter(Message("sim.workers", {"workers": workers}))
    if min(workers, sim.batch_count) == 1 or not sim.compiled:  # one process: no pool to start
        for b, games in sim.batches():
            total += play_batch(sim, b, games)
            if progress:
                progress(games)
        return total
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(new_pool(workers))
        pending: dict[Future[Counts], int] = {}
        try:
            for b, games in sim.batches():
                pending[pool.submit(play_batch, sim, b, games)] = games
                if len(pending) >= 2 * workers:  # a few batches ahead, never all of them
                    _collect(pending, total, progress)
            while pending:
                _collect(pending, total, progress)
        except BaseException:  # stopped: the batches done count, the others are not played
            for future in pending:
                if future.done() and not future.cancelled() and future.exception() is None:
                    total += future.result()
                else:
                    future.cancel()
            raise
    return total


class Pool(ProcessPoolExecutor):
    """Worker processes that leave Ctrl-C to the process that started them, which ends them when it
    stops early (Ctrl-C, SIGTERM, an exit) rather than waiting for their batches."""

    def __exit__(self, kind: type[BaseException] | None, *rest: Any) -> Any:
        if kind is not None and not issubclass(kind, Exception):
            self.terminate()
        return super().__exit__(kind, *rest)

    def terminate(self) -> None:
        """End the workers now: their batches are lost, and nothing is left behind (no process, no
        semaphore for the resource tracker to warn about)."""
        # Killed, they are seen to die by the pool's own thread, which cleans up as for a worker that
        # crashed (its queues closed, every process joined); shutting down then waits for that thread.
        # It then marks every batch it still holds as failed, and fails itself on a batch given up
        # (cancelled) meanwhile, with a traceback on the terminal. Those batches keep their place (the
        # thread may still be about to start one: a batch finished just now wakes it), each with a
        # stand-in that is given up as well and takes the failure quietly.
        waiting = getattr(self, "_pending_work_items", None) or {}
        for item in list(waiting.values()):
            if item.future.cancelled():
                item.future = _GivenUp()
        processes = list((getattr(self, "_processes", None) or {}).values())
        for process in processes:
            process.kill()
        for process in processes:
            process.join()
        # A worker killed while it sent its batch leaves half a message in the results' pipe, and the
        # pool's thread would wait for the rest forever: with the workers gone, the pipe's last writer
        # is this process's own end, closed so that the thread reads the end of the pipe instead.
        results = getattr(self, "_result_queue", None)
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()
        self.shutdown(wait=True, cancel_futures=True)


class _GivenUp(Future[Counts]):
    """A batch given up, for the pool's thread to drop or to fail without a word."""

    def __init__(self) -> None:
        super().__init__()
        self.cancel()

    def set_exception(self, exception: BaseException | None) -> None:
        """Failed as the workers end: it was never going to be played."""


def _leave_ctrl_c() -> None:
    """In a worker: Ctrl-C reaches every process of the terminal; the one that started the workers
    decides what it means (it ends them)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def new_pool(workers: int) -> Pool:
    """Processes for :func:`run`, started clean (spawned: no copy of the caller's memory)."""
    return Pool(workers, mp_context=get_context("spawn"), initializer=_leave_ctrl_c)


def _collect(pending: dict[Future[Counts], int], total: Counts, progress: Progress | None) -> None:
    """Add the batches that are done (waiting for at least one)."""
    done, _ = wait(pending, return_when=FIRST_COMPLETED)
    for future in done:
        total += future.result()
        games = pending.pop(future)
        if progress:
            progress(games)


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# -- the engine: the same dice, counted the same way ---------------------------


class CounterDice:
    """The fast simulator's dice for one game, served to the engine in the order asked."""

    def __init__(self, key: np.ndarray, game: int) -> None:
        self.gkey = np.uint64(game_key(key, game))
        self.counter = 0

    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        code = throw_code(self.gkey, self.counter)
        self.counter += 1
        return tuple(face(code, i) for i in range(request.count))


def engine_game(rules: Ruleset, levels: tuple[str, ...], key: np.ndarray, game: int, seed: str) -> Game:
    """Game ``game`` of a batch played by the engine and the engine's bots."""
    n = len(levels)
    bots = [make_bot(level, f"{seed}:{game}:{seat}") for seat, level in enumerate(levels)]
    dice: DiceSource = CounterDice(key, game)
    return play_out(Game(rules, [f"P{s}" for s in range(n)], first_seat=game % n), bots, dice)


def count_game(game: Game, counts: Counts) -> None:
    """Add a finished engine game to ``counts``, as the kernel counts its own."""
    rounds = throws = 0
    first_leader: int | None = None
    for state in game.states:
        for e in state.events:
            if isinstance(e, Thrown):
                throws += 1
                if e.result is not None:
                    counts[k.C_RESULTS + INDEX[e.result]] += 1
            elif isinstance(e, RoundDecided):
                rounds += 1
            elif isinstance(e, Took):
                counts[k.C_TAKEN + e.seat] += e.amount
            elif isinstance(e, Gave):
                counts[k.C_GIVEN + e.giver] += e.amount
                counts[k.C_RECEIVED + e.receiver] += e.amount
            elif isinstance(e, LeaderChosen) and first_leader is None:
                first_leader = e.seat
    final = game.state
    outcome = final.outcome
    assert outcome is not None and first_leader is not None
    kinds: dict[OutcomeKind, int] = {"loser": 0, "grand_perdant": 1, "shared": 2}  # the kernel's numbers
    kind = kinds[outcome.kind]
    counts[k.C_GAMES] += 1
    counts[k.C_KINDS + kind] += 1
    counts[k.C_SHARED] += kind == 2
    for s in outcome.losers:
        counts[k.C_LOST + s] += 1
    counts[k.C_FIRST_LED + first_leader] += 1
    counts[k.C_FIRST_LOST] += first_leader in outcome.losers
    counts[k.C_MANCHES + min(final.manche, k.MANCHE_BINS - 1)] += 1
    counts[k.C_ROUNDS + min(rounds, k.ROUND_BINS - 1)] += 1
    counts[k.C_THROWS + min(throws, k.THROW_BINS - 1)] += 1


# -- what the counts say ----------------------------------------------------------


def interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's 95 % interval for a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _distribution(hist: np.ndarray) -> dict[str, Any]:
    values = np.nonzero(hist)[0]
    total = int(hist.sum())
    if total == 0:
        return {"mean": None, "median": None, "p90": None, "max": None, "histogram": {}}
    cumulative = np.cumsum(hist)
    return {
        "mean": float((np.arange(hist.size) * hist).sum() / total),
        "median": int(np.searchsorted(cumulative, total / 2)),
        "p90": int(np.searchsorted(cumulative, 0.9 * total)),
        "max": int(values[-1]),
        "histogram": {str(int(v)): int(hist[v]) for v in values},
    }


@dataclass
class Summary:
    """The counts of a simulation, read as players ask about them (``421 simulate --json``)."""

    sim: Simulation
    counts: Counts
    workers: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        c = self.counts
        n = len(self.sim.levels)
        games = int(c[k.C_GAMES])
        seats = []
        for s, level in enumerate(self.sim.levels):
            lost = int(c[k.C_LOST + s])
            seats.append(
                {
                    "seat": s,
                    "player": f"bot:{level}",
                    "losses": lost,
                    "loss_rate": lost / games if games else None,
                    "ci95": list(interval(lost, games)),
                    "led_first": int(c[k.C_FIRST_LED + s]),
                    "tokens_taken_per_game": int(c[k.C_TAKEN + s]) / games if games else None,
                    "tokens_given_per_game": int(c[k.C_GIVEN + s]) / games if games else None,
                    "tokens_received_per_game": int(c[k.C_RECEIVED + s]) / games if games else None,
                }
            )
        first_lost = int(c[k.C_FIRST_LOST])
        all_lost = int(c[k.C_LOST : k.C_LOST + n].sum())
        first_rate = first_lost / games if games else None
        others = (all_lost - first_lost) / (games * (n - 1)) if games else None
        thrown = c[k.C_RESULTS : k.C_RESULTS + len(RESULTS)]
        order = self.sim.rules.table.order  # strongest first
        total_thrown = int(thrown.sum())
        return {
            **rules_fields(self.sim.rules),
            "players": [f"bot:{level}" for level in self.sim.levels],
            "games": games,
            "seed": self.sim.seed,
            "workers": self.workers,
            "unfinished": int(c[k.C_UNFINISHED]),
            "seats": seats,
            "outcomes": {
                "loser": int(c[k.C_KINDS]),
                "grand_perdant": int(c[k.C_KINDS + 1]),
                "shared": int(c[k.C_KINDS + 2]),
            },
            "first_player": {
                "loss_rate": first_rate,
                "ci95": list(interval(first_lost, games)),
                "others_loss_rate": others,
                "advantage": None if first_rate is None or others is None else others - first_rate,
            },
            "length": {
                "rounds": _distribution(c[k.C_ROUNDS : k.C_ROUNDS + k.ROUND_BINS]),
                "throws": _distribution(c[k.C_THROWS : k.C_THROWS + k.THROW_BINS]),
                "manches": _distribution(c[k.C_MANCHES : k.C_MANCHES + k.MANCHE_BINS]),
            },
            "results": {str(r): int(thrown[INDEX[r]]) / total_thrown if total_thrown else 0.0 for r in order},
            "results_thrown": total_thrown,
        } | self.extra


__all__ = [
    "BATCH", "Simulation", "Summary", "Terminated", "count_game", "engine_game", "new_counts",
    "parse_players", "run", "warm_up",
]  # fmt: skip


def summary_text(data: dict[str, Any], lang: str = "en") -> str:
    """What ``421 simulate`` prints without ``--json``, in ``lang``."""

    def n(value: float, spec: str = ",") -> str:
        return num(lang, value, spec)

    rate = data["games"] / data["seconds"] if data.get("seconds") else 0
    shown_rate = tr(lang, "sim.rate", rate=n(rate, ",.0f")) if rate else ""
    lines = [
        tr(
            lang,
            "sim.head",
            rules=named_with(data["rules"], data.get("options", {})),
            games=n(data["games"]),
            s=plural(lang, data["games"]),
            seed=data["seed"],
            rate=shown_rate,
        )
    ]
    width = max(len(s["player"]) for s in data["seats"])
    for s in data["seats"]:
        low, high = s["ci95"]
        player, lost = f"{s['player']:<{width}}", n(s["loss_rate"], "7.3%")
        lines.append(
            tr(
                lang,
                "sim.seat",
                seat=s["seat"],
                player=player,
                rate=lost,
                low=n(low, ".3%"),
                high=n(high, ".3%"),
            )
        )
    out = data["outcomes"]
    if out["shared"]:
        lines.append(tr(lang, "sim.shared", n=n(out["shared"]), s=plural(lang, out["shared"])))
    if out["grand_perdant"]:
        lines.append(
            tr(lang, "sim.grand_perdant", n=n(out["grand_perdant"]), s=plural(lang, out["grand_perdant"]))
        )
    first = data["first_player"]
    lines.append(
        tr(
            lang,
            "sim.first.two" if len(data["players"]) == 2 else "sim.first",
            first=n(first["loss_rate"], ".3%"),
            others=n(first["others_loss_rate"], ".3%"),
            points=points(lang, first["advantage"] * 100, "+.2f"),
        )
    )
    for what in ("rounds", "throws"):
        d = data["length"][what]
        lines.append(
            tr(
                lang,
                f"sim.length.{what}",
                mean=n(d["mean"], ".1f"),
                median=d["median"],
                p90=d["p90"],
                most=d["max"],
            )
        )
    lines.append(tr(lang, "sim.tokens"))
    for s in data["seats"]:
        taken, given = n(s["tokens_taken_per_game"], ".2f"), n(s["tokens_given_per_game"], ".2f")
        received = n(s["tokens_received_per_game"], ".2f")
        lines.append(tr(lang, "sim.tokens.seat", seat=s["seat"], taken=taken, given=given, received=received))
    top = sorted(data["results"].items(), key=lambda kv: -kv[1])[:5]
    lines.append(tr(lang, "sim.top", results=", ".join(f"{r} {n(p, '.2%')}" for r, p in top)))
    if data["unfinished"]:
        lines.append(tr(lang, "sim.unfinished", n=n(data["unfinished"]), s=plural(lang, data["unfinished"])))
    return "\n".join(lines)
