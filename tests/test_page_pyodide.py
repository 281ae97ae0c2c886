"""py421's Python as the page's worker runs it: in Pyodide (CPython compiled to WebAssembly), here
under Node. The same seed gives the same game as in CPython: the page runs py421's own engine."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from py421.page.bundle import python_bundle
from py421.page.local import LocalTables

ROOT = Path(__file__).resolve().parent.parent
PYODIDE = ROOT / "web" / "node_modules" / "pyodide"  # npm ci --prefix web, at web/package-lock.json's version
NODE = shutil.which("node")

if not (NODE and (PYODIDE / "pyodide.mjs").is_file()):
    if os.environ.get("CI"):
        raise RuntimeError(
            "CI runs Pyodide under Node: no node, or no web/node_modules/pyodide (npm ci --prefix web)"
        )
    pytest.skip("no Node or no Pyodide: run the tests through scripts/check", allow_module_level=True)

pytestmark = pytest.mark.slow  # Pyodide starts in seconds

# Plays each request list it reads, one a line, through py421.page.handler.handle, in a Python of its
# own (a fresh handler.TABLES, as in a page just started); prints its answers on one line after
# ANSWERS (Pyodide prints what Python prints, on lines of its own), or what failed after FAILED.
SCRIPT = """
import { loadPyodide } from "%s";
import fs from "node:fs";
import readline from "node:readline";
const pyodide = await loadPyodide();
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(process.argv[2])), "zip", { extractDir: "/py421" });
pyodide.runPython("import sys; sys.path.insert(0, '/py421')");
const handler = pyodide.pyimport("py421.page.handler");
const LocalTables = pyodide.pyimport("py421.page.local").LocalTables;
const handle = handler.handle;
console.log("READY");
for await (const line of readline.createInterface({ input: process.stdin })) {
  try {
    handler.TABLES = LocalTables();
    const out = [];
    let code = null;
    for (const request of JSON.parse(line)) {
      if (request.op === "advance-to-end") {
        let message;
        do {
          const asked = { op: "socket", code, message: { type: "advance" }, lang: request.lang };
          message = JSON.parse(handle(JSON.stringify(asked))).message;
        } while (message.waiting !== "over");
        out.push(message);
        continue;
      }
      if (request.code === "CODE") request.code = code;
      if (request.path) request.path = request.path.replace("CODE", code);
      const answer = JSON.parse(handle(JSON.stringify(request)));
      if (request.op === "http" && request.path === "/api/tables") code = answer.data.code;
      out.push(answer);
    }
    console.log("ANSWERS " + JSON.stringify(out));
  } catch (err) {
    console.log("FAILED " + JSON.stringify(String(err && err.stack ? err.stack : err)));
  }
}
"""

RunInPyodide = Callable[[list[dict[str, object]]], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def run_in_pyodide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunInPyodide]:
    """Plays a request list in Pyodide under Node. One Node for the module's tests: Pyodide's start
    is most of each test's work; each list still gets a handler of its own."""
    folder = tmp_path_factory.mktemp("pyodide")
    bundle = folder / "py421.zip"
    bundle.write_bytes(python_bundle())
    script = folder / "run.mjs"
    script.write_text(SCRIPT % (PYODIDE / "pyodide.mjs").as_uri())
    errors = folder / "stderr.txt"
    assert NODE
    with errors.open("w") as err:
        node = subprocess.Popen(
            [NODE, str(script), str(bundle)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert node.stdin and node.stdout
    lines: queue.Queue[str] = queue.Queue()

    def read(out: IO[str]) -> None:  # aside, so that a Node that hangs fails a test, in time
        for line in out:
            lines.put(line)
        lines.put("")  # Node stopped

    threading.Thread(target=read, args=(node.stdout,), daemon=True).start()

    def line_after(prefix: str) -> str:
        while True:
            try:
                line = lines.get(timeout=600)
            except queue.Empty:
                raise AssertionError(
                    f"Node said nothing in 10 minutes: {errors.read_text()[-3000:]}"
                ) from None
            assert line, f"Node stopped: {errors.read_text()[-3000:]}"
            if line.startswith(prefix):
                return line.removeprefix(prefix)
            assert not line.startswith("FAILED "), line

    def run(requests: list[dict[str, object]]) -> list[dict[str, Any]]:
        assert node.stdin
        node.stdin.write(json.dumps(requests) + "\n")
        node.stdin.flush()
        answers: list[dict[str, Any]] = json.loads(line_after("ANSWERS "))
        return answers

    try:
        line_after("READY")
        yield run
    finally:
        node.stdin.close()
        try:
            node.wait(10)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()


def test_the_page_plays_the_same_game_as_cpython_from_the_same_seed(run_in_pyodide: RunInPyodide) -> None:
    body = {
        "mode": "play",
        "players": ["bot:heuristic", "bot:random", "bot:heuristic"],
        "seed": 11,
        "rules": "vache-41",
    }
    requests: list[dict[str, object]] = [
        {"op": "http", "method": "POST", "path": "/api/tables", "body": body, "lang": "fr"},
        {"op": "advance-to-end", "lang": "fr"},
        {"op": "http", "method": "GET", "path": "/api/tables/CODE/record"},
    ]
    answers = run_in_pyodide(requests)
    in_page, record = answers[1], answers[2]["data"]

    tables = LocalTables()
    code = tables.request("POST", "/api/tables", body, "fr")[1]["code"]
    message, _ = tables.receive(code, {"type": "look"}, "fr")
    while message["waiting"] != "over":
        message, _ = tables.receive(code, {"type": "advance"}, "fr")
    here = tables.request("GET", f"/api/tables/{code}/record", None)[1]
    assert record["steps"] == here["steps"] and len(here["steps"]) > 20
    assert in_page["log"] == message["log"]  # the same words, in French
    assert in_page["view"] == message["view"]


def test_a_table_kept_by_the_page_comes_back_in_cpython(run_in_pyodide: RunInPyodide) -> None:
    """What the page keeps in IndexedDB is the save CPython reads: a game moves between the two."""
    body = {"mode": "scorekeeper", "players": ["Ana", "Bob"], "rules": "classic-11"}
    requests: list[dict[str, object]] = [
        {"op": "http", "method": "POST", "path": "/api/tables", "body": body},
        {"op": "socket", "code": "CODE", "message": {"type": "report", "version": 0, "turn": "421"}},
    ]
    answers = run_in_pyodide(requests)
    kept = answers[1]["saves"]
    tables = LocalTables()
    assert tables.restore(kept) == []
    message, _ = tables.receive(kept[0]["code"], {"type": "look"})
    assert message == answers[1]["message"]
