"""The cookbook's MCP client configs, launched the way Claude Code and Cursor launch them, and its client script.

``cookbook/mcp/claude_code.mcp.json`` is a Claude Code project ``.mcp.json`` and ``cookbook/mcp/cursor.mcp.json``
a Cursor ``.cursor/mcp.json``. In a project folder where "``graphrag-agents demo``" left the graph ``demo`` in
``./.graphrag`` (here: the Acme graph under that name), every stdio entry is started with exactly the command, args
and env it declares, its variables expanded as its client expands them, and every HTTP entry is used with its URL
(port substituted) and headers against ``graphrag-mcp --transport http`` started with a token, as the README says.
The clients are the official ``mcp`` SDK (``stdio_client`` / ``streamable_http_client`` + ``ClientSession``: the
initialize handshake, as Claude Code and Cursor do).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import socket
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from test_mcp_http import JSON_HEADERS, PING
from test_mcp_server import QUESTION, acme_graph, first_number, text_of

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import READ_TOOLS, WRITE_TOOLS

COOKBOOK = Path(__file__).resolve().parents[1] / "cookbook" / "mcp"
CONFIGS = {"claude_code": COOKBOOK / "claude_code.mcp.json", "cursor": COOKBOOK / "cursor.mcp.json"}
GRAPH = "demo"  # what `graphrag-agents demo` builds, and what the configs and the client script default to

# The keys each client reads in an entry (Claude Code: project-scope .mcp.json; Cursor: .cursor/mcp.json).
STDIO_KEYS = {"claude_code": {"type", "command", "args", "env"}, "cursor": {"command", "args", "env"}}
REMOTE_KEYS = {"claude_code": {"type", "url", "headers"}, "cursor": {"url", "headers"}}
# A reference to one environment variable, in each client's syntax, without a default (a default is a literal).
SECRET_REF = {"claude_code": r"\$\{[A-Za-z_][A-Za-z0-9_]*\}", "cursor": r"\$\{env:[A-Za-z_][A-Za-z0-9_]*\}"}
SECRET_KEY = re.compile(r"token|secret|password|passwd|api_?key|authorization|^falkor_url$", re.IGNORECASE)
_VARIABLE = re.compile(r"\$\{([^}]*)\}")


def servers(client: str) -> dict[str, dict[str, Any]]:
    data = json.loads(CONFIGS[client].read_text(encoding="utf-8"))
    assert list(data) == ["mcpServers"], f"{CONFIGS[client].name}: the only top-level key is mcpServers"
    return dict(data["mcpServers"])


def is_stdio(client: str, entry: Mapping[str, Any]) -> bool:
    return entry.get("type") == "stdio" if client == "claude_code" else "command" in entry


def entries(stdio: bool) -> list[Any]:
    return [pytest.param(client, name, id=f"{client}-{name}") for client in CONFIGS
            for name, entry in servers(client).items() if is_stdio(client, entry) == stdio]


def expand(client: str, value: str, env: Mapping[str, str], workspace: Path) -> str:
    """``value`` with its variables expanded as ``client`` does; an unknown or unset variable fails the test."""

    def one(match: re.Match[str]) -> str:
        ref = match.group(1)
        if client == "claude_code":  # ${VAR} and ${VAR:-default}, in command, args, env, url and headers
            name, has_default, default = ref.partition(":-")
            if name in env:
                return env[name]
            if has_default:
                return default
        else:  # Cursor: ${env:NAME}, ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator}
            if ref.startswith("env:") and ref[4:] in env:
                return env[ref[4:]]
            fixed = {"workspaceFolder": str(workspace), "workspaceFolderBasename": workspace.name,
                     "userHome": str(Path.home()), "pathSeparator": os.sep, "/": os.sep}
            if ref in fixed:
                return fixed[ref]
        raise AssertionError(f"{client} would not expand ${{{ref}}} in {value!r} (unset, or not its syntax)")

    return _VARIABLE.sub(one, value)


def expand_entry(client: str, entry: Mapping[str, Any], env: Mapping[str, str], workspace: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if isinstance(value, str):
            out[key] = expand(client, value, env, workspace)
        elif isinstance(value, list):
            out[key] = [expand(client, item, env, workspace) for item in value]
        elif isinstance(value, dict):
            out[key] = {k: expand(client, v, env, workspace) for k, v in value.items()}
    return out


def user_env() -> dict[str, str]:
    """The environment the user starts the client from (the clients pass it on to stdio servers)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    return env | {"HF_HUB_OFFLINE": "1"}


