"""One HTTP client cannot disturb another by creating sessions: before, 300 retrieves under fresh
``X-GraphRAG-Client`` ids (no token needed on loopback) evicted another client's evidence numbering, and that
client's check of its own citations then said "not grounded"."""

from __future__ import annotations

import secrets

from test_mcp_http import serving
from test_mcp_per_call_sessions import ANSWER, call_in_new_session
from test_mcp_server import QUESTION, acme_graph, data_of, first_number, text_of

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.adapters.mcp._notes import EXPIRED_NOTE, THROTTLED_NOTE
from graphrag_agents.kg import KnowledgeGraph


async def test_a_flood_of_new_client_ids_does_not_evict_a_working_client(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=8)  # a peer: 1 new session at once, 1 per 16 s
    alice = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
    async with serving(server) as url:
        n = first_number(await call_in_new_session(url, "retrieve", {"question": QUESTION}, alice))
        flood = [await call_in_new_session(url, "retrieve", {"question": QUESTION},
                                           {"X-GraphRAG-Client": secrets.token_urlsafe(24)}) for _ in range(10)]
        assert all(not r.is_error for r in flood)
        assert sum(THROTTLED_NOTE in (data_of(r)["hint"] or "") for r in flood) >= 8  # served, not kept
        kept = await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)}, alice)
    assert data_of(kept)["grounded"] and data_of(kept)["cited"] == [n], text_of(kept)


async def test_an_evicted_session_says_its_evidence_expired(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=16)
    session, state = server.sessions.lookup("h:alice", "10.0.0.1")
    n = first_number(await server.call_tool(session, "retrieve", {"question": QUESTION}, state=state))
    for i in range(16):  # other peers' clients, each working: alice is the least recently used
        other, other_state = server.sessions.lookup(f"h:client-{i}", f"10.0.1.{i}")
        await server.call_tool(other, "retrieve", {"question": QUESTION}, state=other_state)
    assert "h:alice" not in server.sessions
    session, state = server.sessions.lookup("h:alice", "10.0.0.1")
    checked = await server.call_tool(session, "check_citations", {"answer": ANSWER.format(n=n)}, state=state)
    assert state == "expired" and EXPIRED_NOTE in data_of(checked)["hint"]
    assert text_of(checked) == f"Citation check: {EXPIRED_NOTE}" and "NOT grounded" not in text_of(checked)
    again, state = server.sessions.lookup("h:alice", "10.0.0.1")
    assert state == "kept" and again is session
