"""Embed what has no vector yet (chunks, entities, typed relations' facts, co-mention fact nodes) in batches,
as part of ``finalize``.

The graph is walked once, in windows of node ids (an id range is an index seek in FalkorDB), so finding what
lacks a vector costs one pass over the graph per ``finalize``, however many batches there are. (Asking "the
next 256 without a vector" instead rescans every vector already set, batch after batch: quadratic in the size
of the graph.)

A chunk is embedded with its document's header (:func:`chunk_embed_text`: the title, and the chunk's heading
when it has one, above the text), because a paragraph rarely repeats the name its title gives (HotpotQA's
"Rush (band)" paragraph says "the band"). The stored ``text`` stays the chunk's own text; the vector records
how it was made in ``embed_format`` (:data:`CHUNK_EMBED_FORMAT`). Chunks embedded by an earlier version (from
the text alone, no ``embed_format``) keep answering with their old vectors, and the next ``finalize``
re-embeds them with the header: that is the upgrade.

Entity cards are embedded only for entities mentioned in two or more chunks (:data:`SHARED_MENTIONS`, the
``"shared"`` rule of :data:`EntityVectors`, the default): the rest (over 80% of the entities on the evaluation
sets) are found by name through ``exact_names`` and the full-text half of ``fuzzy_names``, and their vectors
bought no measurable recall (``docs/scale-building.md``, "What the entity and fact vectors buy the reader"). An
entity that gains its second mention is embedded by the next ``finalize``; ``"all"`` embeds every entity as
before, ``"none"`` none.
Every fact gets a vector by default (``fact_vectors="all"``). A co-mention fact node (the ``ner`` extractor's
sentence of a chunk) gets its vector from its chunk's model run when the embedder is local
(:mod:`~graphrag_agents.ingest.fact_pooling`), so the model does not read the sentence twice;
``fact_vectors="sentences"`` embeds every fact's sentence alone (the previous release's ``"all"``).
``fact_vectors="typed"`` embeds typed relations' facts only (the ``facts`` and ``links`` paths then find and
order a co-mention fact through its chunk's vector: :mod:`~graphrag_agents.retrieval.unembedded_facts`), at a
slower ``retrieve`` (``docs/scale-building.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..models.embedder import Embedder, SpanEmbedder
from ..store.graph import GraphStore
from ..store.schema import drop_vector_index_statement, vector_indexed_labels
from .fact_pooling import FACT_NODE_UPDATE, ChunkFacts, pool_facts

__all__ = ["CHUNK_EMBED_FORMAT", "CHUNK_NEEDS_VECTOR", "ENTITY_VECTORS", "FACT_VECTORS", "SHARED_MENTIONS",
           "EmbedCounts", "EntityVectors", "FactVectors", "VectorRules", "chunk_embed_text", "embed_missing",
           "entity_needs_vector"]

_BATCH = 2048
"""Rows embedded together: sorted by length across this many, the model's slices pad least."""
_WRITE_ROWS = 512
"""Vectors set per write query."""
_PROGRESS_SLICE = 32  # the offline embedder's own batch size
_ID_WINDOW = 2048
_CACHE_LIMIT = 50_000  # distinct texts kept (about 1.5 KB each); repeats are close together in id order

CHUNK_EMBED_FORMAT = 2
"""How chunk vectors are made: 2 = :func:`chunk_embed_text` (header + text); absent = text alone (before)."""
CHUNK_NEEDS_VECTOR = f"(c.embedding IS NULL OR coalesce(c.embed_format, 1) < {CHUNK_EMBED_FORMAT})"
"""Cypher condition on chunk ``c``: no vector yet, or one made the old way (``finalize`` re-embeds it)."""

EntityVectors = Literal["shared", "all", "none"]
"""Which entity cards ``finalize`` embeds: those mentioned in :data:`SHARED_MENTIONS`+ chunks, all, or none."""
FactVectors = Literal["all", "sentences", "typed", "none"]
"""Which facts ``finalize`` embeds: every fact (a co-mention sentence read from its chunk's model run where the
embedder can), every fact from its own sentence, typed relations' facts only (a co-mention fact is a sentence of a
chunk, found through that chunk's vector), or none."""
ENTITY_VECTORS: EntityVectors = "shared"
"""The default rule for entity cards."""
FACT_VECTORS: FactVectors = "all"
"""The default rule for facts."""
_FACT_RULES = ("all", "sentences", "typed", "none")
_GROUPED_EMBEDDED = ("all", "sentences")
"""The rules under which co-mention fact nodes get vectors."""
SHARED_MENTIONS = 2
"""Chunks an entity must be mentioned in for the ``"shared"`` rule to embed its card."""

