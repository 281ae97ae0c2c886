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


def test_the_report_speaks_french(tmp_path, monkeypatch):
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .test_cli_french import leftovers

    drawn: list[str] = []
    for name in ("set_title", "set_xlabel", "set_ylabel"):
        real = getattr(Axes, name)

        def said(self, text, *args, real=real, **kwargs):
            drawn.append(text)
            return real(self, text, *args, **kwargs)

        monkeypatch.setattr(Axes, name, said)
    ticks: list[str] = []
    real_save = Figure.savefig

    def saved(self, *args, **kwargs):
        real_save(self, *args, **kwargs)  # drawn: the tick labels are written
        ticks.extend(t.get_text() for ax in self.axes for t in ax.get_xticklabels() + ax.get_yticklabels())

    monkeypatch.setattr(Figure, "savefig", saved)
    out = tmp_path / "rapport"
    args = ["report", "--rules", "tim", "--out", str(out), "--games", "100", "--workers", "1", "--lang", "fr"]
    result = CliRunner().invoke(main, args, env={"LANG": "C"})
    assert result.exit_code == 0, result.output
    assert f"rapport écrit : {out / 'index.html'}" in result.stdout
    assert "  préparation du simulateur (compilé une fois par machine)" in result.stderr
    assert "  tim : bot:random contre bot:heuristic" in result.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in page
    assert "<title>421 : ce que disent les nombres</title>" in page
    assert "<th>règles</th>" in page and "<th>duel : le premier joueur gagne</th>" in page
    assert "Deux joueurs ; x11 et brelans s'intercalent" in page  # the preset's description
    assert re.search(r"<td>\d+,\d\d %</td>", page)  # French numbers
    assert re.search(r"<td>421 : \d+,\d\d % / ", page)  # the French space before the colon
    assert "% des lancers" in drawn and "avantage du premier joueur" in " ".join(drawn)
    assert any(re.fullmatch(r"\d+,\d+", t) for t in ticks)  # the axes' numbers too: 0,5 not 0.5
    assert "tim" in ticks and "bot:optimal" in ticks  # the axes of names keep their names
    assert not [t for t in ticks if re.fullmatch(r"[−-]?\d+\.\d+", t)]
    assert leftovers(result.output + page + "\n".join(drawn)) == []
    for english in ("what the numbers say", "first player", "throws", "preset", "against"):
        assert english not in page + "\n".join(drawn), english


def test_each_preset_has_its_ladder_of_the_bots(report):
    """The match-ups' games rate the bots: the optimal bot first and the random one last, each rated
    over its games against the others (its games against itself left out)."""
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    for preset in ("tim", "kytionnaire"):
        ladder = data[preset]["ladder"]
        assert [s["level"] for s in ladder] == ["optimal", "heuristic", "random"]
        assert all(s["games"] == 4 * 600 for s in ladder)  # two others, each met in either seat
        assert ladder[0]["score"] > 0.5 > ladder[-1]["score"]
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.count('<table class="ladder">') == 2 and "<td>1</td><td>bot:optimal</td>" in page
