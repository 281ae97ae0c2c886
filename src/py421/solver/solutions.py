"""Every solution kept: in memory for the process, on disk so a ruleset is solved once per machine.

Two players: :class:`.heads_up.HeadsUp`, and where a manche's end is worth
more than who lost it :class:`.heads_up_game.HeadsUpGame`; three to five:
:class:`.game_maxn.GameMaxn`. Each kind of solution has its file's name and format here.
Each is solved with the one way of telling how far a solve is,
:data:`.game_maxn.Progress`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.rules import Ruleset
from ..paths import data_dir, kept_folder
from . import game_maxn
from .deviation import Deviation
from .game_maxn import GameMaxn
from .heads_up import HeadsUp
from .heads_up_game import GameManche, HeadsUpGame, Lost, carries_over, manche_rules
from .shipped import SHIPPED, located

FORMAT = 3  # bump when the solver's results change meaning
# The two-player solves kept on disk, in bytes: a server solves the rules of every new table, and
# rules with other options are other files (about 24 kB each at a pot of 40), with no end to them.
# Past it the least lately used go first, solved again when asked. Whole games of three and more
# (hours to solve) are never dropped.
KEPT_BYTES = 256 * 2**20
# A manche under way is kept at most this often (seconds): a four-player pass takes minutes, but a
# small game's passes take less than writing its file would
UNDERWAY_EVERY = 60.0


def read_folder(folder: Path | None = None) -> Path:
    """Where solved games are read from: ``folder``, else the data folder's, which reading needs
    neither to make nor to write (it may be read-only, or not made yet)."""
    return folder or data_dir(write=False) / "solver"


def keep_folder(folder: Path | None = None) -> Path | None:
    """Where a game just solved is kept: ``folder`` (made), else the data folder's; None when the
    data folder is read-only: the game is solved for this process only, not kept."""
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return kept_folder("solver")


def _save(path: Path, arrays: dict[str, Any]) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")  # runs started together do not collide
    np.savez(tmp, **arrays)
    tmp.replace(path)
    _drop_least_used(path)


def _drop_least_used(kept: Path) -> None:
    """Drop the two-player solves least lately used (read or written) beside ``kept`` while they
    take more than :data:`KEPT_BYTES`; never ``kept``, just written."""
    found: list[tuple[float, int, str]] = []
    for entry in os.scandir(kept.parent):
        if entry.name.startswith("heads-up-") and entry.name.endswith(".npz") and ".tmp." not in entry.name:
            with contextlib.suppress(FileNotFoundError):  # dropped by another process meanwhile
                stat = entry.stat()
                found.append((stat.st_mtime, stat.st_size, entry.path))
    total = sum(size for _, size, _ in found)
    for _, size, name in sorted(found):
        if total <= KEPT_BYTES:
            break
        if name != str(kept):
            with contextlib.suppress(FileNotFoundError):
                os.remove(name)
            total -= size


def _used(path: Path) -> None:
    """A kept solve just read counts as lately used (:func:`_drop_least_used`); one that came with
    py421 is left as it is."""
    if path.parent != SHIPPED:
        with contextlib.suppress(OSError):  # a read-only data folder
            os.utime(path)


def cache_path(rules: Ruleset, folder: Path) -> Path:
    key = json.dumps({"format": FORMAT, "options": rules.options()}, sort_keys=True)
    return folder / f"heads-up-{hashlib.sha256(key.encode()).hexdigest()[:20]}.npz"


def solve_cached(
    rules: Ruleset,
    progress: Callable[[str, int], None] | None = None,
    folder: Path | None = None,
) -> tuple[HeadsUp, bool]:
    """The solved two-player values of ``rules``, and whether they came from the cache (or came
    with py421)."""
    path = located(cache_path(rules, read_folder(folder)))
    solver = HeadsUp(rules)
    with contextlib.suppress(FileNotFoundError):  # not kept, or dropped as it was about to be read
        with np.load(path) as data:
            solver.decharge = data["decharge"]
            solver.charge = {int(k[7:]): data[k] for k in data.files if k.startswith("charge_")}
            solver.iterations = int(data["iterations"])
        _used(path)
        return solver, True
    solver.solve(progress)
    arrays: dict[str, Any] = {f"charge_{pot}": values for pot, values in solver.charge.items()}
    arrays |= {"decharge": solver.decharge, "iterations": np.array(solver.iterations)}
    keep = keep_folder(folder)
    if keep is not None:
        _save(cache_path(rules, keep), arrays)
    return solver, False


_HEADS_UP: dict[Ruleset, HeadsUp] = {}


def solved(rules: Ruleset, progress: game_maxn.Progress | None = None) -> HeadsUp:
    """The solved two-player manche of ``rules``: from memory, the disk cache, or solved once and kept
    there (``progress`` is told ``("decharge", pass, 0)`` then ``("charge", pot level, full pot)``)."""
    found = _HEADS_UP.get(rules)
    if found is None:

        def told(stage: str, step: int) -> None:
            if progress is not None:
                progress(stage, step, rules.pot if stage == "charge" else 0)

        found = _HEADS_UP[rules] = solve_cached(rules, told)[0]
    return found


GAME_FORMAT = 1  # bump when the two-player game's results change meaning


def game_cache_path(rules: Ruleset, folder: Path) -> Path:
    key = json.dumps({"format": GAME_FORMAT, "options": rules.options()}, sort_keys=True)
    return folder / f"heads-up-game-{hashlib.sha256(key.encode()).hexdigest()[:20]}.npz"


def solve_game_cached(
    rules: Ruleset,
    progress: game_maxn.Progress | None = None,
    folder: Path | None = None,
) -> tuple[HeadsUpGame, bool]:
    """The two-player game of ``rules`` where manches carry over, and whether it came from the cache.

    The manche played for itself (its décharge is every manche's) is kept as
    :func:`solve_cached` keeps it, shared with the rules without the options
    that carry over; each manche's charge solved against the game is kept
    beside it."""
    where = read_folder(folder)
    path = located(game_cache_path(rules, where))
    game = HeadsUpGame(rules)
    if heads_up_game_kept(rules, folder):
        with contextlib.suppress(FileNotFoundError):  # dropped as it was about to be read: solved again
            return _load_game(game, path, folder), True
    cached_plain = located(cache_path(manche_rules(rules), where)).exists()

    def plain(stage: str, step: int) -> None:
        if progress is not None:
            progress(stage, step, rules.pot if stage == "charge" else 0)

    if progress is not None and not cached_plain:
        progress("manche", game.most_manches(), game.most_manches())
    game.plain = solve_cached(manche_rules(rules), plain, folder)[0]
    if path.exists():
        with contextlib.suppress(FileNotFoundError):
            return _load_game(game, path, folder), cached_plain
    game.solve(progress)
    arrays: dict[str, Any] = {}
    for (a, b), solver in game.manches.items():
        arrays |= {f"charge_{a}_{b}_{pot}": values for pot, values in solver.charge.items()}
        arrays |= {f"shared_{a}_{b}_{pot}": values for pot, values in solver.shared.items()}
    keep = keep_folder(folder)
    if keep is not None:
        _save(game_cache_path(rules, keep), arrays)
    return game, False


def _load_game(game: HeadsUpGame, path: Path, folder: Path | None) -> HeadsUpGame:
    """The manche played for itself, and each manche's charge solved against the game, from the disk."""
    if not game.plain.charge:
        game.plain = solve_cached(manche_rules(game.rules), None, folder)[0]  # read, not solved
    _used(path)
    with np.load(path) as data:
        for name in data.files:
            kind, a, b, pot = name.split("_")
            lost = (int(a), int(b))
            if lost not in game.manches:
                game.manches[lost] = game.context_solver(lost)
            getattr(game.manches[lost], kind)[int(pot)] = data[name]
    return game


def heads_up_game_known(rules: Ruleset) -> bool:
    """Whether the two-player game where manches carry over is in memory or on the disk (nothing is read)."""
    return rules in _HEADS_UP_GAMES or heads_up_game_kept(rules)


def heads_up_game_kept(rules: Ruleset, folder: Path | None = None) -> bool:
    """Whether the two-player game where manches carry over is on the disk, solved here or come with
    py421: its own file and its manche played for itself, both (nothing is read)."""
    where = read_folder(folder)
    return (
        located(game_cache_path(rules, where)).exists()
        and located(cache_path(manche_rules(rules), where)).exists()
    )


_HEADS_UP_GAMES: dict[Ruleset, HeadsUpGame] = {}


def solved_heads_up_game(rules: Ruleset, progress: game_maxn.Progress | None = None) -> HeadsUpGame:
    """The two-player game where manches carry over: from the disk cache, or solved once and kept there
    (the solve's ``progress`` is only shown when it is not cached)."""
    found = _HEADS_UP_GAMES.get(rules)
    if found is None:
        found = _HEADS_UP_GAMES[rules] = solve_game_cached(rules, progress)[0]
    return found


def manche_solution(
    rules: Ruleset, lost: Lost = (0, 0), progress: game_maxn.Progress | None = None
) -> HeadsUp | GameManche:
    """What two players play in the manche after ``lost`` manches lost by seat 0 and seat 1: the
    manche played for itself, or where manches carry over, played for the game (solved where it is
    not on the disk, told to ``progress``)."""
    if carries_over(rules):
        return solved_heads_up_game(rules, progress).manche(lost)
    return solved(rules, progress)


_GAMES: dict[tuple[Ruleset, int], GameMaxn] = {}


def solved_game(
    rules: Ruleset, players: int, progress: game_maxn.Progress | None = None, game: GameMaxn | None = None
) -> GameMaxn:
    """The whole game of three to five players solved by max^n: from the disk cache, or solved once
    and kept there (the solve's ``progress`` is only shown when it is not cached). ``game``: its
    positions, already made (unsolved), to load or solve."""
    found = _GAMES.get((rules, players))
    if found is None:
        found = _GAMES[(rules, players)] = solve_maxn_cached(rules, players, progress, game=game)[0]
    return found


def game_known(rules: Ruleset, players: int) -> bool:
    """Whether the whole game of three to five players is in memory or on the disk (nothing is read)."""
    if (rules, players) in _GAMES:
        return True
    return located(maxn_cache_path(rules, players, read_folder())).exists()


def forget() -> None:
    """Forget every solution held in memory: the next one asked for is read from the disk (as by a
    new command)."""
    _HEADS_UP.clear()
    _HEADS_UP_GAMES.clear()
    _GAMES.clear()


# -- the whole game of three to five, by max^n (its file) -------------------------------------


def maxn_cache_path(rules: Ruleset, players: int, folder: Path) -> Path:
    key = json.dumps(
        {"format": game_maxn.FORMAT, "players": players, "options": rules.options()}, sort_keys=True
    )
    return folder / f"game-maxn-{players}-{hashlib.sha256(key.encode()).hexdigest()[:20]}.npz"


def solve_maxn_cached(
    rules: Ruleset,
    players: int,
    progress: game_maxn.Progress | None = None,
    folder: Path | None = None,
    game: GameMaxn | None = None,
) -> tuple[GameMaxn, bool]:
    """The solved game of ``rules`` for ``players``, and whether it came from the disk cache.

    Processes that ask for the same game together solve it once: the others
    wait for the first one's results. ``game``: its positions, already made (unsolved).
    """
    read = folder or data_dir(write=False) / "solver"  # reading needs no writing
    kept = located(maxn_cache_path(rules, players, read))
    if game is None:
        game_maxn.check(rules, players)  # a game refused, or missing an extra, says only that
        if progress and not kept.exists():
            progress("positions", game_maxn.decharge_size(rules, players), 0)  # minutes for the largest
        game = GameMaxn(rules, players)
    if _load_maxn(game, kept):
        return game, True
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    keep = folder or kept_folder("solver")
    if keep is None:  # a read-only data folder: solved for this process, not kept
        game.solve(progress)
        return game, False
    path = maxn_cache_path(rules, players, keep)
    with _locked(path):
        if _load_maxn(game, path):
            return game, True
        # each manche is kept as it is solved, so that a solve stopped part way (an hour a manche
        # at four players) goes on from there the next time
        partial = _partial_path(path)
        _load_partial(game, partial)
        game.solve(progress, kept=_keeping(partial))
        _save_maxn(game, path)
        partial.unlink(missing_ok=True)
    return game, False


def _partial_path(path: Path) -> Path:
    return path.with_suffix(".partial.npz")


def _keeping(partial: Path) -> Callable[[GameMaxn], None]:
    """What keeps a solve's manches in ``partial`` as they are solved, and the manche under way at most
    every :data:`UNDERWAY_EVERY` seconds (:meth:`.game_maxn.GameMaxn.solve`)."""
    last = time.monotonic()

    def kept(game: GameMaxn) -> None:
        nonlocal last
        if game.underway is not None and time.monotonic() - last < UNDERWAY_EVERY:
            return
        _save_maxn(game, partial, policies=True)
        last = time.monotonic()

    return kept


def _load_partial(game: GameMaxn, path: Path) -> None:
    """The manches a solve stopped part way kept (:func:`solve_maxn_cached`), in ``game``; none if
    the file is missing, unreadable, or not of this game's manches (then solved again)."""
    try:
        _load_maxn(game, path)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        game.manches.clear()
    contexts = set(game_maxn.manche_contexts(game.rules, game.players))
    if not game.manches.keys() <= contexts:
        game.manches.clear()
        game.underway = None
    if game.bounding is not None and not game.manches.keys() >= contexts:  # a bound needs every manche
        game.bounding = None
    if game.underway is not None and game.underway[0] in game.manches:  # kept whole since
        game.underway = None
    if not game.manches and game.underway is None:
        game.seconds = 0.0


def load_maxn_cached(rules: Ruleset, players: int, folder: Path | None = None) -> GameMaxn | None:
    """The solved game from the disk cache, or None if it is not there (nothing is solved, and the
    game's model is not even built: a server asks at every move)."""
    path = located(maxn_cache_path(rules, players, folder or data_dir(write=False) / "solver"))
    if not path.exists():
        return None
    game = GameMaxn(rules, players)
    return game if _load_maxn(game, path) else None


def _load_maxn(game: GameMaxn, path: Path) -> bool:
    if not path.exists():
        return False
    with np.load(path) as data:
        for i, key in enumerate(data["keys"]):
            owing = data.get(f"owing_{i}")  # « queue de la vache »: the ends that leave debts
            solution = game_maxn.MancheSolution(data[f"values_{i}"], data[f"ends_{i}"], owing)
            _set_checks(solution, data["sweeps"][i], data["checks"][i])
            solution.unsettled = _read_unsettled(data, i)
            solution.policies = _read_policies(data, i)
            game.manches[_manche_key(key)] = solution
        game.seconds = float(data["seconds"])
        game.underway = _read_underway(game, data)
        game.bounding = _read_bounding(game, data)
        if "deviation" in data:
            played, best, anywhere = data["deviation"]
            game.deviation = Deviation(played, best, anywhere, bool(data.get("deviation_bounded", False)))
    return True


def _manche_key(row: npt.NDArray[Any]) -> game_maxn.MancheKey:
    return int(row[0]), tuple(int(x) for x in row[1:])


def _read_underway(game: GameMaxn, data: Any) -> tuple[game_maxn.MancheKey, game_maxn.Underway] | None:
    """The manche a solve stopped inside (:attr:`.game_maxn.GameMaxn.underway`), None if there is
    none or it is not of this game's positions."""
    if "underway_key" not in data:
        return None
    try:
        return _underway(game, data)
    except (KeyError, ValueError, IndexError):  # not as this version keeps it: that manche solved again
        return None


def _underway(game: GameMaxn, data: Any) -> tuple[game_maxn.MancheKey, game_maxn.Underway] | None:
    key = _manche_key(data["underway_key"])
    if key not in set(game_maxn.manche_contexts(game.rules, game.players)):
        return None
    model = game.model_of(key)
    values, levels = data["underway_values"], int(data["underway_levels"])
    kinds = len(model.end_keys)
    found = data["underway_found"] if levels >= 0 else None
    if values.shape != (model.nodes, game.players) or (
        found is not None and found.shape != (len(model.positions) + kinds, kinds)
    ):
        return None
    solution = game_maxn.MancheSolution(values, np.zeros(0))
    _set_checks(solution, data["underway_sweeps"], data["underway_checks"])
    solution.unsettled = _read_unsettled(data, "underway")
    solution.policies = _read_policies(data, "underway")
    changes = [float(x) for x in data["underway_changes"]]
    debts = int(data["underway_debts"]) if "underway_debts" in data else -1
    return key, game_maxn.Underway(levels, solution, found, changes, debts)


def _read_bounding(game: GameMaxn, data: Any) -> game_maxn.Bounding | None:
    """The bound on deviating a solve stopped inside (:attr:`.game_maxn.GameMaxn.bounding`), None if
    there is none, or its rows are not those of the group it was measuring (then measured again)."""
    if "bounding_found" not in data:
        return None
    try:
        found, passes = [float(x) for x in data["bounding_found"]], int(data["bounding_passes"])
        played = float(data["bounding_played"]) if "bounding_played" in data else None
    except (KeyError, ValueError, TypeError):  # not as this version keeps it: measured again
        return None
    state = game_maxn.Bounding(found, played, passes)
    groups = [rows for solution in game.manches.values() for rows in solution.unsettled]
    values = data.get("bounding_values")
    if len(state.found) >= len(groups):
        return None
    if values is not None:
        if values.shape != (len(groups[len(state.found)]), game.players):
            state.played, state.passes = None, 0
        else:
            state.values = values
    return state


def _bounding_arrays(game: GameMaxn) -> dict[str, Any]:
    state = game.bounding
    if state is None:
        return {}
    arrays = {
        "bounding_found": np.array(state.found, dtype=np.float64),
        "bounding_passes": np.array(state.passes),
    }
    if state.played is not None:
        arrays["bounding_played"] = np.array(state.played)
    if state.values is not None:
        arrays["bounding_values"] = state.values
    return arrays


def _underway_arrays(game: GameMaxn) -> dict[str, Any]:
    if game.underway is None:
        return {}
    key, part = game.underway
    solution = part.solution
    arrays: dict[str, Any] = {
        "underway_key": np.array([key[0], *key[1]], dtype=np.intp),
        "underway_levels": np.array(part.levels),
        "underway_values": solution.values,
        "underway_sweeps": np.array(solution.sweeps),
        "underway_checks": np.array(_checks(solution)),
        "underway_changes": np.array(part.changes, dtype=np.float64),
        "underway_debts": np.array(part.debts),
    }
    if part.found is not None:
        arrays["underway_found"] = part.found
    arrays |= _unsettled_arrays("underway", solution.unsettled)
    # among the décharges after a debt, theirs are kept too: the next starts from them
    debts = part.debts >= 0
    return arrays | _policies_arrays("underway", game.model_of(key), solution.policies, debts)


def _checks(solution: game_maxn.MancheSolution) -> list[float]:
    """How a manche's solve ended (:func:`_set_checks` reads them back)."""
    return [solution.change, solution.linear_gap, solution.residual, solution.converged]


def _set_checks(solution: game_maxn.MancheSolution, sweeps: Any, checks: Any) -> None:
    change, gap, residual, converged = (float(x) for x in checks)
    solution.sweeps, solution.change, solution.linear_gap = int(sweeps), change, gap
    solution.residual, solution.converged = residual, bool(converged)


def _unsettled_arrays(i: int | str, groups: list[list[int]]) -> dict[str, Any]:
    """The décharges (or looping charge levels) that did not settle, as arrays (none if none):
    deviating is bounded there."""
    if not groups:
        return {}
    return {
        f"unsettled_{i}": np.array([row for rows in groups for row in rows], dtype=np.intp),
        f"unsettled_sizes_{i}": np.array([len(rows) for rows in groups], dtype=np.intp),
    }


def _read_unsettled(data: Any, i: int | str) -> list[list[int]]:
    if f"unsettled_{i}" not in data:
        return []
    return [part.tolist() for part in _parts(data[f"unsettled_{i}"], data[f"unsettled_sizes_{i}"])]


def store_maxn(game: GameMaxn, folder: Path | None = None) -> Path:
    """Keep a game solved elsewhere (a benchmark's timed solve) in the disk cache."""
    where = folder or data_dir() / "solver"
    where.mkdir(parents=True, exist_ok=True)
    path = maxn_cache_path(game.rules, game.players, where)
    with _locked(path):
        _save_maxn(game, path)
    return path


def _save_maxn(game: GameMaxn, path: Path, policies: bool = False) -> None:
    """``policies``: with each décharge's final policies (a solve stopped part way starts the next
    manche's décharge from them: :meth:`.game_maxn.GameMaxn.solve`), and the manche under way."""
    keys = list(game.manches)
    arrays: dict[str, Any] = {
        "keys": np.array([[m, *losses] for m, losses in keys], dtype=np.intp),
        "sweeps": np.array([game.manches[k].sweeps for k in keys]),
        "checks": np.array([_checks(game.manches[k]) for k in keys]),
        "seconds": np.array(game.seconds),
    }
    if game.deviation is not None:
        found = game.deviation
        arrays["deviation"] = np.stack([found.played, found.best, found.anywhere])
        arrays["deviation_bounded"] = np.array(found.bounded)
    for i, k in enumerate(keys):
        arrays[f"values_{i}"] = game.manches[k].values
        arrays[f"ends_{i}"] = game.manches[k].ends
        if game.manches[k].owing is not None:
            arrays[f"owing_{i}"] = game.manches[k].owing
        if policies:
            arrays |= _policies_arrays(i, game.model_of(k), game.manches[k].policies)
        arrays |= _unsettled_arrays(i, game.manches[k].unsettled)
    if policies:
        arrays |= _underway_arrays(game) | _bounding_arrays(game)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")  # runs started together do not collide
    np.savez(tmp, **arrays)
    tmp.replace(path)


def _policies_arrays(
    i: int | str, model: game_maxn.Manche, policies: dict[int, game_maxn.Moves], debts: bool = False
) -> dict[str, Any]:
    """The policies of the décharge owing nothing (all that starts another manche's), and with
    ``debts`` those of the décharges after a debt, as arrays."""
    rows = [
        p
        for p, pos in enumerate(model.positions)
        if not pos.charge and (debts or not pos.debts) and p in policies
    ]
    if not rows:
        return {}
    moves = [policies[p] for p in rows]
    return {
        f"policy_rows_{i}": np.array(rows, dtype=np.intp),
        f"policy_sizes_{i}": np.array([len(nodes) for nodes, _ in moves], dtype=np.intp),
        f"policy_nodes_{i}": np.concatenate([nodes for nodes, _ in moves]).astype(np.intp),
        f"policy_chances_{i}": np.concatenate([chances for _, chances in moves]),
    }


def _read_policies(data: Any, i: int | str) -> dict[int, game_maxn.Moves]:
    if f"policy_rows_{i}" not in data:
        return {}
    sizes = data[f"policy_sizes_{i}"]
    nodes, chances = _parts(data[f"policy_nodes_{i}"], sizes), _parts(data[f"policy_chances_{i}"], sizes)
    return dict(zip(data[f"policy_rows_{i}"].tolist(), zip(nodes, chances, strict=True), strict=True))


def _parts(flat: npt.NDArray[Any], sizes: npt.NDArray[np.intp]) -> list[npt.NDArray[Any]]:
    """``flat`` cut into consecutive parts of ``sizes`` (how lists of lists are kept in a file)."""
    return np.split(flat, np.cumsum(sizes)[:-1])


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold a lock beside ``path`` (where the system has them: elsewhere, no wait)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(path.with_suffix(".lock"), "w", encoding="ascii") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
