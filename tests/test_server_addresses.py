"""Who a client is, and which site a browser's request comes from: the server's rules, one by one."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from py421.server.addresses import TrustedProxies, address_key
from py421.server.browsers import Origins
from py421.server.limits import AddressBook, Limits


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),  # the same subscriber
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),  # the next one
        ("::ffff:203.0.113.7", "203.0.113.7"),  # IPv4 mapped into IPv6 is the IPv4 address
        ("fe80::1%eth0", "fe80::/64"),
        ("testclient", "testclient"),
    ],
)
def test_an_ipv6_64_counts_as_one_address(host: str, key: str) -> None:
    assert address_key(host) == key


def test_every_per_address_cap_counts_a_64_as_one_address() -> None:
    book = AddressBook(Limits(tables_per_minute=2, connections_per_address=2))
    assert book.create("2001:db8::1", now=0) is None
    assert book.create("2001:db8::2", now=1) is None
    assert book.create("2001:db8::3", now=2) == 58  # seconds until a minute after the first
    assert book.create("2001:db8:0:1::1", now=2) is None  # another /64
    assert book.open("2001:db8::a") and book.open("2001:db8::b")
    assert not book.open("2001:db8::c")


def proxies(*networks: str) -> TrustedProxies:
    return TrustedProxies([ipaddress.ip_network(n) for n in networks])


def test_forwarded_headers_are_read_only_from_a_trusted_proxy() -> None:
    forged = [(b"x-forwarded-for", b"198.51.100.1"), (b"x-forwarded-proto", b"https")]
    assert TrustedProxies().client("127.0.0.1", forged) == ("127.0.0.1", None)  # nobody by default
    assert proxies("10.0.0.0/8").client("203.0.113.9", forged) == ("203.0.113.9", None)
    assert proxies("10.0.0.0/8").client("10.1.2.3", forged) == ("198.51.100.1", "https")


def test_the_client_is_the_nearest_address_not_itself_a_trusted_proxy() -> None:
    trusted = proxies("10.0.0.0/8", "::1/128")
    # a client that wrote its own X-Forwarded-For: the proxy appended the address it saw
    chain = [(b"x-forwarded-for", b"1.2.3.4, 198.51.100.7, 10.0.0.2")]
    assert trusted.client("10.0.0.1", chain)[0] == "198.51.100.7"
    assert trusted.client("::1", [(b"x-forwarded-for", b"10.0.0.5, 10.0.0.6")])[0] == "10.0.0.5"
    ported = [(b"x-forwarded-for", b"192.0.2.60, [2001:db8::17]:4711"), (b"x-forwarded-proto", b"https")]
    assert trusted.client("10.0.0.1", ported) == ("2001:db8::17", "https")
    assert trusted.client("10.0.0.1", [(b"x-forwarded-proto", b"gopher")]) == ("10.0.0.1", None)


def test_a_forwarded_header_the_proxy_does_not_write_is_never_believed() -> None:
    """nginx appends to X-Forwarded-For and passes a client's own Forwarded through: read, it let a
    client behind the documented proxy pick any address and escape every cap."""
    sent = [(b"forwarded", b"for=6.6.6.6"), (b"x-forwarded-for", b"6.6.6.6, 198.51.100.9")]
    assert proxies("127.0.0.1/32").client("127.0.0.1", sent) == ("198.51.100.9", None)


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "refused"),
    [
        (None, "421.example", "https", False),  # no Origin: not a browser
        ("https://421.example", "421.example", "https", False),
        ("https://421.example", "421.example:443", "https", False),
        ("http://192.168.1.5:8421", "192.168.1.5:8421", "http", False),
        ("https://evil.example", "421.example", "https", True),
        ("https://421.example.evil.example", "421.example", "https", True),
        ("https://421.example:8443", "421.example", "https", True),  # another port, another site
        ("https://421.example", "421.example", "http", True),  # TLS at a proxy py421 was not told of
        ("null", "421.example", "https", True),  # a sandboxed frame or a file
        ("https://friends.example", "421.example", "https", False),  # allowed by name
    ],
)
def test_a_browser_request_from_another_site_is_refused(
    origin: str | None, host: str, scheme: str, refused: bool
) -> None:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    why = Origins(["https://friends.example"]).refusal({"headers": headers, "scheme": scheme})
    assert (why is not None) == refused
    if why is not None:
        assert "--trusted-proxy" in why and "--allowed-origin" in why  # what to do, if it is yours


def test_a_player_seated_at_a_table_still_reaches_it_while_their_address_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One phone trying codes at random stopped every phone behind the same address (a bar's Wi-Fi,
    a mobile network's shared address) from reaching its own table: their pages lost the table, and
    their seats looked gone. A token that holds a seat at the table is no guess."""
    from fastapi.testclient import TestClient

    # the guessing counted at one moment: the minute never runs out, however slow the machine
    missed, guessing = AddressBook.missed, AddressBook.guessing
    monkeypatch.setattr(AddressBook, "missed", lambda self, address, now=None: missed(self, address, 0.0))
    monkeypatch.setattr(AddressBook, "guessing", lambda self, address, now=None: guessing(self, address, 1.0))

    from py421.server.app import create_app

    from .server_helpers import create, start

    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(unknown_codes_per_minute=3))
    with TestClient(app) as client:
        created = create(client, seats=["human", "human"])
        code, alice = created["code"], created["token"]
        bob = client.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()["token"]
        for guess in ("AAAAA", "BBBBB", "CCCCC"):  # someone else at the same address
            assert client.get(f"/api/tables/{guess}").status_code == 404
        assert client.get(f"/api/tables/{code}").status_code == 429  # no token: it could be a guess
        seen = client.get(f"/api/tables/{code}", headers={"Authorization": f"Bearer {bob}"})
        assert seen.status_code == 200, seen.text  # as the page asks when it holds a seat
        start(client, code, alice)  # her token holds seat 0 there
        with client.websocket_connect(f"/ws/{code}?token={bob}") as ws:
            said = ws.receive_json()
        assert said["type"] == "table" and said["view"]["seat"] == 1, said
        with client.websocket_connect(f"/ws/{code}?token=not-a-seat-s-token") as ws:
            assert ws.receive_json()["error"] == "rate_limited"  # a token of no seat is no better
        other = create(client, seats=["human", "human"])["code"]
        refused = client.post(f"/api/tables/{other}/start", headers={"Authorization": f"Bearer {alice}"})
        assert refused.status_code == 429  # her token holds no seat at that table


