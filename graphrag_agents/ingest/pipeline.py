"""The ingestion pipeline: load -> skip unchanged -> chunk -> extract -> prune -> resolve -> write.

Documents go through in windows of a few hundred, so memory stays bounded and progress moves. Nothing is
written before a document's whole batch is built, and each write is one atomic query: a document that fails
at any step (unreadable, empty, too many chunks, model provider down) leaves nothing in the graph, and the
others go on. New documents are written several per query (all-or-nothing; on failure each is written alone,
so the per-document guarantee holds); a changed or re-extracted document is replaced in place, alone, under
the exclusive side of the readers-writer lock, because it deletes the entities its old version leaves behind.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._install import pip_extra
from .._keys import key_length_problem
from ..errors import ConfigurationError, StoreUnavailable
from ..models.chat import ChatModel
from ..models.embedder import Embedder
from ..store.graph import GraphStore
from .chunkers import Chunk, FixedChunker, chunker_for, get_chunker
from .doc_keys import keeps_rule_two
from .extract_llm import LLMExtractor
from .extract_ner import NerExtractor, spacy_available
from .extraction import Extraction, Extractor, to_records
from .loaders import DocumentLoadError, load_bytes
from .ontology import Ontology
from .plan import IngestPlan, SourceDocument
from .progress import Progress
from .records import ChunkRecord, DocumentBatch, DocumentRecord, MetaValue, chunk_id, content_hash
from .report import DocumentStatus, IngestReport, IngestStatus, PrunedReport
from .resolve import resolve_llm_verified
from .rwlock import KeyedLocks, ReadWriteLock
from .writer import StoredOwner, legacy_chunks, replace_document, stamp_versions, stored_versions, write_documents

__all__ = ["DocumentStatus", "IngestContext", "IngestStatus", "content_hash", "run_ingest"]

_WINDOW = 256
_GROUP_DOCS = 100
_GROUP_CHUNKS = 2000


@dataclass
class IngestContext:
    """What the pipeline needs from its knowledge graph."""

    store: GraphStore
    embedder: Embedder | None
    chat: ChatModel | None
    lock: ReadWriteLock
    doc_locks: KeyedLocks
    ner: NerExtractor = field(default_factory=NerExtractor)
    max_file_bytes: int | None = 50 * 1024 * 1024
    llm_concurrency: int = 4


@dataclass
class _Doc:
    source: SourceDocument
    plan: IngestPlan
    extractor: str
    text: str
    record: DocumentRecord
    chunks: list[ChunkRecord]
    replace: IngestStatus | None
    """None for a new document, else "updated" or "reextracted"."""
    extraction: Extraction = field(default_factory=Extraction)
    batch: DocumentBatch | None = None
    status: DocumentStatus | None = None


def _pick_extractor(plan: IngestPlan, ctx: IngestContext) -> str:
    if plan.extractor != "auto":
        return plan.extractor
    if ctx.chat is not None:
        return "llm"
    return "ner" if spacy_available() else "none"


def _max_text_chars(plan: IngestPlan) -> int | None:
    """The longest file text that can fit the plan's ``max_chunks``, so longer ones are refused before chunking.

    No chunk holds more than the chunker's ``max_chars`` (``size`` for ``fixed``), and chunks are packed to the
    smaller ``target_chars``: a longer text would need more chunks than the plan allows.
    """
    if plan.max_chunks is None:
        return None
    try:
        chunker = get_chunker(chunker_for(plan.chunker, None), **plan.chunk_params)  # auto: the same sizes
    except ValueError:
        return None  # chunking reports the bad parameters
    per_chunk = chunker.size if isinstance(chunker, FixedChunker) else chunker.max_chars
    return plan.max_chunks * per_chunk


def _load(source: SourceDocument, max_bytes: int | None,
          max_chars: int | None = None) -> tuple[str, str, str | None, str, dict[str, MetaValue]]:
    """(text, title, loader, content hash, metadata); raises DocumentLoadError."""
    if source.data is not None:
        if max_bytes is not None and len(source.data) > max_bytes:
            raise DocumentLoadError(f"the file is {len(source.data):,} bytes, over the {max_bytes:,}-byte limit; "
                                    "split the file or raise max_file_bytes", source.name)
        loaded = load_bytes(source.data, source.name, max_chars=max_chars)
        meta = {k: v for k, v in loaded.metadata.items() if isinstance(v, (str, int, float, bool))}
        return loaded.text, source.title or loaded.title, loaded.loader, loaded.content_hash, meta
    if source.text is None or not source.text.strip():
        raise DocumentLoadError("the text is empty", source.document_id)
    return source.text, source.title or source.document_id, None, content_hash(source.text), {}


def _chunk(text: str, plan: IngestPlan, loader: str | None) -> list[Chunk]:
    params = dict(plan.chunk_params)
    name = chunker_for(plan.chunker, loader)
    if name == "structural" and "syntax" not in params and loader in ("markdown", "rst"):
        params["syntax"] = loader
    return get_chunker(name, **params).chunk(text)


def _holds(text: str, chunks: list[str]) -> bool:
    """Whether every stored chunk is a piece of ``text`` (whitespace aside): what an ``unchanged`` document written
    before chunks carried their version must show, since a race could keep another version's chunks under its hash."""
    whole = "".join(text.split())
    return all("".join(chunk.split()) in whole for chunk in chunks)


