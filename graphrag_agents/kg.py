"""``KnowledgeGraph``: one FalkorDB graph with the embedder that built it (and, optionally, an LLM)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType

from .errors import ConfigurationError, GraphNotFound
from .ingest.embedding import EmbedCounts, embed_missing
from .ingest.pipeline import DocumentStatus, ingest_text
from .ingest.writer import delete_document
from .models.embedder import Embedder, embedder_from_env
from .retrieval.hits import RetrievalHits
from .retrieval.retriever import retrieve
from .store.graph import GraphStore
from .store.schema import GraphMeta, check_embedder, ensure_schema, read_meta, wait_for_indexes

__all__ = ["FinalizeReport", "GraphStatus", "KnowledgeGraph"]


@dataclass
class GraphStatus:
    """Counts of what the graph holds."""

    graph: str
    documents: int
    chunks: int
    entities: int
    relations: int
    entity_labels: dict[str, int] = field(default_factory=dict)
    relation_types: dict[str, int] = field(default_factory=dict)
    unembedded: int = 0
    """Chunks, entities and facts still waiting for ``finalize`` to embed them."""
    embed_model: str = ""
    embed_dim: int = 0


@dataclass
class FinalizeReport:
    """What ``finalize`` did."""

    embedded: EmbedCounts
    status: GraphStatus


class KnowledgeGraph:
    """A knowledge graph in FalkorDB: documents, chunks, entities and relations, searchable by ``retrieve``.

    Open one with :meth:`open` (no URL = the embedded FalkorDB in ``./.graphrag``) and close it, or use it as an
    async context manager::

        async with await KnowledgeGraph.open(graph="notes") as kg:
            await kg.ingest(text="Alice works at Acme.", document_id="note-1")
            await kg.finalize()
            hits = await kg.retrieve("Where does Alice work?")
    """

    def __init__(self, store: GraphStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.meta = GraphMeta(embedder.model_name, embedder.dimension, "{}")
        self._schema_ready = False
        self._schema_lock = asyncio.Lock()

    @property
    def name(self) -> str:
        """The graph's name in FalkorDB."""
        return self.store.name

    @classmethod
    async def open(cls, url: str | None = None, graph: str | None = None, *, data_dir: str | None = None,
                   embedder: Embedder | None = None) -> KnowledgeGraph:
        """Connect to ``graph`` (default ``GRAPHRAG_GRAPH`` or "default") and create its schema if missing.

        Args:
            url: ``falkor://host:port``, ``rediss://...`` (TLS) or ``unix:///path.sock``; None reads FALKOR_URL /
                FALKOR_HOST, and without those starts (or reattaches to) the embedded FalkorDB in ``data_dir``.
            graph: graph name in FalkorDB.
            data_dir: the embedded server's folder (default ``GRAPHRAG_HOME`` or ``./.graphrag``).
            embedder: defaults to ``GRAPHRAG_EMBED_MODEL`` through litellm, else the offline MiniLM ONNX model.

        Raises:
            StoreUnavailable: the store cannot be reached or started.
            EmbeddingMismatch: the graph was built with another embedding model or dimension.
        """
        name = graph or os.environ.get("GRAPHRAG_GRAPH") or "default"
        _check_graph_name(name)
        store = await GraphStore.connect(name, url=url, data_dir=data_dir)
        try:
            kg = cls(store, embedder or embedder_from_env())
            # Opening never creates the graph (a read-only server must not); the first write does.
            if await store.exists() and (meta := await read_meta(store)) is not None:
                check_embedder(store, meta, kg.embedder.model_name, kg.embedder.dimension)
                kg.meta = meta
        except BaseException:
            await store.close()
            raise
        return kg

    async def ensure_schema(self) -> None:
        """Create the graph's metadata and indexes if missing (done before the first write)."""
        async with self._schema_lock:
            if not self._schema_ready:
                self.meta = await ensure_schema(self.store, self.embedder.model_name, self.embedder.dimension)
                self._schema_ready = True

    async def ingest(self, text: str, document_id: str, *, title: str | None = None,
                     chunker: str = "sentence", reextract: bool = False) -> DocumentStatus:
        """Add (or replace, when its text changed) one text document. Call :meth:`finalize` after a batch."""
        if not text.strip():
            return DocumentStatus(document_id, "failed", reason="the text is empty")
        await self.ensure_schema()
        return await ingest_text(self.store, text, document_id, title=title, chunker=chunker, reextract=reextract)

    async def delete_document(self, document_id: str) -> bool:
        """Remove a document, its chunks and facts, and entities no other document mentions."""
        return await delete_document(self.store, document_id)

    async def finalize(self) -> FinalizeReport:
        """Embed everything that has no vector yet and wait for the indexes to be ready."""
        await self.require_exists()
        await self.ensure_schema()
        embedded = await embed_missing(self.store, self.embedder)
        await wait_for_indexes(self.store)
        return FinalizeReport(embedded=embedded, status=await self.status())

    async def retrieve(self, question: str, *, paths: Sequence[str] | None = None, top_k: int = 10,
                       expand_hops: int = 1, document_ids: Sequence[str] | None = None) -> RetrievalHits:
        """Search the graph for ``question`` (no LLM call: only the question's embedding)."""
        await self.require_exists()
        return await retrieve(self.store, self.embedder, question, paths=paths, top_k=top_k,
                              expand_hops=expand_hops, document_ids=document_ids)

    async def require_exists(self) -> None:
        """Raise :class:`GraphNotFound` when the graph was never written or has been deleted."""
        if not await self.store.exists():
            raise GraphNotFound(
                f"Graph '{self.name}' does not exist.",
                hint="Ingest documents (and finalize) first, or check the graph name the server was started with.",
            )

    async def status(self) -> GraphStatus:
        """Counts of documents, chunks, entities (per label) and relations (per type); read-only queries."""
        await self.require_exists()
        q = self.store.ro_query
        (docs,), = await q("MATCH (d:Document) RETURN count(d)")
        (chunks, unembedded_chunks), = await q(
            "MATCH (c:Chunk) RETURN count(c), sum(CASE WHEN c.embedding IS NULL THEN 1 ELSE 0 END)")
        labels = await q("MATCH (e:__Entity__) RETURN e.label, count(e) ORDER BY count(e) DESC")
        types = await q("MATCH ()-[r:RELATES]->() RETURN r.type, count(r) ORDER BY count(r) DESC")
        (missing_e,), = await q("MATCH (e:__Entity__) WHERE e.embedding IS NULL RETURN count(e)")
        (missing_r,), = await q("MATCH ()-[r:RELATES]->() WHERE r.embedding IS NULL RETURN count(r)")
        return GraphStatus(
            graph=self.name, documents=int(docs), chunks=int(chunks),
            entities=sum(int(n) for _, n in labels), relations=sum(int(n) for _, n in types),
            entity_labels={str(k): int(n) for k, n in labels}, relation_types={str(k): int(n) for k, n in types},
            unembedded=int(unembedded_chunks or 0) + int(missing_e) + int(missing_r),
            embed_model=self.meta.embed_model, embed_dim=self.meta.embed_dim,
        )

    async def close(self) -> None:
        """Close the connection (and stop the embedded server when this was its last user in this process)."""
        await self.store.close()

    async def __aenter__(self) -> KnowledgeGraph:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


def _check_graph_name(name: str) -> None:
    if not name or len(name) > 128 or not all(ch.isalnum() or ch in "_-." for ch in name):
        raise ConfigurationError(
            f"Invalid graph name {name!r}: use 1-128 letters, digits, '_', '-' or '.' (e.g. 'my_graph')."
        )
