"""Typed results of the write tools, each rendering compact text for a model with ``to_llm_text()``.

Write results carry no evidence numbers: they report what changed, not what the graph says.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ...evidence import ToolResult
from ...evidence.render import Section, render_sections, shorten

__all__ = [
    "AddFactsResult",
    "FinalizeResult",
    "IngestDocument",
    "IngestResult",
    "PreviewFile",
    "PreviewFilesResult",
    "PrunedInfo",
    "SetOntologyResult",
]

_PATTERNS_SHOWN = 8
Status = Literal["ingested", "reextracted", "updated", "unchanged", "failed"]


class PreviewFile(BaseModel):
    """A sample from the middle of one file."""

    path: str = Field(description="Path relative to the files root.")
    chars: int = Field(default=0, description="Characters of text in the file (an estimate when chars_estimated).")
    chars_estimated: bool = Field(default=False, description="True when chars was extrapolated from the sample.")
    pages: int | None = Field(default=None, description="Pages, for PDFs.")
    sample: str = Field(default="", description="Text from the middle of the file.")
    error: str | None = Field(default=None, description="Why the file cannot be previewed (or ingested).")

    def line(self, sample_chars: int) -> str:
        size = f"{'~' if self.chars_estimated else ''}{self.chars} chars" + (f", {self.pages} pages"
                                                                           if self.pages else "")
        head = f"## {self.path}" + (f" ({size})" if self.chars else "") + (f": ERROR {self.error}"
                                                                           if self.error else "")
        return f"{head}\n{shorten(self.sample, sample_chars)}" if self.sample else head


class PreviewFilesResult(ToolResult):
    """One page of file samples; call again with ``offset=next_offset`` until it is null."""

    files: list[PreviewFile]
    total_files: int = Field(description="Files the patterns name in all.")
    offset: int = Field(description="Index of this page's first file.")
    next_offset: int | None = Field(default=None, description="First file this page left out; null at the end.")

    def to_llm_text(self, max_chars: int = 8000) -> str:
        end = self.offset + len(self.files)
        header = f"preview_files: files {self.offset + 1}-{end} of {self.total_files}"
        if self.next_offset is not None:
            header += f" (next_offset {self.next_offset})"
        if not self.files:
            return shorten(f"{header}. No files. {self._footer()}", max_chars)
        # Each file gets an equal share, so a long first sample cannot hide the others.
        share = max((max_chars - len(header) - len(self._footer()) - 8) // len(self.files) - 40, 80)
        return render_sections(header, [Section("Samples", [f.line(share) for f in self.files])], max_chars,
                               self._footer())


class SetOntologyResult(ToolResult):
    """The ontology after ``set_ontology``, and what the call added."""

    entities: list[str] = Field(description="Every declared entity label.")
    relations: dict[str, list[tuple[str, str]]] = Field(description="Every relation type with its patterns.")
    added_entities: list[str] = Field(default_factory=list)
    added_relations: list[str] = Field(default_factory=list)
    added_properties: list[tuple[str, str]] = Field(default_factory=list, description="(entity label, property)")
    added_patterns: list[tuple[str, str, str]] = Field(default_factory=list,
                                                       description="(relation, source label, target label)")
    kept_descriptions: list[str] = Field(
        default_factory=list, description="Labels whose existing description was kept (descriptions only add).")

    @property
    def changed(self) -> bool:
        """True when the call added anything."""
        return bool(self.added_entities or self.added_relations or self.added_properties or self.added_patterns)

    def to_llm_text(self, max_chars: int = 8000) -> str:
        added = [f"entity types {', '.join(self.added_entities)}" if self.added_entities else "",
                 f"relation types {', '.join(self.added_relations)}" if self.added_relations else "",
                 f"{len(self.added_patterns)} patterns" if self.added_patterns else "",
                 f"{len(self.added_properties)} properties" if self.added_properties else ""]
        head = "set_ontology: added " + "; ".join(a for a in added if a) if self.changed else \
            "set_ontology: nothing new (the ontology already declares all of it)"
        rels = [f"{label}: " + (", ".join(f"{s} -> {t}" for s, t in pats[:_PATTERNS_SHOWN]) or "no patterns")
                + (f" (+{len(pats) - _PATTERNS_SHOWN} more patterns)" if len(pats) > _PATTERNS_SHOWN else "")
                for label, pats in self.relations.items()]
        sections = [Section("Entity types", [", ".join(self.entities)] if self.entities else []),
                    Section("Relation types", rels)]
        return render_sections(head, sections, max_chars, self._footer())


class IngestDocument(BaseModel):
    """What happened to one document."""

    document_id: str
    path: str | None = Field(default=None, description="Path under the files root, for files.")
    status: Status
    chunks: int = 0
    entities: int = 0
    relations: int = 0
    reason: str | None = Field(default=None, description="Why it failed.")
    plan: dict[str, Any] | None = Field(default=None, description="Chunker, extractor, resolver and the reason.")

    def line(self) -> str:
        name = self.path or self.document_id
        if self.status == "failed":
            return f"{name}: failed: {self.reason or 'unknown reason'}"
        text = f"{name}: {self.status}"
        if self.status != "unchanged":
            text += f", {self.chunks} chunks, {self.entities} entities, {self.relations} relations"
        if self.plan:
            strategies = "/".join(str(self.plan.get(k)) for k in ("chunker", "extractor", "resolver")
                                  if self.plan.get(k))
            text += f" [{strategies}; {self.plan.get('reason', '')}]"
        return text


class PrunedInfo(BaseModel):
    """What extraction found that the ontology does not declare."""

    entity_types: dict[str, int] = Field(default_factory=dict, description="Dropped entities per undeclared type.")
    relation_types: dict[str, int] = Field(default_factory=dict,
                                           description="Dropped relations per undeclared type.")
    patterns: dict[str, int] = Field(default_factory=dict,
                                     description="Dropped relations per undeclared 'Src-REL->Dst' pattern.")
    pattern_examples: dict[str, str] = Field(default_factory=dict, description="One dropped fact per pattern.")
    unknown_endpoints: int = Field(default=0, description="Relations dropped because an end is an Unknown entity.")
    unknown_entities: dict[str, int] = Field(default_factory=dict,
                                             description="Entities stored as Unknown, per extractor type.")
    set_ontology_call: dict[str, Any] | None = Field(
        default=None, description="The set_ontology arguments that would keep the dropped types and patterns.")

    def lines(self) -> list[str]:
        """One line per kind of loss."""
        out = [f"{k}: {v} entities dropped" for k, v in self.entity_types.items()]
        out += [f"{k}: {v} relations dropped" for k, v in self.relation_types.items()]
        out += [f"{k}: {v} relations dropped (pattern), e.g. {shorten(self.pattern_examples.get(k, ''), 160)}"
                for k, v in self.patterns.items()]
        if self.unknown_endpoints:
            out.append(f"{self.unknown_endpoints} relations dropped: an end is an Unknown entity")
        out += [f"{k}: {v} entities stored as Unknown" for k, v in self.unknown_entities.items()]
        return out


class IngestResult(ToolResult):
    """Per-document statuses, what the ontology pruned, and what to do next."""

    documents: list[IngestDocument]
    counts: dict[str, int] = Field(default_factory=dict, description="Documents per status.")
    pruned: PrunedInfo = Field(default_factory=PrunedInfo)
    llm_calls: int = Field(default=0, description="Chat-model requests this ingest made.")
    finalized: bool | None = Field(
        default=None, description="finalize_policy on_write: whether the graph was finalized after this ingest.")

    def to_llm_text(self, max_chars: int = 8000) -> str:
        counts = ", ".join(f"{v} {k}" for k, v in self.counts.items()) or "nothing"
        head = f"ingest: {counts}" + (f"; {self.llm_calls} LLM calls" if self.llm_calls else "")
        if self.finalized is not None:
            head += "; finalized" if self.finalized else "; NOT finalized"
        # Failures first: a budget cut must never hide what needs fixing.
        ordered = sorted(self.documents, key=lambda d: d.status != "failed")
        sections = [Section("Documents", [d.line() for d in ordered], weight=2),
                    Section("Pruned", self.pruned.lines())]
        return render_sections(head, sections, max_chars, self._footer())


class FinalizeResult(ToolResult):
    """What ``finalize`` embedded, and the graph's size afterwards."""

    ran: bool = Field(default=True, description="False when there was nothing to do (finalize_policy on_write).")
    embedded_chunks: int = 0
    embedded_entities: int = 0
    embedded_facts: int = 0
    documents: int = 0
    chunks: int = 0
    entities: int = 0
    relations: int = 0
    extra: dict[str, Any] = Field(default_factory=dict, description="Other work finalize reported (e.g. merges).")

    def to_llm_text(self, max_chars: int = 8000) -> str:
        if not self.ran:
            return shorten(f"finalize: nothing to do. {self._footer()}", max_chars)
        extra = "".join(f", {k} {v}" for k, v in self.extra.items())
        text = (f"finalize: embedded {self.embedded_chunks} chunks, {self.embedded_entities} entities, "
                f"{self.embedded_facts} facts{extra}. The graph holds {self.documents} documents, {self.chunks} "
                f"chunks, {self.entities} entities and {self.relations} relations.")
        return shorten(f"{text} {self._footer()}".strip(), max_chars)


class AddFactsResult(ToolResult):
    """What ``add_facts`` stored."""

    document_id: str
    status: Literal["ingested", "updated", "unchanged"]
    chunks: int = Field(description="Passages the source text was stored as.")
    entities: int
    relations: int
    finalized: bool | None = Field(
        default=None, description="finalize_policy on_write: whether the graph was finalized after the write.")

    def to_llm_text(self, max_chars: int = 8000) -> str:
        text = (f"add_facts: {self.document_id} {self.status}: {self.entities} entities, {self.relations} "
                f"relations, source text stored as {self.chunks} passages.")
        if self.finalized is not None:
            text += " Finalized." if self.finalized else " NOT finalized."
        return shorten(f"{text} {self._footer()}".strip(), max_chars)
