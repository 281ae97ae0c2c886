"""The rules documentation stays in step with the code it describes."""

from pathlib import Path

import pytest

from py421.core.rules import Ruleset, accepted, option_fields, preset_names

from .helpers import doc_table_rows

RULES_DOC = (Path(__file__).parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")


def table_rows(heading: str) -> dict[str, list[str]]:
    """The rows of the first table after ``heading`` in docs/rules.md."""
    return doc_table_rows(RULES_DOC, heading)


def shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("field", option_fields(), ids=lambda f: f.name)
def test_every_option_is_documented_as_declared(field):
    row = table_rows("## Every option")[field.name]
    assert row[0] == f"`{shown(field.default)}`"
    assert row[1] == accepted(field).replace(" | ", ", ")
    assert row[2] == field.metadata["doc"]


def test_the_preset_table_shows_what_each_preset_changes():
    rows = table_rows("## The presets")
    for i, name in enumerate(preset_names(), start=1):
        changed = Ruleset.preset(name).changed_options()
        documented = {opt: cells[i] for opt, cells in rows.items() if cells[i] != "·"}
        assert documented == {k: shown(v) for k, v in changed.items()}, name


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_has_its_section(name):
    assert f"### {name}\n" in RULES_DOC


def test_every_reading_of_the_rules_is_written_down():
    readings = RULES_DOC.split("## Readings", 1)[1].split("## Further choices", 1)[0]
    points = (
        "Accumulated stakes",
        "read like `tim`",
        "never below 0",
        "`ace_high` is on",
        "`pair_fiches` is on",
        "value of the best result of the",
    )
    for point in points:
        assert point in readings