def _prepare(source: SourceDocument, plan: IngestPlan, ctx: IngestContext, stored: dict[str, str],
             reextract: bool, legacy: dict[str, list[str]] | None = None) -> _Doc | DocumentStatus:
    doc_id = source.document_id
    base = DocumentStatus(doc_id, "failed", path=source.path or doc_id, plan=plan.to_dict())
    try:
        text, title, loader, digest, meta = _load(source, ctx.max_file_bytes, _max_text_chars(plan))
    except DocumentLoadError as exc:
        base.reason = exc.reason
        return base
    base.title, base.loader = title, loader
    old = stored.get(doc_id)
    if old == digest and legacy and doc_id in legacy and not _holds(text, legacy[doc_id]):
        old = ""  # a mixed document an earlier version left: rewritten ("updated"), not reported unchanged
    if old == digest and not reextract:
        base.status = "unchanged"
        return base
    extractor = _pick_extractor(plan, ctx)
    base.plan = {**plan.to_dict(), "extractor": extractor}
    if extractor == "llm" and ctx.chat is None:
        base.reason = ("the llm extractor needs a chat model; open the graph with llm=... or set GRAPHRAG_MODEL, "
                       "or use extractor='ner'")
        return base
    if extractor == "ner" and not spacy_available():
        base.reason = f"the ner extractor needs spaCy: {pip_extra('ner')}, or use extractor='none'"
        return base
    pieces = _chunk(text, plan, loader)
    if not pieces:
        base.reason = "no text left to chunk"
        return base
    if plan.max_chunks is not None and len(pieces) > plan.max_chunks:
        base.reason = (f"{len(pieces)} chunks, over the plan's max_chunks of {plan.max_chunks}; split the file, "
                       "use larger chunks, or raise max_chunks")
        return base
    chunks = [ChunkRecord(id=chunk_id(doc_id, p.index), index=p.index, text=p.text,
                          heading=" > ".join(p.metadata.get("heading_path", []))) for p in pieces]
    meta.update(plan=json.dumps(base.plan, sort_keys=True), from_file=source.from_file)
    record = DocumentRecord(id=doc_id, title=title, content_hash=digest, loader=loader if source.from_file else None,
                            path=source.path or doc_id, metadata=meta)
    replace: IngestStatus | None = None if old is None else ("reextracted" if old == digest else "updated")
    return _Doc(source, plan, extractor, text, record, chunks, replace)


def _extractor(name: str, ctx: IngestContext) -> Extractor | None:
    if name == "ner":
        return ctx.ner
    if name == "llm":
        assert ctx.chat is not None
        return LLMExtractor(ctx.chat, concurrency=ctx.llm_concurrency)
    return None


