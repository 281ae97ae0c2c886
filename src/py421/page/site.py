"""The page as files: what ``421 site`` writes and the server serves, offline modes included.

Every file is found here once, under its address in the app's folder:
``/`` (and ``/index.html``), ``/static/…``, ``/pyodide/…``, ``/py421.zip``, and the
two that make the page an app a phone installs: ``/manifest.webmanifest`` and the
service worker ``/sw.js``, which keeps every other file for offline use under a
version made of their contents (a new version is offered by the page, never forced).

The folder is ``/`` from ``421 serve``; ``421 site --base /py421/`` writes an app a
static host serves from that folder (a project's GitHub Pages, say): only
index.html's ``<base>`` names it, every other address is relative to it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from ..core.errors import InvalidParameter, Message
from .bundle import RUNTIME, python_bundle

STATIC = Path(__file__).parent.parent / "server" / "static"
# the page's own files not served as they are under /static: types (read by the checks only), and two
# served elsewhere
NOT_SERVED = {"protocol.d.ts", "index.html", "sw.js"}  # index.html is at /, sw.js is written
APP_NAME = "421"
# The app's pages a first visit may open by their address, before the service worker is there to
# answer for them: a static host serves each as a folder's index.html (the page itself).
PAGES = ("here", "scorekeeper")
BASE_TAG = b'<base href="/">'
# a folder's path: /, or /name/…/ of letters, digits and - _ . ~ (no "..", nothing to escape in HTML)
_BASE = re.compile(r"/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*/)*")


def checked_base(base: str) -> str:
    """The app's folder as an address path ending in /; ``py421`` and ``/py421`` are ``/py421/``."""
    folder = "/" + base.strip("/") + "/" if base.strip("/") else "/"
    if not _BASE.fullmatch(folder) or "/../" in folder or "/./" in folder:
        raise InvalidParameter(Message("site.base", {"got": repr(base)}))
    return folder


def _static() -> dict[str, bytes]:
    return {
        f"/static/{f.name}": f.read_bytes()
        for f in sorted(STATIC.iterdir())
        if f.is_file() and f.name not in NOT_SERVED
    }


def _runtime() -> dict[str, bytes]:
    if not (RUNTIME / "pyodide.asm.wasm").is_file():
        raise FileNotFoundError(str(Message("site.no_runtime", {"path": RUNTIME})))
    return {f"/pyodide/{f.name}": f.read_bytes() for f in sorted(RUNTIME.iterdir()) if f.is_file()}


def manifest() -> bytes:
    """The web app manifest: a name, an icon, and a window of its own on a phone's home screen."""
    return json.dumps(
        {
            "name": "421 — py421",
            "short_name": APP_NAME,
            "description": "The French bar dice game 421: bots, hot-seat, or a real table's score.",
            "start_url": "./",  # the manifest's own folder: the app's
            "scope": "./",
            "display": "standalone",
            "background_color": "#0d4d2b",
            "theme_color": "#0d4d2b",
            # the PNGs for installers that take no SVG (scripts/icons.py draws them all)
            "icons": [{"src": "static/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}]
            + [
                {"src": f"static/icon-{n}.png", "sizes": f"{n}x{n}", "type": "image/png", "purpose": "any"}
                for n in (192, 512)
            ],
        },
        indent=2,
        ensure_ascii=False,
    ).encode()


def app_files(base: str = "/") -> dict[str, bytes]:
    """Every file of the app by its address in the app's folder ``base`` (see :func:`checked_base`),
    the service worker last, knowing all the others."""
    page = (STATIC / "index.html").read_bytes()
    assert BASE_TAG in page, "index.html names its folder in a <base> tag"
    page = page.replace(BASE_TAG, b'<base href="' + checked_base(base).encode() + b'">')
    files = {"/": page, **_static(), **_runtime()}
    files["/py421.zip"] = python_bundle()
    files["/manifest.webmanifest"] = manifest()
    version = hashlib.sha256()
    for path in sorted(files):
        version.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    template = (STATIC / "sw.js").read_text(encoding="utf-8")
    kept = json.dumps(sorted(address[1:] for address in files))  # in the app's folder: "" is the page
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


def write_site(out: Path, base: str = "/") -> list[Path]:
    """The app as static files under ``out`` (made if need be), for a host that serves them from
    the folder ``base`` of its address; returns what was written."""
    written = []
    files = app_files(base)
    for page in PAGES:
        files[f"/{page}/index.html"] = files["/"]
    for address, content in files.items():
        path = out / ("index.html" if address == "/" else address.lstrip("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    return written
