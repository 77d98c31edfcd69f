"""The MCP server as a real stdio subprocess (``graphrag-mcp`` and ``graphrag-agents mcp``) on the embedded store."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_mcp_server import QUESTION, acme_graph, cite, first_number, text_of

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import READ_TOOLS


async def _session(args: list[str], env: dict[str, str], workdir: Path, name: str) -> str:
    """Run one client session against a fresh server process; returns the server's stderr."""
    problems: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # e.g. a stdout line that is not JSON-RPC
            problems.append(message)

    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=workdir)
    errlog_path = workdir / f"{name}.stderr"
    with errlog_path.open("w+", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), message_handler=on_message,
                          read_timeout_seconds=60) as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == list(READ_TOOLS)
            assert all(t.annotations and t.annotations.read_only_hint for t in tools)
            status = await client.call_tool("status", {})
            found = await client.call_tool("retrieve", {"question": QUESTION})
            n = first_number(found)
            assert n == status.structured_content["n"] + 1, "one numbering for the whole process"
            assert (await cite(client, n))["grounded"]
            refused = await client.call_tool("ingest", {"text": "Alice works at Acme."})
            assert refused.is_error and "read-only" in text_of(refused)
    assert not problems, f"stdout carried something that is not the protocol: {problems}"
    return errlog_path.read_text(encoding="utf-8")


async def test_stdio_subprocesses_serve_the_embedded_graph(kg: KnowledgeGraph, data_dir: Path,
                                                           tmp_path: Path) -> None:
    await acme_graph(kg)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    # No FalkorDB setting: the embedded store in GRAPHRAG_HOME (the test session's temp folder).
    env |= {"GRAPHRAG_HOME": str(data_dir), "GRAPHRAG_GRAPH": kg.name, "HF_HUB_OFFLINE": "1"}
    mcp_env = env | {"GRAPHRAG_MCP_READ_ONLY": "true"}
    logs = await asyncio.wait_for(asyncio.gather(
        _session(["-m", "graphrag_agents.cli.mcp_command"], mcp_env, tmp_path, "graphrag-mcp"),
        _session(["-m", "graphrag_agents.cli", "mcp", "--read-only", "--graph", kg.name], env, tmp_path, "cli"),
    ), timeout=90)
    for log in logs:
        assert f"serving graph '{kg.name}' over stdio" in log, "logs go to stderr"


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    return env | {"HF_HUB_OFFLINE": "1"} | extra


def test_read_only_server_on_a_missing_data_folder_fails_at_start(tmp_path: Path) -> None:
    """A mistyped folder must not start an empty database that fails only at the first tool call."""
    import subprocess

    missing = tmp_path / "typo" / ".graphrag"
    run = subprocess.run([sys.executable, "-m", "graphrag_agents.cli.mcp_command", "--read-only"],
                         env=_clean_env(GRAPHRAG_HOME=str(missing)), cwd=tmp_path, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert f"{missing} does not exist" in run.stderr and "--data-dir (or GRAPHRAG_HOME)" in run.stderr
    assert run.stdout == "" and not missing.exists()


def test_server_on_a_graph_not_built_yet_warns_at_start(data_dir: Path, tmp_path: Path) -> None:
    import subprocess

    run = subprocess.run([sys.executable, "-m", "graphrag_agents.cli.mcp_command", "--graph", "not_built_yet"],
                         env=_clean_env(GRAPHRAG_HOME=str(data_dir)), cwd=tmp_path, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=120)
    # When the folder holds other graphs, the warning names them instead (tests/test_cli_next_steps.py).
    assert ("graph 'not_built_yet' does not exist yet in embedded FalkorDB in" in run.stderr
            or "graph 'not_built_yet' does not exist in embedded FalkorDB in" in run.stderr), run.stderr
    assert run.stdout == ""
