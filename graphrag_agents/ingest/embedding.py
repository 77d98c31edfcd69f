"""Embed what has no vector yet (chunks, entities, relation facts) in batches, as part of ``finalize``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..models.embedder import Embedder
from ..store.graph import GraphStore

__all__ = ["EmbedCounts", "embed_missing"]

_BATCH = 256

# (what, select rows [key, text] still missing a vector, set vectors from $rows = [{k, v}])
_TARGETS: list[tuple[str, str, str]] = [
    (
        "chunks",
        "MATCH (c:Chunk) WHERE c.embedding IS NULL RETURN c.id, c.text LIMIT $n",
        "UNWIND $rows AS r MATCH (c:Chunk {id: r.k}) SET c.embedding = vecf32(r.v)",
    ),
    (
        "entities",
        "MATCH (e:__Entity__) WHERE e.embedding IS NULL OR e.stale = true "
        "RETURN e.id, e.name + CASE WHEN e.description = '' THEN '' ELSE ': ' + e.description END LIMIT $n",
        "UNWIND $rows AS r MATCH (e:__Entity__ {id: r.k}) SET e.embedding = vecf32(r.v), e.stale = false",
    ),
    (
        "facts",
        "MATCH (a)-[r:RELATES]->() WHERE r.embedding IS NULL RETURN [id(a), id(r)], r.fact LIMIT $n",
        # Seek the source node by id, then its edge: an edge-id filter alone would scan every relation.
        "UNWIND $rows AS x MATCH (a)-[r:RELATES]->() WHERE id(a) = x.k[0] AND id(r) = x.k[1] "
        "SET r.embedding = vecf32(x.v)",
    ),
]


@dataclass
class EmbedCounts:
    """How many vectors ``finalize`` computed, per kind."""

    chunks: int = 0
    entities: int = 0
    facts: int = 0


async def embed_missing(store: GraphStore, embedder: Embedder,
                        progress: Callable[[str, int], None] | None = None) -> EmbedCounts:
    """Embed every chunk, entity and fact that lacks a vector; ``progress(kind, done)`` after each batch."""
    counts = EmbedCounts()
    for kind, select, update in _TARGETS:
        done = 0
        # Texts repeat (co-mention facts share their sentence, entities their name): embed each once per run.
        cache: dict[str, list[float]] = {}
        while True:
            rows = await store.query(select, {"n": _BATCH})
            if not rows:
                break
            texts = [str(text or "") for _, text in rows]
            fresh = list(dict.fromkeys(t for t in texts if t not in cache))
            if fresh:
                for text, vec in zip(fresh, await embedder.aembed(fresh), strict=True):
                    cache[text] = [float(x) for x in vec]
            payload = [{"k": key, "v": cache[text]} for (key, _), text in zip(rows, texts, strict=True)]
            await store.query(update, {"rows": payload})
            done += len(rows)
            if progress is not None:
                progress(kind, done)
        setattr(counts, kind, done)
    return counts
