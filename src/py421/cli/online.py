"""``421 serve``, ``421 site`` and ``421 verify``: online tables, the page as static files that play
offline, and checking an online game's dice."""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..core.errors import Message
from ..extras import require
from ..i18n import error_text, num, tr
from .common import SAY_OPTION, Command, Finite, NamedPath, read_record
from .words import spoken

# The caps of `421 serve`: option, field of Limits, accepted values (docs/online.md lists them; each
# option's help is the catalog's cli.opt.serve.<its name>).
SERVE_LIMITS: list[tuple[str, str, click.ParamType[Any]]] = [
    ("--max-seats", "seats", click.IntRange(2, 62)),
    ("--max-spectators", "spectators", click.IntRange(0)),
    ("--max-connections-per-address", "connections_per_address", click.IntRange(1)),
    ("--max-tables-per-minute", "tables_per_minute", click.IntRange(1)),
    ("--max-tables-per-address", "tables_per_address", click.IntRange(1)),
    ("--max-steps", "steps_per_table", click.IntRange(100)),
    ("--max-unknown-codes-per-minute", "unknown_codes_per_minute", click.IntRange(1)),
    ("--max-tables", "live_tables", click.IntRange(1)),
    ("--waiting-minutes", "waiting_minutes", click.IntRange(1)),
    ("--hand-after-seconds", "hand_after_seconds", Finite(0, 3600)),
    ("--idle-minutes", "idle_minutes", click.IntRange(1)),
    ("--messages-per-second", "messages_per_second", Finite(1)),
    ("--replay-steps-per-second", "replay_steps_per_second", Finite(1)),
    ("--request-seconds", "request_seconds", Finite(1, 120)),
    ("--keep-alive-seconds", "keep_alive_seconds", Finite(1, 3600)),
    ("--send-seconds", "send_seconds", Finite(1, 120)),
    ("--optimal-seconds", "seconds", Finite(1)),
    ("--optimal-memory", "memory_mb", click.IntRange(256)),
    ("--optimal-queue", "queue", click.IntRange(0)),
]


class ProxyAddress(click.ParamType[Any]):
    """``--trusted-proxy``: an address or a network."""

    name = "address"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        import ipaddress

        try:
            return ipaddress.ip_network(str(value).strip(), strict=False)
        except ValueError:
            self.fail(tr(spoken(), "cli.serve.bad_proxy", given=repr(value)), param, ctx)


class SiteOrigin(click.ParamType[Any]):
    """``--allowed-origin``: a site's origin, ``https://host`` or ``http://host:port``."""

    name = "origin"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from urllib.parse import urlsplit

        text = str(value).strip()
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - a port that is no number raises here
        except ValueError:
            parts = None
        if (
            parts is None
            or parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path.strip("/")
        ):
            self.fail(tr(spoken(), "cli.serve.bad_origin", given=repr(value)), param, ctx)
        return text


class HostName(click.ParamType[Any]):
    """``--allowed-host``: a name this server answers for, ``play.example.org`` or ``.example.org``
    (that name and every name under it); no scheme, no port."""

    name = "name"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        import re

        text = str(value).strip().lower().rstrip(".")
        label = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
        if not re.fullmatch(rf"\.?{label}(?:\.{label})*", text):
            self.fail(tr(spoken(), "cli.serve.bad_host_name", given=repr(value)), param, ctx)
        return text


