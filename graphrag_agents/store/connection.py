"""Where the graph store is: an external FalkorDB from a URL or the environment, or the embedded default.

Resolution order: an explicit ``url``; ``FALKOR_URL``; ``FALKOR_HOST`` (+ ``FALKOR_PORT``, ``FALKOR_USERNAME``,
``FALKOR_PASSWORD``); otherwise the embedded server in ``data_dir`` (default ``./.graphrag``, or
``GRAPHRAG_HOME``). URLs may be ``falkor://``, ``falkors://``, ``redis://``, ``rediss://`` (TLS) or
``unix:///path/to.sock``. The host follows the last ``@`` of the host part, as browsers read it, so a password
holding an unencoded ``@`` is read whole (and masked whole in messages); a port outside 1-65535, an IPv6 host
missing a bracket, or a password whose unencoded ``/ ? #`` cut the host part short is a
:class:`ConfigurationError` naming the value, never the password.

Scale-out topologies (``docs/scale.md``): a Redis Cluster of FalkorDB nodes is detected from the server a URL
names (``?cluster=yes`` or ``FALKOR_CLUSTER=1`` requires one); ``sentinel://host:26379,host2:26379/service``
finds the primary through Sentinel and follows it across a failover. Options, as URL query or environment (the
URL wins): ``read_from=replicas`` / ``FALKOR_READ_FROM`` sends read-only queries to replicas;
``wait=N`` / ``FALKOR_WAIT_REPLICAS`` confirms every write on N replicas (``WAIT``) before it is acknowledged,
within ``wait_timeout_ms`` / ``FALKOR_WAIT_TIMEOUT_MS``; ``failover_timeout`` / ``FALKOR_FAILOVER_TIMEOUT``
(seconds) bounds how long a retried call waits for Sentinel, or a cluster, to promote a new primary. ``wait`` and
``wait_timeout_ms`` are whole numbers from 0 to 2**31 - 1, ``failover_timeout`` a finite number of 0 or more:
any other value (``nan``, ``inf``, ``1.5`` replicas) is a :class:`ConfigurationError` naming it.

A TLS server whose certificate a private CA signed is trusted with the CA's PEM file, given as the URL query
``?ssl_ca_certs=/path/ca.pem`` (redis-py's ``from_url`` name, passed on to it) or ``FALKOR_TLS_CA_CERT``; the URL
wins when both are set. The file must exist and the address must be TLS, else :class:`ConfigurationError`.
"""

from __future__ import annotations

import math
import os
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, parse_qs, quote, urlsplit

from .._secrets import mask_secrets
from ..errors import ConfigurationError

__all__ = ["StoreAddress", "Topology", "check_tls_handshake", "client_kwargs", "mask_secrets", "not_redis",
           "remote_fix", "resolve_address"]

_CONNECT_TIMEOUT = 5.0
_SCHEMES = {"falkor": "redis", "falkors": "rediss", "redis": "redis", "rediss": "rediss", "unix": "unix",
            "sentinel": "sentinel"}
_OPTIONS = ("cluster", "read_from", "wait", "wait_timeout_ms", "failover_timeout")
"""URL query names this package reads (the rest, e.g. ``ssl_ca_certs``, go to redis-py)."""
_ENV = {"cluster": "FALKOR_CLUSTER", "read_from": "FALKOR_READ_FROM", "wait": "FALKOR_WAIT_REPLICAS",
        "wait_timeout_ms": "FALKOR_WAIT_TIMEOUT_MS", "failover_timeout": "FALKOR_FAILOVER_TIMEOUT"}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}
_MAX_INT = 2**31 - 1
"""The largest ``wait`` / ``wait_timeout_ms`` (the server's WAIT takes them as numbers it can hold)."""
_ORIGIN = {"url": "given as url= or --url", "FALKOR_URL": "from FALKOR_URL",
           "FALKOR_HOST": "built from FALKOR_HOST and FALKOR_PORT"}


