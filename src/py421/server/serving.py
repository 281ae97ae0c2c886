"""How ``421 serve`` runs uvicorn: its options, and the HTTP protocol it speaks.

Connections are handled here before any request reaches the application,
since a connection costs a file descriptor whatever it sends:

- **Open connections per address**, HTTP and WebSocket together
  (``--max-connections-per-address``): one more is answered 503 in a fixed
  reply written straight to the socket once its request's head is in (or
  closed after two seconds without it), and closed; eight such are held at
  a time from an address, and more closed at once. Connections from a
  trusted proxy are not counted here (they carry many clients; the proxy
  caps its own, and WebSockets are counted again per client behind it).
- **A deadline for a whole request** (``--request-seconds``), from the first
  byte of the request, or from the connection's opening, to its last byte:
  a client that sends half a request, or nothing, is cut off (408). Its
  line and headers are at most 64 KB (431): a deadline bounds the time, not
  the memory. Between two requests a kept-alive connection may stay silent
  ``--keep-alive-seconds`` (uvicorn's own timer); an answer the client stops
  taking is cut off after ``send_seconds`` (10 s), and so is a WebSocket's
  (closing it would wait for what is written to leave, for good).

uvicorn's httptools protocol and its parser refer to each other. uvicorn
breaks that cycle when a connection closes, but not when it is upgraded to a
WebSocket: the protocol then hands the connection over and is dropped with its
parser, buffers and request, which only the cyclic garbage collector can
free. Every game played online opens a WebSocket, and the collector is kept
from walking the server's objects (:mod:`py421.server.collector`), so the
cycle is broken here, the moment the upgrade is done.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .addresses import TrustedProxies, address_key
from .browsers import HEADERS
from .limits import Limits, TokenBucket


def _fixed_answer(status: bytes, body: bytes, extra: bytes = b"") -> bytes:
    head = b"".join(name + b": " + value + b"\r\n" for name, value in HEADERS)
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\ncontent-length: "
        + str(len(body)).encode() + b"\r\nconnection: close\r\n" + extra + head + b"\r\n" + body
    )  # fmt: skip


class Doorman:
    """The connections open from each address (by :func:`~.addresses.address_key`), by transport."""

    def __init__(self, most: int, proxies: TrustedProxies) -> None:
        self.most, self.proxies = most, proxies
        self.open: dict[str, int] = {}
        self._keys: dict[asyncio.BaseTransport, str] = {}
        self.refusing: dict[str, int] = {}  # by address, the connections over its cap held to be answered
        self._refused: dict[asyncio.BaseTransport, str] = {}
        message = f"at most {most} connections from one address; close some tabs, or try again in a moment"
        body = (
            b'{"detail":{"error":"too_many_connections","message":"' + message.encode() + b'","lang":"en"}}'
        )
        self.refusal = _fixed_answer(b"503 Service Unavailable", body, b"retry-after: 10\r\n")

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count a new connection; False (nothing counted) when its address has its fill."""
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else ""
        if not host or self.proxies.trusts(host):
            return True
        key = address_key(host)
        n = self.open.get(key, 0)
        if n >= self.most:
            return False
        self.open[key] = n + 1
        self._keys[transport] = key
        return True

    def hold(self, transport: asyncio.BaseTransport) -> bool:
        """Count a connection over its address's cap, held to be answered; False (nothing counted)
        when the address has REFUSED_HELD held already: each holds a file descriptor meanwhile."""
        peer = transport.get_extra_info("peername")
        key = address_key(peer[0] if isinstance(peer, tuple) and peer else "")
        n = self.refusing.get(key, 0)
        if n >= REFUSED_HELD:
            return False
        self.refusing[key] = n + 1
        self._refused[transport] = key
        return True

    def leave(self, transport: asyncio.BaseTransport) -> None:
        """The connection is closed (once or more: only its first call counts)."""
        for counts, keys in ((self.open, self._keys), (self.refusing, self._refused)):
            key = keys.pop(transport, None)
            if key is None:
                continue
            n = counts[key] - 1
            if n:
                counts[key] = n
            else:
                del counts[key]


