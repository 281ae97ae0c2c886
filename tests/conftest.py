import os

# The suite's workers fill the cores together: each solves its turns in one thread rather than
# handing parts to threads that would wait for a core (PY421_THREADS; a tenth less CPU for the
# solver's tests), and so do torch's and numpy's own threads (OpenMP, OpenBLAS), which spin while
# they wait: a tiny PPO run took twice the CPU with two threads beside two busy processes. Set
# before numpy or torch is first imported, which read them then; the processes the tests start
# inherit them.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for variable in ("PY421_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from py421.core.errors import Message
from py421.i18n import CATALOGS

# Whole games vary in length: no per-example deadline. CI runs are derandomized so a
# failure there reproduces locally with the same profile.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(scope="session")
def shared_solutions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where games solved once are kept for every test, across pytest-xdist's workers."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "game-maxn"


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """Saves and history go to a fresh folder for every test, never the user's; and so does what
    stable-baselines3 logs of a model given no logger (by default a new folder in /tmp each time)."""
    home = tmp_path_factory.mktemp("py421-home")
    monkeypatch.setenv("PY421_HOME", str(home))
    monkeypatch.setenv("SB3_LOGDIR", str(home / "sb3-log"))
    return home


@pytest.fixture(autouse=True)
def no_policy_family():
    """The commands that seat trained policies (``bot:policy:PATH``) register them in the process they
    run in: each test starts as a server's process does, without them."""
    yield
    from py421.players.registry import unregister_family

    unregister_family("policy")


@pytest.fixture
def ctrl_c_as_at_a_terminal() -> Iterator[None]:
    """The commands a test starts, then stops with Ctrl-C, take it as at a terminal's prompt.

    A shell ignores Ctrl-C in what it runs in the background (``bash -c 'pytest &'``), every process
    started from there inherits that, and a Python started ignoring it keeps ignoring it: those
    commands would never stop. A handler of our own is reset to the default in a started command.
    """
    before = signal.getsignal(signal.SIGINT)
    if before is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before is signal.SIG_IGN:
        signal.signal(signal.SIGINT, before)


@pytest.fixture
def unshipped(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No solution comes with py421 here: the presets are solved, as any other rules are (for the
    tests of solving itself: its progress, its cost, its cache)."""
    from py421.solver import shipped, solutions

    monkeypatch.setattr(shipped, "SHIPPED", tmp_path_factory.mktemp("unshipped"))
    solutions.forget()  # nor from memory: what an earlier test solved or read
    yield
    solutions.forget()


def _worded_by_the_catalogs(message: Message) -> None:
    """Every message a test meets has its words in each catalog (the English included: core words
    nothing itself)."""
    missing = [lang for lang, catalog in CATALOGS.items() if message.key not in catalog]
    if missing:
        raise AssertionError(f"{message.key}: no catalog words it in {', '.join(missing)}")


_made = Message.__init__


def _made_and_checked(self: Message, *args: object, **kwargs: object) -> None:
    _made(self, *args, **kwargs)  # type: ignore[arg-type]
    _worded_by_the_catalogs(self)


Message.__init__ = _made_and_checked  # type: ignore[method-assign]
