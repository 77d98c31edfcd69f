"""Shortening a large result runs off the event loop and under ``--call-timeout``: before, it ran on the loop
after the call (1.1-1.5 s for a large check_citations with ``--call-timeout 0.37``) while another client's
``status`` waited. The shortening here waits on the test (a real ``truncate_json`` once released), so what is
checked is where it runs, not how long it takes."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from mcp import Client

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.adapters.mcp import server as server_module
from graphrag_agents.kg import KnowledgeGraph

_ANSWER = {"answer": "Alice Smith works at Acme Corp [1]."}


def _held_truncation(monkeypatch: pytest.MonkeyPatch, release: threading.Event,
                     entered: threading.Event | None = None) -> list[bool]:
    """Make shortening wait for ``release`` (at most 20 s) before doing its real work; returns, per shortening,
    whether it was released (by the test, while it waited) rather than given up on."""
    real, released = server_module.truncate_json, []

    def held(*args: Any, **kwargs: Any) -> Any:
        if entered is not None:
            entered.set()
        released.append(release.wait(timeout=20))
        return real(*args, **kwargs)

    monkeypatch.setattr(server_module, "truncate_json", held)
    return released


async def test_other_clients_are_served_while_a_result_is_shortened(acme_corpus_kg: KnowledgeGraph,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    server = GraphRAGMCPServer(acme_corpus_kg, read_only=True)
    async with Client(server.server) as client, Client(server.server) as other:
        await client.call_tool("retrieve", {"question": "Where does Alice Smith work?"})
        release, entered = threading.Event(), threading.Event()
        released = _held_truncation(monkeypatch, release, entered)
        checking = asyncio.ensure_future(client.call_tool("check_citations", _ANSWER))
        while not entered.is_set() and not checking.done():
            await asyncio.sleep(0.01)  # until the check is being shortened
        monkeypatch.undo()
        status = await other.call_tool("status", {})  # on the old code: only after the shortening gave up
        release.set()
        checked = await checking
    assert not status.is_error and not checked.is_error
    assert released == [True], "the shortening blocked the event loop: no other call ran until it gave up"


async def test_the_call_timeout_covers_the_shortening(acme_corpus_kg: KnowledgeGraph,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    server = GraphRAGMCPServer(acme_corpus_kg, read_only=True, call_timeout=0.5)
    async with Client(server.server) as client:
        found = await client.call_tool("retrieve", {"question": "Where does Alice Smith work?"})
        assert not found.is_error
        release = threading.Event()
        _held_truncation(monkeypatch, release)
        try:
            checked = await client.call_tool("check_citations", _ANSWER)
        finally:
            release.set()
    assert checked.is_error and "timeout" in checked.content[0].text.lower()  # type: ignore[union-attr]
