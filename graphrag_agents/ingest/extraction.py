"""What extractors return, and how it becomes records: prune against the ontology, then exact resolution.

Extractors report entities and relations as found (names, the types they gave). :func:`to_records` keeps what
the ontology declares, stores untyped entities as ``Unknown``, counts everything else in a
:class:`PrunedReport`, and merges entities of the same normalised name and type into one record (exact
resolution: descriptions joined, chunk ids collected).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .ontology import Ontology
from .records import ChunkRecord, EntityRecord, MetaValue, RelationRecord, entity_id, name_key
from .report import PrunedReport
from .writer import UNKNOWN_LABEL

__all__ = ["Extraction", "Extractor", "RawEntity", "RawRelation", "match_label", "to_records"]

_MAX_NAME_CHARS = 200
_MAX_DESCRIPTION_CHARS = 600


@dataclass
class RawEntity:
    """An entity as the extractor found it."""

    name: str
    type: str
    """The type it was given (an ontology label, ``Unknown``, or anything a model wrote)."""
    chunk_index: int
    description: str = ""
    source_type: str = ""
    """The extractor's own type when it differs (spaCy's ``ORG``, say); reported for Unknown entities."""
    properties: dict[str, MetaValue] = field(default_factory=dict)


@dataclass
class RawRelation:
    """A relation as the extractor found it; ends are entity names, typed when the extractor knows them."""

    source: str
    target: str
    type: str
    fact: str
    chunk_index: int
    source_type: str | None = None
    target_type: str | None = None
    grouped: bool = False
    """A co-mention (see :attr:`~.records.RelationRecord.grouped`): stored once per fact, with all its entities."""


@dataclass
class Extraction:
    """Everything extracted from one document's chunks."""

    entities: list[RawEntity] = field(default_factory=list)
    relations: list[RawRelation] = field(default_factory=list)
    llm_calls: int = 0
    malformed_chunks: list[int] = field(default_factory=list)
    """Chunks whose model output stayed malformed after the retry (nothing extracted from them)."""


class Extractor(Protocol):
    """Extracts entities and relations from the chunks of several documents at once."""

    name: str

    async def extract(self, documents: Sequence[Sequence[str]], ontology: Ontology) -> list[Extraction | Exception]:
        """One result per document, in order: an :class:`Extraction`, or the error that failed it."""
        ...


def _fold(label: str) -> str:
    return re.sub(r"[\s\-_]+", "_", label.strip()).casefold()


def match_label(value: str, labels: Sequence[str]) -> str | None:
    """The declared label ``value`` names, ignoring case and space/``-``/``_`` differences; None if none."""
    if value in labels:
        return value
    folded = _fold(value)
    return next((label for label in labels if _fold(label) == folded), None)


def _clean_name(name: str) -> str:
    return " ".join(str(name).split())[:_MAX_NAME_CHARS]


def to_records(document_id: str, chunks: Sequence[ChunkRecord], extraction: Extraction, ontology: Ontology,
               pruned: PrunedReport) -> tuple[list[EntityRecord], list[RelationRecord]]:
    """Prune ``extraction`` against ``ontology`` (counting into ``pruned``) and resolve exact duplicates."""
    del document_id
    typed = _Typed()
    records = _entity_records(chunks, extraction, ontology, pruned, typed)
    relation_labels = [r.label for r in ontology.relations]
    relations: dict[tuple[str, str, str, str], RelationRecord] = {}
    for rel in extraction.relations:
        if 0 <= rel.chunk_index < len(chunks):
            record = _relation_record(rel, chunks[rel.chunk_index].id, typed, records, ontology, relation_labels,
                                      pruned)
            if record is not None:
                relations.setdefault((record.source_id, record.target_id, record.type, record.fact), record)
    return list(records.values()), list(relations.values())


@dataclass
class _Typed:
    """Per name key, the label its entity got (declared or Unknown) or ``"!"`` + its dropped type: per chunk first,
    then per document."""

    by_chunk: dict[tuple[int, str], str] = field(default_factory=dict)
    by_doc: dict[str, str] = field(default_factory=dict)

    def of(self, chunk_index: int, key: str) -> str | None:
        return self.by_chunk.get((chunk_index, key)) or self.by_doc.get(key)


