"""What an ingest reports: per-document statuses, what the ontology pruned, and the call that would keep it.

Everything here is a plain dataclass of JSON values (``to_dict()``), so tool results can carry it as is.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..errors import ToolError
from .ontology import validate_label

__all__ = ["DocumentStatus", "IngestReport", "IngestStatus", "PrunedReport", "pattern_key"]

IngestStatus = Literal["ingested", "reextracted", "updated", "unchanged", "failed"]


@dataclass
class DocumentStatus:
    """What happened to one document."""

    document_id: str
    status: IngestStatus
    chunks: int = 0
    entities: int = 0
    relations: int = 0
    reason: str | None = None
    """Why it failed, when it did (the fix is named where there is one)."""
    path: str | None = None
    plan: dict[str, Any] | None = None
    """The plan it was ingested with (chunker, extractor actually used, resolver, ...)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Details: ``llm_calls``, ``malformed_chunks`` (model output unusable after the retry), ``merged``."""
    title: str | None = None
    loader: str | None = None


def pattern_key(source: str, relation: str, target: str) -> str:
    """The readable key of a relation pattern, e.g. ``"Person-WORKS_AT->Company"``."""
    return f"{source}-{relation}->{target}"


@dataclass
class PrunedReport:
    """What extraction found but the ontology does not declare (so it was not stored, or stored as Unknown)."""

    entity_types: dict[str, int] = field(default_factory=dict)
    """Dropped entities per undeclared type."""
    relation_types: dict[str, int] = field(default_factory=dict)
    """Dropped relations per undeclared relation type."""
    patterns: dict[str, int] = field(default_factory=dict)
    """Dropped relations per undeclared (source, relation, target) pattern, keyed ``"Src-REL->Dst"``; a
    relation whose type is declared but not for this pair of entity types."""
    pattern_examples: dict[str, str] = field(default_factory=dict)
    """One dropped fact per pattern key."""
    unknown_endpoints: int = 0
    """Relations dropped because an end is an ``Unknown`` entity (a pattern cannot name ``Unknown``)."""
    unknown_entities: dict[str, int] = field(default_factory=dict)
    """Entities stored as ``Unknown``, per the type the extractor gave them (e.g. spaCy's ``NORP``)."""
    set_ontology_call: dict[str, Any] | None = None
    """The exact ``set_ontology`` arguments that would keep the dropped types and patterns."""

    @property
    def empty(self) -> bool:
        """True when nothing was pruned."""
        return not (self.entity_types or self.relation_types or self.patterns or self.unknown_endpoints
                    or self.unknown_entities)

    def drop_entity(self, label: str) -> None:
        """Count an entity of an undeclared type."""
        self.entity_types[label] = self.entity_types.get(label, 0) + 1
        if _declarable(label):
            self.drop_entity_call(label)

    def drop_relation_type(self, relation: str, source: str | None, target: str | None) -> None:
        """Count a relation of an undeclared type; its (source, target) joins the call when both are typed."""
        self.relation_types[relation] = self.relation_types.get(relation, 0) + 1
        if _declarable(relation):
            self._add_call_pattern(relation, source, target)

    def drop_pattern(self, source: str, relation: str, target: str, fact: str) -> None:
        """Count a relation whose type is declared, or droppable, but not for this (source, target) pair."""
        key = pattern_key(source, relation, target)
        self.patterns[key] = self.patterns.get(key, 0) + 1
        self.pattern_examples.setdefault(key, fact[:300])
        self._add_call_pattern(relation, source, target)

    def unknown_entity(self, source_type: str) -> None:
        """Count an entity stored as ``Unknown``."""
        self.unknown_entities[source_type] = self.unknown_entities.get(source_type, 0) + 1

    def merge(self, other: PrunedReport) -> None:
        """Add ``other``'s counts to this report."""
        for mine, theirs in ((self.entity_types, other.entity_types), (self.relation_types, other.relation_types),
                             (self.patterns, other.patterns), (self.unknown_entities, other.unknown_entities)):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count
        for key, fact in other.pattern_examples.items():
            self.pattern_examples.setdefault(key, fact)
        self.unknown_endpoints += other.unknown_endpoints
        if other.set_ontology_call:
            for entity in other.set_ontology_call["entities"]:
                if _declarable(entity["label"]):
                    self.drop_entity_call(entity["label"])
            for rel in other.set_ontology_call["relations"]:
                for source, target in rel["patterns"]:
                    self._add_call_pattern(rel["label"], source, target)

    def drop_entity_call(self, label: str) -> None:
        """Add an entity type to the suggested call without counting it."""
        entities = self._call()["entities"]
        if not any(e["label"] == label for e in entities):
            entities.append({"label": label})

    def _call(self) -> dict[str, Any]:
        if self.set_ontology_call is None:
            self.set_ontology_call = {"entities": [], "relations": []}
        return self.set_ontology_call

    def _add_call_pattern(self, relation: str, source: str | None, target: str | None) -> None:
        if not source or not target:
            return
        relations = self._call()["relations"]
        entry = next((r for r in relations if r["label"] == relation), None)
        if entry is None:
            entry = {"label": relation, "patterns": []}
            relations.append(entry)
        if [source, target] not in entry["patterns"]:
            entry["patterns"].append([source, target])

    def hint(self) -> str | None:
        """One sentence saying what was dropped and the exact call that keeps it; None when nothing was."""
        if self.empty:
            return None
        parts = []
        if self.entity_types:
            parts.append(f"{sum(self.entity_types.values())} entities of undeclared types "
                         f"({', '.join(sorted(self.entity_types))})")
        if self.relation_types:
            parts.append(f"{sum(self.relation_types.values())} relations of undeclared types "
                         f"({', '.join(sorted(self.relation_types))})")
        if self.patterns:
            parts.append(f"{sum(self.patterns.values())} relations only for an undeclared pattern "
                         f"({len(self.patterns)} pairs, one example each in pruned.pattern_examples)")
        if self.unknown_endpoints:
            parts.append(f"{self.unknown_endpoints} relations with an Unknown end (declare the missing entity "
                         "type and add it to the relation's patterns)")
        text = "Dropped " + "; ".join(parts) + "." if parts else ""
        if self.unknown_entities:
            text += (f" {sum(self.unknown_entities.values())} entities were stored as Unknown "
                     f"({', '.join(sorted(self.unknown_entities))}).")
        call = self.set_ontology_call
        if call and (call["entities"] or call["relations"]):
            text += (" To keep them, call set_ontology(" + json.dumps(call, ensure_ascii=False)[1:-1]
                     + ") with only the pairs the relation's meaning fits, then ingest the affected documents "
                     "again with reextract=true.")
        return text.strip()


def _declarable(label: str) -> bool:
    try:
        validate_label(label)
    except ToolError:
        return False
    return True


@dataclass
class IngestReport:
    """The result of one ingest call."""

    documents: list[DocumentStatus] = field(default_factory=list)
    pruned: PrunedReport = field(default_factory=PrunedReport)
    hint: str | None = None
    """What to do next: failures to fix, or the ``set_ontology`` call that keeps what was pruned."""
    llm_calls: int = 0
    """Chat-model requests this ingest made (extraction, retries of malformed output, resolution checks)."""
    seconds: float = 0.0
    llm_seconds: float = 0.0
    """Time spent waiting for the chat model (part of ``seconds``)."""

    def counts(self) -> dict[str, int]:
        """Documents per status."""
        out: dict[str, int] = {}
        for doc in self.documents:
            out[doc.status] = out.get(doc.status, 0) + 1
        return out

    @property
    def status(self) -> IngestStatus:
        """The status of the only (or first) document: handy for single-text ingests."""
        return self.documents[0].status if self.documents else "unchanged"

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON values."""
        return asdict(self)

    def build_hint(self) -> None:
        """Set ``hint`` from the failures and the pruned report."""
        parts = []
        failed = [d for d in self.documents if d.status == "failed"]
        if failed:
            first = failed[0]
            parts.append(f"{len(failed)} document(s) failed, e.g. {first.document_id}: {first.reason}")
        pruned = self.pruned.hint()
        if pruned:
            parts.append(pruned)
        self.hint = " ".join(parts) or None
