"""The simulator's kernel compiled once per machine, in a process of its own that a Ctrl-C does not stop.

numba keeps a compiled function in its cache only once the whole function is
compiled, and the kernel takes a minute or two (whole games inlined into one
function). Compiled in the command's own process, a first ``421 simulate`` or
``421 report`` stopped meanwhile kept nothing, and the next run started over.
So the compiling runs in a process of its own, in a session of its own: a
Ctrl-C stops the command, not the compiling, which goes on and keeps the
kernel in numba's cache. A run that finds it compiling waits for it (a lock)
rather than compiling it a second time; a run that finds it cached loads it
in its own process, as before.

    python -m py421.sim.fast.compiling     compile the kernel into numba's cache (what runs apart)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from ...core.rules import Ruleset
from . import kernel as k
from . import shipped_kernel
from .counter_dice import batch_key
from .lineup import Lineup

POLL = 0.25  # seconds between two looks at the process compiling (each tells the waiting command)


def _sample() -> Lineup:
    """Heuristic bots at classic-11: the kernel is one compiled function whatever the ruleset and the
    bots (they are data), so one game of theirs compiles all of it."""
    return Lineup(Ruleset.preset("classic-11"), ("heuristic", "heuristic"))


def _counts() -> npt.NDArray[np.int64]:
    return np.zeros(k.C_SIZE, dtype=np.int64)


def kernel_cached() -> bool | None:
    """Whether numba's cache holds the compiled kernel (None: numba does not say, as in a version
    whose cache reads differently: then the command compiles it in its own process, as it used to)."""
    lineup = _sample()
    # the arguments of Lineup.play's batches, whose types name the compiled function
    args = (batch_key(0, 0), 0, 1, lineup.rules_array, lineup.tab, lineup.kinds, *lineup.tables, _counts())
    dispatcher: Any = k.play_batch  # numba's internals, untyped
    typeof: Any = numba.typeof
    try:
        if dispatcher.overloads:  # compiled or loaded in this process already
            return True
        signature = tuple(typeof(a) for a in args)
        found = dispatcher._cache.load_overload(signature, dispatcher.targetctx)
    except Exception:  # numba's cache is read through its internals: after a change there, no answer
        return None
    if found is None:
        return False
    try:  # kept as numba's own Dispatcher.compile keeps what it loads: not read a second time
        dispatcher.targetctx.insert_user_function(found.entry_point, found.fndesc, [found.library])
        dispatcher.add_overload(found)
    except Exception:  # then the first batch reads it again, as it used to
        pass
    return True


def compile_apart(
    waiting: Callable[[float], None] | None = None,
    *,
    cached: Callable[[], bool | None] = kernel_cached,
    shipped: Callable[[], bool] = shipped_kernel.install,
    command: Sequence[str] = (sys.executable, "-m", __name__),
) -> None:
    """Have the kernel compiled by ``command`` in a process of its own if ``cached()`` says numba's
    cache lacks it and ``shipped()`` cannot put there the kernel py421 ships (:mod:`.shipped_kernel`),
    and wait for that process.

    ``waiting(seconds)`` is told how long it has waited, about four times a second. A Ctrl-C here
    stops the wait (``KeyboardInterrupt``), not the compiling. If the compiling fails, the kernel is
    left to the caller's process, which compiles it and says why it fails.
    """
    if cached() is not False:
        return
    if shipped() and cached() is not False:  # the kernel py421 ships, made from the same source
        return
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # the terminal's Ctrl-C goes to the command's group, not to this one
    )
    began = time.perf_counter()
    while process.poll() is None:
        if waiting:
            waiting(time.perf_counter() - began)
        time.sleep(POLL)


def lock_path() -> Path:
    """The lock that one compiling holds, per user: another waits for it rather than compiling too."""
    return Path(tempfile.gettempdir()) / f"py421-compiling-{os.getuid() if hasattr(os, 'getuid') else 0}.lock"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock, at worst two compile at once
        yield
        return
    with open(path, "w", encoding="ascii") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def main() -> None:
    """Compile the kernel into numba's cache (or find it there, compiled by the process this one
    waited for), playing one game of the sample lineup."""
    with _locked(lock_path()):
        _sample().play(batch_key(0, 0), 0, 1, _counts())


if __name__ == "__main__":
    main()
