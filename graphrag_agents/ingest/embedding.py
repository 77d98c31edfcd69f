"""Embed what has no vector yet (chunks, entities, relation facts) in batches, as part of ``finalize``.

The graph is walked once, in windows of node ids (an id range is an index seek in FalkorDB), so finding what
lacks a vector costs one pass over the graph per ``finalize``, however many batches there are. (Asking "the
next 256 without a vector" instead rescans every vector already set, batch after batch: quadratic in the size
of the graph.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..models.embedder import Embedder
from ..store.graph import GraphStore

__all__ = ["EmbedCounts", "embed_missing"]

_BATCH = 256
_ID_WINDOW = 2048
_CACHE_LIMIT = 50_000  # distinct texts kept (about 1.5 KB each); repeats are close together in id order


@dataclass(frozen=True)
class _Target:
    kind: str
    max_id: str
    """The largest node id to walk."""
    select: str
    """Rows ``[key, text]`` still missing a vector among nodes with ``$lo <= id < $hi``."""
    update: str
    """Set the vectors of ``$rows = [{k, v}]``.

    Each id is projected (``WITH ... AS node``) before the MATCH: FalkorDB seeks a node by an id it gets that
    way, but scans every node for ``id(n) = r.k`` written directly against the unwound row.
    """


_TARGETS = [
    _Target(
        "chunks",
        "MATCH (c:Chunk) RETURN max(id(c))",
        "MATCH (c:Chunk) WHERE id(c) >= $lo AND id(c) < $hi AND c.embedding IS NULL RETURN id(c), c.text",
        "UNWIND $rows AS r WITH r, r.k AS node MATCH (c:Chunk) WHERE id(c) = node SET c.embedding = vecf32(r.v)",
    ),
    _Target(
        "entities",
        "MATCH (e:__Entity__) RETURN max(id(e))",
        "MATCH (e:__Entity__) WHERE id(e) >= $lo AND id(e) < $hi AND (e.embedding IS NULL OR e.stale = true) "
        "RETURN id(e), e.name + CASE WHEN e.description = '' THEN '' ELSE ': ' + e.description END",
        "UNWIND $rows AS r WITH r, r.k AS node MATCH (e:__Entity__) WHERE id(e) = node "
        "SET e.embedding = vecf32(r.v), e.stale = false",
    ),
    _Target(
        "facts",
        "MATCH (a)-[:RELATES]->() RETURN max(id(a))",
        "MATCH (a) WHERE id(a) >= $lo AND id(a) < $hi MATCH (a)-[r:RELATES]->() WHERE r.embedding IS NULL "
        "RETURN [id(a), id(r)], r.fact",
        "UNWIND $rows AS x WITH x, x.k[0] AS source, x.k[1] AS edge "
        "MATCH (a)-[r:RELATES]->() WHERE id(a) = source AND id(r) = edge SET r.embedding = vecf32(x.v)",
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
    for target in _TARGETS:
        writer = _BatchWriter(store, embedder, target, progress)
        lo, max_id = 0, await _max_id(store, target)
        while lo <= max_id:
            await writer.add(await store.query(target.select, {"lo": lo, "hi": lo + _ID_WINDOW}, idempotent=True))
            lo += _ID_WINDOW
            if lo > max_id:  # nodes written while we embedded (finalize does not block ingest)
                max_id = await _max_id(store, target)
        await writer.flush()
        setattr(counts, target.kind, writer.done)
    return counts


async def _max_id(store: GraphStore, target: _Target) -> int:
    rows = await store.query(target.max_id, idempotent=True)
    return -1 if not rows or rows[0][0] is None else int(rows[0][0])


class _BatchWriter:
    """Collects rows missing a vector; embeds and writes them ``_BATCH`` at a time."""

    def __init__(self, store: GraphStore, embedder: Embedder, target: _Target,
                 progress: Callable[[str, int], None] | None) -> None:
        self.store, self.embedder, self.target, self.progress = store, embedder, target, progress
        self.pending: list[list[Any]] = []
        self.done = 0
        # Texts repeat (co-mention facts share their sentence, entities their name): embed each once per run.
        self.cache: dict[str, npt.NDArray[np.float32]] = {}

    async def add(self, rows: list[list[Any]]) -> None:
        self.pending.extend(rows)
        while len(self.pending) >= _BATCH:
            batch, self.pending = self.pending[:_BATCH], self.pending[_BATCH:]
            await self._write(batch)

    async def flush(self) -> None:
        if self.pending:
            batch, self.pending = self.pending, []
            await self._write(batch)

    async def _write(self, rows: list[list[Any]]) -> None:
        texts = [str(text or "") for _, text in rows]
        fresh = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if fresh:
            if len(self.cache) + len(fresh) > _CACHE_LIMIT:
                self.cache.clear()
            for text, vec in zip(fresh, await self.embedder.aembed(fresh), strict=True):
                self.cache[text] = np.asarray(vec, dtype=np.float32)
        payload = [{"k": key, "v": self.cache[text].tolist()} for (key, _), text in zip(rows, texts, strict=True)]
        await self.store.query(self.target.update, {"rows": payload}, idempotent=True)  # SETs the same vectors
        self.done += len(rows)
        if self.progress is not None:
            self.progress(self.target.kind, self.done)
