"""What ``421 serve`` writes to its log: each message a few times a minute at most.

A client sending garbage in a loop (a WebSocket frame that is no UTF-8, bytes that are no HTTP)
made a line, or a whole traceback, each time: thousands a second from one client, filling the disk
or burying what matters. Beyond :data:`MOST` records of one message in a minute the rest are left
out, and the next one let through says how many were; a fault of the client's is one line, with no
traceback (the server answered it, and nothing of the server's failed).
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

MOST = 10  # records of one message (its template) a minute
WINDOW = 60.0
KINDS = 1_000  # messages told apart at once: past it the counts start again (none is lost for good)
# uvicorn's words for what a client sent wrong, logged with the traceback of its own decoding
CLIENTS_FAULT = ("Invalid UTF-8 sequence received from client",)


class Repeated(logging.Filter):
    """At most ``most`` records of one message each ``seconds``; the first let through after some
    were left out says how many."""

    def __init__(
        self, most: int = MOST, seconds: float = WINDOW, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.most, self.seconds, self.clock = most, seconds, clock
        self.seen: dict[tuple[str, int, str], list[float]] = {}  # [window's start, let through, left out]
        self.lock = threading.Lock()  # a handler's filters run in whichever thread logs

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if record.exc_info and message.startswith(CLIENTS_FAULT):
            record.exc_info, record.exc_text = None, None
        key = (record.name, record.levelno, message)
        now = self.clock()
        with self.lock:
            if key not in self.seen and len(self.seen) >= KINDS:
                self.seen.clear()
            counts = self.seen.setdefault(key, [now, 0, 0])
            if now - counts[0] >= self.seconds:
                counts[0], counts[1] = now, 0
            if counts[1] >= self.most:
                counts[2] += 1
                return False
            counts[1] += 1
            left_out, counts[2] = int(counts[2]), 0
        if left_out:
            record.msg = f"{message} ({left_out} more like it left out of the log)"
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging, every line (uvicorn's and py421's) through :class:`Repeated`."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"repeated": {"()": Repeated}}
    config["handlers"]["default"]["filters"] = ["repeated"]
    # py421's own loggers propagate to the root: the same handler, the same filter
    config["root"] = {"handlers": ["default"], "level": "WARNING"}
    return config
