"""Imports go one way: each part of py421 imports only itself and the parts below it.

From the bottom: the pure ``core``; small helpers that need nothing else of
py421; the solvers, the bots and the simulator, each built on the ones
before; the history and the play loop every interface drives; the interfaces
on top, and the ``421`` command above them all. Lazy imports inside functions
count as much as those at the top of a module.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import py421

# Lowest first. A module may import its own part and any part listed before it.
LAYERS: list[tuple[str, ...]] = [
    ("core",),
    ("paths", "extras", "i18n"),
    ("solver",),
    ("players",),
    ("sim",),
    ("text", "history", "analysis"),
    ("play",),
    ("page",),  # the play loop in the browser, which the server serves
    ("report", "envs", "tui", "server"),
    ("cli",),
    ("__main__", "__init__"),
]


def _part(module: str) -> str:
    """The part of py421 a module belongs to: its first name under the package."""
    return module.split(".")[0] if module else "__init__"


def _imported(path: Path, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every module of the package that ``module`` (at ``path``) imports, relative to the package."""
    here = module.split(".") if module else []
    package = here if is_package else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
                names = [target] if node.module else [f"{target}.{a.name}".strip(".") for a in node.names]
                found += [(node.lineno, n) for n in names]
            elif node.module and (node.module == "py421" or node.module.startswith("py421.")):
                found.append((node.lineno, node.module.removeprefix("py421").lstrip(".")))
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name.removeprefix("py421").lstrip("."))
                for a in node.names
                if a.name == "py421" or a.name.startswith("py421.")
            ]
    return found


def layer_violations(root: Path, layers: list[tuple[str, ...]]) -> list[str]:
    """Each import, under package folder ``root``, of a part above or beside the importer's part."""
    rank = {part: i for i, group in enumerate(layers) for part in group}
    problems = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).with_suffix("")
        is_package = relative.name == "__init__"
        module = ".".join(relative.parts[:-1] if is_package else relative.parts)
        own = _part(module)
        if own not in rank:
            problems.append(f"{path.relative_to(root)}: its part {own!r} is in no layer")
            continue
        for line, target in _imported(path, module, is_package):
            other = _part(target)
            if other == own:
                continue
            if other not in rank or rank[other] >= rank[own]:
                problems.append(f"{path.relative_to(root)}:{line} imports {target or 'py421'} ({other})")
    return problems


def test_py421_imports_go_one_way():
    root = Path(py421.__file__).parent
    assert layer_violations(root, LAYERS) == []


def test_every_part_of_py421_has_a_layer():
    root = Path(py421.__file__).parent
    parts = {p.stem if p.is_file() else p.name for p in root.iterdir() if p.suffix == ".py" or p.is_dir()}
    parts -= {"__pycache__", "static"}
    listed = {part for group in LAYERS for part in group}
    assert parts <= listed, parts - listed


@pytest.mark.parametrize(
    ("where", "line", "expected"),
    [
        (
            "core/state.py",
            "from ..solver.turn import options",
            "core/state.py:1 imports solver.turn (solver)",
        ),
        ("core/state.py", "from py421.cli import main", "core/state.py:1 imports cli (cli)"),
        ("solver/turn.py", "from ..players import make_bot", "solver/turn.py:1 imports players (players)"),
        (
            "players/bot.py",
            "def f():\n    from ..play import session",
            "players/bot.py:2 imports play (play)",
        ),
        ("sim/run.py", "import py421.tui.game_app", "sim/run.py:1 imports tui.game_app (tui)"),
        ("paths.py", "from . import i18n", "paths.py:1 imports i18n (i18n)"),
        ("tui/game_app.py", "from ..server import app", "tui/game_app.py:1 imports server (server)"),
    ],
)
def test_a_wrong_import_is_found(tmp_path, where, line, expected):
    """A tree whose one module imports upward (or sideways) gives exactly that import."""
    for name in ("core/__init__.py", "solver/turn.py", "players/__init__.py", "play/session.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("from __future__ import annotations\n", encoding="utf-8")
    (tmp_path / "cli").mkdir(exist_ok=True)
    (tmp_path / "cli" / "__init__.py").write_text("from ..core import rules\nfrom ..play import session\n")
    assert layer_violations(tmp_path, LAYERS) == []
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(line + "\n", encoding="utf-8")
    assert layer_violations(tmp_path, LAYERS) == [expected]


def test_no_two_modules_share_a_name():
    """A module's name says its role: two ``tables.py`` (or ``optimal.py``…) in different parts make a
    reader open the wrong one."""
    root = Path(py421.__file__).parent
    modules = [p for p in root.rglob("*.py") if p.name != "__init__.py" and "migrations" not in p.parts]
    names = Counter(p.name for p in modules)
    assert sorted(name for name, n in names.items() if n > 1) == []
