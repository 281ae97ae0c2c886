"""How ``421 serve`` runs uvicorn: its options, and the HTTP protocol it speaks.

Connections are handled here before any request reaches the application,
since a connection costs a file descriptor whatever it sends:

- **Open connections per address**, HTTP and WebSocket together
  (``--max-connections-per-address``): one more is answered 503 in a fixed
  reply written straight to the socket, and closed. Connections from a
  trusted proxy are not counted here (they carry many clients; the proxy
  caps its own, and WebSockets are counted again per client behind it).
- **A deadline for a whole request** (``--request-seconds``), from the first
  byte of the request, or from the connection's opening, to its last byte:
  a client that sends half a request, or nothing, is cut off (408). Between
  two requests a kept-alive connection may stay silent
  ``--keep-alive-seconds`` (uvicorn's own timer).

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
from .limits import Limits


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
        message = f"at most {most} connections from one address; close some tabs, or try again in a moment"
        body = b'{"detail":{"error":"too_many_connections","message":"' + message.encode() + b'"}}'
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

    def leave(self, transport: asyncio.BaseTransport) -> None:
        """The connection is closed (once or more: only its first call counts)."""
        key = self._keys.pop(transport, None)
        if key is None:
            return
        n = self.open[key] - 1
        if n:
            self.open[key] = n
        else:
            del self.open[key]


HEAD_BYTES = 16_384  # read of a refused connection's request before its answer, at most
_TOO_SLOW = _fixed_answer(
    b"408 Request Timeout",
    b'{"detail":{"error":"malformed","message":"the request did not arrive whole in time"}}',
)


def uvicorn_options(limits: Limits | None = None, proxies: TrustedProxies | None = None) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` and ``uvicorn.Config`` besides the app and address."""
    limits = limits or Limits()
    doorman = Doorman(limits.connections_per_address, proxies or TrustedProxies())
    http, ws = _protocols(doorman, limits.request_seconds)
    return {
        "http": http,
        "ws": ws,
        "log_level": "warning",
        # Views are small JSON: compressing each one costs more CPU than it saves on loopback or Wi-Fi.
        "ws_per_message_deflate": False,
        # A stop (Ctrl-C, SIGTERM) waits at most 5 s for open connections: every step is already saved.
        "timeout_graceful_shutdown": 5,
        "timeout_keep_alive": limits.keep_alive_seconds,
        # Forwarded addresses are read by the application, from the proxies named only (.addresses);
        # uvicorn's own reading trusts 127.0.0.1 unasked.
        "proxy_headers": False,
        "server_header": False,
    }


def _protocols(
    doorman: Doorman, request_seconds: float
) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """uvicorn's httptools and WebSocket protocols, counting connections and timing requests."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class HttpProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _refused: bytearray | None = None  # over the cap: the request's head, until it is answered

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if doorman.admit(transport):
                self._arm()
                return
            # Over the cap: the fixed answer once the request's head is in (a client answered before
            # it asks may not read it), then what it sends is dropped until it closes, or for a
            # second (a socket closed with unread bytes resets, and the answer would be lost).
            self._refused = bytearray()
            self._deadline = self.loop.call_later(request_seconds, transport.close)

        def _refuse(self, data: bytes) -> None:
            assert self._refused is not None
            if self._deadline is None:
                return  # answered: dropped
            self._refused += data
            if b"\r\n\r\n" in self._refused or len(self._refused) > HEAD_BYTES:
                self.transport.write(doorman.refusal)
                self._disarm()
                self.loop.call_later(1.0, self.transport.close)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            doorman.leave(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused is not None:
                self._refuse(data)
                return
            if self._deadline is None:  # the first bytes of a request (or bytes between two)
                self._arm()
            super().data_received(data)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._deadline is None:
                self._arm()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._disarm()  # arrived whole: the answer may take its time

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            super().handle_websocket_upgrade()
            self.parser = None  # type: ignore[assignment]  # the connection is the WebSocket's now

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(request_seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self.cycle is None or self.cycle.response_complete:  # nothing of ours on its way
                self.transport.write(_TOO_SLOW)
            self.transport.close()

    class WebSocketProtocol(WebSocketsSansIOProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            doorman.leave(self.transport)
            super().connection_lost(exc)

    return HttpProtocol, WebSocketProtocol