def console_script(command: str) -> str:
    """A command the configs name, resolved to the script ``pip install -e .`` put next to this Python."""
    found = shutil.which(command, path=str(Path(sys.executable).parent))
    assert found, f"{command} is not installed next to {sys.executable} (pip install -e .)"
    return found


def expected_tools(args: list[str], env: Mapping[str, str]) -> list[str]:
    """The tools a server started with ``args`` and ``env`` serves (no model needed for any of them)."""
    if "--write" not in args and env.get("GRAPHRAG_MCP_WRITE", "").lower() not in {"1", "true", "yes", "on"}:
        return list(READ_TOOLS)  # read-only unless asked for the write tools
    files_root = "--files-root" in args or bool(env.get("GRAPHRAG_MCP_FILES_ROOT"))
    return [*READ_TOOLS, *(t for t in WRITE_TOOLS if t != "preview_files" or files_root)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def check_session(session: ClientSession, tools: list[str]) -> None:
    """Handshake, tool list, status on the project graph, then retrieve and check_citations on this connection."""
    init = await session.initialize()
    assert init.instructions and "check_citations" in init.instructions
    assert [t.name for t in (await session.list_tools()).tools] == tools
    status = await session.call_tool("status", {})
    assert not status.is_error, text_of(status)
    held = status.structured_content or {}
    assert (held["graph"], held["documents"], held["entities"]) == (GRAPH, 1, 2), "the project's graph"
    found = await session.call_tool("retrieve", {"question": QUESTION})
    n = first_number(found)
    check = await session.call_tool("check_citations", {"answer": f"Alice Smith works at Acme Corp [{n}]."})
    assert (check.structured_content or {})["grounded"], text_of(check)


async def run(args: list[str], env: Mapping[str, str], cwd: Path, timeout: float = 120) -> tuple[int, str]:
    """Run a command to the end; its exit code and output (stdout then stderr)."""
    proc = await asyncio.create_subprocess_exec(*args, env=dict(env), cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return int(proc.returncode or 0), out.decode() + err.decode()


@asynccontextmanager
async def http_server(args: list[str], env: Mapping[str, str], cwd: Path, url: str,
                      log: Path) -> AsyncIterator[None]:
    """``graphrag-mcp`` with ``args`` as a subprocess, until it answers at ``url``; terminated afterwards."""
    with log.open("w+", encoding="utf-8") as out:
        proc = await asyncio.create_subprocess_exec(console_script("graphrag-mcp"), *args, env=dict(env), cwd=cwd,
                                                    stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out)
        try:
            async with httpx2.AsyncClient(timeout=5) as http:
                for _ in range(600):
                    assert proc.returncode is None, f"the server exited:\n{log.read_text(encoding='utf-8')}"
                    try:
                        await http.post(url, json=PING, headers=JSON_HEADERS)
                        break
                    except httpx2.TransportError:
                        await asyncio.sleep(0.1)
                else:
                    raise AssertionError(f"the server did not answer:\n{log.read_text(encoding='utf-8')}")
            yield
        finally:
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 15)
                except asyncio.TimeoutError:
                    proc.kill()
                    await proc.wait()


@pytest.fixture
async def project(tmp_path: Path, embedder: Any) -> AsyncIterator[Path]:
    """A user's project folder after ``graphrag-agents demo``: the graph ``demo`` in ``./.graphrag``.

    This process starts the folder's embedded FalkorDB and holds it; the servers under test reattach to it.
    """
    folder = tmp_path / "project"
    folder.mkdir()
    kg = await KnowledgeGraph.open(graph=GRAPH, data_dir=str(folder / ".graphrag"), embedder=embedder)
    try:
        await acme_graph(kg)
        yield folder
    finally:
        await kg.close()


# -- the files --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("client", list(CONFIGS))
def test_entries_have_their_clients_shape_and_no_literal_secret(client: str) -> None:
    assert servers(client), "at least one server"
    for name, entry in servers(client).items():
        stdio = is_stdio(client, entry)
        assert set(entry) <= (STDIO_KEYS if stdio else REMOTE_KEYS)[client], f"{name}: keys {sorted(entry)}"
        if client == "claude_code":
            assert entry["type"] in ({"stdio"} if stdio else {"http", "sse"}), name
        if stdio:
            assert isinstance(entry["command"], str) and entry["command"], name
            assert all(isinstance(a, str) for a in entry.get("args", [])), name
        else:
            assert urlsplit(entry["url"]).scheme in {"http", "https"}, name
            assert entry["headers"], f"{name}: the server requires a bearer token off loopback"
        for key, value in {**entry.get("env", {}), **entry.get("headers", {})}.items():
            assert isinstance(value, str), f"{name}: {key}"
            if SECRET_KEY.search(key):
                assert re.fullmatch(rf"(Bearer )?{SECRET_REF[client]}", value), (
                    f"{name}: {key} must come from the environment ({SECRET_REF[client]}), not be written in")


# -- stdio: the client starts the server ------------------------------------------------------------------------

@pytest.mark.parametrize(("client", "name"), entries(stdio=True))
async def test_stdio_entry_serves_the_projects_graph(client: str, name: str, project: Path, tmp_path: Path) -> None:
    env = user_env()
    entry = expand_entry(client, servers(client)[name], env, project)
    server_env = env | entry.get("env", {})
    # Claude Code starts stdio servers in the folder it was launched from (the project: .mcp.json is at its
    # root); Cursor's folder is not documented, so its entry must not depend on it.
    cwd = project if client == "claude_code" else tmp_path
    params = StdioServerParameters(command=console_script(entry["command"]), args=entry.get("args", []),
                                   env=server_env, cwd=cwd)
    problems: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # e.g. a stdout line that is not JSON-RPC
            problems.append(message)

    errlog_path = tmp_path / f"{client}-{name}.stderr"
    with errlog_path.open("w+", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(
                read, write, read_timeout_seconds=60, message_handler=on_message) as session:
            await asyncio.wait_for(check_session(session, expected_tools(entry.get("args", []), server_env)), 120)
    assert not problems, f"stdout carried something that is not the protocol: {problems}"
    assert f"serving graph '{GRAPH}' over stdio" in errlog_path.read_text(encoding="utf-8")


# -- HTTP: a server the user started -----------------------------------------------------------------------------

@pytest.mark.parametrize(("client", "name"), entries(stdio=False))
async def test_http_entry_reaches_a_token_protected_server(client: str, name: str, project: Path,
                                                           tmp_path: Path) -> None:
    token = secrets.token_urlsafe(24)
    env = user_env() | {"GRAPHRAG_MCP_TOKEN": token}
    entry = expand_entry(client, servers(client)[name], env, project)
    configured = urlsplit(entry["url"])
    assert (configured.hostname, configured.port, configured.path) == ("127.0.0.1", 8000, "/mcp"), (
        "the entry names the server's defaults (--host 127.0.0.1 --port 8000 --path /mcp)")
    port = free_port()
    url = urlunsplit(configured._replace(netloc=f"{configured.hostname}:{port}"))
    # As the README starts it: in the project folder, the token in the environment only.
    args = ["--transport", "http", "--port", str(port), "--graph", GRAPH]
    async with http_server(args, env, project, url, tmp_path / f"{client}-{name}.log"):
        async with httpx2.AsyncClient(timeout=10) as http:
            for headers in ({}, {"Authorization": "Bearer not-the-token"}):
                refused = await http.post(url, json=PING, headers=JSON_HEADERS | headers)
                assert refused.status_code == 401, (headers, refused.status_code, refused.text)

        async with httpx2.AsyncClient(headers=entry["headers"], timeout=httpx2.Timeout(60)) as http_client, \
                streamable_http_client(url, http_client=http_client) as (read, write), \
                ClientSession(read, write, read_timeout_seconds=60) as session:
            await asyncio.wait_for(check_session(session, expected_tools(args, env)), 120)

        # The cookbook client against the same server, with the token and without it.
        script = [sys.executable, str(COOKBOOK / "mcp_client.py"), QUESTION, "--url", url]
        code, output = await run(script, env, project)
        assert code == 0, output
        assert "grounded=True" in output and "invalid=[999]" in output, output
        code, output = await run(script, user_env(), project)
        assert code == 1 and "401" in output and "GRAPHRAG_MCP_TOKEN" in output, output


# -- the cookbook client over stdio ------------------------------------------------------------------------------

async def test_cookbook_client_runs_in_the_project_folder(project: Path) -> None:
    code, output = await run([sys.executable, str(COOKBOOK / "mcp_client.py"), QUESTION], user_env(), project)
    assert code == 0, output
    assert f"serving graph '{GRAPH}' over stdio" in output, output
    assert re.search(r"grounded=True cited=\[\d+\] invalid=\[999\]", output), output
