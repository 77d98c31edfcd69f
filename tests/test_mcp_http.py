"""The MCP server over HTTP on a loopback port (uvicorn in the test's event loop): numbering, token, Host checks."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from test_mcp_server import QUESTION, acme_graph, cite, fake_write_specs, first_number, text_of

from graphrag_agents._env import env_flag
from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.adapters.mcp._http import ClientCookieMiddleware, check_binding, client_key, is_loopback
from graphrag_agents.adapters.mcp._sessions import SessionStore
from graphrag_agents.cli import main as cli_main
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import READ_TOOLS, GraphRAGToolkit

TOKEN = "test-token-0123456789"
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@asynccontextmanager
async def serving(server: GraphRAGMCPServer, transport: str = "http") -> AsyncIterator[str]:
    """Serve on a free loopback port; yields the endpoint URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = server.streamable_http_app(port=port) if transport == "http" else server.sse_app(port=port)
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", log_config=None))
    task = asyncio.create_task(uv.serve(sockets=[sock]))
    try:
        for _ in range(500):
            if uv.started or task.done():
                break
            await asyncio.sleep(0.02)
        assert uv.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}/" + ("mcp" if transport == "http" else "sse")
    finally:
        uv.should_exit = True
        try:
            await asyncio.wait_for(task, 10)
        except asyncio.TimeoutError:
            task.cancel()
        sock.close()


def _authed(url: str, token: str, scheme: str = "Bearer") -> Any:
    return streamable_http_client(url, http_client=httpx2.AsyncClient(
        headers={"Authorization": f"{scheme} {token}"}, timeout=httpx2.Timeout(20)))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http_lists_tools_and_numbers_evidence_per_connection(kg: KnowledgeGraph, mode: str) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True)
    async with serving(server) as url, Client(url, mode=mode, read_timeout_seconds=20) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == list(READ_TOOLS)
        assert all(t.annotations and t.annotations.read_only_hint and t.annotations.open_world_hint is not None
                   for t in tools)
        status = await client.call_tool("status", {})
        found = await client.call_tool("retrieve", {"question": QUESTION})
        n = first_number(found)
        assert n == status.structured_content["n"] + 1, "one numbering across the calls of a connection"
        check = await cite(client, n)
    assert check["grounded"] and check["cited"] == [n]


async def test_http_concurrent_clients_get_independent_numbering(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=50)
    async with serving(server) as url, Client(url) as a, Client(url) as b, Client(url, mode="legacy") as c:
        results = await asyncio.gather(a.call_tool("status", {}), b.call_tool("status", {}),
                                       c.call_tool("get_ontology", {}))
        assert [r.structured_content["n"] for r in results] == [1, 1, 1]
        found_a = await a.call_tool("retrieve", {"question": QUESTION})
        n_a = first_number(found_a)
        assert n_a == 2 and (await cite(a, n_a))["grounded"]
        assert (await cite(b, n_a))["invalid"] == [n_a]
        assert (await cite(c, n_a))["invalid"] == [n_a]
    assert len(server.sessions) <= 50


async def test_http_read_only_lists_no_write_tools_and_refuses_them(kg: KnowledgeGraph,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("graphrag_agents.tools.toolkit.write_specs", fake_write_specs)
    server = GraphRAGMCPServer(kg, read_only=True)
    async with serving(server) as url, Client(url) as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(READ_TOOLS)
        refused = await client.call_tool("ingest", {"text": "Alice works at Acme."})
    assert refused.is_error and "read-only" in text_of(refused)


async def test_a_wrong_or_missing_token_gets_401(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, token=TOKEN)
    async with serving(server) as url:
        async with httpx2.AsyncClient(timeout=10) as http:
            for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": f"Basic {TOKEN}"},
                            {"Authorization": TOKEN}):
                response = await http.post(url, json=PING, headers={**JSON_HEADERS, **headers})
                assert response.status_code == 401, headers
                assert response.headers["www-authenticate"].startswith("Bearer")
        async with Client(_authed(url, TOKEN, scheme="bearer")) as client:  # the scheme is case-insensitive
            found = await client.call_tool("retrieve", {"question": QUESTION})
            assert (await cite(client, first_number(found)))["grounded"]


async def test_a_foreign_host_or_origin_is_refused_on_loopback(kg: KnowledgeGraph) -> None:
    server = GraphRAGMCPServer(kg, read_only=True)
    async with serving(server) as url, httpx2.AsyncClient(timeout=10) as http:
        port = url.split(":")[2].split("/")[0]
        foreign = await http.post(url, json=PING, headers={**JSON_HEADERS, "Host": "evil.example"})
        rebound = await http.post(url, json=PING, headers={**JSON_HEADERS, "Host": f"attacker.example:{port}"})
        origin = await http.post(url, json=PING, headers={**JSON_HEADERS, "Origin": "http://evil.example"})
        other_port = await http.post(url, json=PING, headers={**JSON_HEADERS, "Host": "127.0.0.1:1"})
        own = await http.post(url, json=PING, headers={**JSON_HEADERS, "Host": f"localhost:{port}"})
    assert foreign.status_code == rebound.status_code == other_port.status_code == 421
    assert origin.status_code == 403
    assert own.status_code not in (401, 403, 421)
    assert len(server.sessions) <= 1, "refused requests make no session"


