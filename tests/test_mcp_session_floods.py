"""One HTTP client cannot disturb another by creating sessions: a flood of new client ids is refused past a rate
per address (and says so), eviction takes the longest idle session whatever its address, and a client refused a
session is told to retry, never that its citations are "not grounded"."""

from __future__ import annotations

import asyncio
import secrets

from mcp_types import CallToolResult
from test_mcp_http import serving
from test_mcp_per_call_sessions import ANSWER, call_in_new_session
from test_mcp_server import QUESTION, acme_graph, data_of, first_number, text_of
from test_mcp_trusted_proxies import refusal

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.adapters.mcp._notes import EXPIRED_NOTE
from graphrag_agents.kg import KnowledgeGraph


async def test_a_flood_of_new_client_ids_does_not_evict_a_working_client(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=8)  # one address: 1 new session at once, 1 per 16 s
    alice = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
    async with serving(server) as url:
        n = first_number(await call_in_new_session(url, "retrieve", {"question": QUESTION}, alice))
        flood = [await call_in_new_session(url, "retrieve", {"question": QUESTION},
                                           {"X-GraphRAG-Client": secrets.token_urlsafe(24)}) for _ in range(10)]
        assert all(refusal(r) for r in flood), [text_of(r) for r in flood]
        kept = await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)}, alice)
    assert data_of(kept)["grounded"] and data_of(kept)["cited"] == [n], text_of(kept)


async def test_clients_behind_one_address_are_told_to_retry_never_not_grounded(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=32)  # one address: 4 new sessions at once
    server.sessions.per_second = 2.0  # then 2 a second, so the refused clients get in within seconds
    refused: list[str] = []

    async def client(url: str) -> CallToolResult:
        me = {"X-GraphRAG-Client": secrets.token_urlsafe(24)}
        for _ in range(20):
            found = await call_in_new_session(url, "retrieve", {"question": QUESTION}, me)
            match = refusal(found)
            if match is None:
                break
            refused.append(text_of(found))
            await asyncio.sleep(int(match["s"]))
        n = first_number(found)
        return await call_in_new_session(url, "check_citations", {"answer": ANSWER.format(n=n)}, me)

    async with serving(server) as url:
        # Before: the clients over the rate were served in sessions not kept, and each one's check of its own
        # citation then said "NOT grounded".
        checks = await asyncio.gather(*(client(url) for _ in range(12)))
    for checked in checks:
        assert data_of(checked)["grounded"] and "NOT grounded" not in text_of(checked), text_of(checked)
    assert len(refused) >= 3, "the rate was never reached: the test proves nothing"
    assert all("Hint:" in text and "X-GraphRAG-Client" in text for text in refused), refused[0]


async def _retrieve(server: GraphRAGMCPServer, key: str, peer: str) -> int:
    session, state = server.sessions.lookup(key, peer)
    return first_number(await server.call_tool(session, "retrieve", {"question": QUESTION}, state=state))


async def test_the_longest_idle_session_is_evicted_whatever_its_address(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=16)
    for i in range(14):  # other addresses, one client each, all idle since
        await _retrieve(server, f"h:other-{i}", f"10.0.1.{i}")
    numbers = {name: await _retrieve(server, f"h:{name}", "10.0.0.1") for name in ("bob", "alice")}  # one NAT
    await _retrieve(server, "h:newcomer", "10.0.2.1")
    # Before: the address holding the most sessions lost one first: bob, who had just retrieved.
    assert "h:other-0" not in server.sessions and "h:bob" in server.sessions
    for name, n in numbers.items():
        session, state = server.sessions.lookup(f"h:{name}", "10.0.0.1")
        checked = await server.call_tool(session, "check_citations", {"answer": ANSWER.format(n=n)}, state=state)
        assert data_of(checked)["grounded"], text_of(checked)


def test_an_ipv6_host_is_one_address_for_its_whole_64(kg: KnowledgeGraph) -> None:
    server = GraphRAGMCPServer(kg, read_only=True, max_sessions=8)
    server.sessions.lookup("h:a", "2001:db8:1:2::1")
    from graphrag_agents.adapters.mcp._sessions import SessionRefused

    try:
        server.sessions.lookup("h:b", "2001:db8:1:2:ffff::9")
    except SessionRefused as exc:
        assert "2001:db8:1:2::/64" in str(exc) and exc.retry_after > 0
    else:
        raise AssertionError("a second address of the same /64 got a new session past the burst")
    server.sessions.lookup("h:c", "2001:db8:1:3::1")  # another /64: its own rate


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
