"""The changes a table's owner makes are typed commands, and the wire between processes keeps them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from py421.server.commands import Act, Give, Join, Rematch, Report, Start, Undo, command
from py421.server.protocol import ActionMove

COMMANDS = [
    Join(name="Ana", token="t0k"),
    Start(token=None),
    Act(seat=1, version=7, move=ActionMove(kind="throw", keep=[4, 2])),
    Act(seat=0, version=3, move="stop"),
    Report(seat=None, version=2, turn="654/2"),
    Undo(seat=0, version=9),
    Rematch(token="t0k"),
    Give(seat=2),
]


@pytest.mark.parametrize("asked", COMMANDS, ids=lambda c: c.kind)
def test_a_command_passed_to_another_process_arrives_as_it_was_asked(asked):
    assert command(asked.kind, asked.args()) == asked


def test_a_join_from_a_process_of_an_earlier_version_has_no_token():
    assert command("join", {"name": "Ana"}) == Join(name="Ana", token=None)


@pytest.mark.parametrize(
    ("kind", "args"), [("fold", {}), ("act", {"seat": 0}), ("undo", {"seat": "one", "version": 1})]
)
def test_what_is_no_command_is_refused_before_it_reaches_a_table(kind, args):
    with pytest.raises(ValidationError):
        command(kind, args)
