"""Benchmark (slow): over MCP HTTP, one client's hostile ``check_citations`` draft must not hold up another
client's ``status`` beyond the call timeout.

``graphrag-mcp --transport http --call-timeout 10`` runs as a subprocess on a project folder. One client retrieves,
then sends a draft built to make text rules backtrack (its citation [n] real, so every rule reads it); another
client calls ``status`` every 50 ms while that check runs (each call a connection of its own, with one
``X-GraphRAG-Client`` id). Reported: the other client's ``status`` wait with no attack, its longest and median
wait during it, the calls that failed, and the attacker's own call time and outcome. A regex that backtracks
holds the GIL for the whole match, so it stalls the server's event loop, which the call timeout cannot interrupt.

    .venv/bin/python -m pytest tests/test_mcp_hostile_draft_bench.py -m slow -s
"""

from __future__ import annotations

import asyncio
import random
import secrets
import statistics
import string
import time
from pathlib import Path

import pytest
from mcp import Client
from test_mcp_client_configs import GRAPH, free_port, http_server, user_env
from test_mcp_client_configs import project as project  # the fixture
from test_mcp_per_call_sessions import call_in_new_session
from test_mcp_server import QUESTION, first_number, text_of

pytestmark = pytest.mark.slow

CALL_TIMEOUT = 10.0
LEAD = "Alice Smith works at Acme Corp [{n}]. "
CITE = " [{n}]."


def _fit(head: str, body: str, tail: str, chars: int) -> str:
    """``head + body + tail`` with ``body`` cut or padded so the draft is ``chars`` long for a one-digit [n]."""
    room = chars - len((head + tail).format(n=1))
    return head + body[:room].ljust(room) + tail


def _capitals(chars: int) -> str:
    """An invented name that never ends: capital letters with no space (a name run every rule tries at each
    letter)."""
    rnd = random.Random(42)
    return _fit(LEAD, "".join(rnd.choice(string.ascii_uppercase) for _ in range(chars)), CITE, chars)


def _names(chars: int) -> str:
    """Letters and invented names, all capitalised, then an acronym in parentheses and the citation."""
    rnd = random.Random(42)
    words = ["".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(1, 9))).capitalize()
             for _ in range(chars // 4)]
    return _fit(LEAD, " ".join(words), " (AB)" + CITE, chars)


def _spaces(chars: int) -> str:
    """A sentence with a run of spaces between its words."""
    return _fit("Alice works", "", "at Acme Corp" + CITE, chars)


DRAFTS = {"capitals": _capitals(23_610), "names": _names(23_610), "spaces": _spaces(39_000)}
"""The drafts, each as long as the issue's once ``{n}`` is a one-digit number."""


async def _status(url: str, client: dict[str, str]) -> tuple[float, str]:
    """One ``status`` call of the other client in a connection of its own: its wait and how it ended."""
    asked = time.perf_counter()
    try:
        result = await call_in_new_session(url, "status", {}, client)
    except Exception as exc:  # a stalled server drops connections: that is a result too
        return time.perf_counter() - asked, type(exc).__name__
    return time.perf_counter() - asked, "error" if result.is_error else "ok"


async def _measure(url: str, draft: str) -> dict[str, float | str]:
    other = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
    idle, _ = await _status(url, other)
    async with Client(url, read_timeout_seconds=600) as attacker:
        n = first_number(await attacker.call_tool("retrieve", {"question": QUESTION}))
        started = time.perf_counter()
        attack = asyncio.create_task(attacker.call_tool("check_citations", {"answer": draft.format(n=n)}))
        await asyncio.sleep(0.02)  # the draft is on its way: the first status follows it
        calls = [await _status(url, other)]
        while not attack.done():
            await asyncio.sleep(0.05)
            calls.append(await _status(url, other))
        result = await attack
        took = time.perf_counter() - started
    outcome = "timeout" if result.is_error and "timeout" in text_of(result).lower() else (
        "error" if result.is_error else "checked")
    waits = [wait for wait, _ in calls]
    return {"status_idle_s": idle, "status_max_s": max(waits, default=0.0),
            "status_p50_s": statistics.median(waits) if waits else 0.0,
            "status_calls": len(waits), "status_failed": ",".join(end for _, end in calls if end != "ok") or "none",
            "attacker_s": took, "attacker": outcome}


@pytest.mark.parametrize("kind", sorted(DRAFTS))
async def test_a_hostile_draft_does_not_hold_up_another_clients_status(kind: str, project: Path,
                                                                       tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    args = ["--transport", "http", "--port", str(port), "--graph", GRAPH, "--call-timeout", str(CALL_TIMEOUT)]
    async with http_server(args, user_env(), project, url, tmp_path / "server.log"):
        figures = await _measure(url, DRAFTS[kind])
    print(f"\n{kind} ({len(DRAFTS[kind].format(n=1)):,} characters): " + ", ".join(
        f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items()))
    assert float(figures["status_max_s"]) < CALL_TIMEOUT and figures["status_failed"] == "none", figures