async def _extract(docs: list[_Doc], ctx: IngestContext, ontology: Ontology, bars: Progress,
                   report: IngestReport) -> None:
    for name in sorted({d.extractor for d in docs}):
        group = [d for d in docs if d.extractor == name]
        extractor = _extractor(name, ctx)
        if extractor is None:
            bars.advance("extract", len(group))
            continue
        started = time.perf_counter()
        results = await extractor.extract([[c.text for c in d.chunks] for d in group], ontology)
        if name == "llm":
            report.llm_seconds += time.perf_counter() - started
        for doc, result in zip(group, results, strict=True):
            bars.advance("extract")
            if isinstance(result, Exception):
                if isinstance(result, StoreUnavailable):
                    raise result
                message = ctx.chat.describe(result) if ctx.chat is not None else str(result)
                doc.status = _failed(doc, f"extraction failed: {message}")
            else:
                doc.extraction = result


def _failed(doc: _Doc, reason: str) -> DocumentStatus:
    return DocumentStatus(doc.record.id, "failed", reason=reason, path=doc.record.path,
                          plan=json.loads(str(doc.record.metadata["plan"])), title=doc.record.title,
                          loader=doc.record.loader)


async def _build(doc: _Doc, ctx: IngestContext, ontology: Ontology, report: IngestReport) -> None:
    """Prune, resolve and assemble the document's batch (the graph is read, not written)."""
    pruned = PrunedReport()
    entities, relations = to_records(doc.record.id, doc.chunks, doc.extraction, ontology, pruned)
    merges = resolution_calls = 0
    if doc.plan.resolver == "llm_verified" and ctx.chat is not None and doc.plan.max_llm_pairs > 0:
        started = time.perf_counter()
        entities, relations, merges, resolution_calls = await resolve_llm_verified(
            ctx.store, ctx.embedder, ctx.chat, entities, relations, doc.plan.max_llm_pairs)
        report.llm_seconds += time.perf_counter() - started
    report.pruned.merge(pruned)
    doc.batch = DocumentBatch(doc.record, doc.chunks, entities, relations)
    calls = doc.extraction.llm_calls + resolution_calls
    report.llm_calls += calls
    extra: dict[str, Any] = {}
    if calls:
        extra["llm_calls"] = calls
    if doc.extraction.malformed_chunks:
        extra["malformed_chunks"] = doc.extraction.malformed_chunks
    if merges:
        extra["merged"] = merges
    doc.status = DocumentStatus(
        doc.record.id, doc.replace or "ingested", chunks=len(doc.chunks), entities=len(entities),
        relations=len(relations), path=doc.record.path, plan=json.loads(str(doc.record.metadata["plan"])),
        extra=extra, title=doc.record.title, loader=doc.record.loader)


async def _write_new(docs: list[_Doc], ctx: IngestContext, bars: Progress) -> None:
    groups: list[list[_Doc]] = []
    for doc in docs:
        last = groups[-1] if groups else None
        if (last is None or len(last) >= _GROUP_DOCS
                or sum(len(d.chunks) for d in last) + len(doc.chunks) > _GROUP_CHUNKS):
            groups.append([doc])
        else:
            last.append(doc)
    for group in groups:
        async with ctx.store.write_lock():
            await _write_group(await _still_new(group, ctx), ctx)
        bars.advance("write", len(group))


async def _still_new(group: list[_Doc], ctx: IngestContext) -> list[_Doc]:
    """The documents of ``group`` still not stored, under the write lock: another process sharing the data
    folder may have stored some since they were checked (same content: ``unchanged``; else ``failed``)."""
    stored = await stored_versions(ctx.store, [d.record.id for d in group])
    for doc in group:
        if doc.record.id in stored:
            _taken(doc, stored[doc.record.id])
    return [d for d in group if d.record.id not in stored]