@dataclass(frozen=True)
class Topology:
    """How the servers behind an address are laid out, and how this package uses them."""

    cluster: bool | None = None
    """True: must be a Redis Cluster; False: must not; None: detected from the server."""
    read_from_replicas: bool = False
    """Send read-only queries to replicas (the session that wrote reads from the primary until they caught up)."""
    wait_replicas: int = 0
    """Confirm each write on this many replicas (``WAIT``) before acknowledging it; 0: do not wait."""
    wait_timeout_ms: int = 1000
    """How long a write waits for that confirmation before it fails with :class:`StoreUnavailable`."""
    failover_timeout_s: float = 30.0
    """How long a retried call waits for Sentinel, or a cluster, to promote a new primary (seconds, finite)."""
    sentinels: tuple[tuple[str, int], ...] = ()
    """Sentinel addresses (``sentinel://`` URLs only)."""
    service: str = ""
    """The primary's name the sentinels monitor."""


@dataclass(frozen=True)
class StoreAddress:
    """A resolved FalkorDB location. ``url`` is None for the embedded default."""

    url: str | None
    """A redis-style URL of an external server, or None for the embedded server."""
    data_dir: str | None
    """The embedded server's data folder (only when ``url`` is None)."""
    tls_ca_file: str | None = None
    """A PEM file of CA certificates to trust for a TLS server (``?ssl_ca_certs=`` or ``FALKOR_TLS_CA_CERT``)."""
    topology: Topology = Topology()
    """Cluster, Sentinel and replica options (the defaults: one server, everything on it)."""
    given: str | None = None
    """The URL as the user wrote it (``falkor://...``), for messages; ``url`` is its redis-style form."""
    source: str = "url"
    """Where the address came from: ``url`` (the argument, ``--url``), ``FALKOR_URL`` or ``FALKOR_HOST``."""

    @property
    def client_url(self) -> str:
        """``url`` without the query options this package reads (what redis-py is given)."""
        parts = urlsplit(self.url or "")
        kept = [item for item in parts.query.split("&") if item and item.partition("=")[0] not in _OPTIONS]
        if len(kept) == len([item for item in parts.query.split("&") if item]):
            return self.url or ""  # nothing of ours: the URL exactly as given
        base = (self.url or "").partition("?")[0]
        return base + ("?" + "&".join(kept) if kept else "")

    @property
    def embedded(self) -> bool:
        """True when this address is the embedded server."""
        return self.url is None

    @property
    def tls(self) -> bool:
        """True when the connection to the server is encrypted (``rediss://``)."""
        return self.url is not None and self.url.startswith("rediss://")

    def describe(self) -> str:
        """Where the store is, for error messages (password masked)."""
        if self.url is None:
            return f"embedded FalkorDB in {self.data_dir or '.graphrag'}"
        return mask_secrets(self.given or self.url)


def _normalise_url(url: str, origin: str = "url") -> str:
    parts = _split(url, origin)
    scheme = _SCHEMES.get(parts.scheme.lower())
    if scheme is None:
        raise ConfigurationError(
            f"Unsupported graph store URL scheme {parts.scheme!r} in {mask_secrets(url)!r}. Fix: use "
            "falkor://host:6379, falkors:// or rediss:// for TLS, or unix:///path/to/falkordb.sock."
        )
    if scheme == "sentinel":
        _sentinel_hosts(url)  # checked here, so the error names the URL
    elif scheme != "unix":
        _check_host(url, parts, origin)
    return scheme + url[len(parts.scheme):]


def _split(url: str, origin: str) -> SplitResult:
    """``urlsplit(url)``, with a URL it cannot read (a broken IPv6 host) refused by name."""
    try:
        return urlsplit(url)
    except ValueError:
        raise ConfigurationError(
            f"The graph store URL {mask_secrets(url)!r} ({_ORIGIN[origin]}) has a host that is not a name, an "
            "IPv4 address or a bracketed IPv6 address. Fix: falkor://host:6379, or for IPv6 falkor://[::1]:6379 "
            "(both brackets)."
        ) from None