def test_an_address_that_guesses_table_codes_is_stopped_for_the_rest_of_the_minute(tmp_path: Path) -> None:
    """Table codes looked up at random, a thousand a second, found 4 of 5,000 tables in 3 seconds, and
    their free seats were taken. Each code that names no table counts; past the budget, the address's
    lookups are refused (429, with Retry-After), a real table's too, until a minute after the first."""
    from fastapi.testclient import TestClient

    from py421.server.app import create_app

    from .server_helpers import create

    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(unknown_codes_per_minute=3))
    with TestClient(app) as client:
        code = create(client, seats=["human", "human"])["code"]
        assert client.get(f"/api/tables/{code}").status_code == 200
        for guess in ("AAAAA", "BBBBB", "CCCCC"):
            assert client.get(f"/api/tables/{guess}").status_code == 404
        refused = client.get(f"/api/tables/{code}")
        assert refused.status_code == 429 and 0 < float(refused.headers["retry-after"]) <= 60
        assert refused.json()["detail"]["error"] == "rate_limited"
        assert "table codes" in refused.json()["detail"]["message"]
        assert client.post(f"/api/tables/{code}/join", json={"name": "Squatter"}).status_code == 429
        with client.websocket_connect(f"/ws/{code}") as ws:
            said = ws.receive_json()
        assert said["type"] == "error" and said["error"] == "rate_limited"
    book = AddressBook(Limits(unknown_codes_per_minute=2))
    book.missed("203.0.113.5", now=0)
    book.missed("203.0.113.5", now=10)
    assert book.guessing("203.0.113.5", now=20) == 40
    assert book.guessing("203.0.113.6", now=20) is None  # another address
    assert book.guessing("203.0.113.5", now=60) is None  # a minute after the first
    # 200 /64s of one /48 guessed 5,800 codes in 3 seconds: a /48 is one guesser
    book.missed("2001:db8:1:1::1", now=0)
    book.missed("2001:db8:1:2::1", now=1)
    assert book.guessing("2001:db8:1:3::1", now=2) == 58
    assert book.guessing("2001:db8:2::1", now=2) is None  # another network


