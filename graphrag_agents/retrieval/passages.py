"""Passage search: chunk vector search and chunk full-text search, fused, reranked by stored-vector cosine."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..store.graph import GraphStore
from .fulltext import fulltext_query
from .hits import PassageHit

__all__ = ["dense_passages", "fetch_passages", "fulltext_chunk_ids", "rrf", "vector_chunk_ids"]

_RRF_K = 60


async def vector_chunk_ids(store: GraphStore, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
    """Chunk ids nearest to ``vector`` with cosine similarity (FalkorDB returns cosine distance)."""
    rows = await store.ro_query(
        "CALL db.idx.vector.queryNodes('Chunk', 'embedding', $k, vecf32($v)) YIELD node, score "
        "RETURN node.id, score",
        {"k": int(k), "v": [float(x) for x in vector]},
    )
    return [(str(cid), 1.0 - float(dist)) for cid, dist in rows]


async def fulltext_chunk_ids(store: GraphStore, text: str, k: int) -> list[tuple[str, float]]:
    """Chunk ids matching the question's content words (BM25-style score), best first."""
    query = fulltext_query(text)
    if query is None:
        return []
    rows = await store.ro_query(
        "CALL db.idx.fulltext.queryNodes('Chunk', $q) YIELD node, score RETURN node.id, score "
        "ORDER BY score DESC LIMIT $k",
        {"q": query, "k": int(k)},
    )
    return [(str(cid), float(score)) for cid, score in rows]


def rrf(rankings: Sequence[Sequence[str]], weights: Sequence[float] | None = None) -> dict[str, float]:
    """Reciprocal-rank fusion of several rankings of ids."""
    fused: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        for rank, key in enumerate(ranking):
            fused[key] = fused.get(key, 0.0) + weight / (_RRF_K + rank + 1)
    return fused


async def fetch_passages(store: GraphStore, chunk_ids: Sequence[str],
                         question_vector: npt.NDArray[np.float32] | None) -> dict[str, PassageHit]:
    """Load chunks with their document's title and path; score = cosine to the question on stored vectors."""
    if not chunk_ids:
        return {}
    rows = await store.ro_query(
        "UNWIND $ids AS cid MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: cid}) "
        "RETURN c.id, c.text, c.heading, d.id, d.title, d.path, c.embedding",
        {"ids": list(chunk_ids)},
    )
    hits: dict[str, PassageHit] = {}
    for cid, text, heading, doc_id, title, path, embedding in rows:
        score = 0.0
        if question_vector is not None and embedding is not None:
            score = float(np.dot(np.asarray(embedding, dtype=np.float32), question_vector))
        hits[str(cid)] = PassageHit(
            chunk_id=str(cid), document_id=str(doc_id), text=str(text), score=score, title=str(title or ""),
            path=str(path or ""), heading=str(heading or ""),
        )
    return hits


async def dense_passages(store: GraphStore, question_vector: npt.NDArray[np.float32],
                         top_k: int) -> list[PassageHit]:
    """The dense-only baseline: chunk vector search alone (used by benchmarks and evaluation)."""
    found = await vector_chunk_ids(store, question_vector.tolist(), top_k)
    hits = await fetch_passages(store, [cid for cid, _ in found], question_vector)
    ordered = [hits[cid] for cid, _ in found if cid in hits]
    for hit in ordered:
        hit.found_by = ["vector"]
    return ordered
