"""``check_citations`` as a tool: a bounded draft, checked off the event loop, stopped by the MCP call timeout."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.citations import check_citations as real_check
from graphrag_agents.errors import ToolError
from graphrag_agents.tools import toolkit as toolkit_module
from graphrag_agents.tools.inputs import MAX_ANSWER_CHARS
from graphrag_agents.tools.toolkit import GraphRAGToolkit

QUESTION = "Where does Alice Smith work?"


def _hostile(chars: int) -> str:
    """Markers, ranges, nested brackets, figures and capitalised names packed as densely as possible."""
    unit = "Alice Smith Of Acme Corp Ltd [1][2, 3][1-100][[[[4]]]] earned 1,000.50 in 2024 ［5］【6】 `[7]` "
    return (unit * (chars // len(unit) + 1))[:chars]


async def test_a_draft_at_the_limit_is_checked_and_one_past_it_is_refused_with_a_hint(
        acme_read_toolkit: GraphRAGToolkit) -> None:
    session = acme_read_toolkit.new_session()
    await session.retrieve(QUESTION)
    check = await session.check_citations(_hostile(MAX_ANSWER_CHARS))
    assert check.answer and len(check.answer) <= MAX_ANSWER_CHARS
    for size in (MAX_ANSWER_CHARS + 1, 2_000_000):
        with pytest.raises(ToolError) as caught:
            await session.check_citations(_hostile(size))
        assert f"at most {MAX_ANSWER_CHARS}" in caught.value.message
        assert "40,000 characters" in caught.value.hint and "split" in caught.value.hint


async def test_the_check_runs_off_the_event_loop(acme_read_toolkit: GraphRAGToolkit,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    released = threading.Event()
    threads: list[threading.Thread] = []

    def blocking_check(answer: str, evidence: Any, **options: Any) -> Any:
        threads.append(threading.current_thread())
        # Only the event loop sets ``released``: were the check on the loop, this would wait in vain.
        assert released.wait(5), "the event loop was blocked while the check ran"
        return real_check(answer, evidence, **options)

    monkeypatch.setattr(toolkit_module, "check_citations", blocking_check)
    session = acme_read_toolkit.new_session()
    await session.retrieve(QUESTION)
    call = asyncio.ensure_future(session.check_citations("Alice Smith works at Acme Corp [1]."))
    while not threads:
        await asyncio.sleep(0.001)
    released.set()
    check = await call
    assert check.grounded and threads[0] is not threading.main_thread()


async def test_the_check_reads_a_snapshot_of_the_evidence(acme_read_toolkit: GraphRAGToolkit,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    session = acme_read_toolkit.new_session()
    await session.retrieve(QUESTION)
    seen: list[Any] = []

    def spy(answer: str, evidence: Any, **options: Any) -> Any:
        seen.append(evidence)
        assert options["cache"] is session.evidence_indexes  # the session's own evidence indexes
        return real_check(answer, evidence, **options)

    monkeypatch.setattr(toolkit_module, "check_citations", spy)
    await session.check_citations("Alice Smith works at Acme Corp [1].")
    assert isinstance(seen[0], dict) and seen[0] is not session.ledger
    assert sorted(seen[0]) == sorted(item.n for item in session.ledger.items())


async def test_the_mcp_call_timeout_stops_a_check_that_runs_too_long(acme_read_toolkit: GraphRAGToolkit,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    finish = threading.Event()

    def endless_check(answer: str, evidence: Any, **_: Any) -> Any:
        finish.wait(5)  # CPU-bound work that outlives the timeout; released when the test ends
        return real_check(answer, evidence)

    monkeypatch.setattr(toolkit_module, "check_citations", endless_check)
    server = GraphRAGMCPServer(acme_read_toolkit, call_timeout=0.3)
    try:
        async with Client(server.server) as client:
            result = await client.call_tool("check_citations", {"answer": "Alice works at Acme Corp [1]."})
            assert not finish.is_set(), "the call ended only when the check did: the timeout never fired"
            assert result.is_error
            text = "".join(c.text for c in result.content if isinstance(c, TextContent))
            assert "longer than 0.3 s" in text and "kind: timeout" in text
            found = await client.call_tool("retrieve", {"question": QUESTION})  # the server still serves
            assert not found.is_error
    finally:
        finish.set()