def _taken(doc: _Doc, digest: str) -> None:
    """The status of a new document another writer stored first (its version: ``digest``)."""
    if digest == doc.record.content_hash:
        doc.status = DocumentStatus(doc.record.id, "unchanged", path=doc.record.path, title=doc.record.title,
                                    loader=doc.record.loader, plan=json.loads(str(doc.record.metadata["plan"])))
    else:
        doc.status = _failed(doc, "another writer stored a different version of this document meanwhile; "
                                  "nothing of this call's version was written: ingest it again to replace it")


async def _write_group(group: list[_Doc], ctx: IngestContext) -> None:
    if group:
        try:
            if await write_documents(ctx.store, [d.batch for d in group if d.batch is not None]):
                return
        except StoreUnavailable:
            raise
        except Exception:
            pass
        for doc in group:  # find the culprit, or the document another writer stored: each alone, all-or-nothing
            try:
                if doc.batch is not None and not await write_documents(ctx.store, [doc.batch]):
                    stored = await stored_versions(ctx.store, [doc.record.id])
                    _taken(doc, stored.get(doc.record.id, ""))
            except StoreUnavailable:
                raise
            except Exception as exc:
                doc.status = _failed(doc, f"could not be written: {type(exc).__name__}: {exc}")


async def _write_replacements(docs: list[_Doc], ctx: IngestContext, ontology: Ontology, bars: Progress,
                              report: IngestReport) -> None:
    for doc in docs:
        async with ctx.lock.exclusive():
            await _build(doc, ctx, ontology, report)
            assert doc.batch is not None
            try:
                async with ctx.store.write_lock():
                    await replace_document(ctx.store, doc.batch)
            except StoreUnavailable:
                raise
            except Exception as exc:
                doc.status = _failed(doc, f"could not be written: {type(exc).__name__}: {exc}")
        bars.advance("write")


def _twice(source: SourceDocument, first: SourceDocument) -> str:
    if source.from_file and first.from_file and source.path != first.path:
        return (f"{source.path!r} and {first.path!r} are one document id, {source.document_id!r}: the key rule "
                "keys a path in NFC, and the two are the same text in different Unicode forms; rename one of the "
                "files")
    return f"the id {source.document_id!r} is given twice in this call"


def _file_clash(source: SourceDocument, owners: dict[str, StoredOwner]) -> DocumentStatus | None:
    """A file refused because its id is held by another file or document (never replaced silently), or None."""
    owner = owners.get(source.document_id)
    path = source.path or source.document_id
    if not source.from_file or owner is None or owner.path == path:
        return None
    held = f"the file {owner.path!r}" if owner.from_file else "a text document"
    return DocumentStatus(source.document_id, "failed", path=path, reason=(
        f"its document id {source.document_id!r} (the key rule keys a path in NFC) is held by {held}, the same "
        f"id in another Unicode form; rename this file, or delete the stored one first "
        f"(kg.delete_document({source.document_id!r}))"))


async def run_ingest(ctx: IngestContext, sources: Sequence[SourceDocument], plans: Sequence[IngestPlan],
                     ontology: Ontology, *, reextract: bool = False, progress: bool = False) -> IngestReport:
    """Ingest ``sources`` (``plans[i]`` for ``sources[i]``); the store's schema must exist."""
    if len(plans) != len(sources):
        raise ConfigurationError(f"{len(sources)} documents but {len(plans)} plans: pass one plan, or one per "
                                 "document.")
    started = time.perf_counter()
    report = IngestReport()
    statuses = _refused_ids(sources)
    order = [i for i in range(len(sources)) if i not in statuses]
    async with ctx.doc_locks.hold([sources[i].document_id for i in order]):
        with Progress(progress) as bars:
            # Both bars count documents: their number is known before the first one is read, so the totals (and
            # the time-left estimates) hold from the start; chunks are known only window by window.
            bars.add("extract", "Extracting documents", total=len(order))
            bars.add("write", "Writing documents", total=len(order))
            for start in range(0, len(order), _WINDOW):
                window = _Window(ctx, sources, plans, ontology, reextract, bars, report, statuses)
                await window.run(order[start:start + _WINDOW])
    report.documents = [statuses[i] for i in range(len(sources))]
    report.seconds = time.perf_counter() - started
    report.build_hint()
    return report