def _limit_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of SERVE_LIMITS, with the defaults of Limits and Budget."""
    from ..server.limits import Limits
    from ..server.worker import Budget

    for flag, field, kind in reversed(SERVE_LIMITS):
        default = getattr(Budget() if flag.startswith("--optimal") else Limits(), field)
        dest = flag[2:].replace("-", "_") if flag.startswith("--optimal") else field
        option = click.option(flag, dest, type=kind, default=default, show_default=True)
        command = option(command)
    return command


@click.command(cls=Command)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8421, show_default=True)
@click.option("--db", "db_url", default=None, envvar="PY421_DB")
@click.option("--bot-delay", type=Finite(0, 10), default=0.6, show_default=True)
@_limit_options
@click.option("--trusted-proxy", "trusted_proxy", type=ProxyAddress(), multiple=True)
@click.option("--allowed-origin", "allowed_origin", type=SiteOrigin(), multiple=True)
@click.option("--allowed-host", "allowed_host", type=HostName(), multiple=True)
@SAY_OPTION
def serve(
    lang: str,
    host: str,
    port: int,
    db_url: str | None,
    bot_delay: float,
    optimal_seconds: float,
    optimal_memory: int,
    optimal_queue: int,
    trusted_proxy: tuple[Any, ...],
    allowed_origin: tuple[str, ...],
    allowed_host: tuple[str, ...],
    **limits: Any,
) -> None:
    require("server", "421 serve")
    if db_url and db_url.startswith(("postgresql", "postgres:")):
        require("postgres", "421 serve on PostgreSQL")
    import uvicorn

    from ..history import server_url
    from ..paths import system_reason
    from ..server.app import bind_error, create_app

    problem = bind_error(host, port)
    if problem is not None:
        if problem.errno == errno.EADDRINUSE:
            click.echo(tr(lang, "cli.serve.in_use", port=port, host=host), err=True)
        else:
            why = error_text(lang, system_reason(problem))
            click.echo(tr(lang, "cli.serve.cannot", host=host, port=port, problem=why), err=True)
        raise SystemExit(2)
    from ..server.addresses import TrustedProxies
    from ..server.limits import Limits
    from ..server.serving import uvicorn_options
    from ..server.worker import Budget

    url = db_url if db_url is not None else server_url()
    budget = Budget(seconds=optimal_seconds, memory_mb=optimal_memory, queue=optimal_queue)
    caps, proxies = Limits(**limits), TrustedProxies(trusted_proxy)
    from ..envs.policy_seat import register_policy  # the worker reads the policies of --bot so

    app = create_app(
        url,
        bot_delay=bot_delay,
        limits=caps,
        budget=budget,
        proxies=proxies,
        allowed_origins=allowed_origin,
        allowed_hosts=allowed_host,  # its addresses and local names besides
        policy_reader=register_policy,
    )
    shown = f"[{host}]" if ":" in host else host  # an IPv6 address is bracketed in a URL
    click.echo(tr(lang, "cli.serve", host=shown, port=port, database=url.split("@")[-1]), err=True)
    phones = network_address() if host in ("0.0.0.0", "::") else None  # every address: the network's too
    if phones is not None:
        click.echo(tr(lang, "cli.serve.phones", url=f"http://{phones}:{port}"), err=True)
    # the process's logging: each message a few times a minute at most (garbage sent in a loop would
    # fill the disk); set here, not in uvicorn_options, which servers within other programs share
    from ..server.logs import log_config

    uvicorn.run(app, host=host, port=port, log_config=log_config(), **uvicorn_options(caps, proxies))


def network_address() -> str | None:
    """This machine's address on its network, which a phone on the same Wi-Fi opens: the one the
    system would send from (a datagram socket's connect sends nothing). None: no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # none on a host of IPv6 only
            probe.connect(("10.254.254.254", 1))  # any address off this machine
            address: str = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@click.command(cls=Command)
@click.option("--out", type=NamedPath(file_okay=False, path_type=Path), required=True)
@click.option("--base", default="/", show_default=True)
@SAY_OPTION
def site(out: Path, base: str, lang: str) -> None:
    from ..page.site import checked_base, write_site
    from ..paths import make_out_folder

    folder = checked_base(base)  # refused before anything is written
    make_out_folder(out, Message("path.site"))
    written = write_site(out, folder)
    size = sum(p.stat().st_size for p in written)
    mb = num(lang, size / 1e6, ".1f")
    where = tr(lang, "cli.site.root") if folder == "/" else tr(lang, "cli.site.under", base=folder)
    click.echo(tr(lang, "cli.site", n=len(written), folder=out, mb=mb, where=where))


@click.command(cls=Command)
@click.argument("record_file", type=NamedPath(dir_okay=False, path_type=Path))
@SAY_OPTION
def verify(record_file: Path, lang: str) -> None:
    from ..server.verify import verify as check

    record = read_record(record_file)
    verdict = check(record, lang)
    if verdict.seed_hash is not None:
        click.echo(tr(lang, "cli.verify.hash", hash=verdict.seed_hash))
    if verdict.problems:
        for line in verdict.problems:
            click.echo(line, err=True)
        if verdict.seed_hash is None:  # no seed's hash to check: that its moves follow the rules, replay does
            click.echo(tr(lang, "cli.verify.replay", path=record_file), err=True)
        raise SystemExit(1)
    click.echo(tr(lang, "cli.verify.fair", n=verdict.throws))