def _check_host(url: str, parts: SplitResult, origin: str) -> None:
    """Refuse a URL with no host or a port out of 1-65535, naming the value (never a password)."""
    where = f"{mask_secrets(url)!r} ({_ORIGIN[origin]})"
    host_port = parts.netloc.rpartition("@")[2]
    after_host = host_port.rpartition("]")[2] if host_port.startswith("[") else host_port
    port = after_host.partition(":")[2]
    if "@" not in parts.netloc and "@" in url[len(parts.scheme) + 3:] and (not parts.hostname or not _is_port(port)):
        # A "/", "?" or "#" in a password ends the host part early: what reads as the host or port may be part of
        # the password, so the URL is shown only from its last "@", and neither is named.
        raise ConfigurationError(
            f"The graph store URL '{parts.scheme}://***@{url.rpartition('@')[2]}' ({_ORIGIN[origin]}) has an '@' "
            "after its host part and no valid host:port before it. Fix: percent-encode any '/', '?', '#' or '@' "
            "in its user name or password (%2F, %3F, %23, %40), or set FALKOR_HOST, FALKOR_USERNAME and "
            "FALKOR_PASSWORD instead; else give a host and a port from 1 to 65535."
        )
    if not parts.hostname:
        raise ConfigurationError(f"The graph store URL {where} names no host. Fix: falkor://host:6379.")
    _check_port(port, where, "falkor://host:6379 (the port FalkorDB listens on)")


def _is_port(port: str) -> bool:
    return not port or (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535)


def _check_port(port: str, where: str, example: str) -> int:
    """``port`` as a number from 1 to 65535 (``""``: none given, 6379), else a ConfigurationError naming it."""
    if not _is_port(port):
        raise ConfigurationError(f"The port {port!r} in {where} is not a port number (1 to 65535). Fix: "
                                 f"{example}.")
    return int(port) if port else 6379


def _sentinel_hosts(url: str) -> tuple[tuple[tuple[str, int], ...], str]:
    """The sentinels and the service of ``sentinel://[user:pass@]host:port[,host:port...]/service``."""
    parts = _split(url, "url")
    fix = "Fix: sentinel://host:26379,host2:26379/service (the name the sentinels monitor the primary under)."
    hosts: list[tuple[str, int]] = []
    for item in parts.netloc.rpartition("@")[2].split(","):
        host, _, port = item.strip().rpartition(":")
        bracketed = host.startswith("[") and host.endswith("]") and len(host) > 2
        if not host or not port or (("[" in host or "]" in host) and not bracketed):
            raise ConfigurationError(f"The Sentinel URL {mask_secrets(url)!r} has no host:port in {item!r} (an "
                                     f"IPv6 host goes in brackets: [::1]:26379). {fix}")
        hosts.append((host.strip("[]"), _check_port(
            port, f"the Sentinel URL {mask_secrets(url)!r}", "sentinel://host:26379/service (a sentinel's port)")))
    service = parts.path.strip("/")
    if not service:
        raise ConfigurationError(f"The Sentinel URL {mask_secrets(url)!r} names no service. {fix}")
    return tuple(hosts), service


def _option(query: dict[str, list[str]], name: str, environ: Mapping[str, str]) -> str | None:
    if name in query:
        return query[name][-1].strip().lower()
    value = environ.get(_ENV[name])
    return value.strip().lower() if value is not None else None


def _number(query: dict[str, list[str]], name: str, environ: Mapping[str, str], url: str, default: str, *,
            integer: bool) -> float:
    """Option ``name`` as a finite number of 0 or more (an integer up to 2**31 - 1 when ``integer``)."""
    value = _option(query, name, environ) or default
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    most = float(_MAX_INT) if integer else math.inf
    if not (math.isfinite(number) and 0 <= number <= most and (number.is_integer() or not integer)):
        where = f"in the URL {mask_secrets(url)!r}" if name in query else f"from {_ENV[name]}"
        kind = f"a whole number from 0 to {_MAX_INT}" if integer else "a finite number of seconds, 0 or more"
        raise ConfigurationError(f"{name}={value!r} ({where}) is not {kind}. Fix: set {name} to {kind}, or drop "
                                 f"it for the default ({default}).")
    return number


