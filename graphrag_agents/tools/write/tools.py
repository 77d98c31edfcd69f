"""The write tools: ``preview_files``, ``set_ontology``, ``ingest``, ``finalize`` and ``add_facts``.

Every session of a toolkit shares one :class:`WriteState` (the files root, the plan limits, each document's last
plan and whether an ``on_write`` finalize is pending). The handlers validate nothing themselves: ``ToolSpec``
has already run the input models of :mod:`.inputs`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..._secrets import mask_secrets
from ...errors import ToolError
from ...ingest.plan import SourceDocument
from ...ingest.records import derived_id
from ...ingest.report import DocumentStatus, IngestReport
from ...ingest.writer import replace_document, write_document
from ...kg import FinalizeReport, KnowledgeGraph
from ..spec import ToolAnnotations, ToolSpec
from ._facts import FACTS_ORIGIN, build_facts_batch
from ._ingest import StoredDocument, check_text_target, collect_files, group_paths, read_sources
from ._preview import preview_files
from .inputs import (
    AddFactsInput,
    FinalizeInput,
    IngestFilesInput,
    IngestTextInput,
    PreviewFilesInput,
    SetOntologyInput,
)
from .plan import PlanLimits, PlannedFile, RuleBasedIngestionPlanner, ingest_description, merge_plan_limits
from .results import (
    AddFactsResult,
    FinalizeResult,
    IngestDocument,
    IngestResult,
    PreviewFilesResult,
    PrunedInfo,
    SetOntologyResult,
)
from .sandbox import FilesRoot

__all__ = ["FinalizePolicy", "WriteState", "finalize_pending", "make_write_state", "write_specs"]

FinalizePolicy = Literal["manual", "on_write", "never"]

_CHANGED = frozenset({"ingested", "reextracted", "updated"})
_PREVIEW = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)
_ONTOLOGY = ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=False)
# ingest may call a chat model (llm extractor / resolver) and an embedding provider; re-extraction differs.
_INGEST = ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=True)
_FINALIZE = ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=True)
_PREVIEW_DESCRIPTION = (
    "One sample from the middle of each file under the files root, to design an ontology from. Pages hold at "
    "most 30,000 characters: call again with offset=next_offset until next_offset is null. Reads a bounded "
    "window of each file (a few pages of a PDF), so a file's chars may be an estimate (chars_estimated).")
_SET_ONTOLOGY_DESCRIPTION = (
    "Declare or extend the entity and relation types extraction uses (write). Only adds: new types, "
    "descriptions, properties and relation patterns [source label, target label]; nothing is removed. Labels "
    "use letters, digits, spaces, '-' and '_'. Declare it before the first ingest, with a specific relation "
    "type for each kind of link.")
_FINALIZE_DESCRIPTION = ("Deduplicate, embed and index what was ingested (write). Call it once after the last "
                         "ingest batch; retrieve finds new documents only after it.")
_ADD_FACTS_DESCRIPTION = (
    "Write entities and relations you extracted yourself (write; no server-side LLM). Give the source `text` "
    "(stored as passages, so every fact stays traceable), `entities` [{name, label, description?}] and "
    "`relations` [{source, target, type, fact?}] naming those entities. Labels, relation types and (source, "
    "target) patterns must be declared with set_ontology first; otherwise nothing is written and the hint gives "
    "the set_ontology call. The same text again replaces the facts stored for it: send all of a text's facts in "
    "one call. At most 200 entities, 500 relations and 100,000 characters of text.")


@dataclass
class WriteState:
    """Write-side state every session of one toolkit shares."""

    files: FilesRoot | None
    """The sandbox ``preview_files`` and ``ingest(files=...)`` read from; None: text only."""
    limits: PlanLimits
    """What an agent's plan may choose."""
    plans: dict[str, PlannedFile] = field(default_factory=dict)
    """Each document's last plan, by document id (this process only)."""
    finalize_pending: bool = False
    """An ``on_write`` finalize failed (or never ran) after documents were written."""
    facts_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Serialises ``add_facts`` calls, which read a document's state before writing it."""