def _refused_ids(sources: Sequence[SourceDocument]) -> dict[int, DocumentStatus]:
    """The sources failed before any work: an id given twice in the call, or one too long for a key."""
    statuses: dict[int, DocumentStatus] = {}
    seen: dict[str, int] = {}
    for i, source in enumerate(sources):
        if source.document_id in seen:
            statuses[i] = DocumentStatus(source.document_id, "failed", path=source.path,
                                         reason=_twice(source, sources[seen[source.document_id]]))
        elif (too_long := key_length_problem(source.document_id)) is not None:
            statuses[i] = DocumentStatus(source.document_id, "failed", path=source.path,
                                         reason=f"the {too_long}; pass a shorter document id")
        seen.setdefault(source.document_id, i)
    return statuses


@dataclass
class _Window:
    """One window of documents: read what is stored of them, prepare, extract, build and write them; each
    document's status lands in ``statuses``."""

    ctx: IngestContext
    sources: Sequence[SourceDocument]
    plans: Sequence[IngestPlan]
    ontology: Ontology
    reextract: bool
    bars: Progress
    report: IngestReport
    statuses: dict[int, DocumentStatus]

    async def run(self, window: Sequence[int]) -> None:
        """Ingest the sources at the indices of ``window``."""
        ctx, sources = self.ctx, self.sources
        unversioned: set[str] = set()
        owners: dict[str, StoredOwner] = {}
        stored = await stored_versions(ctx.store, [sources[i].document_id for i in window], unversioned, owners)
        legacy = await legacy_chunks(ctx.store, sorted(unversioned)) if unversioned else {}
        docs = await self._prepared(window, stored, owners, legacy)
        checked = {d: stored[d] for d in legacy
                   if any(s.document_id == d and s.status == "unchanged" for s in self.statuses.values())}
        if checked:
            async with ctx.store.write_lock():
                await stamp_versions(ctx.store, checked)
        await _extract(list(docs.values()), ctx, self.ontology, self.bars, self.report)
        ready = {i: d for i, d in docs.items() if d.status is None}
        new = [d for d in ready.values() if d.replace is None]
        async with ctx.lock.shared():
            for doc in new:
                await _build(doc, ctx, self.ontology, self.report)
            await _write_new(new, ctx, self.bars)
        await _write_replacements([d for d in ready.values() if d.replace is not None], ctx, self.ontology,
                                  self.bars, self.report)
        for i, doc in docs.items():
            assert doc.status is not None
            self.statuses[i] = doc.status

    async def _prepared(self, window: Sequence[int], stored: dict[str, str], owners: dict[str, StoredOwner],
                        legacy: dict[str, list[str]]) -> dict[int, _Doc]:
        """The documents of the window to extract; the others (a file clash, unchanged, unreadable) get their
        status now."""
        docs: dict[int, _Doc] = {}
        for i in window:
            if (clash := _file_clash(self.sources[i], owners)) is not None:
                self._settled(i, clash)
                continue
            # Parsing (a PDF can take seconds) and chunking are CPU-bound: off the loop, so other sessions and
            # the MCP call timeout keep running.
            prepared = await asyncio.to_thread(_prepare, self.sources[i], self.plans[i], self.ctx, stored,
                                               self.reextract, legacy)
            if isinstance(prepared, DocumentStatus):
                self._settled(i, prepared)
                continue
            if (owner := owners.get(prepared.record.id)) is not None:
                prepared.record.metadata["key_rule"] = keeps_rule_two(owner.key_rule, owner.from_file)
            docs[i] = prepared
        return docs

    def _settled(self, i: int, status: DocumentStatus) -> None:
        self.statuses[i] = status
        self.bars.advance("extract")
        self.bars.advance("write")