def test_serving_off_loopback_needs_a_token(kg: KnowledgeGraph, capsys: pytest.CaptureFixture[str]) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.com")
    with pytest.raises(ConfigurationError, match="GRAPHRAG_MCP_TOKEN"):
        GraphRAGMCPServer(kg).streamable_http_app(host="0.0.0.0")
    with pytest.raises(ConfigurationError, match="bearer token"):
        GraphRAGMCPServer(kg).sse_app(host="10.0.0.1")
    check_binding("0.0.0.0", TOKEN)
    assert cli_main(["mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "1"]) == 2
    assert "GRAPHRAG_MCP_TOKEN" in capsys.readouterr().err


async def test_sse_transport_numbers_per_stream(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True)
    async with serving(server, "sse") as url, Client(sse_client(url)) as a, Client(sse_client(url)) as b:
        found = await a.call_tool("retrieve", {"question": QUESTION})
        n = first_number(found)
        assert (await cite(a, n))["grounded"]
        assert (await cite(b, n))["invalid"] == [n]


# -- the pieces -----------------------------------------------------------------------------------------------

async def _asgi_call(app: Any, headers: list[tuple[bytes, bytes]]) -> tuple[dict[str, Any], list[Any]]:
    sent: list[Any] = []
    scope: dict[str, Any] = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}

    async def send(message: Any) -> None:
        sent.append(message)

    await app(scope, None, send)
    return scope, sent


async def test_client_cookies_are_issued_by_the_server_only() -> None:
    seen: list[str] = []

    async def inner(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["graphrag_agents.mcp.client"])
        await send({"type": "http.response.start", "status": 200, "headers": []})

    app = ClientCookieMiddleware(inner, cookie_name="gm")
    _, sent = await _asgi_call(app, [])
    cookie = dict(sent[0]["headers"])[b"set-cookie"].decode()
    assert cookie.startswith(f"gm={seen[0]};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    _, sent = await _asgi_call(app, [(b"cookie", f"gm={seen[0]}".encode())])
    assert seen[1] == seen[0] and b"set-cookie" not in dict(sent[0]["headers"]), "a known id is kept"
    _, sent = await _asgi_call(app, [(b"cookie", b"gm=chosen-by-the-client")])
    assert seen[2] not in (seen[0], "chosen-by-the-client"), "an id the server did not issue is replaced"
    nonce = seen[0].partition(".")[0]
    _, sent = await _asgi_call(app, [(b"cookie", f"gm={nonce}.{'0' * 32}".encode())])
    assert seen[3] != seen[0] and b"set-cookie" in dict(sent[0]["headers"]), "a forged signature is replaced"
    other = ClientCookieMiddleware(inner, cookie_name="gm")
    await _asgi_call(other, [(b"cookie", f"gm={seen[0]}".encode())])
    assert seen[4] != seen[0], "another server's id is replaced"


def test_client_keys() -> None:
    class FakeRequest:
        def __init__(self, headers: dict[str, str], client: str | None) -> None:
            self.headers = headers
            self.scope = {"graphrag_agents.mcp.client": client} if client else {}

    with_id = FakeRequest({"mcp-session-id": "abc"}, "cookie1")
    assert client_key(with_id, "2025-11-25") == "s:abc"
    assert client_key(with_id, "2026-07-28") == "c:cookie1", "a stateless request's session id is never checked"
    assert client_key(FakeRequest({}, None), "2026-07-28") is None
    assert client_key(None, "2025-11-25") is None


async def test_session_store_evicts_unused_sessions_first(kg: KnowledgeGraph) -> None:
    store = SessionStore(GraphRAGToolkit(kg), capacity=3)
    used = store.get("used")
    used.ledger.add("retrieve", "passage", "Alice works at Acme.")
    store.get("idle-1")
    store.get("idle-2")
    store.get("new")
    assert "used" in store and "idle-1" not in store and len(store) == 3
    assert store.get("used") is used
    for i in range(5):
        store.get(f"flood-{i}")
    assert "used" in store and len(store) == 3, "a flood of new clients cannot push out a working session"
    with pytest.raises(ValueError):
        SessionStore(GraphRAGToolkit(kg), capacity=0)


def test_env_flags() -> None:
    assert env_flag("X", {"X": "1"}) and env_flag("X", {"X": "True"}) and not env_flag("X", {})
    assert not env_flag("X", {"X": "off"})
    with pytest.raises(ConfigurationError, match="X must be true or false"):
        env_flag("X", {"X": "maybe"})