def test_a_rematch_is_a_new_table_and_counts_against_the_caps(tmp_path: Path) -> None:
    """A rematch made a table past --max-tables and past the address's tables a minute."""
    from fastapi.testclient import TestClient

    from py421.server.app import create_app

    from .server_helpers import create, play_to_the_end, start

    def finished(client: TestClient) -> tuple[str, str]:
        """A table played to its end by its creator (as fast as a test plays: the servers below have no
        message budget in the way): its code and the creator's token."""
        created = create(client, rules="classic-11")
        code, token = created["code"], created["token"]
        with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
            ws.receive_json()
            start(client, code, token)
            play_to_the_end(ws)
        return code, token

    app = create_app(
        f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(live_tables=1, messages_per_second=1000)
    )
    with TestClient(app) as client:
        code, token = finished(client)
        create(client, seats=["human", "human"])  # the server's one live table
        bearer = {"Authorization": f"Bearer {token}"}
        full = client.post(f"/api/tables/{code}/rematch", headers=bearer)
        assert full.status_code == 503 and full.json()["detail"]["error"] == "too_many_tables"
    app = create_app(
        f"sqlite:///{tmp_path}/t.db",
        bot_delay=0,
        limits=Limits(tables_per_minute=1, messages_per_second=1000),
    )
    with TestClient(app) as client:
        code, token = finished(client)
        again = client.post(f"/api/tables/{code}/rematch", headers={"Authorization": f"Bearer {token}"})
        assert again.status_code == 429 and again.json()["detail"]["error"] == "too_many_tables"


@pytest.mark.asyncio
async def test_one_network_cannot_hold_the_servers_tables(tmp_path: Path) -> None:
    """252 IPv6 /64s (a home is often given a /56: 256 of them) filled --max-tables in 5 seconds,
    each /64 making its 20 tables a minute. The tables one address holds, waiting or in play, are
    capped, an IPv6 /48 (the most one site is given) counting as one address."""
    import time

    from py421.server.app import create_app
    from py421.server.protocol import CreateTable
    from py421.server.table import TableError

    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(tables_per_address=3))
    hub = app.state.hub
    asked = CreateTable(seats=["human", "human"], name="Ann")
    try:
        for i in range(3):
            await hub.create(asked, address=f"2001:db8:1:{i}::1")  # three /64s of one /48
        with pytest.raises(TableError) as refused:
            await hub.create(asked, address="2001:db8:1:ff::1")
        assert (refused.value.error, refused.value.status) == ("too_many_tables", 429)
        assert "at most 3 tables waiting or in play" in refused.value.words["en"]
        for host in ("2001:db8:2::1", "203.0.113.9"):  # another network, an IPv4 address: theirs
            await hub.create(asked, address=host)
        # the tables nobody started are removed in time: the network may make new ones
        await hub.keep_house(now=time.time() + 31 * 60)
        await hub.create(asked, address="2001:db8:1:ff::1")
    finally:
        await hub.close()
