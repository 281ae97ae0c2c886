"""How ``421 serve`` runs uvicorn: its options, and the HTTP protocol it speaks.

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


def uvicorn_options() -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` and ``uvicorn.Config`` besides the app and address."""
    return {
        "http": _http_protocol(),
        "log_level": "warning",
        # Views are small JSON: compressing each one costs more CPU than it saves on loopback or Wi-Fi.
        "ws_per_message_deflate": False,
        # A stop (Ctrl-C, SIGTERM) waits at most 5 s for open connections: every step is already saved.
        "timeout_graceful_shutdown": 5,
    }


def _http_protocol() -> type[asyncio.Protocol] | str:
    """uvicorn's httptools protocol, which frees an upgraded connection at once; uvicorn's own choice
    where httptools is missing (its h11 protocol leaves no cycle)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return "auto"

    class HttpProtocol(HttpToolsProtocol):
        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            self.parser = None  # type: ignore[assignment]  # the connection is the WebSocket's now

    return HttpProtocol
