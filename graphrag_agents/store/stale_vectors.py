"""Vector indexes that hold copies of vectors no node has any more: found at open (a warning), rebuilt by
``finalize``.

FalkorDB 4.16 leaves such copies two ways. A vector index created in the part of the embedded server's
append-only file that a start replays gets every later vector indexed twice, at each start (:mod:`.log_rewrite`
says why, and how new graphs avoid it). And a node that has a vector keeps its old copy in the index when it is
updated or deleted (FalkorDB/FalkorDB#2197, fixed upstream after 4.16): an entity named again by a new document,
or re-embedded by ``finalize``, a chunk of a re-ingested document. A copy is a neighbour that resolves to no node,
so a search near it returns fewer items than it asked for: after an incremental ingest of npm's docs and a second
``finalize``, 17 of 18 entities' own searches for 10 neighbours came back short.

The probe: up to 16 stored vectors (the oldest nodes, the ones updates reach) each search for their own ``k``
nearest, ``k`` the number of stored vectors up to 10; a whole index returns ``k`` items to every one of them. A
rebuild drops the index and creates it again from the nodes, then rewrites the embedded server's file, so that the
next start loads it whole.
"""

from __future__ import annotations

from .graph import GraphStore
from .schema import (
    VECTOR_INDEXES,
    drop_vector_index_statement,
    vector_index_statement,
    vector_indexed_labels,
    wait_for_indexes,
)

__all__ = ["rebuild_stale_vector_indexes", "stale_vector_indexes"]

_SAMPLE = 16
_PAGE = 10


def _stored(label: str, pattern: str) -> str:
    first = f"MATCH ()-[n:{label}]->()" if pattern == "edge" else f"MATCH (n:{label})"
    return f"{first} WHERE n.embedding IS NOT NULL "


def _probe(label: str, pattern: str) -> str:
    search, item = ("queryRelationships", "relationship") if pattern == "edge" else ("queryNodes", "node")
    return (_stored(label, pattern) + f"WITH n LIMIT {_SAMPLE} "
            f"CALL db.idx.vector.{search}('{label}', 'embedding', $k, n.embedding) YIELD {item} "
            f"WITH n, count({item}) AS found RETURN min(found)")


async def stale_vector_indexes(store: GraphStore) -> list[tuple[str, str]]:
    """The (label, ``node`` or ``edge``) of every vector index of the graph that holds stale copies."""
    have = await vector_indexed_labels(store)
    stale = []
    for label, pattern in VECTOR_INDEXES:
        if label not in have:
            continue
        (stored,), = await store.ro_query(_stored(label, pattern) + f"WITH n LIMIT {_PAGE} RETURN count(n)")
        if int(stored) < 2:
            continue
        found = await store.ro_query(_probe(label, pattern), {"k": int(stored)})
        if found and found[0][0] is not None and int(found[0][0]) < int(stored):
            stale.append((label, pattern))
    return stale


async def rebuild_stale_vector_indexes(store: GraphStore, dim: int) -> list[str]:
    """Rebuild each vector index that holds stale copies from its nodes, then rewrite the embedded server's file;
    the labels rebuilt (empty when every index was whole)."""
    stale = await stale_vector_indexes(store)
    for label, pattern in stale:
        await store.query(drop_vector_index_statement(label, pattern))
        await store.query(vector_index_statement(label, pattern, dim))
    if stale:
        await wait_for_indexes(store)
        await store.compact_log()
    return [label for label, _ in stale]
