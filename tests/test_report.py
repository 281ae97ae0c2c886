"""``421 report``: the page, its plots and its numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from py421.cli import main


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out: Path = tmp_path_factory.mktemp("report")
    args = ["--rules", "tim", "--rules", "kytionnaire", "--out", str(out), "--games", "600", "--workers", "1"]
    result = CliRunner().invoke(main, ["report", *args])
    assert result.exit_code == 0, result.output
    assert f"report written: {out / 'index.html'}" in result.output
    return out


def test_the_page_shows_every_plot_it_names(report):
    page = (report / "index.html").read_text(encoding="utf-8")
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) == 1 + 2 * 4  # the summary, then four plots per preset
    for name in images:
        data = (report / name).read_bytes()
        assert data.startswith(b"\x89PNG"), name
        assert len(data) > 5_000, name  # a drawn plot, not an empty canvas
    assert "<h2>tim</h2>" in page
    assert "<h2>kytionnaire</h2>" in page


def test_the_numbers_come_from_the_solvers_and_the_simulator(report):
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    tim = data["tim"]
    assert tim["solved"]["first"] + tim["solved"]["other"] == pytest.approx(1)  # one loser in tim
    assert 0.5 < tim["duel_first_wins"] < 0.7
    matrix = tim["matrix"]
    assert matrix["optimal vs random"] < matrix["heuristic vs random"] < matrix["random vs random"]
    assert set(data) == {"tim", "kytionnaire"}


def test_an_unknown_preset_is_refused_with_the_presets():
    result = CliRunner().invoke(main, ["report", "--rules", "nope", "--out", "x"])
    assert result.exit_code == 2
    assert "classic-11" in result.output