HEAD_BYTES = 65_536  # a request's line and headers, at most (a browser sends a few KB)
# Requests one connection may send ahead of their answers (HTTP pipelining, which no browser does):
# uvicorn reads on while they wait, and would queue every one (one client filled gigabytes).
PIPELINED_MOST = 64
# WebSocket pings and pongs (control frames) a client may send: uvicorn answers them itself, past
# the application's message budget. A browser sends none; other clients one every 20 s or so.
CONTROLS_PER_SECOND = 2
CONTROL_BURST = 20
# The frames of one WebSocket, of any kind, parsed at most (past them the socket is not read for a
# while): the application's budget counts whole messages only, at most 10 a second an address.
FRAMES_PER_SECOND = 50
FRAME_BURST = 100
MOST_PIECES = 64  # the frames of one message (a browser sends each in one): more close the connection
FEED_BYTES = 2_048  # what a WebSocket's parser is given at a time
REFUSED_SECONDS = 2.0  # a connection over the cap, to send the head of its request
REFUSED_HELD = 8  # connections over the cap held at once for that, by address; more are closed at once
_TOO_SLOW = _fixed_answer(
    b"408 Request Timeout",
    b'{"detail":{"error":"malformed","message":"the request did not arrive whole in time","lang":"en"}}',
)
_PIPELINED = _fixed_answer(
    b"429 Too Many Requests",
    b'{"detail":{"error":"rate_limited","message":"at most 64 requests are sent ahead of their answers",'
    b'"lang":"en"}}',
)
_UNREADABLE = _fixed_answer(
    b"400 Bad Request",
    b'{"detail":{"error":"malformed","message":"not an HTTP request this server can read","lang":"en"}}',
)
_TOO_LARGE = _fixed_answer(
    b"431 Request Header Fields Too Large",
    b'{"detail":{"error":"too_large","message":"a request\'s line and headers are at most 64 KB",'
    b'"lang":"en"}}',
)


