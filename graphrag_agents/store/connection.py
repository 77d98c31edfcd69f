"""Where the graph store is: an external FalkorDB from a URL or the environment, or the embedded default.

Resolution order: an explicit ``url``; ``FALKOR_URL``; ``FALKOR_HOST`` (+ ``FALKOR_PORT``, ``FALKOR_USERNAME``,
``FALKOR_PASSWORD``); otherwise the embedded server in ``data_dir`` (default ``./.graphrag``, or
``GRAPHRAG_HOME``). URLs may be ``falkor://``, ``falkors://``, ``redis://``, ``rediss://`` (TLS) or
``unix:///path/to.sock``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from .._secrets import mask_secrets
from ..errors import ConfigurationError

__all__ = ["StoreAddress", "mask_secrets", "resolve_address"]

_SCHEMES = {"falkor": "redis", "falkors": "rediss", "redis": "redis", "rediss": "rediss", "unix": "unix"}


@dataclass(frozen=True)
class StoreAddress:
    """A resolved FalkorDB location. ``url`` is None for the embedded default."""

    url: str | None
    """A redis-style URL of an external server, or None for the embedded server."""
    data_dir: str | None
    """The embedded server's data folder (only when ``url`` is None)."""

    @property
    def embedded(self) -> bool:
        """True when this address is the embedded server."""
        return self.url is None

    def describe(self) -> str:
        """Where the store is, for error messages (password masked)."""
        if self.url is None:
            return f"embedded FalkorDB in {self.data_dir or '.graphrag'}"
        return mask_secrets(self.url)


def _normalise_url(url: str) -> str:
    parts = urlsplit(url)
    scheme = _SCHEMES.get(parts.scheme.lower())
    if scheme is None:
        raise ConfigurationError(
            f"Unsupported graph store URL scheme {parts.scheme!r} in {mask_secrets(url)!r}. Fix: use "
            "falkor://host:6379, falkors:// or rediss:// for TLS, or unix:///path/to/falkordb.sock."
        )
    if scheme != "unix" and not parts.hostname:
        raise ConfigurationError(f"The graph store URL {mask_secrets(url)!r} names no host. Fix: falkor://host:6379.")
    return scheme + url[len(parts.scheme):]


def resolve_address(url: str | None = None, data_dir: str | None = None,
                    env: Mapping[str, str] | None = None) -> StoreAddress:
    """Pick the store from ``url``, then the FALKOR_* environment, else the embedded server in ``data_dir``."""
    environ = os.environ if env is None else env
    if url:
        return StoreAddress(url=_normalise_url(url), data_dir=None)
    if environ.get("FALKOR_URL"):
        return StoreAddress(url=_normalise_url(environ["FALKOR_URL"]), data_dir=None)
    host = environ.get("FALKOR_HOST")
    if host:
        port = environ.get("FALKOR_PORT", "6379")
        if not port.isdigit():
            raise ConfigurationError(f"FALKOR_PORT must be a number, got {port!r}.")
        user, password = environ.get("FALKOR_USERNAME", ""), environ.get("FALKOR_PASSWORD", "")
        auth = ""
        if user or password:
            auth = f"{quote(user, safe='')}:{quote(password, safe='')}@"
        scheme = "rediss" if environ.get("FALKOR_TLS", "").lower() in {"1", "true", "yes"} else "redis"
        return StoreAddress(url=f"{scheme}://{auth}{host}:{port}", data_dir=None)
    return StoreAddress(url=None, data_dir=data_dir or environ.get("GRAPHRAG_HOME"))


def client_kwargs(address: StoreAddress) -> dict[str, Any]:
    """Timeouts applied to every connection, so a dead host fails fast instead of hanging."""
    del address
    return {"socket_connect_timeout": 5.0, "socket_timeout": 120.0}
