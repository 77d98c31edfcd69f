"""Hostile values in a store URL or the FALKOR_* environment: each is a ConfigurationError naming the value, and
no message or log record shows any part of a password (one holding an unencoded "@" included)."""

from __future__ import annotations

import logging
import socket

import pytest

from graphrag_agents.errors import ConfigurationError, StoreUnavailable
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.connection import resolve_address

SECRET_PARTS = ("p@ss", "ss-Secret", "Secret", "pa#ss", "pa/ss")
"""Pieces of the passwords below: none may appear in any message."""


def _clean(text: str) -> None:
    leaked = [part for part in SECRET_PARTS if part in text]
    assert not leaked, f"{leaked} leaked in: {text}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("url", "named"), [
    ("falkor://user:p@ss-Secret@db:6379?wait=nan", "wait='nan'"),
    ("falkor://user:p@ss-Secret@db:6379?wait=inf", "wait='inf'"),
    ("falkor://user:p@ss-Secret@db:6379?wait=1.5", "wait='1.5'"),
    ("falkor://user:p@ss-Secret@db:6379?wait_timeout_ms=inf", "wait_timeout_ms='inf'"),
    ("falkor://user:p@ss-Secret@db:6379?wait_timeout_ms=1e300", "wait_timeout_ms='1e300'"),
    ("falkor://user:p@ss-Secret@db:6379?failover_timeout=nan", "failover_timeout='nan'"),
    ("falkor://user:p@ss-Secret@db:6379?failover_timeout=inf", "failover_timeout='inf'"),
    ("falkor://user:p@ss-Secret@db:65536", "'65536'"),
    ("falkor://user:p@ss-Secret@db:99999", "'99999'"),
    ("falkor://user:p@ss-Secret@db:0", "'0'"),
    ("falkor://user:p@ss-Secret@db:port", "'port'"),
    ("falkor://user:p@ss-Secret@[::1:6379", "[::1:6379"),
    ("falkor://[::1:6379", "[::1:6379"),
    ("falkor://::1]:6379", "::1]:6379"),
    ("sentinel://user:p@ss-Secret@a:99999/svc", "'99999'"),
    ("sentinel://user:p@ss-Secret@[::1:26379/svc", "[::1:26379"),
    ("sentinel://user:p@ss-Secret@::1]:26379/svc", "::1]:26379"),
    # A "#" or "/" in a password ends the host part early: what reads as the port is the password's.
    ("falkor://user:pa#ss-Secret@db:6379", "db:6379"),
    ("falkor://user:pa/ss-Secret@db:6379", "db:6379"),
])
def test_a_hostile_url_value_is_a_configuration_error_naming_it(url: str, named: str) -> None:
    # Before: raw ValueError / OverflowError, "port out of range", "Invalid IPv6 URL", or accepted (nan: a
    # failover retry loop that never ends; a sentinel port of 99999).
    with pytest.raises(ConfigurationError) as caught:
        resolve_address(url, env={})
    message = str(caught.value)
    assert named in message and "Fix:" in message, message
    _clean(message)


@pytest.mark.parametrize(("env", "named"), [
    ({"FALKOR_URL": "falkor://db:1", "FALKOR_WAIT_REPLICAS": "nan"}, "FALKOR_WAIT_REPLICAS"),
    ({"FALKOR_URL": "falkor://db:1", "FALKOR_FAILOVER_TIMEOUT": "nan"}, "FALKOR_FAILOVER_TIMEOUT"),
    ({"FALKOR_URL": "falkor://user:p@ss-Secret@db:99999"}, "'99999'"),
    ({"FALKOR_HOST": "db", "FALKOR_PORT": "99999", "FALKOR_PASSWORD": "p@ss-Secret"}, "'99999'"),
    ({"FALKOR_HOST": "[::1", "FALKOR_PASSWORD": "p@ss-Secret"}, "[::1:6379"),
])
def test_hostile_environment_values_are_configuration_errors(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        resolve_address(None, env=env)
    message = str(caught.value)
    assert named in message and "Fix:" in message, message
    _clean(message)


def test_a_password_with_an_unencoded_at_sign_is_read_and_shown_as_browsers_do() -> None:
    # The host is after the LAST "@"; the password is everything between the first ":" and it.
    address = resolve_address("falkor://user:p@ss-Secret@db:6379", env={})
    assert address.describe() == "falkor://***@db:6379"  # before: falkor://user:***@ss-Secret@db:6379
    assert resolve_address("falkor://[::1]:6379", env={}).url == "redis://[::1]:6379"
    assert resolve_address(None, env={"FALKOR_HOST": "::1", "FALKOR_PORT": "7000"}).url == "redis://[::1]:7000"


async def test_an_unreachable_store_names_it_without_the_password(caplog: pytest.LogCaptureFixture,  # type: ignore[no-untyped-def]
                                                                  embedder) -> None:
    port = _free_port()
    with caplog.at_level(logging.DEBUG), pytest.raises(StoreUnavailable) as caught:
        await KnowledgeGraph.open(url=f"falkor://user:p@ss-Secret@127.0.0.1:{port}", graph="x", embedder=embedder)
    message = str(caught.value)
    assert f"falkor://***@127.0.0.1:{port}" in message, message
    _clean(message)
    for record in caplog.records:
        _clean(record.getMessage())
