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

A page elsewhere may also point its own name at this server's address (DNS
rebinding): its requests then come from the server's « own » origin. So the
server answers only for the names it is given (``--allowed-host``), its
addresses, and names no public site can hold (``localhost``, a name without
a dot, ``.local`` and the like): a request for another name is refused.
"""

from __future__ import annotations

import ipaddress
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


# Names of a home or local network that no public DNS answers for, so no other site can point there
LOCAL_SUFFIXES = (".local", ".localhost", ".lan", ".home", ".home.arpa", ".internal")
MISDIRECTED = 421  # HTTP's « Misdirected Request »: not a name this server answers for


class Hosts:
    """The names this server answers for, from the ``Host`` of each request: any with ``named`` None
    (an app made in-process), else its addresses, local names, and those named (``.example.org``:
    that name and every name under it)."""

    def __init__(self, named: Iterable[str] | None = None) -> None:
        self.any = named is None
        self.named = {n.strip().lower().rstrip(".") for n in named or ()}

    def answers_for(self, name: str) -> bool:
        """Whether ``name`` (a ``Host``'s, lower case, without port) is one this server answers for."""
        try:
            ipaddress.ip_address(name)
        except ValueError:
            pass
        else:
            return True
        if "." not in name or name.endswith(LOCAL_SUFFIXES) or name in self.named:
            return True
        return any(n.startswith(".") and (name.endswith(n) or name == n[1:]) for n in self.named)

    def refusal(self, scope: Scope) -> str | None:
        """Why a request is refused for its ``Host``, or None (none given: not a browser's)."""
        if self.any:
            return None
        given = next((v for k, v in scope.get("headers") or [] if k == b"host"), None)
        if given is None:
            return None
        text = given.decode("latin-1")
        found = _host_port(text, "http")
        if found is not None and self.answers_for(found[0]):
            return None
        name = found[0] if found is not None else text[:100]
        return (
            f"this server does not answer for the name {name!r} (a page elsewhere may point its own name "
            f"here); if it is this server's name, give it with --allowed-host {name}"
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
    """The headers on every answer; requests for a name this server does not answer for refused, and
    POSTs and WebSockets from other sites; POSTs JSON only."""

    def __init__(self, app: ASGIApp, origins: Origins, hosts: Hosts | None = None) -> None:
        self.app, self.origins, self.hosts = app, origins, hosts or Hosts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            why = self.origins.refusal(scope) or self.hosts.refusal(scope)
            if why is not None:
                await receive()  # the connection's opening, answered by a refusal (HTTP 403)
                if "websocket.http.response" not in scope.get("extensions", {}):
                    await send({"type": "websocket.close", "code": 1008})  # the server's own 403
                    return
                # an answer like any other: its headers, and why, as a POST would be told
                start, body = _error(403, "cross_site", why)
                start["headers"] = [*start["headers"], *HEADERS]
                await send({**start, "type": "websocket.http.response.start"})
                await send({**body, "type": "websocket.http.response.body"})
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

        misdirected = self.hosts.refusal(scope)
        if misdirected is not None:  # GETs too: a page elsewhere must not read this server's pages either
            for message in _error(MISDIRECTED, "cross_site", misdirected):
                await guarded(message)
            return
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
