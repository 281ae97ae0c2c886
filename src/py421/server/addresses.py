"""Who a client is: the address its caps are counted under, and proxies trusted only when named.

A client behind a reverse proxy reaches the server from the proxy's address;
the proxy appends the client's to ``X-Forwarded-For`` (nginx, HAProxy, Caddy
and Traefik all do). Anyone can send that header, so it is read only from
the addresses given with ``421 serve --trusted-proxy`` (none by default), and
then from the right: the first address that is not itself a trusted proxy is
the client. ``Forwarded`` (RFC 7239) is never read: a proxy that writes
``X-Forwarded-For`` passes a client's own ``Forwarded`` through untouched,
and a header the proxy does not write is the client's to choose.

An IPv6 client usually holds a whole /64 (a phone's network hands one out,
and picking another address in it is free), so every per-address cap counts
an IPv6 /64 as one address. A home or an office is often given many /64s
(a /56, or a /48), each as free to use: the caps that a client would beat by
spreading over them count a /48 as one (the tables it keeps waiting or in
play, the codes naming no table it looks up, its place in the line of solves).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: `421 site` reads the caps' defaults with no server package installed
    from starlette.types import ASGIApp, Receive, Scope, Send

IPV6_PREFIX = 64  # the part of an IPv6 address that one subscriber holds
IPV6_SITE = 48  # the most of the IPv6 addresses that one site is given


@lru_cache(maxsize=4096)
def address_key(host: str, prefix: int = IPV6_PREFIX) -> str:
    """The address a client's caps are counted under: an IPv4 address as it is (one mapped into
    IPv6 too), an IPv6 address's network of ``prefix`` bits (its /64); anything else (a test
    client's name) as it is."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])  # a zone (fe80::1%eth0) is no part of it
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, prefix), strict=False))
    return str(ip)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TrustedProxies:
    """The proxies whose word on the client's address is taken (``--trusted-proxy``: addresses or
    networks such as ``10.0.0.0/8``)."""

    def __init__(self, networks: Sequence[Network] = ()) -> None:
        self.networks = tuple(networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, host: str) -> bool:
        if not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip.version == n.version and ip in n for n in self.networks)

    def client(self, peer: str, headers: Sequence[tuple[bytes, bytes]]) -> tuple[str, str | None]:
        """The client's address, and the scheme the proxy says it was reached by (None: not said).

        From a peer that is not trusted, its own address, whatever the headers say.
        """
        if not self.trusts(peer):
            return peer, None
        chain: list[bytes] = []
        proto: bytes | None = None
        for name, value in headers:
            if name == b"x-forwarded-for":
                chain.append(value)
            elif name == b"x-forwarded-proto":
                proto = value
        hops = _split(b",".join(chain))
        client = peer
        for hop in reversed(hops):  # from the nearest proxy outwards
            client = hop
            if not self.trusts(hop):
                break
        scheme = proto.decode("latin-1").strip().lower() if proto else None
        return client, scheme if scheme in ("http", "https") else None


def _split(value: bytes) -> list[str]:
    return [_bare(part.decode("latin-1")) for part in value.split(b",") if part.strip()]


def _bare(text: str) -> str:
    """An address as a proxy writes it: spaces, brackets and a port taken off."""
    text = text.strip()
    if text.startswith("["):  # [2001:db8::1]:4711
        return text[1:].split("]", 1)[0]
    if text.count(":") == 1:  # 192.0.2.1:4711
        return text.split(":", 1)[0]
    return text


class ForwardedClient:
    """Puts the client a trusted proxy names in the request's ``client`` (and its scheme), so that
    every cap counts real clients; from anyone else the headers are left unread."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app, self.proxies = app, proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.proxies and scope.get("client"):
            peer = scope["client"][0]
            client, scheme = self.proxies.client(peer, scope.get("headers") or [])
            if client != peer or scheme is not None:
                scope = dict(scope)
                scope["client"] = (client, 0)
                if scheme is not None:
                    secure = scheme == "https"
                    if scope["type"] == "websocket":
                        scope["scheme"] = "wss" if secure else "ws"
                    else:
                        scope["scheme"] = scheme
        await self.app(scope, receive, send)
