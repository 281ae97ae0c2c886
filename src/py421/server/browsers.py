"""What browsers are told, and what another site may not do through a visitor's browser.

Every answer carries a Content-Security-Policy without inline script (the
page is modules from ``/static``; a name typed by a stranger can never run as
code), may not be framed, is not sniffed for another type, and sends no
Referer (a table's link holds its code). A browser sends ``Origin`` with
every POST and every WebSocket: one from another site (not this server, nor
an ``--allowed-origin``) is refused, so a page elsewhere cannot create a
table, take a seat or play for a visitor. A client that sends no ``Origin``
is not a browser (a script, ``curl``) and is served. POST bodies are JSON
only: a browser sends ``text/plain`` or a form to another site without asking
first, ``application/json`` never (a POST without a body needs no type).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    # 'wasm-unsafe-eval': the page's worker compiles Pyodide's WebAssembly (never a string of script);
    # base-uri 'self': index.html's <base> names the app's folder, on this site only
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),  # frame-ancestors, for browsers older than it
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int] | None:
    """``host[:port]`` as a pair, the port the scheme's own when it is not written."""
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower(), port if port is not None else DEFAULT_PORTS.get(scheme, 80)


def _origin(text: str) -> tuple[str, int] | None:
    try:
        parts = urlsplit(text.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return _host_port(parts.netloc, parts.scheme)


class Origins:
    """This server's own origin (its ``Host``, by the scheme it was reached by), and those allowed."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = {found for text in allowed if (found := _origin(text)) is not None}

    def refusal(self, scope: Scope) -> str | None:
        """Why a request with this ``Origin`` is refused, or None: no ``Origin`` (not a browser),
        this server's own, or an allowed one."""
        headers = scope.get("headers") or []
        given = next((v for k, v in headers if k == b"origin"), None)
        if given is None:
            return None
        origin_text = given.decode("latin-1")
        origin = _origin(origin_text)
        host = next((v for k, v in headers if k == b"host"), b"").decode("latin-1")
        scheme = str(scope.get("scheme", "http")).replace("ws", "http")
        own = _host_port(host, scheme) if host else None
        if origin is not None and (origin == own or origin in self.allowed):
            return None
        here = f"{scheme}://{host}" if host else "this server"
        return (
            f"a request from another site ({origin_text[:100]!r}) is refused: this server is {here}; "
            "if a proxy serves it under that address, name the proxy with --trusted-proxy (it then tells "
            "the scheme) or the address with --allowed-origin"
        )


def _error(status: int, error: str, message: str) -> tuple[Message, Message]:
    import json

    body = json.dumps({"detail": {"error": error, "message": message, "lang": "en"}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": body}


def _json_body(scope: Scope) -> bool:
    """Whether a request's body is declared JSON, or there is none (a start, a rematch: no form
    sends nothing with no type, and without a body there is nothing to forge)."""
    headers = dict(scope.get("headers") or [])
    kind = headers.get(b"content-type")
    if kind is None:
        return headers.get(b"content-length", b"0").strip() == b"0" and b"transfer-encoding" not in headers
    return bool(kind.split(b";", 1)[0].strip().lower() == b"application/json")


class BrowserGuard:
    """The headers on every answer; POSTs and WebSockets from other sites refused, POSTs JSON only."""

    def __init__(self, app: ASGIApp, origins: Origins) -> None:
        self.app, self.origins = app, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if self.origins.refusal(scope) is not None:
                await receive()  # the connection's opening, answered by a refusal (HTTP 403)
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        if scope["method"] not in SAFE_METHODS:
            why = self.origins.refusal(scope)
            if why is not None:
                for message in _error(403, "cross_site", why):
                    await guarded(message)
                return
            if not _json_body(scope):
                said = "send the body as JSON, with Content-Type: application/json"
                for message in _error(415, "malformed", said):
                    await guarded(message)
                return
        await self.app(scope, receive, guarded)
