"""The page as files: what ``421 site`` writes and the server serves, offline modes included.

Every file is found here once, under the address the page asks it at:
``/`` (and ``/index.html``), ``/static/…``, ``/pyodide/…``, ``/py421.zip``, and the
two that make the page an app a phone installs: ``/manifest.webmanifest`` and the
service worker ``/sw.js``, which keeps every other file for offline use under a
version made of their contents (a new version is offered by the page, never forced).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from .bundle import RUNTIME, python_bundle

STATIC = Path(__file__).parent.parent / "server" / "static"
# the page's own files not served as they are under /static: types (read by the checks only), and two
# served elsewhere
NOT_SERVED = {"protocol.d.ts", "index.html", "sw.js"}  # index.html is at /, sw.js is written
APP_NAME = "421"
# The app's pages a first visit may open by their address, before the service worker is there to
# answer for them: a static host serves each as a folder's index.html (the page itself).
PAGES = ("here", "scorekeeper")


def _static() -> dict[str, bytes]:
    return {
        f"/static/{f.name}": f.read_bytes()
        for f in sorted(STATIC.iterdir())
        if f.is_file() and f.name not in NOT_SERVED
    }


def _runtime() -> dict[str, bytes]:
    if not (RUNTIME / "pyodide.asm.wasm").is_file():
        raise FileNotFoundError(
            f"Pyodide's runtime is not in {RUNTIME}: it is put there when py421 is installed (pip install .)"
        )
    return {f"/pyodide/{f.name}": f.read_bytes() for f in sorted(RUNTIME.iterdir()) if f.is_file()}


def manifest() -> bytes:
    """The web app manifest: a name, an icon, and a window of its own on a phone's home screen."""
    return json.dumps(
        {
            "name": "421 — py421",
            "short_name": APP_NAME,
            "description": "The French bar dice game 421: bots, hot-seat, or a real table's score.",
            "start_url": "/",
            "scope": "/",
            "display": "standalone",
            "background_color": "#0d4d2b",
            "theme_color": "#0d4d2b",
            "icons": [{"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
        },
        indent=2,
        ensure_ascii=False,
    ).encode()


def app_files() -> dict[str, bytes]:
    """Every file of the app by its address, the service worker last, knowing all the others."""
    files = {"/": (STATIC / "index.html").read_bytes(), **_static(), **_runtime()}
    files["/py421.zip"] = python_bundle()
    files["/manifest.webmanifest"] = manifest()
    version = hashlib.sha256()
    for path in sorted(files):
        version.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    template = (STATIC / "sw.js").read_text(encoding="utf-8")
    kept = json.dumps(sorted(files))
    # the one place the worker's constants are written: the file itself says what it keeps
    worker = template.replace('"VERSION"', json.dumps(version.hexdigest()[:16])).replace('["FILES"]', kept)
    files["/sw.js"] = worker.encode()
    return files


@functools.cache
def made_files() -> dict[str, bytes]:
    """The files made rather than copied (py421's Python zipped, the manifest, the service worker), as
    a server serves them: made once a process, from the 14 MB of the app that its worker's version
    hashes."""
    files = app_files()
    return {address: files[address] for address in ("/py421.zip", "/manifest.webmanifest", "/sw.js")}


def write_site(out: Path) -> list[Path]:
    """The app as static files under ``out`` (made if need be); returns what was written."""
    written = []
    files = app_files()
    for page in PAGES:
        files[f"/{page}/index.html"] = files["/"]
    for address, content in files.items():
        path = out / ("index.html" if address == "/" else address.lstrip("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    return written
