"""The simulator's kernel as py421 ships it, compiled for any x86-64 CPU: a first run plays at once.

The vector environments' step kernel (:mod:`.steps`) ships with it: a first environment steps at once.

numba compiles the kernel into its cache the first time it is called, which
takes half a minute and more (``benchmarks/kernel_compile.py``). numba's cache
files may be shared between machines, and code compiled for the ``generic``
CPU (``NUMBA_CPU_NAME=generic``) runs on every CPU of its family, here as fast
as code made for the CPU itself (``benchmarks/README.md``). So
``scripts/ship_kernel.py`` compiles the kernel that way and keeps numba's
files in ``shipped/`` with a manifest of what they were made from, and
:func:`install` puts them into this machine's numba cache, but only when they
were made from exactly what runs here:

- the same numba, llvmlite and Python, on the same platform;
- the same compiled code: the :func:`fingerprint` of the source of every
  module with a compiled function in the kernel, and of every value those
  functions read from their modules (tables, constants), which numba freezes
  into the machine code.

Anything else, and nothing is installed: the kernel is compiled here, as
before. numba's index of a function keys its code by the CPU it was made for:
that key is written for this machine's CPU on the way in.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

import numpy as np

SHIPPED = Path(__file__).with_name("shipped")
MANIFEST = "manifest.json"


def entry_points() -> list[Any]:
    """The compiled functions Python calls: a batch of games, one game traced for a replay, and the
    vector environments' steps (their actions checked, random legal actions drawn)."""
    from . import kernel, steps

    return [kernel.play_batch, kernel.trace_game, steps.step, steps.check_actions, steps.pick_legal]


def environment() -> dict[str, str]:
    """What compiled code depends on besides its source: numba, llvmlite, Python and the platform."""
    import llvmlite
    import numba
    from llvmlite import binding

    return {
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "python": sys.implementation.cache_tag,
        "platform": binding.get_process_triple(),
    }


def _names(code: CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _names(const)


def fingerprint() -> str:
    """A digest of everything numba compiles the kernel from, whichever file it was read from.

    Every compiled function reachable from :func:`entry_points`: the whole source of its module
    (the functions, their line numbers, which name numba's files), and every global value it reads
    (arrays byte for byte, numbers, tuples). An intrinsic's module source counts too.
    """
    from numba.core.registry import CPUDispatcher

    digest = hashlib.sha256()
    modules: set[str] = set()
    seen: set[int] = set()

    def module(name: str) -> None:
        if name not in modules:
            modules.add(name)
            digest.update(inspect.getsource(sys.modules[name]).encode())

    def value(v: object) -> bytes:
        if isinstance(v, CPUDispatcher):
            visit(v.py_func)
            return b"compiled " + v.py_func.__qualname__.encode()
        defined = getattr(v, "_defn", None)  # a numba intrinsic: the function that writes its code
        if isinstance(defined, FunctionType):
            module(defined.__module__)
            return b"intrinsic " + defined.__qualname__.encode()
        if isinstance(v, np.ndarray):
            return f"{v.dtype.str}{v.shape}".encode() + v.tobytes()
        if isinstance(v, tuple):
            return b"(" + b",".join(value(x) for x in v) + b")"
        if isinstance(v, bool | int | float | str | bytes | np.generic) or v is None:
            return repr(v).encode()
        own = getattr(v, "__module__", None)
        if isinstance(v, type) and own in sys.modules and own.startswith("py421"):
            module(own)  # a class of py421's (an enum's members): as its source says
            return b"class " + v.__qualname__.encode()
        return type(v).__qualname__.encode()  # a module or a library's function: read by name

    def visit(f: Any) -> None:  # a Python function numba compiles
        if id(f) in seen:
            return
        seen.add(id(f))
        module(f.__module__)
        for name in sorted(set(_names(f.__code__))):
            if name in f.__globals__:
                digest.update(name.encode() + b"=" + value(f.__globals__[name]) + b";")

    for entry in entry_points():
        visit(entry.py_func)
    return digest.hexdigest()


def manifest() -> dict[str, Any] | None:
    """What ``shipped/`` says its files were made from, or None if it holds none."""
    try:
        found: dict[str, Any] = json.loads((SHIPPED / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found


def made_here() -> str | None:
    """Why the shipped kernel cannot serve this machine, or None if it can."""
    said = manifest()
    if said is None:
        return "none shipped"
    here = environment()
    if said.get("environment") != here:
        return f"made for {said.get('environment')}, this is {here}"
    if said.get("fingerprint") != fingerprint():
        return "made from another source"
    return None


def _index_for_here(data: bytes, magic: tuple[str, ...]) -> bytes:
    """numba's index of a function (its version, then its source's stamp and every overload keyed by
    signature, CPU and code) with its overloads keyed to this machine's CPU.

    The stamp stays: numba's is a digest of the source file's content, which it checks itself.
    """
    stream = io.BytesIO(data)
    version = pickle.load(stream)
    stamp, overloads = pickle.loads(stream.read())
    here = {(key[0], magic, *key[2:]): name for key, name in overloads.items()}
    return pickle.dumps(version, protocol=-1) + pickle.dumps((stamp, here), protocol=-1)


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all, as numba writes its own: a process reading meanwhile sees one or the other."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@cache
def install_missing() -> bool:
    """:func:`install`, where numba's cache lacks one of the shipped functions: once a process.

    What the vector environments call before their first step, which would otherwise compile for
    a minute. Looking costs a few file checks; only a cache missing something is fingerprinted.
    """
    said = manifest()
    if said is None:
        return False
    try:
        folder = Path(entry_points()[0]._cache._cache_path)
    except Exception:  # numba's internals not as this version of them: compiled here instead
        return False
    if all((folder / name).exists() for name in said["files"] if name.endswith(".nbi")):
        return False
    return install()


def install() -> bool:
    """Put the shipped kernel into this machine's numba cache if it was made from what runs here.

    Returns whether it did. Any failure (a cache folder that cannot be written, numba's internals
    changed) leaves the kernel to be compiled, as without a shipped one.
    """
    if made_here() is not None:
        return False
    said = manifest()
    assert said is not None  # made_here read it
    dispatcher: Any = entry_points()[0]  # numba's internals, untyped
    try:
        folder = Path(dispatcher._cache._cache_path)
        magic = tuple(dispatcher.targetctx.codegen().magic_tuple())
        folder.mkdir(parents=True, exist_ok=True)
        for name in said["files"]:
            data = (SHIPPED / name).read_bytes()
            _write(folder / name, _index_for_here(data, magic) if name.endswith(".nbi") else data)
    except Exception:  # numba's files or folders not as this version of them: compiled here instead
        return False
    return True
