"""Clients that open a new MCP session for every tool call, as langchain-mcp-adapters' documented
``MultiServerMCPClient(...).get_tools()`` does: a fresh HTTP client, ``initialize`` and ``Mcp-Session-Id`` per call
over HTTP, a fresh server process per call over stdio.

The reproduction uses the ``mcp`` SDK the way langchain-mcp-adapters 0.3 does (``create_session`` then one
``call_tool`` per session, handshake era). ``test_langchain_mcp_adapters_itself`` runs the real library when
``GRAPHRAG_LMA_PYTHON`` names a Python that has it (it pins ``mcp<2``, so it cannot share this environment):
``python -m venv /tmp/lma && /tmp/lma/bin/pip install langchain-mcp-adapters``.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult
from test_mcp_http import serving
from test_mcp_server import QUESTION, acme_graph, data_of, first_number, text_of

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.kg import KnowledgeGraph

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "Alice Smith works at Acme Corp [{n}]."


async def call_in_new_session(url: str, tool: str, args: dict[str, Any],
                              headers: dict[str, str] | None = None) -> CallToolResult:
    """One tool call in a session of its own, as ``MultiServerMCPClient.get_tools()``' tools make it."""
    http = httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(30))
    async with http, streamable_http_client(url, http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        return await session.call_tool(tool, args)


async def test_per_call_sessions_over_http_keep_one_numbering_with_the_client_header(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True)
    alice = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
    mallory = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
    async with serving(server) as url:
        # Before: the check came back "NOT grounded ... cites no evidence returned in this session", no way out.
        found = await call_in_new_session(url, "retrieve", {"question": QUESTION})
        n = first_number(found)
        lost = await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)})
        assert data_of(lost)["invalid"] == [n] and not data_of(lost)["grounded"]
        for said in (text_of(lost), data_of(lost)["hint"]):
            assert "opens a new MCP session for every tool call" in said and "X-GraphRAG-Client" in said, said
            assert "client.session(" in said and "load_mcp_tools" in said

        found = await call_in_new_session(url, "retrieve", {"question": QUESTION}, alice)
        n = first_number(found)
        kept = await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)}, alice)
        assert data_of(kept)["grounded"] and data_of(kept)["cited"] == [n], text_of(kept)
        other = await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)}, mallory)
        assert data_of(other)["invalid"] == [n], "another client's id cannot cite alice's evidence"

        async with httpx2.AsyncClient(timeout=10) as http:
            bad = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                  headers={"X-GraphRAG-Client": "short", "Accept": "application/json, "
                                           "text/event-stream", "Content-Type": "application/json"})
        assert bad.status_code == 400 and "16-256 URL-safe characters" in bad.text


async def test_per_call_processes_over_stdio_are_told_what_to_do(kg: KnowledgeGraph, data_dir: Path,
                                                                 tmp_path: Path) -> None:
    await acme_graph(kg)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    env |= {"GRAPHRAG_HOME": str(data_dir), "GRAPHRAG_GRAPH": kg.name, "HF_HUB_OFFLINE": "1"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphrag_agents.cli.mcp_command"], env=env,
                                   cwd=tmp_path)

    async def call(tool: str, args: dict[str, Any]) -> CallToolResult:
        with (tmp_path / "server.stderr").open("a", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write, read_timeout_seconds=60) as session:
                await session.initialize()
                return await session.call_tool(tool, args)

    n = first_number(await call("retrieve", {"question": QUESTION}))
    lost = await call("check_citations", {"answer": ANSWER.format(n=n)})
    assert data_of(lost)["invalid"] == [n]
    assert "opens a new MCP session for every tool call" in text_of(lost) and "client.session(" in text_of(lost)


async def test_langchain_mcp_adapters_itself(kg: KnowledgeGraph, tmp_path: Path) -> None:
    python = os.environ.get("GRAPHRAG_LMA_PYTHON")
    if not python:
        pytest.skip("set GRAPHRAG_LMA_PYTHON to a Python with langchain-mcp-adapters (it needs mcp<2)")
    await acme_graph(kg)
    script = ROOT / "cookbook" / "mcp" / "langchain_mcp_adapters_client.py"
    async with serving(GraphRAGMCPServer(kg, read_only=True)) as url:
        proc = await asyncio.create_subprocess_exec(
            python, str(script), "--url", url, "--question", QUESTION, "--claim", "works at Acme Corp",
            "--self-test", cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env={k: v for k, v in os.environ.items() if not k.startswith(("GRAPHRAG_", "PYTHON"))})
        out = (await asyncio.wait_for(proc.communicate(), 300))[0].decode()
    assert proc.returncode == 0, out
    assert "client.session(): grounded=True" in out
    assert "get_tools() with X-GraphRAG-Client: grounded=True" in out
    assert "get_tools() without the header: grounded=False, told what to do" in out