def _entity_records(chunks: Sequence[ChunkRecord], extraction: Extraction, ontology: Ontology,
                    pruned: PrunedReport, typed: _Typed) -> dict[str, EntityRecord]:
    """The entities the ontology keeps, merged by id; what each name was typed as lands in ``typed``."""
    entity_labels = [e.label for e in ontology.entities]
    records: dict[str, EntityRecord] = {}
    for raw in extraction.entities:
        name = _clean_name(raw.name)
        key = name_key(name)
        if not key or not any(ch.isalnum() for ch in key) or not 0 <= raw.chunk_index < len(chunks):
            continue
        given = (raw.type or "").strip()
        label = UNKNOWN_LABEL if not given or given.casefold() == "unknown" else match_label(given, entity_labels)
        if label is None:
            pruned.drop_entity(given)
            typed.by_chunk.setdefault((raw.chunk_index, key), "!" + given)
            typed.by_doc.setdefault(key, "!" + given)
            continue
        if label == UNKNOWN_LABEL:
            pruned.unknown_entity(raw.source_type or given or UNKNOWN_LABEL)
        typed.by_chunk[(raw.chunk_index, key)] = label
        typed.by_doc.setdefault(key, label)
        _add_entity(records, label, name, raw, chunks[raw.chunk_index].id, ontology)
    return records


def _relation_record(rel: RawRelation, chunk: str, typed: _Typed, records: dict[str, EntityRecord],
                     ontology: Ontology, relation_labels: Sequence[str],
                     pruned: PrunedReport) -> RelationRecord | None:
    """The relation as stored, or None when the ontology prunes it (counted into ``pruned``) or an end is missing."""
    ends = []
    for name, given in ((rel.source, rel.source_type), (rel.target, rel.target_type)):
        key = name_key(_clean_name(name))
        ends.append((key, given if given is not None else typed.of(rel.chunk_index, key)))
    (src_key, src), (dst_key, dst) = ends
    fact = " ".join(rel.fact.split()) or f"{rel.source} {rel.type} {rel.target}"
    shown_src = None if src in (None, UNKNOWN_LABEL) else src.lstrip("!")
    shown_dst = None if dst in (None, UNKNOWN_LABEL) else dst.lstrip("!")
    rel_label = match_label(rel.type.strip(), relation_labels) if rel.type.strip() else None
    if rel_label is None:
        pruned.drop_relation_type(rel.type.strip() or "(none)", shown_src, shown_dst)
        return None
    if src in (None, UNKNOWN_LABEL) or dst in (None, UNKNOWN_LABEL):
        pruned.unknown_endpoints += 1
        return None
    assert src is not None and dst is not None and shown_src is not None and shown_dst is not None
    if src.startswith("!") or dst.startswith("!") or not ontology.allows(src, rel_label, dst):
        pruned.drop_pattern(shown_src, rel_label, shown_dst, fact)
        return None
    source_id, target_id = entity_id(src, src_key), entity_id(dst, dst_key)
    if source_id == target_id or source_id not in records or target_id not in records:
        return None
    return RelationRecord(source_id, target_id, rel_label, fact, chunk, rel.grouped)


def _add_entity(records: dict[str, EntityRecord], label: str, name: str, raw: RawEntity, chunk: str,
                ontology: Ontology) -> None:
    eid = entity_id(label, name)
    description = " ".join(raw.description.split())
    record = records.get(eid)
    if record is None:
        record = records[eid] = EntityRecord(id=eid, label=label, name=name)
    if chunk not in record.chunk_ids:
        record.chunk_ids.append(chunk)
    if description and description not in record.description and len(record.description) < _MAX_DESCRIPTION_CHARS:
        record.description = f"{record.description} {description}".strip()
    declared = ontology.entity(label)
    if declared is not None and raw.properties:
        for prop, value in raw.properties.items():
            match = match_label(prop, declared.properties)
            if match is not None and isinstance(value, (str, int, float, bool)):
                record.properties.setdefault(match, value)