def make_write_state(files_root: str | os.PathLike[str] | FilesRoot | None, max_file_bytes: int | None,
                     plan_limits: Mapping[str, Any] | PlanLimits | None) -> WriteState:
    """The shared write state of a new toolkit (checks ``files_root`` and ``plan_limits`` now).

    A :class:`FilesRoot` is used as given (its own ``max_file_bytes`` and ``allow_hard_links``).
    """
    files = files_root if isinstance(files_root, FilesRoot) or files_root is None else FilesRoot(
        files_root, max_file_bytes=max_file_bytes)
    return WriteState(files=files, limits=merge_plan_limits(plan_limits))


class _Handlers:
    """The write tools of one toolkit session."""

    def __init__(self, kg: KnowledgeGraph, state: WriteState, policy: FinalizePolicy) -> None:
        self.kg = kg
        self.state = state
        self.policy = policy

    # -- preview_files / set_ontology / finalize -----------------------------------------------------------

    async def preview(self, args: PreviewFilesInput) -> PreviewFilesResult:
        if self.state.files is None:
            raise ToolError("preview_files needs a files root, and this toolkit has none.",
                            "Build the toolkit with files_root='path/to/corpus'.")
        return await preview_files(self.state.files, args.files, args.offset, args.sample_chars)

    async def set_ontology(self, args: SetOntologyInput) -> SetOntologyResult:
        ontology, changes = await self.kg.set_ontology(
            entities=[e.model_dump() for e in args.entities],
            relations=[{**r.model_dump(), "patterns": [list(p) for p in r.patterns]} for r in args.relations])
        result = SetOntologyResult(
            entities=[e.label for e in ontology.entities],
            relations={r.label: list(r.patterns) for r in ontology.relations},
            added_entities=changes.added_entities, added_relations=changes.added_relations,
            added_properties=changes.added_properties, added_patterns=changes.added_patterns,
            kept_descriptions=changes.kept_descriptions)
        hints = []
        if result.changed:
            hints.append("New documents are extracted with these types. To apply them to documents ingested "
                         "before, ingest those again with reextract=true" + (", then finalize." if self.policy ==
                                                                             "manual" else "."))
        else:
            hints.append("Nothing new: the ontology already declares all of it.")
        if changes.kept_descriptions:
            hints.append(f"Existing descriptions were kept for {', '.join(changes.kept_descriptions)} "
                         "(descriptions are only added, never replaced).")
        result.hint = " ".join(hints)
        return result

    async def finalize(self, _: FinalizeInput | None = None) -> FinalizeResult:
        report = await self.kg.finalize()  # raises GraphNotFound first when there is no graph
        self.state.finalize_pending = False
        status, embedded = report.status, report.embedded
        extra = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)
                 if f.name not in ("status", "embedded") and type(getattr(report, f.name)) is int}
        return FinalizeResult(
            embedded_chunks=embedded.chunks, embedded_entities=embedded.entities, embedded_facts=embedded.facts,
            documents=status.documents, chunks=status.chunks, entities=status.entities,
            relations=status.relations, extra=extra,
            hint=" ".join(["The graph is ready: retrieve finds everything ingested so far.", *_clashes(report)]))

    async def _after_write(self, changed: bool) -> tuple[bool | None, str | None]:
        """Finalize under ``on_write``; returns (finalized, hint). A failure is kept for the next call."""
        if self.policy == "never":
            return None, None
        if self.policy == "manual":
            return None, ("Call finalize after the last batch so retrieve can find the new content."
                          if changed else None)
        if not changed and not self.state.finalize_pending:
            return None, None
        self.state.finalize_pending = True
        try:
            await self.finalize()
        except Exception as exc:  # the write succeeded: keep its result and say what failed
            return False, (f"The documents were written, but finalize failed ({type(exc).__name__}: "
                           f"{mask_secrets(str(exc))[:300]}). The next ingest retries it, or call "
                           "toolkit.finalize().")
        return True, None

    # -- ingest --------------------------------------------------------------------------------------------

    def _planner(self, args: IngestTextInput) -> RuleBasedIngestionPlanner:
        rules = args.plan if isinstance(args, IngestFilesInput) and args.plan else []
        return RuleBasedIngestionPlanner(rules, self.state.limits)

    def _plan(self, planner: RuleBasedIngestionPlanner, document_id: str, path: str,
              reextract: bool) -> PlannedFile:
        if planner.rules:
            return planner.plan_for(path)
        remembered = self.state.plans.get(document_id)
        if remembered is not None:
            reason = remembered.reason.removeprefix("the plan of its last ingest: ")
            return dataclasses.replace(remembered, reason=f"the plan of its last ingest: {reason}")
        if reextract:
            return planner.default("no plan was remembered for it (that memory lives in this toolkit's process "
                                   "only): the default strategies; pass plan to choose")
        return planner.default()

    async def ingest(self, args: IngestTextInput) -> IngestResult:
        planner = self._planner(args)
        planned: dict[str, PlannedFile] = {}
        report = IngestReport()
        entries: list[IngestDocument | DocumentStatus] = []
        if args.text is not None:
            document_id = (await self.kg.document_key(args.document_id) if args.document_id
                           else derived_id("text", args.text))
            await check_text_target(self.kg, self.state.files, document_id)
            planned[document_id] = self._plan(planner, document_id, document_id, args.reextract)
            source = SourceDocument(document_id=document_id, name=args.title or document_id, text=args.text,
                                    title=args.title)
            report = await self._run([source], planned, args.reextract)
            entries += report.documents
        else:
            assert isinstance(args, IngestFilesInput) and args.files and self.state.files is not None
            paths, unmatched = await collect_files(self.state.files, args.files)
            entries += unmatched
            for group in await group_paths(self.state.files, paths):
                items = await read_sources(self.state.files, group)
                sources = [item for item in items if isinstance(item, SourceDocument)]
                for source in sources:
                    planned[source.document_id] = self._plan(planner, source.document_id, source.path or "",
                                                              args.reextract)
                part = await self._run(sources, planned, args.reextract) if sources else IngestReport()
                done = iter(part.documents)  # the pipeline reports in the order it was given
                entries += [item if isinstance(item, IngestDocument) else next(done) for item in items]
                report.pruned.merge(part.pruned)
                report.llm_calls += part.llm_calls
        return await self._ingest_result(entries, report, planned)

    async def _run(self, sources: list[SourceDocument], planned: Mapping[str, PlannedFile],
                   reextract: bool) -> IngestReport:
        plans = [planned[s.document_id].plan for s in sources]
        return await self.kg.ingest_documents(sources, plans, reextract=reextract)

    def _document(self, doc: DocumentStatus, planned: Mapping[str, PlannedFile]) -> IngestDocument:
        chosen = planned.get(doc.document_id)
        plan = dict(doc.plan or {})
        if chosen is not None:  # ours, tidied, with the extractor the pipeline actually used ("auto")
            plan = {**chosen.to_dict(), "extractor": plan.get("extractor", chosen.plan.extractor)}
            if doc.status != "failed":
                self.state.plans[doc.document_id] = chosen
        return IngestDocument(document_id=doc.document_id, path=doc.path, status=doc.status, chunks=doc.chunks,
                              entities=doc.entities, relations=doc.relations, reason=doc.reason,
                              plan=plan or None)

    async def _ingest_result(self, entries: list[IngestDocument | DocumentStatus], report: IngestReport,
                             planned: Mapping[str, PlannedFile]) -> IngestResult:
        documents = [e if isinstance(e, IngestDocument) else self._document(e, planned) for e in entries]
        counts: dict[str, int] = {}
        for item in documents:
            counts[item.status] = counts.get(item.status, 0) + 1
        hints: list[str] = []
        failed = [d for d in documents if d.status == "failed"]
        if failed:
            hints.append(f"{len(failed)} document(s) failed (the others went on), e.g. "
                         f"{failed[0].path or failed[0].document_id}: {failed[0].reason}")
        pruned_hint = report.pruned.hint()
        if pruned_hint:
            hints.append(pruned_hint)
        finalized, finalize_hint = await self._after_write(any(d.status in _CHANGED for d in documents))
        if finalize_hint:
            hints.append(finalize_hint)
        pruned = PrunedInfo.model_validate(dataclasses.asdict(report.pruned))
        return IngestResult(documents=documents, counts=counts, pruned=pruned, llm_calls=report.llm_calls,
                            finalized=finalized, hint=" ".join(hints) or None)

    # -- add_facts -----------------------------------------------------------------------------------------

    async def _facts_target(self, document_id: str) -> StoredDocument | None:
        stored = await check_text_target(self.kg, self.state.files, document_id)
        if stored is not None and stored.origin != FACTS_ORIGIN:
            raise ToolError(f"Document {document_id!r} holds text ingested with ingest, not facts; add_facts "
                            "would replace it.", "Leave document_id out (a 'facts:' id is derived from the "
                                                 "text) or pick a new one.")
        return stored

    async def add_facts(self, args: AddFactsInput) -> AddFactsResult:
        document_id = (await self.kg.document_key(args.document_id) if args.document_id
                       else derived_id("facts", args.text))
        async with self.state.facts_lock:
            stored = await self._facts_target(document_id)
            batch = build_facts_batch(args, await self.kg.get_ontology(), document_id)
            status = "unchanged"
            if stored is None or stored.content_hash != batch.document.content_hash:
                await self.kg.ensure_schema()  # before the locks below: it takes the write lock itself
                # Alone (a replacement removes orphans), and under the data folder's write lock, checked again
                # there: another process may have written this document since.
                async with self.kg.lock.exclusive(), self.kg.store.write_lock():
                    stored = await self._facts_target(document_id)
                    if stored is None and await write_document(self.kg.store, batch):
                        status = "ingested"
                    # None here: another writer without the folder lock stored it first; replace it too
                    elif stored is None or stored.content_hash != batch.document.content_hash:
                        await replace_document(self.kg.store, batch)
                        status = "updated"
        finalized, hint = await self._after_write(status != "unchanged")
        if status == "updated":
            hint = " ".join(filter(None, ["Replaced the facts stored earlier for this text.", hint]))
        return AddFactsResult(document_id=document_id, status=status, chunks=len(batch.chunks),  # type: ignore[arg-type]
                              entities=len(batch.entities), relations=len(batch.relations), finalized=finalized,
                              hint=hint)


