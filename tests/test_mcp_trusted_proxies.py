"""Which address a new HTTP client counts against: the socket's peer, or, only from a proxy the server was told to
trust, the address that proxy forwards in ``X-Forwarded-For`` (the right-most one it does not trust)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp_types import CallToolResult
from test_mcp_http import serving
from test_mcp_per_call_sessions import ANSWER, call_in_new_session
from test_mcp_server import QUESTION, acme_graph, data_of, first_number, text_of

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.kg import KnowledgeGraph

REFUSED = re.compile(r"Too many new sessions from your address \((?P<peer>[^)]*)\): retry in (?P<s>\d+) s")


@contextlib.asynccontextmanager
async def running(server: GraphRAGMCPServer) -> AsyncIterator[str]:
    """``server.run("http")`` on a free loopback port, as ``graphrag-mcp --transport http`` serves; yields the URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    task = asyncio.create_task(server.run("http", host="127.0.0.1", port=port, log_level="warning"))
    try:
        for _ in range(500):
            if task.done():
                task.result()
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def refusal(result: CallToolResult) -> re.Match[str] | None:
    """The "too many new sessions" refusal in ``result``, if it is one."""
    return REFUSED.search(text_of(result)) if result.is_error else None


async def _flood(url: str, count: int, forwarded: str) -> list[CallToolResult]:
    """``count`` retrieves, each from a new client id and with a new ``X-Forwarded-For`` address."""
    return [await call_in_new_session(url, "retrieve", {"question": QUESTION},
                                      {"X-GraphRAG-Client": secrets.token_urlsafe(24),
                                       "X-Forwarded-For": forwarded.format(i=i)}) for i in range(count)]


async def _alice_survives(url: str, forwarded: str) -> list[CallToolResult]:
    alice = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
    n = first_number(await call_in_new_session(url, "retrieve", {"question": QUESTION}, alice))
    flood = await _flood(url, 12, forwarded)
    kept = await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)}, alice)
    assert data_of(kept)["grounded"] and data_of(kept)["cited"] == [n], text_of(kept)
    return flood


async def test_a_spoofed_forwarded_for_from_loopback_counts_against_the_socket_peer(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=8)  # one address: 1 new session at once, 1 per 16 s
    async with running(server) as url:
        # Before: uvicorn took each request's address from the header: all 12 admitted, alice's evidence "expired".
        flood = await _alice_survives(url, "10.9.{i}.1")
    refused = [m for m in map(refusal, flood) if m]
    assert len(refused) >= 11, [text_of(r) for r in flood]
    assert {m["peer"] for m in refused} == {"127.0.0.1"}
    assert all(not r.is_error or refusal(r) for r in flood)


async def test_an_asgi_server_trusting_the_header_does_not_split_the_flood(kg: KnowledgeGraph) -> None:
    # The app mounted in a uvicorn of its own, with uvicorn's defaults (X-Forwarded-For trusted from 127.0.0.1):
    # every address the header named counts as one.
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=8)
    async with serving(server) as url:
        flood = await _alice_survives(url, "10.8.{i}.1")
    assert sum(refusal(r) is not None for r in flood) >= 11, [text_of(r) for r in flood]


async def test_a_trusted_proxy_forwards_the_right_most_address_it_does_not_trust(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=8, trusted_proxies=["127.0.0.1", "10.1.0.0/16"])

    async def new_client(forwarded: str) -> CallToolResult:
        return await call_in_new_session(url, "retrieve", {"question": QUESTION},
                                         {"X-GraphRAG-Client": secrets.token_urlsafe(24),
                                          "X-Forwarded-For": forwarded})

    async with running(server) as url:
        first = [await new_client(f"203.0.113.{i}") for i in range(1, 4)]  # three addresses: one new session each
        again = await new_client("203.0.113.1")
        spoofed = await new_client("198.51.100.7, 203.0.113.2")  # the left part is the client's own claim
        chained = await new_client("203.0.113.3, 10.1.2.3")  # through a second trusted proxy
    assert all(not r.is_error for r in first), [text_of(r) for r in first]
    for result, peer in ((again, "203.0.113.1"), (spoofed, "203.0.113.2"), (chained, "203.0.113.3")):
        match = refusal(result)
        assert match and match["peer"] == peer, text_of(result)


@pytest.mark.parametrize("bad", ["proxy.example.com", "10.0.0.300", ""])
def test_a_trusted_proxy_must_be_an_address_or_network(kg: KnowledgeGraph, bad: str) -> None:
    from graphrag_agents.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=re.escape(repr(bad)) + r".*Fix: .*IP address"):
        GraphRAGMCPServer(kg, read_only=True, trusted_proxies=[bad])


def test_graphrag_mcp_takes_repeated_trusted_proxy_flags() -> None:
    import argparse

    from graphrag_agents.cli.mcp_command import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args: Any = parser.parse_args(["--transport", "http", "--trusted-proxy", "10.0.0.1",
                                   "--trusted-proxy", "fd00::/8"])
    assert args.trusted_proxy == ["10.0.0.1", "fd00::/8"]
    assert parser.parse_args([]).trusted_proxy == []
