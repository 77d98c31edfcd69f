"""langchain-mcp-adapters against graphrag-mcp: the two usages that keep one evidence numbering.

Evidence numbers belong to one MCP session, and ``MultiServerMCPClient(...).get_tools()`` opens a new session for
every tool call, so a citation checked in a later call would find no evidence. Either

1. keep one session for the conversation (stdio or HTTP)::

       async with client.session("graphrag") as session:
           tools = await load_mcp_tools(session)

2. or, over HTTP, let ``get_tools()`` open its sessions and send the header ``X-GraphRAG-Client: <random id>``
   on every request: the server keys the numbering on that id (it lives as long as the server process, among
   its 256 most recently used clients). Keep the id secret; another client cannot cite your evidence without it.

Without either, ``check_citations`` answers "NOT grounded" and its hint says exactly this.

Run it next to a server (langchain-mcp-adapters pins ``mcp<2``: give it a virtualenv of its own)::

    graphrag-mcp --transport http --graph demo &
    python -m venv /tmp/lma && /tmp/lma/bin/pip install langchain-mcp-adapters
    /tmp/lma/bin/python cookbook/mcp/langchain_mcp_adapters_client.py --url http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import sys
from typing import Any

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

DEMO_QUESTION = ("Which Canadian rock band released a song called \"Counterparts\" and had a drummer who was inducted "
                 "into the Modern Drummer Hall of Fame?")


def _text(content: Any) -> str:
    """A tool's content as text (a string, or a list of content blocks)."""
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in content)


def _draft(evidence: str, claim: str | None) -> str:
    """A one-sentence answer citing the first evidence item (or the first that says ``claim``)."""
    number, lines = None, evidence.splitlines()
    for i, line in enumerate(lines):
        marker = re.match(r"\[(\d+)\]\s*(.*)", line)
        if marker:
            number = marker.group(1)
            said = marker.group(2) if not marker.group(2).startswith("(") else (lines[i + 1:] or [""])[0]
            if claim is None or claim in line or claim in said:
                sentence = re.split(r"(?<=[.!?])\s", re.sub(r"\s*\(score [^)]*\)\s*$", "", said))[0]
                return (claim or sentence).rstrip(".") + f" [{number}]."
    raise SystemExit(f"retrieve returned no evidence{f' saying {claim!r}' if claim else ''}:\n{evidence}")


def _tool(tools: list[Any], name: str) -> Any:
    return next(t for t in tools if t.name == name)


async def _retrieve_then_check(tools: list[Any], question: str, claim: str | None) -> tuple[bool, str]:
    found = _text(await _tool(tools, "retrieve").ainvoke({"question": question}))
    checked = _text(await _tool(tools, "check_citations").ainvoke({"answer": _draft(found, claim)}))
    return checked.startswith("Citation check: grounded"), checked


async def main(url: str, question: str, claim: str | None, self_test: bool) -> int:
    headers = {"Authorization": f"Bearer {os.environ['GRAPHRAG_MCP_TOKEN']}"} \
        if os.environ.get("GRAPHRAG_MCP_TOKEN") else {}
    client_id = secrets.token_urlsafe(24)  # one per client (or conversation); keep it secret

    # 1. one session for the whole conversation
    client = MultiServerMCPClient({"graphrag": {"transport": "streamable_http", "url": url, "headers": headers}})
    async with client.session("graphrag") as session:
        tools = await load_mcp_tools(session)
        grounded, said = await _retrieve_then_check(tools, question, claim)
    print(f"client.session(): grounded={grounded}")

    # 2. the documented get_tools(): a new session per call, tied together by X-GraphRAG-Client
    client = MultiServerMCPClient({"graphrag": {"transport": "streamable_http", "url": url,
                                                "headers": headers | {"X-GraphRAG-Client": client_id}}})
    tools = await client.get_tools()
    grounded_header, _ = await _retrieve_then_check(tools, question, claim)
    print(f"get_tools() with X-GraphRAG-Client: grounded={grounded_header}")

    # what happens without either: the check says why and what to do
    client = MultiServerMCPClient({"graphrag": {"transport": "streamable_http", "url": url, "headers": headers}})
    grounded_bare, said_bare = await _retrieve_then_check(await client.get_tools(), question, claim)
    told = "opens a new MCP session for every tool call" in said_bare
    print(f"get_tools() without the header: grounded={grounded_bare}{', told what to do' if told else ''}")
    if not self_test:
        print(f"\n{said}\n\nwithout the header:\n{said_bare}")
    return 0 if grounded and grounded_header and not grounded_bare and told else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000/mcp", help="the server's streamable HTTP endpoint")
    parser.add_argument("--question", default=DEMO_QUESTION)
    parser.add_argument("--claim", help="cite the first evidence item that says this (default: the first item)")
    parser.add_argument("--self-test", action="store_true", help="print only the three verdicts; exit 1 if wrong")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.url, args.question, args.claim, args.self_test)))
