"""The page on a phone with no server: how long until the first throw, and each step.

Writes ``421 site`` to a temporary folder, serves it with Python's static file server and
opens it in Chromium at phone size with the CPU slowed 4× (Chrome's own throttling):

- first visit: from opening /here to the first throw of a new game against a bot (Pyodide
  and py421 downloaded and started), and the bytes the page fetched;
- repeat visit, offline: the same, the network cut, everything from the service worker;
- a step: from a tap on a choice to the next view drawn and painted, timed in the page (the
  bots' answers are paced apart by the page, 450 ms each, and not counted).

    .venv/bin/python benchmarks/page_offline.py [--chromium /usr/bin/chromium] [--steps 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers
from tests.server_process import static_site

BUTTONS = "[data-testid=actions]:not([hidden]) button:not([hidden]):not([disabled])"
# In the page, in ms: a tap on the first choice, to the next view drawn (each view changes the log:
# a new line, or the last ones when it is full) and painted at the next frame.
TAP = """async (choices) => {
  const choice = [...document.querySelectorAll(choices)].find((b) => b.offsetParent);
  const log = document.querySelector("[data-testid=log]");
  const start = performance.now();
  const drawn = new Promise((done) => {
    const seen = new MutationObserver(() => { seen.disconnect(); done(); });
    seen.observe(log, { childList: true, subtree: true });
  });
  choice.click();
  await drawn;
  await new Promise((painted) => requestAnimationFrame(() => painted()));
  return performance.now() - start;
}"""


def first_throw(page: Page, base: str) -> float:
    start = time.perf_counter()
    page.goto(f"{base}/here")
    page.get_by_test_id("seat-name-0").fill("Ana")
    page.get_by_test_id("create-here").click()
    page.get_by_test_id("log").locator("li").first.wait_for()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("PY421_CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--throttle", type=float, default=4.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        served = static_site(Path(tmp) / "site")
        base = next(served)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"]
                )
                context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
                page = context.new_page()
                page.set_default_timeout(180_000)
                cdp = context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.throttle})
                fetched: list[int] = []
                page.on("response", lambda r: fetched.append(int(r.headers.get("content-length", "0"))))
                first = first_throw(page, base)
                page.evaluate("navigator.serviceWorker.ready.then(() => true)")
                first_bytes = sum(fetched)
                context.set_offline(True)
                again = first_throw(page, base)
                steps: list[float] = []
                while len(steps) < args.steps:
                    # the person's turn, or the end of the game (then another one)
                    page.wait_for_function(
                        f"""document.querySelector('[data-status=over]') ||
                            [...document.querySelectorAll('{BUTTONS}')].some((b) => b.offsetParent)""",
                        polling=100,  # not at every frame: the page's thread is the one timed
                    )
                    if page.get_by_test_id("status").get_attribute("data-status") == "over":
                        first_throw(page, base)
                        continue
                    steps.append(page.evaluate(TAP, BUTTONS) / 1000)
                browser.close()
        finally:
            served.close()
    print(f"CPU slowed {args.throttle:g}x, phone viewport, Chromium")
    print(f"first visit to the first throw: {first:.2f} s, {first_bytes / 1e6:.1f} MB fetched (uncompressed)")
    print(f"repeat visit, offline, to the first throw: {again:.2f} s")
    if steps:
        ranked = sorted(steps)
        print(
            f"a tap to the next view: median {statistics.median(steps) * 1000:.0f} ms, "
            f"9 in 10 under {ranked[int(0.9 * len(ranked))] * 1000:.0f} ms, "
            f"most {ranked[-1] * 1000:.0f} ms ({len(steps)} taps)"
        )


if __name__ == "__main__":
    main()
