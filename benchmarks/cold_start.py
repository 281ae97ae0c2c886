"""A new user's first runs: each command timed from its start in a fresh venv with an empty data folder.

Installs py421 with the ``report`` extra (numba and matplotlib: ``421 simulate`` and ``421 report``
work) into a new venv in a temporary folder, points ``PY421_HOME`` and ``NUMBA_CACHE_DIR`` at empty
folders, then runs each command twice, its first run then again, and prints both wall times as a
table. The quick commands (``--help``, ``rules show``, ``compare``, ``odds``, ``advise``) also run
``--repeat`` times more: the median of those is their warm figure.

    .venv/bin/python benchmarks/cold_start.py [--repeat 9] [--long]

``--long`` adds the four-player ``classic-11`` game solved whole (minutes). pip may take the
packages from its own cache: the venv is new, not the download.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

QUICK = [
    ["--help"],
    ["rules", "show", "classic-11"],
    ["compare", "421", "654"],
    ["odds", "653"],
    ["advise", "642", "--throws-left", "2", "--target", "653"],
]


def slow(scratch: Path, long: bool) -> list[list[str]]:
    found = [
        ["solve", "--rules", "vache-41"],
        ["solve", "--rules", "classic-11", "--players", "3"],
        # the first hint of a three-player game: the whole game's advice
        ["advise", "642", "--throws-left", "2", "--objective", "game", "--players", "3"],
        ["simulate"],
        ["report", "--out", str(scratch / "report")],
    ]
    if long:
        found.append(["solve", "--rules", "classic-11", "--players", "4"])
    return found


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="warm runs of each quick command")
    parser.add_argument("--long", action="store_true", help="also solve four-player classic-11 whole")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        venv = scratch / "venv"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, f"{ROOT}[report]"], check=True, capture_output=True)
        installed = time.perf_counter() - start
        (scratch / "home").mkdir()
        env = {
            **os.environ,
            "PY421_HOME": str(scratch / "home"),
            "NUMBA_CACHE_DIR": str(scratch / "numba"),
            "COLUMNS": "100",
        }
        env.pop("PY421_LANG", None)
        exe = str(venv / "bin" / "421")
        rows = []
        for command in QUICK:
            first = timed([exe, *command], env)
            again = statistics.median(timed([exe, *command], env) for _ in range(args.repeat))
            rows.append((command, first, again, f"median of {args.repeat}"))
        for command in slow(scratch, args.long):
            first = timed([exe, *command], env)
            rows.append((command, first, timed([exe, *command], env), "once"))
    print(f"a fresh venv with py421[report] installed: {installed:.1f} s")
    print()
    print("| command | first run | again |")
    print("|---|---|---|")
    for command, first, again, how in rows:
        shown = " ".join(c if not c.startswith("/") else "DIR" for c in command)
        print(f"| `421 {shown}` | {first:.2f} s | {again:.2f} s ({how}) |")


if __name__ == "__main__":
    main()
