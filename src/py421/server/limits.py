"""What one client may take of the server: every cap in one place, each a ``421 serve`` option.

docs/online.md lists them with their defaults; a test keeps the two in step.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .addresses import IPV6_SITE, address_key


@dataclass(frozen=True)
class Limits:
    seats: int = 20  # players at one online table, whatever the rules allow
    spectators: int = 100  # connections without a seat, per table
    connections_per_address: int = 50  # open connections from one address, HTTP and WebSocket
    tables_per_minute: int = 20  # tables one address may create in a minute
    # tables made from one address (an IPv6 /48) that may be waiting or in play at once
    tables_per_address: int = 50
    # codes naming no table one address may look up in a minute: codes tried at random find tables
    unknown_codes_per_minute: int = 30
    live_tables: int = 5_000  # tables waiting or in play, on this server
    waiting_minutes: int = 30  # a table nobody starts in this time is removed
    # another player hands a player's seat on (a phone watching takes a scorekeeper's) only once no
    # page has held it this long: a screen gone dark comes back, and anyone with the code may join
    hand_after_seconds: float = 120.0
    # A started table nobody acts at for this long is ended, pages open on it or not: two hours
    # leave friends time for a meal or a long talk between two throws.
    idle_minutes: int = 120
    # the steps of one game: then it is ended, abandoned (99 manches of 999 tokens, bots playing on,
    # would grow the server's memory without end; a long evening's game takes a few thousand)
    steps_per_table: int = 20_000
    request_seconds: float = 10.0  # for a whole HTTP request to arrive, headers and body
    keep_alive_seconds: float = 5.0  # an open HTTP connection's silence between two requests
    messages_per_second: float = 10.0  # WebSocket messages, per address (bursts up to twice that)
    # steps of finished games replayed from the database for one address (bursts up to six times
    # that): each lookup of a game not in memory replays it, 0.45 s for 20,000 steps
    replay_steps_per_second: float = 10_000.0
    queue: int = 64  # messages waiting to be sent to one connection before it is dropped
    send_seconds: float = 10.0  # one message not taken by the client in this time drops it
    body_bytes: int = 16_384  # an HTTP request's body
    message_bytes: int = 4_096  # a WebSocket message


REPLAY_BURST = 6  # an address's burst of steps replayed, in seconds of its rate


class TokenBucket:
    """``rate`` a second, at most ``burst`` at once: what a client may still spend (below nothing: what
    it owes, paid back at the rate)."""

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self.rate, self.burst, self.left = rate, burst, burst
        self.at = now  # when it was last looked at; None: never

    def level(self, now: float) -> float:
        """What is left at ``now``, refilled since it was last looked at."""
        if self.at is not None:
            self.left = min(self.burst, self.left + (now - self.at) * self.rate)
        self.at = now
        return self.left

    def spend(self, count: float, now: float) -> float:
        """Spend ``count``, below nothing if need be; what is left."""
        self.left = self.level(now) - count
        return self.left

    def owed(self) -> float:
        """The seconds until nothing is owed."""
        return max(0.0, -self.left) / self.rate

    def whole(self, now: float) -> bool:
        """Whether it is full again at ``now`` (a fresh one would be the same), without spending."""
        return self.at is None or self.left + (now - self.at) * self.rate >= self.burst


@dataclass
class AddressBook:
    """Per-address counts: open connections, a message budget, tables created lately.

    Every address is counted as :func:`~.addresses.address_key` says (an IPv6 /64 as one).
    Entries that hold nothing are forgotten (a message budget once whole again),
    so the book grows only with the addresses connected or active in the last
    minute.
    """

    limits: Limits
    connections: dict[str, int] = field(default_factory=dict)
    buckets: dict[str, TokenBucket] = field(default_factory=dict)
    created: dict[str, deque[float]] = field(default_factory=dict)
    misses: dict[str, deque[float]] = field(default_factory=dict)  # codes that named no table, by /48
    held: dict[str, set[str]] = field(default_factory=dict)  # codes of the tables a /48 made, live or not
    replays: dict[str, TokenBucket] = field(default_factory=dict)  # steps replayed lately, by address

    def holds(self, address: str, live: Callable[[str], bool]) -> int:
        """How many of the tables made from ``address``'s network are ``live`` (the others are let go)."""
        return self._still_live(address_key(address, IPV6_SITE), live)

    def _still_live(self, site: str, live: Callable[[str], bool]) -> int:
        codes = {c for c in self.held.get(site, ()) if live(c)}
        if codes:
            self.held[site] = codes
        else:
            self.held.pop(site, None)
        return len(codes)

    def made(self, address: str, code: str) -> None:
        """Count the table ``code`` among those made from ``address``'s network."""
        self.held.setdefault(address_key(address, IPV6_SITE), set()).add(code)

    def open(self, address: str) -> bool:
        """Count a new connection; False (and nothing counted) when the address has its fill."""
        address = address_key(address)
        n = self.connections.get(address, 0)
        if n >= self.limits.connections_per_address:
            return False
        self.connections[address] = n + 1
        return True

    def close(self, address: str) -> None:
        address = address_key(address)
        n = self.connections.get(address, 0) - 1
        if n > 0:
            self.connections[address] = n
        else:  # the message budget stays until it is whole again: reconnecting must not refill it
            self.connections.pop(address, None)

    def message(self, address: str, now: float | None = None) -> bool:
        """Spend one message of the address's budget; False when it is spent."""
        now = time.monotonic() if now is None else now
        address = address_key(address)
        rate = self.limits.messages_per_second
        bucket = self.buckets.setdefault(address, TokenBucket(rate, 2 * rate, now))
        if bucket.level(now) < 1:
            return False
        bucket.spend(1, now)
        return True

    def replaying(self, address: str, now: float | None = None) -> float | None:
        """None, or where the address has had its fill of steps replayed (:meth:`replayed`), the
        seconds until it may ask for a game to be replayed again."""
        now = time.monotonic() if now is None else now
        bucket = self._replays(address)
        return None if bucket.level(now) >= 0 else bucket.owed()

    def replayed(self, address: str, steps: int, now: float | None = None) -> None:
        """Count ``steps`` replayed for the address: counted once the replay is done (its length is
        then known), so the last one may take the address below nothing, which it then pays back."""
        self._replays(address).spend(steps, time.monotonic() if now is None else now)

    def _replays(self, address: str) -> TokenBucket:
        rate = self.limits.replay_steps_per_second
        return self.replays.setdefault(address_key(address), TokenBucket(rate, REPLAY_BURST * rate))

    def create(self, address: str, now: float | None = None) -> float | None:
        """Count a table created; None, or when the address has made its fill in the last minute, the
        seconds until it may make another (nothing counted)."""
        now = time.monotonic() if now is None else now
        recent = self.created.setdefault(address_key(address), deque())
        wait = _full_minute(recent, self.limits.tables_per_minute, now)
        if wait is None:
            recent.append(now)
        return wait

    def missed(self, address: str, now: float | None = None) -> None:
        """Count a table code the address looked up that names no table."""
        now = time.monotonic() if now is None else now
        self.misses.setdefault(address_key(address, IPV6_SITE), deque()).append(now)

    def guessing(self, address: str, now: float | None = None) -> float | None:
        """None, or where the address looked up its fill of codes naming no table in the last minute,
        the seconds until it may look up a table again."""
        now = time.monotonic() if now is None else now
        recent = self.misses.get(address_key(address, IPV6_SITE))
        return None if recent is None else _full_minute(recent, self.limits.unknown_codes_per_minute, now)

    def forget_idle(self, now: float | None = None, live: Callable[[str], bool] | None = None) -> None:
        """Let go of what holds nothing; ``live`` tells the tables still waiting or in play."""
        now = time.monotonic() if now is None else now
        if live is not None:
            for site in list(self.held):
                self._still_live(site, live)
        for address in [a for a, b in self.buckets.items() if a not in self.connections and b.whole(now)]:
            del self.buckets[address]
        for address in [a for a, b in self.replays.items() if b.whole(now)]:
            del self.replays[address]
        for address in [a for a, r in self.created.items() if not r or now - r[-1] >= 60]:
            del self.created[address]
        for address in [a for a, r in self.misses.items() if not r or now - r[-1] >= 60]:
            del self.misses[address]


def _full_minute(recent: deque[float], most: int, now: float) -> float | None:
    """``recent`` (times, oldest first) cut to the last minute; None where it holds fewer than
    ``most``, else the seconds until its oldest is a minute old."""
    while recent and now - recent[0] >= 60:
        recent.popleft()
    return 60 - (now - recent[0]) if len(recent) >= most else None
