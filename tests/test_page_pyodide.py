"""py421's Python as the page's worker runs it: in Pyodide (CPython compiled to WebAssembly), here
under Node. The same seed gives the same game as in CPython: the page runs py421's own engine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

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

# Plays the request list given as argv[3] through py421.page.handler.handle, one answer a line.
SCRIPT = """
import { loadPyodide } from "%s";
import fs from "node:fs";
const pyodide = await loadPyodide();
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(process.argv[2])), "zip", { extractDir: "/py421" });
pyodide.runPython("import sys; sys.path.insert(0, '/py421')");
const handle = pyodide.pyimport("py421.page.handler").handle;
const out = [];
let code = null;
for (const request of JSON.parse(fs.readFileSync(process.argv[3], "utf8"))) {
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
console.log(JSON.stringify(out));
"""


def run_in_pyodide(tmp_path: Path, requests: list[dict[str, object]]) -> list[dict[str, Any]]:
    bundle = tmp_path / "py421.zip"
    bundle.write_bytes(python_bundle())
    script = tmp_path / "run.mjs"
    script.write_text(SCRIPT % (PYODIDE / "pyodide.mjs").as_uri())
    asked = tmp_path / "requests.json"
    asked.write_text(json.dumps(requests))
    assert NODE
    done = subprocess.run(
        [NODE, str(script), str(bundle), str(asked)], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answers: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return answers


def test_the_page_plays_the_same_game_as_cpython_from_the_same_seed(tmp_path):
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
    answers = run_in_pyodide(tmp_path, requests)
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


def test_a_table_kept_by_the_page_comes_back_in_cpython(tmp_path):
    """What the page keeps in IndexedDB is the save CPython reads: a game moves between the two."""
    body = {"mode": "scorekeeper", "players": ["Ana", "Bob"], "rules": "classic-11"}
    requests: list[dict[str, object]] = [
        {"op": "http", "method": "POST", "path": "/api/tables", "body": body},
        {"op": "socket", "code": "CODE", "message": {"type": "report", "version": 0, "turn": "421"}},
    ]
    answers = run_in_pyodide(tmp_path, requests)
    kept = answers[1]["saves"]
    tables = LocalTables()
    assert tables.restore(kept) == []
    message, _ = tables.receive(kept[0]["code"], {"type": "look"})
    assert message == answers[1]["message"]
