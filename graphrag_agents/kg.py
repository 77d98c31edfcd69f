"""``KnowledgeGraph``: one FalkorDB graph with the embedder that built it (and, optionally, an LLM)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ._keys import file_key, normalise_key, path_key_problem
from .errors import ConfigurationError, GraphLoading, GraphNotFound, GraphRAGError
from .ingest.dedupe import merge_label_votes, merge_unknown_duplicates
from .ingest.doc_keys import document_lookup, file_lookup, resolve_ids
from .ingest.embedding import (
    CHUNK_NEEDS_VECTOR,
    ENTITY_VECTORS,
    FACT_VECTORS,
    EmbedCounts,
    EntityVectors,
    FactVectors,
    VectorRules,
    embed_missing,
    entity_needs_vector,
)
from .ingest.extract_ner import NerExtractor
from .ingest.key_upgrade import KeyClash, upgrade_document_keys
from .ingest.keyword_stats import upgrade_keyword_stats
from .ingest.marked_names import read_marked_names
from .ingest.ontology import EntityType, Ontology, OntologyChanges, RelationType
from .ingest.ontology_store import DEFAULT_ONTOLOGY, load_ontology, merge_ontology, to_ontology
from .ingest.pipeline import IngestContext, run_ingest
from .ingest.plan import IngestPlan, SourceDocument
from .ingest.progress import Progress, want_progress
from .ingest.records import derived_id
from .ingest.regroup import regroup_co_mentions
from .ingest.report import DocumentStatus, IngestReport
from .ingest.retype import retype_code_names
from .ingest.rwlock import KeyedLocks, ReadWriteLock
from .ingest.writer import delete_document, document_exists
from .models.chat import ChatModel, chat_model_from
from .models.embedder import Embedder, embedder_from_env
from .models.onnx_minilm import OnnxMiniLMEmbedder
from .retrieval.hits import RetrievalHits
from .retrieval.retriever import retrieve
from .retrieval.unembedded_facts import forget_rules
from .retrieval.warm_up import warm_up
from .store.graph import GraphStore
from .store.routing import decides_writes
from .store.schema import GraphMeta, check_embedder, ensure_schema, read_meta, wait_for_indexes, write_meta_field
from .store.stale_vectors import rebuild_stale_vector_indexes, stale_vector_indexes

__all__ = ["FinalizeReport", "GraphStatus", "KnowledgeGraph"]

logger = logging.getLogger("graphrag_agents")
# How long open waits for FalkorDB to build indexes a restart (or an upgrade) left under construction.
_OPEN_INDEX_WAIT_S = 120.0
_RESOLVE_STEPS = 7  # finalize's merge and name-resolution steps, one progress tick each


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
    merged: int = 0
    """Unknown entities folded into the typed entity of the same name (deduplication)."""
    seconds: float = 0.0
    regrouped: int = 0
    """Co-mention edges of a graph written by an earlier version rewritten into fact nodes (the upgrade)."""
    relabelled: int = 0
    """Entities folded into the entity of the same name the ner extractor typed most often (label vote)."""
    retyped: int = 0
    """People and places of the ner extractor moved to ``Unknown``: the corpus writes their name as code, or (in
    technical text) a place as a platform (``docs/ingestion.md``, "Entities and facts on technical text")."""
    dropped: int = 0
    """Names of the ner extractor in technical text deleted as common words of the whole corpus (same section)."""
    rekeyed: int = 0
    """Documents an earlier version stored under an id the key rule now writes differently (NFC, invisible edge
    marks, a file's path in NFC), renamed to that id (the upgrade; ``docs/ingestion.md``, "Keys")."""
    key_clashes: list[KeyClash] = field(default_factory=list)
    """Documents left under the id an earlier version stored them under, because another document holds the id
    the key rule gives them: both are kept, each found by its own id; each clash names the call that resolves it
    (also logged as a WARNING). Empty once none is left."""


class KnowledgeGraph:
    """A knowledge graph in FalkorDB: documents, chunks, entities and relations, searchable by ``retrieve``.

    Open one with :meth:`open` (no URL = the embedded FalkorDB in ``./.graphrag``) and close it, or use it as an
    async context manager::

        async with await KnowledgeGraph.open(graph="notes") as kg:
            await kg.ingest(text="Alice works at Acme.", document_id="note-1")
            await kg.finalize()
            hits = await kg.retrieve("Where does Alice work?")
    """

    def __init__(self, store: GraphStore, embedder: Embedder, llm: ChatModel | str | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.llm: ChatModel | None = chat_model_from(llm)
        """The chat model for the llm extractor and llm_verified resolution (None: offline only)."""
        self.meta = GraphMeta(embedder.model_name, embedder.dimension, "{}")
        self.lock = ReadWriteLock()
        """Plain ingests share it; updates, re-extractions, deletes and finalize's merges hold it alone."""
        self.max_file_bytes: int | None = 50 * 1024 * 1024
        """Largest file ``ingest(paths=...)`` / ``ingest_documents`` reads (None: no limit)."""
        self.ner = NerExtractor()
        self._doc_locks = KeyedLocks()
        self._schema_ready = False
        self._schema_lock = asyncio.Lock()
        self._ontology_lock = asyncio.Lock()

    @property
    def name(self) -> str:
        """The graph's name in FalkorDB."""
        return self.store.name

    @classmethod
    async def open(cls, url: str | None = None, graph: str | None = None, *, data_dir: str | None = None,
                   embedder: Embedder | None = None, llm: ChatModel | str | None = None) -> KnowledgeGraph:
        """Connect to ``graph`` (default ``GRAPHRAG_GRAPH`` or "default") and create its schema if missing.

        Args:
            url: ``falkor://host:port``, ``rediss://...`` (TLS) or ``unix:///path.sock``; None reads FALKOR_URL /
                FALKOR_HOST, and without those starts (or reattaches to) the embedded FalkorDB in ``data_dir``.
            graph: graph name in FalkorDB.
            data_dir: the embedded server's folder (default ``GRAPHRAG_HOME`` or ``./.graphrag``).
            embedder: defaults to ``GRAPHRAG_EMBED_MODEL`` through litellm, else the offline MiniLM ONNX model.
            llm: chat model (a :class:`ChatModel` or a litellm model name) for the llm extractor and
                llm_verified resolution; default ``GRAPHRAG_MODEL``, else none (ingest uses the ner extractor).

        Raises:
            StoreUnavailable: the store cannot be reached or started.
            EmbeddingMismatch: the graph was built with another embedding model or dimension.
        """
        name = (graph or os.environ.get("GRAPHRAG_GRAPH") or "default").strip()
        _check_graph_name(name)
        embedder = embedder or embedder_from_env()
        _warm_up(embedder)  # loads the local model while the server starts, before the first question
        store = await GraphStore.connect(name, url=url, data_dir=data_dir)
        try:
            kg = cls(store, embedder, llm)
            # Opening never creates the graph (a read-only server must not); the first write does.
            if await store.exists() and (meta := await read_meta(store)) is not None:
                check_embedder(store, meta, kg.embedder.model_name, kg.embedder.dimension)
                kg.meta = meta
                if await _wait_for_indexes_on_open(store):
                    await _warn_of_stale_vectors(store)
        except BaseException:
            await store.close()
            raise
        return kg

    @decides_writes
    async def ensure_schema(self) -> None:
        """Create the graph's metadata and indexes if missing (done before the first write)."""
        async with self._schema_lock:
            if not self._schema_ready:
                async with self.store.write_lock():
                    self.meta = await ensure_schema(self.store, self.embedder.model_name, self.embedder.dimension)
                self._schema_ready = True

    async def ingest(self, text: str | None = None, document_id: str | None = None, *,
                     paths: Sequence[str | Path] | None = None, title: str | None = None,
                     plan: IngestPlan | None = None, reextract: bool = False,
                     progress: bool | None = None) -> IngestReport:
        """Add a text, or local files, to the graph; call :meth:`finalize` after a batch.

        Unchanged documents are skipped (``unchanged``), changed ones replaced in place (``updated``);
        ``reextract=True`` extracts unchanged ones again (``reextracted``). A document that cannot be read,
        chunked or extracted is ``failed`` with a reason, and nothing of it is written; the others go on.

        Args:
            text: plain text to ingest as one document (``document_id`` default: ``text:`` + its hash).
            document_id: the text's id; whitespace at either end is stripped (``"memo\\n"`` is ``"memo"``), the id
                is NFC-normalised (``"x²"`` and ``"x2"`` stay two ids) and control characters are refused with
                :class:`ToolError` (see ``docs/ingestion.md``, "Keys").
            paths: local files (.txt .md .markdown .rst .pdf), each stored under the path as given, in NFC (a
                path with whitespace at either end or a control character is ``failed``: rename the file; so is a
                file whose id another file or document holds already, such as the decomposed and composed
                ``"café.md"``).
            title: the text's title (default: its id).
            plan: chunker / extractor / resolver (default :class:`IngestPlan`: section chunks for Markdown / reST,
                sentence chunks for the rest, auto extractor).
            progress: show progress bars (None: only when stderr is a terminal).

        Example::

            report = await kg.ingest(text="Alice works at Acme.", document_id="note-1")
            report.documents[0].status   # "ingested"
        """
        if (text is None) == (paths is None):
            raise ConfigurationError("Pass either text=... or paths=[...] to ingest (exactly one of them).")
        sources: list[SourceDocument] = []
        if text is not None:
            doc_id = normalise_key(document_id) if document_id is not None else derived_id("text", text)
            if not text.strip():  # refused before anything (even the graph) is created
                return _failed_report(doc_id, "the text is empty")
            # The id as given: ingest_documents resolves it (the key rule, or the id an earlier version stored).
            sources.append(SourceDocument(doc_id if document_id is None else document_id, doc_id, text=text,
                                          title=title))
        else:
            assert paths is not None
            read = [_read_path(str(p), self.max_file_bytes) for p in paths]
            sources = [r for r in read if isinstance(r, SourceDocument)]
            if len(sources) < len(read):
                report = await self.ingest_documents(sources, plan or IngestPlan(), reextract=reextract,
                                                     progress=progress) if sources else IngestReport()
                done = iter(report.documents)
                report.documents = [r if isinstance(r, DocumentStatus) else next(done) for r in read]
                report.build_hint()
                return report
        return await self.ingest_documents(sources, plan or IngestPlan(), reextract=reextract, progress=progress)

    @decides_writes
    async def ingest_documents(self, sources: Sequence[SourceDocument], plans: IngestPlan | Sequence[IngestPlan],
                               *, reextract: bool = False, progress: bool | None = None) -> IngestReport:
        """Ingest prepared documents (file bytes or text), with one plan for all or one per document.

        Each id follows the key rule (``docs/ingestion.md``, "Keys"): a text's id is resolved like any lookup (the
        id an earlier version stored it under, else the rule's id); a file's id is its path in NFC, or the path as
        written when an earlier version stored the file under it.
        """
        plan_list = [plans] * len(sources) if isinstance(plans, IngestPlan) else list(plans)
        sources = await self._resolve_sources(sources)
        await self.ensure_schema()
        ontology = await self._ingest_ontology()
        ctx = IngestContext(self.store, self.embedder, self.llm, self.lock, self._doc_locks, ner=self.ner,
                            max_file_bytes=self.max_file_bytes)
        return await run_ingest(ctx, sources, plan_list, ontology, reextract=reextract,
                                progress=want_progress(progress))

    async def _resolve_sources(self, sources: Sequence[SourceDocument]) -> list[SourceDocument]:
        lookups = [file_lookup(s.document_id, s.path or s.document_id) if s.from_file
                   else document_lookup(s.document_id) for s in sources]
        ids = await resolve_ids(self.store, lookups)
        return [s if s.document_id == i else dataclasses.replace(s, document_id=i)
                for s, i in zip(sources, ids, strict=True)]

    @decides_writes  # the id a write or a delete goes to: read on the primary
    async def document_key(self, document_id: str) -> str:
        """The id of the stored document ``document_id`` names under the key rule (``docs/ingestion.md``, "Keys"),
        else the id a write would store it under. Example: ``await kg.document_key("cafe\\u0301 ")`` is ``"café"``.

        Raises:
            ToolError: the id breaks the key rule (a control character, empty, too long).
        """
        (key,) = await resolve_ids(self.store, [document_lookup(document_id)])
        return key

    @decides_writes  # reads on the primary: a replica may lag behind another process's writes
    async def update(self, text: str | None = None, document_id: str | None = None, *, path: str | Path | None = None,
                     title: str | None = None, plan: IngestPlan | None = None, reextract: bool = False,
                     progress: bool | None = None) -> IngestReport:
        """Replace a stored document in place with new ``text`` (or the file at ``path``, stored under that path).

        Its chunks, mentions and relations are rebuilt and entities left with no mention are deleted, while
        no ingest runs (the exclusive side of :attr:`lock`). Unchanged content stays ``unchanged`` unless
        ``reextract``. A document that is not stored yet is ``failed`` (use :meth:`ingest`).
        """
        doc_id = str(path) if path is not None else document_id
        if doc_id is None or (text is None) == (path is None):
            raise ConfigurationError("update needs text=... with document_id=..., or path=... (exactly one).")
        if path is None:
            doc_id = await self.document_key(doc_id)
        elif (problem := path_key_problem(doc_id)) is not None:
            return _failed_report(doc_id, problem)
        else:
            (doc_id,) = await resolve_ids(self.store, [file_lookup(file_key(doc_id), doc_id)])
        if not await self.store.exists() or not await document_exists(self.store, doc_id):
            return _failed_report(doc_id, f"no document {doc_id!r} is stored; use ingest to add it")
        if path is not None:
            return await self.ingest(paths=[path], title=title, plan=plan, reextract=reextract, progress=progress)
        return await self.ingest(text=text, document_id=doc_id, title=title, plan=plan, reextract=reextract,
                                 progress=progress)

    @decides_writes
    async def delete_document(self, document_id: str) -> bool:
        """Remove a document, its chunks and facts, and entities no other document mentions.

        The id follows the key rule of ingest (``docs/ingestion.md``, "Keys"): whitespace at either end is ignored,
        the id is NFC-normalised, control characters are refused (:class:`ToolError`); it deletes the document
        that id names (:meth:`document_key`) and no other.
        """
        normalise_key(document_id)
        if not await self.store.exists():
            return False
        async with self.lock.exclusive(), self.store.write_lock():
            return await delete_document(self.store, await self.document_key(document_id))

    async def get_ontology(self) -> Ontology:
        """The declared ontology (read-only; empty when none was declared)."""
        return await load_ontology(self.store)

    @decides_writes
    async def set_ontology(self, entities: Sequence[EntityType | Mapping[str, Any]] = (),
                           relations: Sequence[RelationType | Mapping[str, Any]] = ()
                           ) -> tuple[Ontology, OntologyChanges]:
        """Declare entity and relation types, or extend the declared ones; nothing is ever removed.

        Example::

            await kg.set_ontology(entities=[{"label": "Drug"}, {"label": "Disease"}],
                                  relations=[{"label": "TREATS", "patterns": [["Drug", "Disease"]]}])

        Raises:
            ToolError: a label breaks the label rule (the message names it), a type is declared twice or
                differs from a declared one only in case, or a pattern names an undeclared entity type.
        """
        addition = to_ontology(entities, relations)
        await self.ensure_schema()
        async with self._ontology_lock:
            return await merge_ontology(self.store, addition)

    async def _ingest_ontology(self) -> Ontology:
        async with self._ontology_lock:
            ontology = await load_ontology(self.store)
            if not ontology.entities and not ontology.relations:
                ontology, _ = await merge_ontology(self.store, DEFAULT_ONTOLOGY)
            return ontology

    @decides_writes
    async def finalize(self, progress: bool | None = None, *, entity_vectors: EntityVectors | None = None,
                       fact_vectors: FactVectors | None = None) -> FinalizeReport:
        """Deduplicate, embed what has no vector yet (chunks, entities, facts), build indexes, and wait for them.

        Args:
            progress: progress bars on stderr, one per phase (merging duplicates and resolving names, step by
                step; embedding chunks, entities and facts, model batch by model batch; building the indexes), each
                with its time left (None: when stderr is a terminal).
            entity_vectors: which entity cards get a vector: ``"shared"`` those mentioned in two or more chunks
                (the others are found by name: ``exact_names``, the full-text half of ``fuzzy_names``); ``"all"``
                every entity (the previous release's behaviour); ``"none"`` no entity. None (default): the rule of
                the graph's last ``finalize``, ``"shared"`` for a graph finalized without one.
            fact_vectors: ``"all"`` gives every fact a vector, a co-mention sentence of the ``ner`` extractor
                read from its chunk's model run with the local embedder
                (:mod:`~graphrag_agents.ingest.fact_pooling`); ``"sentences"`` embeds every fact's sentence alone
                (the previous release's ``"all"``); ``"typed"`` typed relations' facts only (not the co-mention
                sentences: a slower ``retrieve``); ``"none"`` none. A fact without a vector is found by the
                ``facts`` path among the facts of the chunks nearest the question, and ordered by ``links`` by its
                chunk's vector
                (:mod:`~graphrag_agents.retrieval.unembedded_facts`). None (default): the graph's last rule, else
                ``"all"``.

        Ends by asking the graph one question itself (:mod:`~graphrag_agents.retrieval.warm_up`), so the first
        retrieve after it does not pay the query planning and reads that follow a build.

        Returns the counts of what was merged and embedded, and the graph's status. The rules are remembered in
        the graph (later calls and ``status`` follow them), and a vector an entity already has is kept.

        Raises:
            ValueError: a rule is not one of its values (the message lists them).
        """
        VectorRules(entity_vectors or ENTITY_VECTORS, fact_vectors or FACT_VECTORS).check()  # fails before any work
        started = time.perf_counter()
        await self.require_exists()
        stored = await self.vector_rules()
        rules = VectorRules(entity_vectors or stored.entities, fact_vectors or stored.facts)
        show = want_progress(progress)
        with Progress(show) as bars:
            bars.add("resolve", "Merging duplicates, resolving names", total=_RESOLVE_STEPS)

            def step() -> None:
                bars.advance("resolve")

            async with self.lock.exclusive(), self.store.write_lock():
                keys = await upgrade_document_keys(self.store)
                step()
                merged = await merge_unknown_duplicates(self.store)
                step()
                regrouped = await regroup_co_mentions(self.store)
                step()
                ontology = await load_ontology(self.store)
                relabelled = await merge_label_votes(self.store, [e.label for e in ontology.entities])
                step()
                ner = NerExtractor()
                retyped = await retype_code_names(self.store, ner.person_or_place_labels(ontology))
                step()
                places = ner.place_labels(ontology)
                people = ner.person_or_place_labels(ontology) - places
                dropped, platforms = await read_marked_names(self.store, places, people)
                retyped += platforms
                step()
                if retyped:  # a name moved to Unknown joins the one typed entity of its name, as above
                    merged += await merge_unknown_duplicates(self.store)
                step()
                await upgrade_keyword_stats(self.store)  # a graph without them, or under another term rule
            # The counts only size the progress bars: without bars, embed_missing's own walk is the only pass.
            missing = await self._missing_vectors(rules) if show else {}
            for kind, total in missing.items():
                bars.add(kind, f"Embedding {kind}", total=total)
            embedded = await embed_missing(self.store, self.embedder,
                                           lambda kind, done: bars.update(kind, completed=done),
                                           rules)
            bars.add("indexes", "Building indexes", total=1)
            # Created here too, not only at the first write, so a dropped index is rebuilt.
            async with self.store.write_lock():
                self.meta = await ensure_schema(self.store, self.embedder.model_name, self.embedder.dimension)
                await write_meta_field(self.store, "entity_vectors", rules.entities)
                await write_meta_field(self.store, "fact_vectors", rules.facts)
                rebuilt = await rebuild_stale_vector_indexes(self.store, self.embedder.dimension)
                if rebuilt:
                    logger.warning("finalize rebuilt the vector indexes of %s in graph %r: they held copies of "
                                   "vectors no node has any more", ", ".join(rebuilt), self.name)
            forget_rules(self.store)
            await wait_for_indexes(self.store)
            bars.advance("indexes")
            try:
                await warm_up(self.store, self.embedder)
            except GraphRAGError as exc:  # the graph is built; the first question meets the same error, if any
                logger.warning("finalize's warm-up question on graph %r failed: %s", self.name, exc)
        return FinalizeReport(embedded=embedded, status=await self.status(), merged=merged,
                              seconds=time.perf_counter() - started, regrouped=regrouped, relabelled=relabelled,
                              retyped=retyped, dropped=dropped, rekeyed=keys.renamed, key_clashes=keys.clashes)

    async def vector_rules(self) -> VectorRules:
        """The ``entity_vectors`` / ``fact_vectors`` rules of the last ``finalize`` (the defaults before any, or
        for a graph finalized by a version without them)."""
        rows = await self.store.ro_query(
            "MATCH (m:__Meta__ {key: 'graph'}) RETURN m.entity_vectors, m.fact_vectors LIMIT 1")
        return VectorRules.stored(*rows[0]) if rows else VectorRules()

    async def _missing_vectors(self, rules: VectorRules | None = None) -> dict[str, int]:
        """What ``finalize`` under ``rules`` (default: the graph's) would embed, per kind."""
        rules = rules or await self.vector_rules()
        (chunks,), = await self.store.ro_query(f"MATCH (c:Chunk) WHERE {CHUNK_NEEDS_VECTOR} RETURN count(c)")
        entities, facts = await self._waiting(rules, stale=True)
        return {"chunks": int(chunks), "entities": entities, "facts": facts}

    async def _waiting(self, rules: VectorRules, *, stale: bool) -> tuple[int, int]:
        """Entities and facts that ``finalize`` under ``rules`` would embed: those without a vector (and, when
        ``stale``, the entities whose card changed since)."""
        q = self.store.ro_query
        entities = facts = 0
        if rules.entities != "none":
            fresh = "" if stale else "e.embedding IS NULL AND "
            (n,), = await q(f"MATCH (e:__Entity__) WHERE {fresh}{entity_needs_vector(rules.entities)} RETURN count(e)")
            entities = int(n)
        if rules.facts != "none":
            (typed,), = await q("MATCH ()-[r:RELATES]->() WHERE r.embedding IS NULL RETURN count(r)")
            facts = int(typed)
        if rules.grouped_facts:
            (grouped,), = await q("MATCH (f:__Fact__) WHERE f.embedding IS NULL RETURN count(f)")
            facts += int(grouped)
        return entities, facts

    async def retrieve(self, question: str, *, paths: Sequence[str] | None = None, top_k: int = 10,
                       expand_hops: int = 1, document_ids: Sequence[str] | None = None) -> RetrievalHits:
        """Search the graph for ``question`` (no LLM call: only the question's embedding)."""
        if document_ids is not None:
            document_ids = await resolve_ids(self.store, [document_lookup(d) for d in document_ids])
        await self.require_exists()
        return await retrieve(self.store, self.embedder, question, paths=paths, top_k=top_k,
                              expand_hops=expand_hops, document_ids=document_ids)

    async def require_exists(self) -> None:
        """Raise :class:`GraphNotFound` when the graph was never written or has been deleted."""
        if not await self.store.exists():
            raise GraphNotFound(f"Graph '{self.name}' does not exist.", hint=await self.missing_graph_hint())

    async def missing_graph_hint(self) -> str:
        """What to do about this graph not existing: the graphs that do exist in the store, by name."""
        names = [n for n in await self.store.graph_names() if n != self.name]
        where = self.store.address.describe()
        if not names:
            return f"Ingest documents (and finalize) first: {where} holds no graph yet."
        if len(names) == 1:
            return (f"Ingest documents (and finalize) first, or open the one graph that {where} holds: "
                    f"'{names[0]}' (graph='{names[0]}'; on the command line --graph {names[0]}).")
        shown = ", ".join(f"'{n}'" for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        return (f"Ingest documents (and finalize) first, or open one of the {len(names)} graphs that {where} holds: "
                f"{shown} (graph=NAME; on the command line --graph NAME; `graphrag-agents graphs` lists their "
                "counts).")

    async def status(self) -> GraphStatus:
        """Counts of documents, chunks, entities (per label) and relations (per type); read-only queries."""
        await self.require_exists()
        q = self.store.ro_query
        (docs,), = await q("MATCH (d:Document) RETURN count(d)")
        (chunks, unembedded_chunks), = await q(
            "MATCH (c:Chunk) RETURN count(c), sum(CASE WHEN c.embedding IS NULL THEN 1 ELSE 0 END)")
        labels = await q("MATCH (e:__Entity__) RETURN e.label, count(e) ORDER BY count(e) DESC")
        typed = await q("MATCH ()-[r:RELATES]->() RETURN r.type, count(r)")
        # A co-mention fact naming k entities links k(k-1)/2 pairs: counted as that many relations.
        grouped = await q("MATCH (f:__Fact__) WITH f.type AS t, indegree(f) AS k RETURN t, sum(k * (k - 1) / 2)")
        types: dict[str, int] = {}
        for kind, n in [*typed, *grouped]:
            types[str(kind)] = types.get(str(kind), 0) + int(n)
        # Only what the graph's rules would embed waits for finalize (an entity in one chunk does not, by default).
        missing_entities, missing_facts = await self._waiting(await self.vector_rules(), stale=False)
        return GraphStatus(
            graph=self.name, documents=int(docs), chunks=int(chunks),
            entities=sum(int(n) for _, n in labels), relations=sum(types.values()),
            entity_labels={str(k): int(n) for k, n in labels},
            relation_types=dict(sorted(types.items(), key=lambda kv: -kv[1])),
            unembedded=int(unembedded_chunks or 0) + missing_entities + missing_facts,
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


def _warm_up(embedder: Embedder) -> None:
    """Load the offline model in a worker thread, not awaited (about a second: the first retrieve of a new
    process would pay it). Remote embedders are left alone: warming them would be a paid request."""
    if not isinstance(embedder, OnnxMiniLMEmbedder):
        return
    future = asyncio.get_running_loop().run_in_executor(None, embedder.embed, ["warm-up"])
    # A failure here (a broken model file) is raised again, with its fix, by the first real embed.
    future.add_done_callback(lambda done: done.cancelled() or done.exception())


async def _wait_for_indexes_on_open(store: GraphStore) -> bool:
    """Ready means queryable: after a restart FalkorDB may still be building an index (DESIGN: wait for it).
    True when every index is built.

    A build longer than the bound does not fail the open: reads that need the index wait briefly, then answer
    :class:`GraphLoading` with a retry time, so an MCP server still starts and tells the model when to retry.
    """
    try:
        await store.wait_for_indexes(_OPEN_INDEX_WAIT_S)
    except GraphLoading as exc:
        logger.warning("opened graph %r while FalkorDB is still building indexes: %s", store.name, exc.message)
        return False
    return True


async def _warn_of_stale_vectors(store: GraphStore) -> None:
    """Say so when a vector index holds copies of vectors no node has any more (see :mod:`.store.stale_vectors`):
    its searches find fewer neighbours than asked. Opening never writes (a read-only server must not), so finalize
    repairs. A probe that fails is logged, never a failed open: it is advice."""
    from redis.exceptions import ResponseError

    try:
        stale = await stale_vector_indexes(store)
    except (GraphRAGError, ResponseError) as exc:
        logger.debug("graph %r: the stale-vector probe at open failed: %s", store.name, exc)
        return
    if stale:
        logger.warning(
            "Graph %r: the vector indexes of %s hold copies of vectors no node has any more (FalkorDB 4.16 keeps "
            "them after a replayed index creation, an update or a delete), so vector search finds fewer neighbours "
            "than asked. Fix: run `graphrag-agents finalize --graph %s` (or `await kg.finalize()`), which rebuilds "
            "them.", store.name, ", ".join(label for label, _ in stale), store.name)


def _failed_report(document_id: str, reason: str) -> IngestReport:
    report = IngestReport(documents=[DocumentStatus(document_id, "failed", reason=reason, path=document_id)])
    report.build_hint()
    return report


def _read_path(path: str, max_bytes: int | None) -> SourceDocument | DocumentStatus:
    """A local file as a source, or the failed status saying why it cannot be read."""
    failed = DocumentStatus(path, "failed", path=path)
    if (problem := path_key_problem(path)) is not None:
        failed.reason = problem
        return failed
    try:
        if Path(path).is_dir():
            failed.reason = "is a folder; pass the files in it (the CLI's --recursive walks folders)"
            return failed
        size = os.stat(path).st_size
        if max_bytes is not None and size > max_bytes:
            failed.reason = (f"the file is {size:,} bytes, over the {max_bytes:,}-byte limit; split the file or "
                             "raise KnowledgeGraph.max_file_bytes")
            return failed
        data = Path(path).read_bytes()
    except OSError as exc:
        failed.reason = f"cannot read the file: {exc.strerror or exc}"
        return failed
    return SourceDocument(document_id=file_key(path), name=path, data=data, path=path, from_file=True)


def _check_graph_name(name: str) -> None:
    if not name or len(name) > 128 or not all(ch.isalnum() or ch in "_-." for ch in name):
        raise ConfigurationError(
            f"Invalid graph name {name!r}: use 1-128 letters, digits, '_', '-' or '.' (e.g. 'my_graph')."
        )
