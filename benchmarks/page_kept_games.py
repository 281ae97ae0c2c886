"""The page on a phone with no server and many games kept: how long until it can start a new game.

Writes ``421 site`` to a temporary folder and serves it with Python's static file server; a
finished game of ``classic-11`` (Ana against a bot) is kept on the phone as many times as asked
(copies of one save, each under a code of its own, put straight into the page's IndexedDB). Then,
for each count, at phone size in Chromium:

- /here: from opening it to the form to start a game ready (its rules come from Python), and to the
  players' table of the kept games drawn;
- a kept game: from opening its table to the game shown.

    .venv/bin/python benchmarks/page_kept_games.py [--games 0,100,500] [--chromium /usr/bin/chromium]

Another tree's page (an earlier version, to compare): ``PYTHONPATH=THAT/src`` before the command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers
from tests.server_process import static_site

# Puts copies of one save into the page's IndexedDB, each under its own code.
KEEP = """([save, n]) => new Promise((done, failed) => {
  const asked = indexedDB.open("py421", 1);
  asked.onerror = () => failed(asked.error);
  asked.onsuccess = () => {
    const db = asked.result;
    const tx = db.transaction("tables", "readwrite");
    const store = tx.objectStore("tables");
    store.clear();
    for (let i = 0; i < n; i++) {
      store.put({ ...save, code: `local-${String(i).padStart(8, "0")}`, kept_at: Date.now() });
    }
    tx.oncomplete = () => { db.close(); done(n); };
  };
})"""


def finished_save() -> dict[str, object]:
    from py421.page.local import LocalTables

    tables = LocalTables()
    status, made, _ = tables.request("POST", "/api/tables", {"players": ["Ana", "bot:random"], "seed": 3})
    assert status == 200, made
    code = made["code"]
    while tables.table(code).status != "over":
        if tables.table(code).session.human_to_move() is None:
            tables.receive(code, {"type": "advance"})
        else:
            tables.receive(code, {"type": "act", "version": tables.table(code).version, "action": "stop"})
    save: dict[str, object] = json.loads(json.dumps(tables.table(code).save()))
    return save


def timed(page: Page, url: str, testid: str) -> float:
    start = time.perf_counter()
    page.goto(url)
    page.get_by_test_id(testid).first.wait_for(timeout=600_000)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("PY421_CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--games", default="0,100,500", help="the counts of games kept, comma-separated")
    args = parser.parse_args()
    counts = [int(n) for n in args.games.split(",")]
    save = finished_save()
    print(f"one save: {len(json.dumps(save)):,} characters, {len(save['record']['steps'])} steps")  # type: ignore[index]
    with tempfile.TemporaryDirectory() as folder:
        sites = static_site(Path(folder))
        base = next(sites)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB").new_page()
            page.set_default_timeout(600_000)
            timed(page, f"{base}/here", "create-here")  # Python fetched, started and kept once
            for n in counts:
                page.evaluate(KEEP, [save, n])
                start = time.perf_counter()
                page.goto(f"{base}/here")
                page.get_by_test_id("create-here").wait_for()
                form = time.perf_counter() - start
                line = f"{n:5d} games kept: /here's form {form:.2f} s"
                if n:
                    page.get_by_test_id("kept-players").locator("tbody tr").first.wait_for()
                    line += f", the players' table {time.perf_counter() - start:.2f} s"
                if n:
                    opened = timed(page, f"{base}/t/local-{n - 1:08d}", "outcome")
                    line += f", a kept game opened {opened:.2f} s"
                print(line, flush=True)
            browser.close()
        sites.close()


if __name__ == "__main__":
    main()
