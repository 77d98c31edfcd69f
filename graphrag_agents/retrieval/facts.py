"""The ``facts`` path: vector search over the fact sentences stored on RELATES edges."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..store.graph import GraphStore
from ._cypher import QueryVector, vector_param
from .hits import RelationHit

__all__ = ["DOC_FILTER", "RELATION_RETURN", "facts", "relation_hit"]

_MAX_POOL = 200

RELATION_RETURN = ("a.name, a.label, r.type, b.name, b.label, r.fact, r.chunk_ids, a.id, b.id")
"""The columns :func:`relation_hit` reads, for a match that binds ``(a)-[r]->(b)``."""

DOC_FILTER = (
    "CALL { WITH r UNWIND r.chunk_ids AS cid MATCH (c:Chunk {id: cid}) WHERE c.document_id IN $docs "
    "RETURN c LIMIT 1 } "
)
"""Keeps a relation ``r`` only when one of its chunks belongs to a document in ``$docs``."""


def relation_hit(row: Sequence[Any], score: float, path: str, hop: int = 0) -> RelationHit:
    """A :class:`RelationHit` from the :data:`RELATION_RETURN` columns of a row."""
    src, src_label, rel_type, dst, dst_label, fact, chunk_ids, src_id, dst_id = row[:9]
    return RelationHit(
        source=str(src), source_label=str(src_label or ""), type=str(rel_type or ""), target=str(dst),
        target_label=str(dst_label or ""), fact=str(fact or ""), score=round(max(0.0, score), 4), path=path,
        hop=hop, chunk_ids=[str(c) for c in (chunk_ids or [])], source_id=str(src_id), target_id=str(dst_id),
    )


async def facts(store: GraphStore, vector: QueryVector, top_k: int,
                document_ids: Sequence[str] | None = None) -> list[RelationHit]:
    """The ``top_k`` relations whose fact sentence is nearest to the question.

    Score: cosine similarity of the fact's embedding to the question's (FalkorDB returns the cosine
    *distance*; similarity = 1 - distance), in [0, 1] for the texts that occur in practice. With a
    ``document_ids`` filter, more neighbours are fetched (up to 200) and those without a chunk in the
    documents dropped, since the vector index cannot filter while it searches.
    """
    k = min(_MAX_POOL, top_k * 5) if document_ids else top_k
    rows = await store.ro_query(
        "CALL db.idx.vector.queryRelationships('RELATES', 'embedding', $k, vecf32($v)) "
        "YIELD relationship, score WITH relationship AS r, score "
        + (DOC_FILTER if document_ids else "")
        + f"WITH r, score, startNode(r) AS a, endNode(r) AS b RETURN {RELATION_RETURN}, score "
        "ORDER BY score ASC LIMIT $top",
        {"k": int(k), "v": vector_param(vector), "docs": list(document_ids or []), "top": int(top_k)},
    )
    return [relation_hit(row, 1.0 - float(row[9]), "facts") for row in rows]