def _topology(url: str, environ: Mapping[str, str]) -> Topology:
    """The topology options of ``url`` (its query) and the FALKOR_* environment, checked against each other."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    sentinels, service = _sentinel_hosts(url) if parts.scheme == "sentinel" else ((), "")
    cluster: bool | None = None
    if (flag := _option(query, "cluster", environ)) is not None and flag not in {"auto"}:
        if flag not in _TRUE | _FALSE:
            raise ConfigurationError(f"cluster={flag!r} must be yes, no or auto (FALKOR_CLUSTER).")
        cluster = flag in _TRUE
    read_from = _option(query, "read_from", environ) or "primary"
    if read_from not in {"primary", "replicas"}:
        raise ConfigurationError(f"read_from={read_from!r} must be primary or replicas (FALKOR_READ_FROM).")
    topology = Topology(
        cluster=cluster, read_from_replicas=read_from == "replicas",
        wait_replicas=int(_number(query, "wait", environ, url, "0", integer=True)),
        wait_timeout_ms=int(_number(query, "wait_timeout_ms", environ, url, "1000", integer=True)),
        failover_timeout_s=_number(query, "failover_timeout", environ, url, "30", integer=False),
        sentinels=sentinels, service=service,
    )
    if topology.cluster and sentinels:
        raise ConfigurationError("A sentinel:// URL names a primary with replicas, not a cluster. Fix: drop "
                                 "cluster=yes (FALKOR_CLUSTER), or give a cluster node's falkor:// URL.")
    if topology.cluster and (topology.read_from_replicas or topology.wait_replicas):
        raise ConfigurationError("read_from=replicas and wait= are for a primary with replicas (falkor:// or "
                                 "sentinel://), not yet for a cluster. Fix: drop them (FALKOR_READ_FROM, "
                                 "FALKOR_WAIT_REPLICAS) for the cluster URL.")
    return topology


def _remote(url: str, environ: Mapping[str, str], given: str | None = None, origin: str = "url") -> StoreAddress:
    """A remote address, with the CA file to trust checked: it must exist and the URL must be TLS."""
    url_ca = parse_qs(urlsplit(url).query).get("ssl_ca_certs", [""])[-1]
    ca_file, source = (url_ca, "the URL's ssl_ca_certs") if url_ca else (
        environ.get("FALKOR_TLS_CA_CERT", ""), "FALKOR_TLS_CA_CERT")
    address = StoreAddress(url=url, data_dir=None, tls_ca_file=ca_file or None, topology=_topology(url, environ),
                           given=given, source=origin)
    if not ca_file:
        return address
    if not address.tls:
        raise ConfigurationError(
            f"A TLS CA file is set ({source}) but the graph store URL {mask_secrets(url)!r} is not TLS. Fix: use "
            f"rediss://host:port (or FALKOR_TLS=1 with FALKOR_HOST) for a TLS server, or remove {source}."
        )
    if not os.path.isfile(ca_file):
        raise ConfigurationError(
            f"The TLS CA file {ca_file!r} ({source}) does not exist. Fix: point {source} at the PEM file of the CA "
            "that signed the FalkorDB server's certificate."
        )
    return address


def resolve_address(url: str | None = None, data_dir: str | None = None,
                    env: Mapping[str, str] | None = None) -> StoreAddress:
    """Pick the store from ``url``, then the FALKOR_* environment, else the embedded server in ``data_dir``."""
    environ = os.environ if env is None else env
    if url:
        return _remote(_normalise_url(url), environ, url)
    if environ.get("FALKOR_URL"):
        given = environ["FALKOR_URL"]
        return _remote(_normalise_url(given, "FALKOR_URL"), environ, given, "FALKOR_URL")
    host = environ.get("FALKOR_HOST")
    if host:
        port = environ.get("FALKOR_PORT", "6379")
        _check_port(port, "FALKOR_PORT", "FALKOR_PORT=6379 (the port FalkorDB listens on)")
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"  # an IPv6 address, bracketed as a URL needs
        user, password = environ.get("FALKOR_USERNAME", ""), environ.get("FALKOR_PASSWORD", "")
        auth = ""
        if user or password:
            auth = f"{quote(user, safe='')}:{quote(password, safe='')}@"
        scheme = "rediss" if environ.get("FALKOR_TLS", "").lower() in {"1", "true", "yes"} else "redis"
        url = f"{scheme}://{auth}{host}:{port}"
        _check_host(url, _split(url, "FALKOR_HOST"), "FALKOR_HOST")
        return _remote(url, environ, origin="FALKOR_HOST")
    return StoreAddress(url=None, data_dir=data_dir or environ.get("GRAPHRAG_HOME"))


def client_kwargs(address: StoreAddress) -> dict[str, Any]:
    """Timeouts applied to every connection, so a dead host fails fast instead of hanging; the CA file to trust."""
    kwargs: dict[str, Any] = {"socket_connect_timeout": _CONNECT_TIMEOUT, "socket_timeout": 120.0}
    if address.tls_ca_file:
        kwargs["ssl_ca_certs"] = address.tls_ca_file
    return kwargs


class _NoTlsHandshake(ConnectionError):
    """The server accepted TCP but answered no TLS handshake in time: most likely it does not speak TLS."""


def check_tls_handshake(address: StoreAddress) -> None:
    """For a TLS address, complete one TLS handshake within the connect timeout (certificates are not checked here).

    The FalkorDB client first probes the server over a synchronous connection whose handshake is bounded only by
    the 120 s read timeout, and retries it, so ``rediss://`` pointed at a plain server would hang for minutes. This
    fails in seconds instead; the client's own connection, right after, verifies the certificate.
    """
    if not address.tls or address.url is None:
        return
    parts = urlsplit(address.url)
    host, port = parts.hostname or "", parts.port or 6379
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection((host, port), timeout=_CONNECT_TIMEOUT) as sock:
        try:
            context.wrap_socket(sock, server_hostname=host).close()
        except TimeoutError as exc:
            raise _NoTlsHandshake(f"{host}:{port} accepted the connection but answered no TLS handshake within "
                                  f"{_CONNECT_TIMEOUT:g} s") from exc


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def remote_fix(address: StoreAddress, exc: BaseException) -> str:
    """The fix to name when the external server at ``address`` failed with ``exc`` (TLS mistakes get their own)."""
    causes = _causes(exc)
    text = " ".join(str(cause) for cause in causes)
    if any(isinstance(c, _NoTlsHandshake) for c in causes):
        return ("Fix: the server does not speak TLS there: use falkor://host:port (or unset FALKOR_TLS) for a plain "
                "server, or check the port.")
    if address.tls and (any(isinstance(c, ssl.SSLCertVerificationError) for c in causes)
                        or "CERTIFICATE_VERIFY_FAILED" in text):
        if "hostname" in text.lower() or "IP address mismatch" in text:
            return "Fix: connect by a host name or IP address that the server's certificate lists."
        return ("Fix: the server's TLS certificate is not trusted: trust the CA that signed it with "
                "?ssl_ca_certs=/path/ca.pem in the URL or FALKOR_TLS_CA_CERT=/path/ca.pem.")
    if address.tls and (any(isinstance(c, ssl.SSLError) for c in causes) or "SSL" in text):
        return ("Fix: the TLS handshake failed; if the server does not speak TLS, use falkor://host:port (or unset "
                "FALKOR_TLS), else check the port and the server's TLS settings.")
    plain_tcp = not address.tls and not (address.url or "unix:").startswith("unix:")
    if plain_tcp and (any(isinstance(c, ConnectionResetError) for c in causes) or "closed by server" in text):
        # What a TLS-only server does with a plain client: it closes the connection without a reply.
        return ("Fix: if the server speaks TLS, use rediss://host:port or FALKOR_TLS=1 (with ?ssl_ca_certs= or "
                "FALKOR_TLS_CA_CERT for a private CA); else check host, port and password.")
    tls_hint = "; if the server speaks TLS, use rediss://host:port or FALKOR_TLS=1" if plain_tcp else ""
    default = ("drop --url (url=)" if address.source == "url" else f"unset {address.source}") + \
        " to use the embedded default"
    return f"Fix: start FalkorDB there (or check host, port, TLS and password{tls_hint}), or {default}."


def not_redis(address: StoreAddress, exc: BaseException) -> str | None:
    """The message for a server at ``address`` that answered ``exc``, a reply outside the Redis protocol (an HTTP
    server, say), with its fix; None when ``exc`` is another failure."""
    from redis.exceptions import InvalidResponse

    reply = next((c for c in _causes(exc) if isinstance(c, InvalidResponse)), None)
    if reply is None:
        return None
    setting = {"url": "--url (url=)", "FALKOR_HOST": "FALKOR_HOST and FALKOR_PORT"}.get(address.source,
                                                                                     address.source)
    default = ("drop --url (url=)" if address.source == "url" else f"unset {address.source}") + \
        " to use the embedded default"
    return (f"The graph store at {address.describe()} answered but is not a Redis/FalkorDB server: its reply is not "
            f"in the Redis protocol ({mask_secrets(str(reply)).rstrip('.')}). Fix: point {setting} at the host and "
            f"port FalkorDB listens on (6379 by default), not another service's, or {default}.")
