"""Why a JSON or TOML text could not be read, in words each language has.

The parsers' own messages are English sentences (``Expecting ',' delimiter:
line 3 column 5 (char 40)``). A player who mistyped a ruleset or whose save
was cut short is told the line, the column and what went wrong from a short
list of the mistakes people make; a rarer message keeps the parser's words.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from typing import Any

from .errors import Message

# How the parsers' messages (json's, then tomllib's) start, for each mistake.
_SAID = (
    ("Expecting value", "value"),
    ("Expecting property name", "key"),
    ("Expecting ':'", "colon"),
    ("Expecting ','", "comma"),
    ("Illegal trailing comma", "trailing_comma"),
    ("Unterminated string", "unterminated"),
    ("Invalid control character", "control"),
    ("Invalid \\uXXXX", "unicode_escape"),
    ("Invalid \\", "escape"),
    ("Extra data", "extra"),
    ("Invalid value", "bad_value"),
    ("Invalid initial character for a key", "name"),
    ("Expected '=' after a key", "equals"),
    ("Illegal character", "control"),
    ("Unescaped '\\'", "escape"),
    ("Unclosed array", "unclosed_list"),
    ('Expected "\'"', "unterminated"),
    ("Found invalid character", "control"),
    ("Invalid hex value", "unicode_escape"),
    ("Expected ']", "unclosed"),
    ("Unclosed inline table", "unclosed_table"),
    ("Cannot declare", "twice"),
    ("Cannot overwrite a value", "twice"),
    ("Duplicate inline table key", "twice"),
    ("Expected newline or end of document", "one_per_line"),
    ("Invalid statement", "statement"),
)

# tomllib ends its messages with where it stopped
_TOML_WHERE = re.compile(
    r"^(?P<said>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$"
)


def syntax_reason(exc: ValueError | RecursionError) -> Message:
    """Where the text stops being JSON or TOML, and why; or why a parser gave up on it as a whole
    (brackets nested past the interpreter's recursion, a number past its longest conversion)."""
    line: int | None
    if isinstance(exc, RecursionError):
        return Message("syntax.too_deep")
    if isinstance(exc, json.JSONDecodeError):
        said, line, column = exc.msg, exc.lineno, exc.colno
    elif not isinstance(exc, tomllib.TOMLDecodeError):
        if "digits" in str(exc):  # int("9" * 5000), which Python refuses
            most = sys.get_int_max_str_digits()
            return Message("syntax.number_too_long", {"most": most})
        return _what(str(exc))
    else:
        where = _TOML_WHERE.match(str(exc))
        said = where["said"] if where else str(exc)
        line = int(where["line"]) if where and where["line"] else None
        column = int(where["column"]) if where and where["column"] else 0
    what = _what(said)
    if line is None:
        return Message("syntax.at_end", {"what": what})
    return Message("syntax.at", {"line": line, "column": column, "what": what})


def _what(said: str) -> Message:
    for start, key in _SAID:
        if said.startswith(start):
            return Message(f"syntax.{key}")
    return Message("syntax.other", {"said": said})


class Unparsable(ValueError):
    """A text that is not JSON or TOML; ``reason`` says where and why."""

    def __init__(self, reason: Message) -> None:
        super().__init__(str(reason))
        self.reason = reason


def load(text: str, *, toml: bool = False) -> Any:
    """What a JSON text (a TOML one with ``toml``) holds, the byte-order mark some editors write
    first skipped; a text the parser refuses, or gives up on, raises :class:`Unparsable`."""
    text = text.removeprefix("\ufeff")
    try:
        return tomllib.loads(text) if toml else json.loads(text)
    except (ValueError, RecursionError) as exc:  # the parsers' errors, a number or a nesting too large
        raise Unparsable(syntax_reason(exc)) from None


def as_json(value: Any) -> str:
    """A value read from a file as the file spells it (``null``, ``true``, double quotes), not as
    Python would (``None``, ``True``); anything JSON has no word for, as Python shows it."""
    return json.dumps(value, ensure_ascii=False, default=repr)
