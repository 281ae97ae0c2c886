"""421 site: the app as static files, each kept by the service worker under a version of them all."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from py421.cli import main
from py421.page.site import app_files

from .server_helpers import serving


def written(folder: Path) -> dict[str, bytes]:
    found = {}
    for path in folder.rglob("*"):
        if path.is_file():
            address = "/" + path.relative_to(folder).as_posix()
            found["/" if address == "/index.html" else address] = path.read_bytes()
    return found


def kept_by_the_worker(worker: str) -> tuple[str, list[str]]:
    version = re.search(r'^const VERSION = "([0-9a-f]{16})";$', worker, flags=re.MULTILINE)
    files = re.search(r"^const FILES = (\[.*\]);$", worker, flags=re.MULTILINE)
    assert version and files, worker[:600]
    return version[1], json.loads(files[1])


def test_the_site_is_every_file_the_page_asks_for_and_the_worker_keeps_them_all(tmp_path):
    result = CliRunner().invoke(main, ["site", "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(
        r"\d+ files \(\d+\.\d MB\) written in .*site: serve the folder .*root.*\n", result.output
    )
    files = written(tmp_path / "site")
    version, kept = kept_by_the_worker(files["/sw.js"].decode())
    pages = {"/here/index.html", "/scorekeeper/index.html"}  # the page again, for a first visit there
    assert all(files[page] == files["/"] for page in pages)
    kept = ["/" + address for address in kept]  # kept by their address in the app's folder
    assert sorted(kept) == sorted(set(files) - {"/sw.js"} - pages)
    for needed in ("/", "/static/app.js", "/static/worker.js", "/pyodide/pyodide.asm.wasm", "/py421.zip"):
        assert needed in kept
    page = files["/"].decode()
    assert '<base href="/">' in page
    asked = re.findall(r'<link [^>]*href="([^"]+)"|src="([^"]+)"', page)
    asked = ["/" + (a or b) for a, b in asked if not (a or b).startswith("data:")]  # in the folder
    assert asked and all(a in files for a in asked), asked
    manifest = json.loads(files["/manifest.webmanifest"])
    assert manifest["start_url"] == "./" and manifest["display"] == "standalone"
    assert all("/" + icon["src"] in files for icon in manifest["icons"])
    # the same files give the same version; the server serves the same service worker
    assert kept_by_the_worker(app_files()["/sw.js"].decode())[0] == version
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        assert client.get("/sw.js").content == files["/sw.js"]
        assert client.get("/py421.zip").content == files["/py421.zip"]
        assert client.get("/manifest.webmanifest").json() == manifest
        assert "'wasm-unsafe-eval'" in client.get("/").headers["content-security-policy"]


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG image (read from its header), or an AssertionError if it is none."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_a_home_screen_takes_the_icon_as_a_png_of_the_sizes_it_says(tmp_path):
    """The icon was an SVG only, which iOS's home screen does not take (it shows a shot of the page)
    and Android's installer may not: iOS's is a 180-pixel PNG, the manifest's 192 and 512."""
    files = app_files()
    touch = re.search(r'<link rel="apple-touch-icon"[^>]* href="([^"]+)"', files["/"].decode())
    assert touch is not None
    assert png_size(files["/" + touch[1]]) == (180, 180)
    icons = json.loads(files["/manifest.webmanifest"])["icons"]
    sizes = set()
    for icon in icons:
        if icon["type"] == "image/png":
            width, height = png_size(files["/" + icon["src"]])
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        served = client.get(touch[1])
        assert served.headers["content-type"] == "image/png"
        assert png_size(served.content) == (180, 180)


def test_a_folder_that_takes_no_file_is_refused_before_anything_is_written(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "py421", "site", "--out", str(blocker / "site")],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "cannot write the site in" in done.stderr and "Traceback" not in done.stderr


def test_a_folder_in_a_folder_that_does_not_exist_is_refused_not_made(tmp_path):
    out = tmp_path / "mistyped" / "site"  # the site's own folder is made, not the one it goes in
    english = CliRunner().invoke(main, ["site", "--out", str(out), "--lang", "en"])
    assert english.exit_code != 0
    assert (
        f"Error: cannot write the site in {out}: the folder {out.parent} does not exist; create it "
        f"(mkdir -p {out.parent}) or choose another folder\n" in english.output
    )
    french = CliRunner().invoke(main, ["site", "--out", str(out), "--lang", "fr"]).output
    assert (
        f"impossible d'écrire le site dans {out} : le dossier {out.parent} n'existe pas ; créez-le "
        f"(mkdir -p {out.parent}) ou choisissez un autre dossier\n" in french.replace("\u00a0", " ")
    )
    assert not out.parent.exists()


def test_a_site_for_a_folder_of_its_host_names_it_once_and_is_refused_a_folder_that_cannot_be(tmp_path):
    """A project's GitHub Pages serve a site from /NAME/: only the page's <base> says so; the rest is
    the same files, so the worker keeps them under the same names in that folder."""
    result = CliRunner().invoke(main, ["site", "--out", str(tmp_path / "site"), "--base", "py421"])
    assert result.exit_code == 0, result.output
    assert "in the folder /py421/ of its address" in result.output
    files = written(tmp_path / "site")
    assert '<base href="/py421/">' in files["/"].decode()
    assert files["/here/index.html"] == files["/"]
    at_root = app_files()
    assert all(
        files[a] == at_root[a]
        for a in files
        if a not in ("/", "/sw.js", "/here/index.html", "/scorekeeper/index.html")
    )
    assert (
        kept_by_the_worker(files["/sw.js"].decode())[1] == kept_by_the_worker(at_root["/sw.js"].decode())[1]
    )
    for bad in ("/a b/", "/../x/", "/x/<y>/", "/é/"):
        refused = CliRunner().invoke(main, ["site", "--out", str(tmp_path / "no"), "--base", bad])
        assert refused.exit_code != 0 and "--base is the folder of the site's address" in refused.output, bad
        assert not (tmp_path / "no").exists()  # refused before anything is written
    french = CliRunner().invoke(
        main, ["site", "--out", str(tmp_path / "no"), "--base", "/a b/", "--lang", "fr"]
    )
    assert "--base est le dossier de l'adresse du site" in french.output
