"""The server's log: a message repeated in a loop is written a few times a minute, then summed up."""

from __future__ import annotations

import logging
import sys

from py421.server.logs import Repeated


def record(message: str, exc: bool = False) -> logging.LogRecord:
    try:
        raise UnicodeDecodeError("utf-8", b"\xed", 0, 1, "invalid continuation byte")
    except UnicodeDecodeError:
        info = sys.exc_info() if exc else None
    return logging.LogRecord("uvicorn.error", logging.WARNING, __file__, 1, message, None, info)


def test_a_message_repeated_in_a_loop_is_let_through_a_few_times_a_minute_then_summed_up() -> None:
    now = [0.0]
    repeated = Repeated(most=3, seconds=60, clock=lambda: now[0])
    shown = [
        r.getMessage()
        for r in (record("Invalid HTTP request received.") for _ in range(10))
        if repeated.filter(r)
    ]
    assert shown == ["Invalid HTTP request received."] * 3
    assert repeated.filter(record("table ABCDE is left as it is"))  # another message: its own count
    now[0] = 61.0  # a minute later
    later = record("Invalid HTTP request received.")
    assert repeated.filter(later)
    assert later.getMessage() == "Invalid HTTP request received. (7 more like it left out of the log)"
    again = record("Invalid HTTP request received.")
    assert repeated.filter(again) and again.getMessage() == "Invalid HTTP request received."


def test_a_client_s_fault_is_one_line_with_no_traceback() -> None:
    repeated = Repeated()
    theirs = record("Invalid UTF-8 sequence received from client.", exc=True)
    assert repeated.filter(theirs) and theirs.exc_info is None
    ours = record("Exception in ASGI application", exc=True)
    assert repeated.filter(ours) and ours.exc_info is not None  # the server's own fault keeps its traceback
