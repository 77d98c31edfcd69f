"""Talk to the graphrag-agents MCP server with the official ``mcp`` client, the way an agent would.

    graphrag-agents demo                                  # once: builds the graph "demo" in ./.graphrag
    python cookbook/mcp/mcp_client.py                     # starts `graphrag-mcp --read-only` over stdio
    python cookbook/mcp/mcp_client.py "Who was Lorenzo Monaco influenced by?"
    python cookbook/mcp/mcp_client.py --url http://127.0.0.1:8000/mcp   # a running HTTP server
                                                          # (sends GRAPHRAG_MCP_TOKEN as a bearer token if set)

Run it in the folder where you ran ``graphrag-agents demo``: the stdio server it starts opens ``./.graphrag`` (or
``GRAPHRAG_HOME``, or the FalkorDB server that ``FALKOR_URL`` / ``FALKOR_HOST`` names).

It prints the server's instructions and tools, retrieves evidence for the question, drafts an extractive answer
citing the best passage as [n], and checks it with ``check_citations`` on the same connection (the numbers are
per connection). A made-up citation comes back invalid.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from importlib import resources
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent


def _demo_question() -> str:
    text = resources.files("graphrag_agents.data").joinpath("demo_questions.jsonl").read_text(encoding="utf-8")
    return str(json.loads(text.splitlines()[1])["question"])


def _headers() -> dict[str, str]:
    token = os.environ.get("GRAPHRAG_MCP_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else {}


async def _unreachable(url: str) -> str | None:
    """Why the HTTP endpoint cannot be used (no server, token refused), or None.

    The SDK reports both as a bare "Server returned an error response"; one plain request says which it is.
    """
    ping = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
    try:
        async with httpx2.AsyncClient(headers=_headers(), timeout=10) as http:
            response = await http.post(url, json=ping, headers={"Accept": "application/json, text/event-stream"})
    except httpx2.TransportError as exc:
        return f"No server answers at {url} ({exc}). Start one: graphrag-mcp --transport http"
    if response.status_code == 401:
        return (f"{url} refused the request (401 Unauthorized): set GRAPHRAG_MCP_TOKEN to the token the server "
                "was started with.")
    return None


def _transport(args: argparse.Namespace) -> Any:
    if args.url:
        return streamable_http_client(args.url, http_client=httpx2.AsyncClient(headers=_headers(), timeout=120))
    server = StdioServerParameters(command=sys.executable,
                                   args=["-m", "graphrag_agents.cli.mcp_command", "--read-only", "--graph", args.graph],
                                   env=dict(os.environ))
    return stdio_client(server)


def _text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def _first_sentence(text: str) -> str:
    end = min((i for i in (text.find(". "), text.find(".\n")) if i > 0), default=len(text) - 1)
    return text[: end + 1].strip()


async def main(args: argparse.Namespace) -> int:
    problem = await _unreachable(args.url) if args.url else None
    if problem:
        print(problem, file=sys.stderr)
        return 1
    async with Client(_transport(args), read_timeout_seconds=120) as client:
        print(f"Connected ({client.protocol_version}). Instructions:\n{client.instructions}\n")
        for tool in (await client.list_tools()).tools:
            hints = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
            print(f"tool {tool.name:16} {hints}")

        found = await client.call_tool("retrieve", {"question": args.question})
        print(f"\n{_text(found)}\n")
        if found.is_error:
            print("(build the graph first: graphrag-agents demo)")
            return 1
        # retrieve's typed result rides in _meta (clients that show structuredContent to the model get the text)
        passages = (found.meta or {})["graphrag-agents/result"]["passages"]
        if not passages:
            print("Nothing found; an agent would say the graph does not contain the answer.")
            return 0
        top = passages[0]
        draft = f"{_first_sentence(top['text'])} [{top['n']}] Also, the moon is made of cheese [999]."
        print(f"Draft: {draft}\n")
        check = await client.call_tool("check_citations", {"answer": draft})
        print(_text(check))
        result = check.structured_content
        print(f"\ngrounded={result['grounded']} cited={result['cited']} invalid={result['invalid']}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("question", nargs="?", default=None)
    parser.add_argument("--graph", default=os.environ.get("GRAPHRAG_GRAPH", "demo"))
    parser.add_argument("--url", help="a streamable HTTP endpoint instead of a stdio subprocess")
    cli_args = parser.parse_args()
    cli_args.question = cli_args.question or _demo_question()
    sys.exit(asyncio.run(main(cli_args)))
