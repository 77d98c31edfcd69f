"""Vector indexes that hold each vector twice: found at open (a warning), rebuilt by ``finalize``.

A graph whose vector index was created in the part of the embedded server's append-only file that a start
replays gets every later vector indexed twice at each start (:mod:`.log_rewrite` says why, and how new graphs
avoid it). Its vector searches then find about half the neighbours asked. Graphs written before that fix, or
on a server whose file was never rewritten, can still be in that state.

The probe costs one search per index: a stored vector's own search for its ``n`` nearest neighbours, ``n`` the
number of stored vectors up to 4, finds ``n`` items in a whole index and fewer in a doubled one (each copy is a
neighbour at distance 0 that resolves to no node). A rebuild drops the index and creates it again from the
nodes, then rewrites the file, so that the next start loads it whole.
"""

from __future__ import annotations

from .graph import GraphStore
from .schema import VECTOR_INDEXES, drop_vector_index_statement, vector_index_statement, wait_for_indexes

__all__ = ["doubled_vector_indexes", "rebuild_doubled_vector_indexes"]

_PROBE_SIZE = 4


def _probe(label: str, pattern: str) -> str:
    if pattern == "edge":
        first, search, item = (f"MATCH ()-[n:{label}]->()", "queryRelationships", "relationship")
    else:
        first, search, item = (f"MATCH (n:{label})", "queryNodes", "node")
    return (f"{first} WHERE n.embedding IS NOT NULL WITH n LIMIT {_PROBE_SIZE} "
            "WITH collect(n) AS stored WITH stored[0] AS n, size(stored) AS k WHERE k > 1 "
            f"CALL db.idx.vector.{search}('{label}', 'embedding', k, n.embedding) YIELD {item} "
            f"RETURN k, count({item})")


async def doubled_vector_indexes(store: GraphStore) -> list[tuple[str, str]]:
    """The (label, ``node`` or ``edge``) of every vector index of the graph that holds its vectors twice."""
    doubled = []
    rows = await store.ro_query("CALL db.indexes() YIELD label, types RETURN label, types")
    have = {str(label) for label, types in rows if any("VECTOR" in kinds for kinds in dict(types).values())}
    for label, pattern in VECTOR_INDEXES:
        if label not in have:
            continue
        rows = await store.ro_query(_probe(label, pattern))
        if rows and int(rows[0][1]) < int(rows[0][0]):
            doubled.append((label, pattern))
    return doubled


async def rebuild_doubled_vector_indexes(store: GraphStore, dim: int) -> list[str]:
    """Rebuild each doubled vector index from its nodes, then rewrite the embedded server's file; the labels
    rebuilt (empty when none was doubled)."""
    doubled = await doubled_vector_indexes(store)
    for label, pattern in doubled:
        await store.query(drop_vector_index_statement(label, pattern))
        await store.query(vector_index_statement(label, pattern, dim))
    if doubled:
        await wait_for_indexes(store)
        await store.compact_log()
    return [label for label, _ in doubled]
