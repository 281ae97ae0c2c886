import os

import pytest
from hypothesis import HealthCheck, settings

# Whole games vary in length: no per-example deadline. CI runs are derandomized so a
# failure there reproduces locally with the same profile.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """Saves and history go to a fresh folder for every test, never the user's."""
    home = tmp_path_factory.mktemp("py421-home")
    monkeypatch.setenv("PY421_HOME", str(home))
    return home


@pytest.fixture
def unshipped(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No solution comes with py421 here: the presets are solved, as any other rules are (for the
    tests of solving itself: its progress, its cost, its cache)."""
    from py421.solver import shipped

    monkeypatch.setattr(shipped, "SHIPPED", tmp_path_factory.mktemp("unshipped"))
