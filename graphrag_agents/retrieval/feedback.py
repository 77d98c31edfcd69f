"""Vector feedback: the question's embedding moved toward its best direct match, as a second dense signal.

A question of three or four hops names its first link only ("the spouse of the producer of Dolores
Claiborne"): the later links' passages share almost nothing with the question's vector. The best direct
match (the film's paragraph) names the next link (the producer), so the question's vector plus that passage's
stored vector points between the two, toward the passages about what the first passage names. This is
Rocchio's relevance feedback on the dense side, with the best match taken as relevant, and it needs no second
embedding: the passage's vector is stored.

``moved = normalise(q + shift * p)``, with ``shift`` 1 (``PassageWeights.feedback_shift``). The chunks
nearest to it are candidates, and every candidate's cosine to it is a feature of the passage score
(``PassageWeights.feedback``, weight 1). Both were chosen on fold A of the HotpotQA, 2Wiki and MuSiQue samples
together (``docs/retrieval.md``, "Vector feedback"). No LLM and no new embedding. Bounds: one query for the
seed's vector, one vector search of ``k`` chunks (with a document filter, an exact scan of at most 20,000 of
their chunks, as :func:`.candidates.vector_candidates`), and one query for the feature of at most
``FEATURE_POOL`` candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..store.graph import GraphStore
from ._cypher import VectorParam, cosine
from .candidates import CHUNK_COLUMNS, FILTER_SCAN, Candidate, candidate, index_breadth

__all__ = ["FEATURE_POOL", "SHIFT", "feedback_cosines", "feedback_search", "moved_vector"]

SHIFT = 1.0
"""Weight of the seed passage's vector added to the question's (before both are normalised again)."""
FEATURE_POOL = 40
"""Candidates whose cosine to the moved vector is read, the best by score so far (those the feedback search found
have it already); the rest count 0. 200 gave the same recall@5 to the digit on the three samples, at 1 ms more."""
_WITH_TITLE = "OPTIONAL MATCH (d:Document {id: c.document_id}) "
_NEAR = cosine("c", "w")


async def moved_vector(store: GraphStore, question: VectorParam, seed_chunk: str,
                       shift: float = SHIFT) -> VectorParam | None:
    """``question`` moved toward ``seed_chunk``'s stored vector, unit length (None when the chunk has none)."""
    rows = await store.ro_query("MATCH (c:Chunk {id: $id}) RETURN c.embedding", {"id": seed_chunk})
    if not rows or rows[0][0] is None:
        return None
    q = np.asarray(question.values, dtype=np.float32)
    p = np.asarray(rows[0][0], dtype=np.float32)
    if p.shape != q.shape:  # embedded by another model than the question: nothing to add up
        return None
    moved = q + np.float32(shift) * p
    norm = float(np.linalg.norm(moved))
    return VectorParam((moved / norm).tolist()) if norm > 0 else None


async def feedback_search(store: GraphStore, question: VectorParam, moved: VectorParam, k: int,
                          document_ids: Sequence[str] | None = None) -> tuple[list[Candidate], dict[str, float]]:
    """The ``k`` chunks nearest to ``moved`` (each with its cosine to the question, like every candidate), and
    their cosines to ``moved`` by chunk id."""
    params: dict[str, Any] = {"v": question, "w": moved, "k": int(k), "search": index_breadth(k),
                              "docs": list(document_ids or []), "scan": FILTER_SCAN}
    if document_ids:
        query = ("MATCH (c:Chunk) WHERE c.document_id IN $docs WITH c LIMIT $scan "
                 f"WITH c, {_NEAR} AS near ORDER BY near DESC LIMIT $k ")
    else:
        query = ("CALL db.idx.vector.queryNodes('Chunk', 'embedding', $search, vecf32($w)) YIELD node, score "
                 "WITH node AS c, 1 - score AS near ORDER BY near DESC LIMIT $k ")
    rows = await store.ro_query(
        query + _WITH_TITLE + f"RETURN c.id, c.document_id, d.title, {cosine('c')}, {CHUNK_COLUMNS}, near", params)
    return [candidate(row, "feedback") for row in rows], {str(row[0]): float(row[7]) for row in rows}


async def feedback_cosines(store: GraphStore, moved: VectorParam, chunk_ids: Sequence[str]) -> dict[str, float]:
    """Each chunk's cosine to ``moved``, by chunk id (a chunk deleted meanwhile is left out)."""
    if not chunk_ids:
        return {}
    rows = await store.ro_query(f"UNWIND $ids AS id MATCH (c:Chunk {{id: id}}) RETURN c.id, {_NEAR}",
                                {"ids": list(chunk_ids[:FEATURE_POOL]), "w": moved})
    return {str(cid): float(near) for cid, near in rows}