_ENTITY_RULES: dict[str, str] = {
    "all": "(e.embedding IS NULL OR e.stale = true)",
    # A vector an entity already has is kept current, whatever its mentions (a graph built with "all").
    "shared": f"((e.embedding IS NULL AND outdegree(e, 'MENTIONED_IN') >= {SHARED_MENTIONS}) "
              "OR (e.embedding IS NOT NULL AND e.stale = true))",
    "none": "false",
}


@dataclass(frozen=True)
class VectorRules:
    """What ``finalize`` embeds besides chunks (remembered in the graph's metadata node)."""

    entities: EntityVectors = ENTITY_VECTORS
    """Which entity cards get a vector."""
    facts: FactVectors = FACT_VECTORS
    """Which facts get a vector."""

    @classmethod
    def stored(cls, entities: Any, facts: Any) -> VectorRules:
        """The rules as the graph stores them; a value missing (a graph from an earlier version) is the default."""
        return cls(entities if entities in _ENTITY_RULES else ENTITY_VECTORS,
                   facts if facts in _FACT_RULES else FACT_VECTORS)

    def check(self) -> None:
        """Raise ``ValueError`` naming the fix when a rule is not one of its values."""
        entity_needs_vector(self.entities)
        if self.facts not in _FACT_RULES:
            raise ValueError(f"fact_vectors={self.facts!r} is not a rule. Fix: use one of 'all' (the default), "
                             "'sentences' (every fact from its own sentence), 'typed' (typed relations' facts) or "
                             "'none'.")

    @property
    def grouped_facts(self) -> bool:
        """Whether co-mention fact nodes get vectors under these rules."""
        return self.facts in _GROUPED_EMBEDDED


def entity_needs_vector(rule: EntityVectors) -> str:
    """Cypher condition on entity ``e``: ``finalize`` under ``rule`` would (re-)embed its card.

    Raises:
        ValueError: ``rule`` is not one of :data:`EntityVectors`.
    """
    if rule not in _ENTITY_RULES:
        raise ValueError(f"entity_vectors={rule!r} is not a rule. Fix: use one of 'shared' (entities mentioned in "
                         f"{SHARED_MENTIONS}+ chunks, the default), 'all' or 'none'.")
    return _ENTITY_RULES[rule]


def chunk_embed_text(title: str | None, heading: str | None, text: str) -> str:
    """What a chunk's vector is computed from: its document title and its heading (each when present and not
    already the line above) on their own lines, then its text."""
    header: list[str] = []
    for line in (title, heading):
        line = " ".join(str(line or "").split())
        if line and line not in header:
            header.append(line)
    return "\n".join([*header, text])


def _plain(raw: Any) -> str:
    return str(raw or "")


def _chunk_text(raw: Any) -> str:
    title, heading, text = raw
    return chunk_embed_text(title, heading, str(text or ""))


@dataclass(frozen=True)
class _Target:
    kind: str
    max_id: str
    """The largest node id to walk."""
    select: str
    """Rows ``[key, raw]`` still missing a vector among nodes with ``$lo <= id < $hi``."""
    update: str
    """Set the vectors of ``$rows = [{k, v}]``.

    Each id is projected (``WITH ... AS node``) before the MATCH: FalkorDB seeks a node by an id it gets that
    way, but scans every node for ``id(n) = r.k`` written directly against the unwound row.
    """
    text: Callable[[Any], str] = _plain
    """The text to embed from a row's ``raw`` value."""
    grouped: bool = False
    """Co-mention fact nodes (embedded only under ``fact_vectors="all"`` and ``"sentences"``)."""