def _clashes(report: FinalizeReport) -> list[str]:
    """The key clashes an upgrade left (both documents kept), for the user to resolve."""
    if not report.key_clashes:
        return []
    first = report.key_clashes[0]
    more = f" ({len(report.key_clashes) - 1} more in the log)" if len(report.key_clashes) > 1 else ""
    return [f"{len(report.key_clashes)} document(s) kept under the id an earlier version stored them under, since "
            f"another document holds the id the key rule gives them{more}: {first}."]


async def finalize_pending(kg: KnowledgeGraph, state: WriteState) -> FinalizeResult:
    """Retry an ``on_write`` finalize that failed; says so when none is pending."""
    if not state.finalize_pending:
        return FinalizeResult(ran=False, hint="finalize_policy is on_write: each ingest that changed something "
                                              "was finalized, and none failed.")
    return await _Handlers(kg, state, "on_write").finalize()


def write_specs(kg: KnowledgeGraph, state: WriteState, policy: FinalizePolicy) -> list[ToolSpec]:
    """The write tool specs over ``kg`` (a toolkit then offers those its options allow)."""
    handlers = _Handlers(kg, state, policy)
    on_write = policy == "on_write"
    facts = ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=on_write)
    ingest_input = IngestFilesInput if state.files is not None else IngestTextInput
    return [
        ToolSpec("preview_files", _PREVIEW_DESCRIPTION, PreviewFilesInput, PreviewFilesResult, _PREVIEW,
                 handlers.preview),
        ToolSpec("set_ontology", _SET_ONTOLOGY_DESCRIPTION, SetOntologyInput, SetOntologyResult, _ONTOLOGY,
                 handlers.set_ontology),
        ToolSpec("ingest", ingest_description(state.limits, state.files is not None, policy),
                 ingest_input, IngestResult, _INGEST, handlers.ingest),
        ToolSpec("finalize", _FINALIZE_DESCRIPTION, FinalizeInput, FinalizeResult, _FINALIZE, handlers.finalize),
        ToolSpec("add_facts", _ADD_FACTS_DESCRIPTION, AddFactsInput, AddFactsResult, facts, handlers.add_facts),
    ]
