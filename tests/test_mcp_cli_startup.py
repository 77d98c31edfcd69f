"""Starting ``graphrag-mcp``: read-only unless ``--write``, start-up errors as one ``error:`` line and a ``hint:``
line (no traceback), and tool names with a prefix."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_mcp_server import QUESTION, acme_graph, first_number, text_of

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.errors import ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import READ_TOOLS, WRITE_TOOLS, GraphRAGToolkit


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    return env | {"HF_HUB_OFFLINE": "1"} | extra


async def _served(args: list[str], env: dict[str, str], workdir: Path) -> tuple[list[str], str]:
    """The tool names a fresh stdio server started with ``args`` lists, and its stderr."""
    log = workdir / f"server{len(list(workdir.iterdir()))}.stderr"
    with log.open("w+", encoding="utf-8") as errlog:
        params = StdioServerParameters(command=sys.executable, args=["-m", "graphrag_agents.cli.mcp_command", *args],
                                       env=env, cwd=workdir)
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
            names = [t.name for t in (await client.list_tools()).tools]
    return names, log.read_text(encoding="utf-8")


async def test_plain_graphrag_mcp_is_read_only_and_write_tools_need_the_flag(kg: KnowledgeGraph, data_dir: Path,
                                                                              tmp_path: Path) -> None:
    await acme_graph(kg)
    env = _env(GRAPHRAG_HOME=str(data_dir), GRAPHRAG_GRAPH=kg.name)
    (plain, plain_log), (written, write_log), (by_env, _) = await asyncio.wait_for(asyncio.gather(
        _served([], env, tmp_path),
        _served(["--write"], env, tmp_path),
        _served([], env | {"GRAPHRAG_MCP_WRITE": "1"}, tmp_path),
    ), timeout=120)
    # Before: a plain `graphrag-mcp` served ingest, set_ontology, finalize and add_facts to any client.
    assert plain == list(READ_TOOLS)
    assert "WRITE" not in plain_log
    served_writes = [t for t in WRITE_TOOLS if t != "preview_files"]  # preview_files needs a files root
    assert written == by_env == [*READ_TOOLS, *served_writes]
    assert f"serving the WRITE tools {', '.join(served_writes)}" in write_log, write_log


@pytest.mark.parametrize(("args", "error", "hint"), [
    (["--files-root", "./corpus"], "only the write tools read files and the server is read-only by default",
     "add --write"),
    (["--write", "--files-root", "./corpus"], "files_root './corpus' does not exist",
     "Create the folder or point files_root at an existing one."),
    (["--write", "--files-root", "/"], "files_root '/' is the filesystem root, which is refused.",
     "Point files_root at the folder that holds the documents"),
    (["--write", "--read-only"], "Both write tools", "drop one of them"),
    (["--write", "--allow-hard-links"], "--allow-hard-links only applies to a files root", "add --files-root"),
    (["--citation-packs", "yelp"], "Unknown citation rule pack 'yelp'", "pass one of the known packs: records"),
])
@pytest.mark.parametrize("entry", ["graphrag-mcp", "graphrag-agents mcp"])
def test_start_up_errors_are_one_line_and_a_hint(tmp_path: Path, args: list[str], error: str, hint: str,
                                                 entry: str) -> None:
    module = ["-m", "graphrag_agents.cli.mcp_command"] if entry == "graphrag-mcp" else ["-m", "graphrag_agents.cli",
                                                                                      "mcp"]
    run = subprocess.run([sys.executable, *module, *args], env=_env(GRAPHRAG_HOME=str(tmp_path / ".graphrag")),
                         cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    # Before: a 40-80 line ExceptionGroup traceback from inside the stdio task group, and exit code 1.
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith("error: ") and error in lines[0], lines
    assert lines[1].startswith("hint: ") and hint in lines[1], lines
    assert run.stdout == "" and not (tmp_path / ".graphrag").exists(), "nothing started"


async def test_a_tool_prefix_names_every_tool_and_the_instructions(acme_read_toolkit: GraphRAGToolkit) -> None:
    server = GraphRAGMCPServer(acme_read_toolkit, tool_prefix="kg_")
    async with Client(server.server) as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed == [f"kg_{n}" for n in READ_TOOLS]
        assert "`kg_retrieve`" in server.instructions and "`retrieve`" not in server.instructions
        found = await client.call_tool("kg_retrieve", {"question": QUESTION})
        n = first_number(found)
        check = await client.call_tool("kg_check_citations", {"answer": f"Alice Smith works at Acme Corp [{n}]."})
        assert (check.structured_content or {})["grounded"], text_of(check)
        unknown = await client.call_tool("retrieve", {"question": QUESTION})
        assert unknown.is_error
    with pytest.raises(ValueError, match="prefix"):
        GraphRAGMCPServer(acme_read_toolkit, tool_prefix="kg prefix")


def test_allow_hard_links_reaches_the_files_root_sandbox(tmp_path: Path) -> None:
    from graphrag_agents.cli.mcp_command import _files_root

    (tmp_path / "corpus").mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("outside the root")
    os.link(outside, tmp_path / "corpus" / "linked.txt")
    refused = _files_root(str(tmp_path / "corpus"), True, False)
    allowed = _files_root(str(tmp_path / "corpus"), True, True)
    assert refused is not None and allowed is not None
    with pytest.raises(ToolError, match="hard links"):
        refused.read_bytes("linked.txt")
    assert allowed.read_bytes("linked.txt")[1] == b"outside the root"