_TARGETS = [
    _Target(
        "chunks",
        "MATCH (c:Chunk) RETURN max(id(c))",
        f"MATCH (c:Chunk) WHERE id(c) >= $lo AND id(c) < $hi AND {CHUNK_NEEDS_VECTOR} "
        "OPTIONAL MATCH (d:Document {id: c.document_id}) RETURN id(c), [d.title, c.heading, c.text]",
        # Cleared first: FalkorDB does not overwrite a vector property in place (see _upgrading_chunks)
        "UNWIND $rows AS r WITH r, r.k AS node MATCH (c:Chunk) WHERE id(c) = node SET c.embedding = NULL "
        f"WITH c, r SET c.embedding = vecf32(r.v), c.embed_format = {CHUNK_EMBED_FORMAT}",
        _chunk_text,
    ),
    _Target(
        "entities",
        "MATCH (e:__Entity__) RETURN max(id(e))",
        "MATCH (e:__Entity__) WHERE id(e) >= $lo AND id(e) < $hi AND {entities} "
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
    _Target(
        "facts",
        "MATCH (f:__Fact__) RETURN max(id(f))",
        "MATCH (f:__Fact__) WHERE id(f) >= $lo AND id(f) < $hi AND f.embedding IS NULL RETURN id(f), f.text",
        FACT_NODE_UPDATE,
        grouped=True,
    ),
]


@dataclass
class EmbedCounts:
    """How many vectors ``finalize`` computed, per kind."""

    chunks: int = 0
    entities: int = 0
    facts: int = 0
    facts_from_chunks: int = 0
    """Of ``facts``, co-mention facts whose vector was read from their chunk's model run (no model call)."""


async def embed_missing(store: GraphStore, embedder: Embedder,
                        progress: Callable[[str, int], None] | None = None,
                        rules: VectorRules = VectorRules()) -> EmbedCounts:
    """Embed every chunk, and the entities and facts ``rules`` ask for, that lacks a vector;
    ``progress(kind, done)`` after each batch."""
    rules.check()
    counts = EmbedCounts()
    await _upgrading_chunks(store)
    for target in _TARGETS:
        if (target.kind == "entities" and rules.entities == "none") or (
                target.kind == "facts" and (rules.facts == "none" or (target.grouped and not rules.grouped_facts))):
            continue
        if target.kind == "entities":
            target = replace(target, select=target.select.replace("{entities}", entity_needs_vector(rules.entities)))
        pooling = await _pooling(store, embedder, rules) if target.kind == "chunks" else None
        # Typed relations and co-mention fact nodes both count as facts.
        writer = _BatchWriter(store, embedder, target, progress, done=getattr(counts, target.kind), pooling=pooling)
        try:
            lo, max_id = 0, await _max_id(store, target)
            while lo <= max_id:
                await writer.add(await store.query(target.select, {"lo": lo, "hi": lo + _ID_WINDOW},
                                                   idempotent=True))
                lo += _ID_WINDOW
                if lo > max_id:  # nodes written while we embedded (finalize does not block ingest)
                    max_id = await _max_id(store, target)
            await writer.flush()
        finally:
            await writer.close()
        setattr(counts, target.kind, writer.done)
        if pooling is not None:
            counts.facts = counts.facts_from_chunks = writer.facts_done
    return counts


async def _pooling(store: GraphStore, embedder: Embedder, rules: VectorRules) -> ChunkFacts | None:
    """The co-mention facts to read from their chunks' model run, when the rules and the embedder allow it."""
    if rules.facts != "all" or not isinstance(embedder, SpanEmbedder):
        return None
    facts = await ChunkFacts.load(store)
    return facts if len(facts) else None


async def _upgrading_chunks(store: GraphStore) -> bool:
    """Drop the chunk vector index when chunks embedded the old way are about to be re-embedded.

    FalkorDB (4.x) keeps a vector property's old value when it is set again (even after clearing it, the
    vector index loses neighbours), so old vectors are re-embedded without the index; ``finalize`` re-creates
    it (``ensure_schema``) right after embedding. Vector search over chunks fails until then: a one-time cost
    of the upgrade.
    """
    rows = await store.ro_query("MATCH (c:Chunk) WHERE c.embedding IS NOT NULL AND c.embed_format IS NULL "
                                "RETURN c.id LIMIT 1")
    if not rows:
        return False
    if "Chunk" in await vector_indexed_labels(store):
        await store.query(drop_vector_index_statement("Chunk"))
    return True


async def _max_id(store: GraphStore, target: _Target) -> int:
    rows = await store.query(target.max_id, idempotent=True)
    return -1 if not rows or rows[0][0] is None else int(rows[0][0])


class _BatchWriter:
    """Collects rows missing a vector; embeds them ``_BATCH`` at a time, shortest text first, and writes their
    vectors ``_WRITE_ROWS`` a query while the next rows are embedded."""

    def __init__(self, store: GraphStore, embedder: Embedder, target: _Target,
                 progress: Callable[[str, int], None] | None, done: int = 0,
                 pooling: ChunkFacts | None = None) -> None:
        self.store, self.embedder, self.target, self.progress = store, embedder, target, progress
        self.pending: list[list[Any]] = []
        self.done = done
        """Rows whose vectors are embedded and handed to a write."""
        self.pooling = pooling
        """Facts to read from the model run of their chunk (chunk rows only)."""
        self.facts_done = 0
        """Fact vectors read from chunk runs and handed to a write."""
        # Texts repeat (co-mention facts share their sentence, entities their name): embed each once per run.
        self.cache: dict[str, npt.NDArray[np.float32]] = {}
        self.writing: asyncio.Task[None] | None = None
        """The previous rows' vector writes, still running on the server while the model embeds the next."""

    async def add(self, rows: list[list[Any]]) -> None:
        self.pending.extend(rows)
        while len(self.pending) >= _BATCH:
            batch, self.pending = self.pending[:_BATCH], self.pending[_BATCH:]
            await self._embed(batch)

    async def flush(self) -> None:
        """Embed what is left and wait for every write."""
        if self.pending:
            batch, self.pending = self.pending, []
            await self._embed(batch)
        await self._drain()

    async def close(self) -> None:
        """Stop a write still running (after a failure elsewhere), so no task outlives ``finalize``."""
        if self.writing is not None and not self.writing.done():
            self.writing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writing
        self.writing = None

    async def _drain(self) -> None:
        if self.writing is not None:
            writing, self.writing = self.writing, None
            await writing  # a failed write raises here

    async def _embed(self, rows: list[list[Any]]) -> None:
        texts = [self.target.text(raw) for _, raw in rows]
        # Shortest first: each slice holds texts of like length, so the model pads them less (the embedder sorts
        # within a request, and a slice is one request)
        fresh = sorted(dict.fromkeys(t for t in texts if t not in self.cache), key=len)
        if len(self.cache) + len(fresh) > _CACHE_LIMIT:
            wanted = set(texts)
            self.cache = {t: v for t, v in self.cache.items() if t in wanted}
        holders: dict[str, list[int]] = {}  # the chunks each text is, for the facts read from its run
        if self.pooling is not None:
            for (key, _), text in zip(rows, texts, strict=True):
                holders.setdefault(text, []).append(key)
        facts: list[dict[str, Any]] = []
        # In slices, so the bar moves per batch the model embedded, not per window of _BATCH rows.
        for start in range(0, len(fresh), _PROGRESS_SLICE):
            part = fresh[start:start + _PROGRESS_SLICE]
            for text, vec in zip(part, await self._model(part, holders, facts), strict=True):
                self.cache[text] = np.asarray(vec, dtype=np.float32)
            if self.progress is not None and start + len(part) < len(fresh):
                self.progress(self.target.kind, self.done + len(rows) * (start + len(part)) // len(fresh))
        payload = [{"k": key, "v": self.cache[text].tolist()} for (key, _), text in zip(rows, texts, strict=True)]
        await self._drain()
        self.writing = asyncio.ensure_future(self._write(payload, facts))
        self.done += len(rows)
        self.facts_done += len(facts)
        if self.progress is not None:
            self.progress(self.target.kind, self.done)
            if facts:
                self.progress("facts", self.facts_done)

    async def _model(self, part: list[str], holders: dict[str, list[int]],
                     facts: list[dict[str, Any]]) -> npt.NDArray[np.float32]:
        """``part``'s vectors; with pooling, the vectors its chunks' facts read from the same run join ``facts``."""
        if self.pooling is None or not isinstance(self.embedder, SpanEmbedder):
            return await self.embedder.aembed(part)
        pooling = self.pooling
        run = await pool_facts(self.store, self.embedder, part,
                               [[fact for key in holders[text] for fact in pooling.of(key)] for text in part])
        facts += run.facts
        return run.vectors

    async def _write(self, payload: list[dict[str, Any]], facts: list[dict[str, Any]]) -> None:
        for statement, rows in ((self.target.update, payload), (FACT_NODE_UPDATE, facts)):
            for start in range(0, len(rows), _WRITE_ROWS):  # SETs the same vectors when repeated: idempotent
                await self.store.query(statement, {"rows": rows[start:start + _WRITE_ROWS]}, idempotent=True)
