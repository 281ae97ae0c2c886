"""The changes a table's owner makes, as typed commands: asked in this process or by another.

A change is asked of the process that owns the table (:mod:`.cluster`); each is one model of
the :data:`Command` union, told apart by its ``kind``, and its answer one model too. On the
wire between processes a command is ``kind`` and ``args`` (its other fields), as it always was,
so processes of two versions side by side (a rolling restart) still understand each other.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .protocol import ActionMove


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True)

    def args(self) -> dict[str, Any]:
        """The command's fields but its kind, as the wire carries them."""
        return self.model_dump(mode="json", exclude={"kind"})


class Join(_Command):
    """A person takes a free seat; the token is drawn by the asker, so that asked again of another
    owner the join finds its seat (a process of an earlier version sends none: drawn there)."""

    kind: Literal["join"] = "join"
    name: object
    token: str | None = None


class Start(_Command):
    kind: Literal["start"] = "start"
    token: str | None


class Act(_Command):
    kind: Literal["act"] = "act"
    seat: int | None
    version: int
    move: str | ActionMove


class Report(_Command):
    """A scorekeeper's turn, typed whole (``421``, ``654/2``…)."""

    kind: Literal["report"] = "report"
    seat: int | None
    version: int
    turn: str


class Undo(_Command):
    kind: Literal["undo"] = "undo"
    seat: int | None
    version: int


class Back(_Command):
    """The player of ``seat``, handed to a bot by the timeout, takes it back."""

    kind: Literal["back"] = "back"
    seat: int | None


class Hand(_Command):
    """A seated player hands ``seat`` (theirs or another's) to another phone: ``new``, drawn by the
    asker as a join's is, holds it from then on and the token that held it no longer does."""

    kind: Literal["hand"] = "hand"
    token: str | None
    seat: int
    new: str


class Rematch(_Command):
    kind: Literal["rematch"] = "rematch"
    token: str | None


class Give(_Command):
    """Hand the table to the process of the connection asking for ``seat`` (its player is there)."""

    kind: Literal["give"] = "give"
    seat: int


Command = Annotated[
    Join | Start | Act | Report | Undo | Back | Hand | Rematch | Give, Field(discriminator="kind")
]
COMMAND: TypeAdapter[Command] = TypeAdapter(Command)


def command(kind: str, args: dict[str, Any]) -> Command:
    """A command from the wire (``pydantic.ValidationError`` if it is not one)."""
    return COMMAND.validate_python({**args, "kind": kind})


# -- the answers ---------------------------------------------------------------------------------


class Seated(BaseModel):
    seat: int
    token: str


class Rematched(BaseModel):
    code: str


class Given(BaseModel):
    given: bool


class Done(BaseModel):
    """A change made, with nothing more to say."""


Answer = Seated | Rematched | Given | Done
