"""A real stdio server answers unreadable lines with JSON-RPC errors (and keeps serving), as the HTTP transport does."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from graphrag_agents.adapters.mcp._stdio import rejection
from graphrag_agents.kg import KnowledgeGraph

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw-test", "version": "0"}}}
DEEP = '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": ' + "[" * 100_000 + "]" * 100_000 + "}"


async def _reply(proc: asyncio.subprocess.Process) -> dict[str, Any]:
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 60)  # a guard against hanging, not a timing check
    assert line, "the server closed stdout instead of answering"
    reply: dict[str, Any] = json.loads(line)
    return reply


@pytest.mark.parametrize("module", [["-m", "graphrag_agents.cli.mcp_command"], ["-m", "graphrag_agents.cli", "mcp"]])
async def test_malformed_and_deeply_nested_lines_get_json_rpc_errors(kg: KnowledgeGraph, data_dir: Path,
                                                                     tmp_path: Path, module: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKOR_", "GRAPHRAG_"))}
    env |= {"GRAPHRAG_HOME": str(data_dir), "GRAPHRAG_GRAPH": kg.name, "HF_HUB_OFFLINE": "1"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *module, "--read-only", cwd=tmp_path, env=env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    assert proc.stdin is not None
    try:
        lines = ["{not json", DEEP, json.dumps({"jsonrpc": "2.0", "id": 7, "method": 5}), "42",
                 json.dumps(INITIALIZE)]
        proc.stdin.write("".join(line + "\n" for line in lines).encode())
        await proc.stdin.drain()
        replies = [await _reply(proc) for _ in lines]
        assert [(r.get("id"), r.get("error", {}).get("code")) for r in replies[:4]] == [
            (None, -32700), (None, -32700), (7, -32600), (None, -32600)]
        assert all(r["jsonrpc"] == "2.0" and r["error"]["message"] for r in replies[:4])
        assert replies[4]["id"] == 1 and "result" in replies[4], "the server goes on serving"
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n'
                         b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}\n')
        await proc.stdin.drain()
        listed = await _reply(proc)
        assert listed["id"] == 2 and {t["name"] for t in listed["result"]["tools"]} >= {"retrieve"}
        # Before: a request whose id is an object, true or 1.5 was read as a notification and never answered, and
        # a valid JSON line escaping a lone surrogate was answered "not valid JSON".
        odd = [json.dumps({"jsonrpc": "2.0", "id": bad, "method": "tools/list"}) for bad in ({"a": 1}, True, 1.5)]
        call = ('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "retrieve", '
                '"arguments": {"question": "Where \\ud800 works?"}}}')
        proc.stdin.write("".join(line + "\n" for line in [*odd, call]).encode())
        await proc.stdin.drain()
        replies = [await _reply(proc) for _ in odd]
        assert [(r["id"], r["error"]["code"]) for r in replies] == [(None, -32600)] * 3
        answer = await _reply(proc)
        assert answer["id"] == 9 and answer["result"]["isError"] is True
        assert "question" in answer["result"]["content"][0]["text"]  # the tool says which argument is wrong
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def test_rejection_codes_without_a_process() -> None:
    import mcp_types as types

    def error_for(line: str) -> types.JSONRPCError:
        try:
            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except Exception as exc:
            return rejection(exc)
        raise AssertionError(f"{line[:40]!r} validated")

    assert error_for("[" * 5000).error.code == types.PARSE_ERROR
    bad_id = error_for('{"jsonrpc": "2.0", "id": true, "method": 1}')
    assert bad_id.error.code == types.INVALID_REQUEST and bad_id.id is None
    assert error_for('{"jsonrpc": "2.0", "id": "a", "method": []}').id == "a"
    assert rejection(RuntimeError("boom")).error.code == types.PARSE_ERROR

