"""The wording of every error lives in the catalogs: no raise in py421 writes an English sentence."""

from __future__ import annotations

import ast
from pathlib import Path

import py421

# Raised for whoever changes py421, never for a player: their words stay where they are raised.
FOR_DEVELOPERS = {
    "AssertionError": "a broken invariant of the code",
    "AttributeError": "Python's own protocol for a module's missing name",
    "fail": "the differential replay's disagreement between the engine and the kernel",
}


def _sentences(node: ast.AST) -> list[str]:
    """The texts of several words an expression writes out as it is: literals and f-strings."""
    found = []
    inside = {id(v) for part in ast.walk(node) if isinstance(part, ast.JoinedStr) for v in part.values}
    for part in ast.walk(node):
        if isinstance(part, ast.JoinedStr):
            text = "".join(str(v.value) for v in part.values if isinstance(v, ast.Constant))
            if " " in text.strip():
                found.append(ast.unparse(part))
        elif isinstance(part, ast.Constant) and isinstance(part.value, str) and id(part) not in inside:
            found += [part.value] if " " in part.value.strip() else []
    return found


def inline_sentences(root: Path) -> list[str]:
    """Every raise under ``root`` whose error is made with a sentence written in the code."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
                continue
            name = ast.unparse(node.exc.func).rsplit(".", 1)[-1]
            if name in FOR_DEVELOPERS:
                continue
            arguments = [*node.exc.args, *(k.value for k in node.exc.keywords)]
            for text in (t for a in arguments for t in _sentences(a)):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {text[:70]}")
    return found


def test_no_error_is_worded_where_it_is_raised():
    """An error carries a catalog key and fields (``Message``): a French player reads it in French,
    and the English is written once."""
    assert inline_sentences(Path(py421.__file__).parent) == []


def test_an_inline_sentence_is_found(tmp_path):
    (tmp_path / "bad.py").write_text(
        "from py421.core.errors import InvalidPlayers, Message\n"
        "def f(n):\n"
        "    if n:\n"
        '        raise InvalidPlayers(f"{n} players is too many")\n'
        '    raise InvalidPlayers(Message("players.count", {"n": n}))\n'
        '    raise AssertionError("never here")\n'
    )
    assert inline_sentences(tmp_path) == ["bad.py:4: f'{n} players is too many'"]