def uvicorn_options(limits: Limits | None = None, proxies: TrustedProxies | None = None) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` and ``uvicorn.Config`` besides the app and address."""
    limits = limits or Limits()
    doorman = Doorman(limits.connections_per_address, proxies or TrustedProxies())
    http, ws = _protocols(doorman, limits.request_seconds, limits.send_seconds)
    return {
        "http": http,
        "ws": ws,
        "log_level": "warning",
        # No access log, whatever the level: an old client's URL may carry a seat's token.
        "access_log": False,
        # Views are small JSON: compressing each one costs more CPU than it saves on loopback or Wi-Fi.
        "ws_per_message_deflate": False,
        # A message is at most 4 KB (refused with "too_large", the connection kept): one far beyond
        # closes the connection before it is read whole.
        "ws_max_size": 16 * limits.message_bytes,
        # A stop (Ctrl-C, SIGTERM) waits at most 5 s for open connections: every step is already saved.
        "timeout_graceful_shutdown": 5,
        "timeout_keep_alive": limits.keep_alive_seconds,
        # Forwarded addresses are read by the application, from the proxies named only (.addresses);
        # uvicorn's own reading trusts 127.0.0.1 unasked.
        "proxy_headers": False,
        "server_header": False,
    }


def _protocols(
    doorman: Doorman, request_seconds: float, send_seconds: float
) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """uvicorn's httptools and WebSocket protocols, counting connections and timing requests."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.frames import Frame, Opcode

    CONTROLS = (Opcode.PING, Opcode.PONG)

    class HttpProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None  # the request's, or a refused connection's
        _stalled: asyncio.TimerHandle | None = None  # an answer the client does not take
        _refused: bytearray | None = None  # over the cap: the request's head, until it is answered
        _head = 0  # bytes of the request's line and headers so far; -1 once they are whole
        _tail = b""  # the last bytes of the head so far: its end may come split over two reads
        _running: Any = None  # the request whose answer is under way

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if doorman.admit(transport):
                self._arm()
                return
            # Over the cap: the fixed answer once the request's head is in (a client answered before
            # it asks may not read it), within a short hold; then the connection is closed. A few
            # at a time: a flood of connections that send nothing would hold a descriptor each.
            if not doorman.hold(transport):
                transport.abort()
                return
            self._refused = bytearray()
            self._deadline = self.loop.call_later(min(request_seconds, REFUSED_SECONDS), transport.close)

        def _refuse(self, data: bytes) -> None:
            assert self._refused is not None
            if self._deadline is None:
                return  # answered: what follows is dropped
            self._refused += data
            if b"\r\n\r\n" in self._refused or len(self._refused) > HEAD_BYTES:
                self.transport.write(doorman.refusal)
                self._disarm()
                # a moment before closing: a socket closed with unread bytes resets, losing the answer
                self.loop.call_later(0.5, self.transport.close)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._stalled is not None:
                self._stalled.cancel()
            doorman.leave(self.transport)
            self._drop_answers()  # a client gone (a reset) with pipelined answers still to write
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused is not None:
                self._refuse(data)
                return
            if self._deadline is None:  # the first bytes of a request (or bytes between two)
                self._arm()
            if self._head >= 0:
                # the head's bytes only: a read that holds its end and then a body counts up to the end
                joined = self._tail + data
                end = joined.find(b"\r\n\r\n")
                self._head += len(data) if end < 0 else max(0, end + 4 - len(self._tail))
                self._tail = joined[-3:]
                if self._head > HEAD_BYTES:  # a request line or headers without end: memory, not time
                    self._answer_and_close(_TOO_LARGE)
                    return
            super().data_received(data)
            if len(self.pipeline) > PIPELINED_MOST and not self.transport.is_closing():
                self._drop_answers()  # those queued are never answered: their client is let go
                self.transport.write(_PIPELINED)
                self.transport.close()

        def send_400_response(self, msg: str) -> None:
            # uvicorn's own is plain text, without the headers every other answer carries
            self._disarm()
            self._drop_answers()
            self.transport.write(_UNREADABLE)
            self.transport.close()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head, self._tail = 0, b""
            if self._deadline is None:
                self._arm()

        def on_headers_complete(self) -> None:
            self._head = -1
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._disarm()  # arrived whole: the answer may take its time

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            super().handle_websocket_upgrade()
            self.parser = None  # type: ignore[assignment]  # the connection is the WebSocket's now

        def pause_writing(self) -> None:
            super().pause_writing()
            if self._stalled is None:  # the client stopped reading: it has send_seconds to start again
                self._stalled = self.loop.call_later(send_seconds, self._let_go)

        def resume_writing(self) -> None:
            super().resume_writing()
            if self._stalled is not None:
                self._stalled.cancel()
                self._stalled = None

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(request_seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            self._answer_and_close(_TOO_SLOW)

        def _answer_and_close(self, answer: bytes) -> None:
            """A fixed refusal, when none of ours is on its way, and the connection closed."""
            self._disarm()
            if self.transport.is_closing():
                return
            if self.cycle is None or self.cycle.response_complete:
                self.transport.write(answer)
            self._drop_answers()
            self.transport.close()

        def _let_go(self) -> None:
            """The client took nothing for send_seconds: the connection is dropped, answers and all."""
            self._stalled = None
            self._drop_answers()
            self.transport.abort()

        def _start_asgi_task(self, cycle: Any, app: Any) -> None:
            self._running = cycle  # uvicorn keeps only the last request's (pipelined ones queue)
            super()._start_asgi_task(cycle, app)

        def _drop_answers(self) -> None:
            """Every answer under way or queued (pipelined requests) is told the client is gone, as
            uvicorn tells the last request's only: none writes to the closed connection."""
            for cycle in (self._running, self.cycle, *(c for c, _ in self.pipeline)):
                if cycle is not None and not cycle.response_complete:
                    cycle.disconnected = True
                    cycle.message_event.set()
            self.pipeline.clear()

    class WebSocketProtocol(WebSocketsSansIOProtocol):
        _stalled: asyncio.TimerHandle | None = None  # messages the client does not take
        # Read but not parsed yet: the application has a message to take first, or the client is past
        # its frames (the socket is not read meanwhile: a flood waits in the client's own socket).
        _held = b""
        _waking: asyncio.TimerHandle | None = None  # past its frames: when it is read again

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            self._controls = TokenBucket(CONTROLS_PER_SECOND, CONTROL_BURST)
            self._frames = TokenBucket(FRAMES_PER_SECOND, FRAME_BURST)

        def data_received(self, data: bytes) -> None:
            self._held += data
            self._feed()

        def _feed(self) -> None:
            """Parse what is held, a slice at a time: uvicorn parses a whole read (up to 256 KB, some
            40,000 empty frames) before it pauses, queueing every message in it. A slice is parsed
            only once the application has taken the messages before it, and while the client is
            within its frames."""
            while self._held and not self.transport.is_closing():
                if self._waking is not None or self.read_paused:
                    self.transport.pause_reading()  # uvicorn reads again once the app takes its message
                    return
                piece, self._held = self._held[:FEED_BYTES], self._held[FEED_BYTES:]
                super().data_received(piece)

        async def receive(self) -> Any:
            message = await super().receive()
            if self._held and not self.read_paused and self._waking is None:
                self._feed()
            return message

        def handle_events(self) -> None:
            now = self.loop.time()
            frames = [e for e in self.conn.events if isinstance(e, Frame)]
            controls = sum(1 for e in frames if e.opcode in CONTROLS)
            if controls and self._controls.spend(controls, now) < 0:
                self.conn.data_to_send()  # the parser answered this slice's pings as it read them: not sent
                self._fail(1008, f"at most {CONTROLS_PER_SECOND} pings a second")
                return
            super().handle_events()
            if len(self.frames) > MOST_PIECES:  # the pieces of the message under way (empty ones too)
                self._fail(1009, f"a message is sent in {MOST_PIECES} frames at most")
                return
            if frames and self._frames.spend(len(frames), now) < 0 and self._waking is None:
                self._waking = self.loop.call_later(self._frames.owed(), self._wake)

        def _wake(self) -> None:
            self._waking = None
            if self.transport.is_closing():
                return
            if not self.read_paused:
                self.transport.resume_reading()
            self._feed()

        def _fail(self, code: int, reason: str) -> None:
            self.conn.fail(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._stalled is not None:
                self._stalled.cancel()
            if self._waking is not None:
                self._waking.cancel()
            doorman.leave(self.transport)
            super().connection_lost(exc)

        def pause_writing(self) -> None:
            super().pause_writing()
            # The client stopped reading: it has send_seconds to start again. Then the connection is
            # cut off, not closed: a close waits for what is written to leave, which it never would.
            if self._stalled is None:
                self._stalled = self.loop.call_later(send_seconds, self.transport.abort)

        def resume_writing(self) -> None:
            super().resume_writing()
            if self._stalled is not None:
                self._stalled.cancel()
                self._stalled = None

    return HttpProtocol, WebSocketProtocol
