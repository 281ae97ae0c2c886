"""The protocol, the limits and the page's words, kept in step with their declarations."""

from __future__ import annotations

import re
from pathlib import Path

import click

from py421.cli import main
from py421.i18n import LANGS, page_catalog
from py421.server.limits import Limits
from py421.server.protocol import ERROR_CODES, markdown
from py421.server.worker import Budget

from .helpers import online_game

ROOT = Path(__file__).parents[1]
ONLINE = (ROOT / "docs" / "online.md").read_text(encoding="utf-8")


def test_the_protocol_tables_in_the_docs_are_the_models():
    start = ONLINE.index("<!-- protocol: written by")
    start = ONLINE.index("\n", start) + 1
    end = ONLINE.index("<!-- protocol: end -->")
    assert ONLINE[start:end] == markdown(), "paste what python -m py421.server.protocol prints"


def test_every_error_code_is_documented_and_worded_on_the_page_in_both_languages():
    table = ONLINE.split("### Error codes", 1)[1].split("\n### ", 1)[0]
    for code in ERROR_CODES:
        assert f"`{code}`" in table, code
        for lang in LANGS:
            assert f"error.{code}" in page_catalog(lang), (lang, code)


def test_every_limit_is_an_option_of_serve_with_the_documented_default():
    serve = main.commands["serve"]
    assert isinstance(serve, click.Command)
    defaults = {p.opts[0]: p.default for p in serve.params if isinstance(p, click.Option)}
    limits, budget = Limits(), Budget()
    expected = {
        "--max-seats": limits.seats,
        "--max-spectators": limits.spectators,
        "--max-connections-per-address": limits.connections_per_address,
        "--max-tables-per-minute": limits.tables_per_minute,
        "--max-tables-per-address": limits.tables_per_address,
        "--max-tables": limits.live_tables,
        "--waiting-minutes": limits.waiting_minutes,
        "--idle-minutes": limits.idle_minutes,
        "--max-steps": limits.steps_per_table,
        "--messages-per-second": limits.messages_per_second,
        "--request-seconds": limits.request_seconds,
        "--keep-alive-seconds": limits.keep_alive_seconds,
        "--send-seconds": limits.send_seconds,
        "--optimal-seconds": budget.seconds,
        "--optimal-memory": budget.memory_mb,
        "--optimal-queue": budget.queue,
    }
    rows = dict(re.findall(r"^\| `(--[a-z-]+)` \| ([0-9.]+) \|", ONLINE, flags=re.MULTILINE))
    for option, value in expected.items():
        assert defaults[option] == value, option
        assert float(rows[option]) == value, option


def test_verify_names_the_first_wrong_throw_even_when_later_moves_no_longer_fit():
    from py421.core.record import Record
    from py421.server.verify import verify

    data, first = online_game("a secret seed")
    assert verify(Record.from_dict(data)).problems == []
    wrong = "111" if first != 1 else "666"
    data["steps"][0]["dice"] = wrong
    data.pop("final", None)
    verdict = verify(Record.from_dict(data))
    assert verdict.seed_hash == data["meta"]["seed_hash"]
    assert verdict.problems[0].startswith(f"step 1: the record says {wrong}, the seed gives ")
    assert "step 2 does not fit the game the steps before it make" in verdict.problems[1]


def test_verify_takes_only_a_hash_of_64_hex_digits_and_stops_at_a_seed_that_does_not_match() -> None:
    """The record's hash is printed to a terminal: a forged one holding a line of its own (« fair:
    … ») or escape sequences (hidden text) would speak for the tool. And a seed that is not the one
    published says all there is to say: its throws, compared with the record's, would be hundreds
    of lines of noise."""
    from py421.core.record import Record
    from py421.server.verify import verify

    data, _ = online_game("a secret seed")
    forged = dict(data, meta=dict(data["meta"], seed_hash="ab\nfair: all good\x1b[8m"))
    verdict = verify(Record.from_dict(forged))
    assert verdict.seed_hash is None
    assert verdict.problems == [
        "meta.seed_hash is not a SHA-256 hash (64 hexadecimal digits): 'ab\\nfair: all good\\x1b[8m'"
    ]
    other = dict(data, meta=dict(data["meta"], seed="another seed"))
    assert verify(Record.from_dict(other)).problems == [
        "the seed does not match the hash published at the start"
    ]


def test_verify_of_a_record_from_the_terminal_says_to_replay_it(tmp_path):
    """A game recorded by 421 play has no seed's hash to check: verify said only that it is not from
    an online table, and not what checks it."""
    from click.testing import CliRunner

    made = tmp_path / "game.json"
    played = CliRunner().invoke(
        main, ["play", "--players", "bot:random,bot:random", "--seed", "9", "--record", str(made)], input=""
    )
    assert played.exit_code == 0, played.output
    for lang, said in (("en", f"421 replay {made}"), ("fr", f"421 replay {made}")):
        checked = CliRunner().invoke(main, ["verify", str(made), "--lang", lang])
        assert checked.exit_code == 1 and said in checked.output, checked.output
