"""The address an HTTP request comes from, which bounds how many new client sessions it may create.

The address is the socket's peer. ``X-Forwarded-For`` counts only when that peer is one of the proxies the server
was told to trust (``trusted_proxies`` / ``graphrag-mcp --trusted-proxy``); the address used is then the right-most
one in the header that is not itself a trusted proxy: the entries left of it are whatever the client wrote.
Nothing is trusted by default, loopback included, since on a shared host any local process can write the header.

An ASGI server that rewrites the peer from the header itself (uvicorn's ``proxy_headers``, on by default for
127.0.0.1) hides the socket's peer; ``graphrag-mcp`` turns that off. When the server is mounted in an ASGI server
that does it anyway, a request whose peer appears in its own ``X-Forwarded-For`` is counted as the one address
:data:`UNVERIFIED`, so a flood of invented addresses shares one rate.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable

from ...errors import ConfigurationError

__all__ = ["UNVERIFIED", "TrustedProxies", "rate_key"]

UNVERIFIED = "an address taken from an untrusted X-Forwarded-For"
"""The address every request whose peer its ASGI server took from an untrusted header counts as."""

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_log = logging.getLogger("graphrag_agents.mcp")


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def rate_key(peer: str) -> str:
    """The address a peer's new sessions count against: an IPv6 peer's whole /64 (one host's usual share), else
    the address as given."""
    address = _address(peer)
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address) if address is not None else peer


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` counts: IP addresses or networks (``10.0.0.1``, ``10.0.0.0/8``,
    ``fd00::/8``); empty by default."""

    def __init__(self, proxies: Iterable[str] = ()) -> None:
        if isinstance(proxies, str):
            proxies = [proxies]
        self.networks: tuple[_Network, ...] = tuple(self._parse(p) for p in proxies)
        self._warned = False

    @staticmethod
    def _parse(proxy: str) -> _Network:
        try:
            return ipaddress.ip_network(str(proxy).strip(), strict=False)
        except ValueError:
            raise ConfigurationError(
                f"Trusted proxy {proxy!r} is not an IP address or network. Fix: name each proxy in front of the "
                "server by IP address or network (--trusted-proxy 10.0.0.5, --trusted-proxy 10.0.0.0/8), not by "
                "host name; or drop it to trust no proxy.") from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __contains__(self, host: object) -> bool:
        address = _address(host) if isinstance(host, str) else None
        return address is not None and any(address in net for net in self.networks)

    def client_of(self, peer: str | None, forwarded_for: Iterable[str]) -> str | None:
        """The address a request from ``peer`` counts as, given its ``X-Forwarded-For`` header values."""
        entries = [e.strip() for value in forwarded_for for e in value.split(",") if e.strip()]
        if peer is None or not entries:
            return peer
        if peer not in self:
            if not self and _address(peer) is not None and _address(peer) in map(_address, entries):
                self._warn_rewritten()
                return UNVERIFIED
            return peer
        for entry in reversed(entries):
            if entry not in self:
                address = _address(entry)
                return str(address) if address is not None else peer  # garbage: the proxy wrote no address
        return peer

    def _warn_rewritten(self) -> None:
        if not self._warned:
            self._warned = True
            _log.warning("the ASGI server took client addresses from X-Forwarded-For, which this server does not "
                         "trust: all such requests share one rate of new sessions. Run it without proxy headers "
                         "(uvicorn: proxy_headers=False, as graphrag-mcp does) and name the proxies in "
                         "trusted_proxies / --trusted-proxy")
