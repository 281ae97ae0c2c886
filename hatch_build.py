"""Puts Pyodide's runtime in the wheel: the page plays without a server with it.

The version is web/package-lock.json's, checked against the lock's sha512. The
files come from web/node_modules/pyodide when ``npm ci`` put them there, else
from the npm registry; either way into src/py421/page/runtime (not in git).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import tarfile
import urllib.request
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
)
RUNTIME = Path("src/py421/page/runtime")


def locked(root: Path) -> tuple[str, str]:
    """Pyodide's version and sha512 integrity in web/package-lock.json."""
    lock = json.loads((root / "web/package-lock.json").read_text())
    entry = lock["packages"]["node_modules/pyodide"]
    return entry["version"], entry["integrity"]


def _version(folder: Path) -> str | None:
    try:
        return str(json.loads((folder / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def fetch_runtime(root: Path) -> Path:
    """The runtime's folder, filled with the locked version's files if it is not already."""
    version, integrity = locked(root)
    target = root / RUNTIME
    if _version(target) == version and all((target / f).is_file() for f in FILES):
        return target
    installed = root / "web/node_modules/pyodide"
    target.mkdir(parents=True, exist_ok=True)
    if _version(installed) == version and all((installed / f).is_file() for f in FILES):
        for name in FILES:
            shutil.copyfile(installed / name, target / name)
        return target
    registry = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/").rstrip("/")
    url = f"{registry}/pyodide/-/pyodide-{version}.tgz"
    with urllib.request.urlopen(url, timeout=120) as answer:
        packed = answer.read()
    algorithm, _, digest = integrity.partition("-")
    if base64.b64encode(hashlib.new(algorithm, packed).digest()).decode() != digest:
        raise RuntimeError(f"{url} does not match web/package-lock.json's {algorithm}")
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
        for name in FILES:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise RuntimeError(f"{url} has no {name}")
            (target / name).write_bytes(member.read())
    return target


class PyodideRuntime(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        fetch_runtime(Path(self.root))
        build_data["artifacts"].append(f"/{RUNTIME.as_posix()}/")
