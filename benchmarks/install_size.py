"""What installing py421 costs: time, disk and packages of ``pip install .`` and ``.[all]``.

Each install goes into a fresh venv with pip's cache off, so it downloads
everything from the package registry. Disk is what the install adds to an
empty venv (the venv's own pip is left out). Run from the repository:

    python3 benchmarks/install_size.py [--only base]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"base": ".", "all": ".[all]"}


def megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def measure(name: str, spec: str, work: Path) -> str:
    venv = work / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    empty = megabytes(venv)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    before = set(subprocess.run([*pip, "freeze", "--all"], capture_output=True, text=True).stdout.split())
    started = time.perf_counter()
    subprocess.run([*pip, "install", "--no-cache-dir", spec], cwd=ROOT, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    after = set(subprocess.run([*pip, "freeze", "--all"], capture_output=True, text=True).stdout.split())
    downloads = work / f"{name}-downloads"
    subprocess.run(
        [*pip, "download", "--no-cache-dir", "-d", str(downloads), spec],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return (
        f"| `pip install '{spec}'` | {seconds:.0f} s | {megabytes(venv) - empty:.0f} MB "
        f"| {len(after - before)} | {megabytes(downloads):.0f} MB |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(TARGETS), help="measure one install only")
    args = parser.parse_args()
    print("| install | time | disk added | packages | downloaded |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in TARGETS.items():
            if args.only in (None, name):
                print(measure(name, spec, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
