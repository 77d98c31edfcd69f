"""What ingestion writes: plain records for one document, built in memory before anything touches the graph."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .._keys import name_key

__all__ = [
    "ChunkRecord",
    "DocumentBatch",
    "DocumentRecord",
    "EntityRecord",
    "RelationRecord",
    "chunk_id",
    "content_hash",
    "derived_id",
    "entity_id",
    "name_key",
]

MetaValue = str | int | float | bool


def entity_id(label: str, name: str) -> str:
    """Stable entity id: the ontology label and the normalised name (same name and type = one entity)."""
    return f"{label}:{name_key(name)}"


def chunk_id(document_id: str, index: int) -> str:
    """Stable chunk id within its document."""
    return f"{document_id}#{index}"


def content_hash(text: str) -> str:
    """sha256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def derived_id(prefix: str, text: str) -> str:
    """A default document id for a text: ``prefix:`` and the start of the text's sha256 (``text:1f2e...``)."""
    return f"{prefix}:" + content_hash(text)[:16]


@dataclass
class DocumentRecord:
    """A document node's properties."""

    id: str
    title: str
    content_hash: str
    loader: str | None = None
    """The file loader (text, markdown, rst, pdf); None for text ingested as such (not from a file)."""
    path: str | None = None
    metadata: dict[str, MetaValue] = field(default_factory=dict)


@dataclass
class ChunkRecord:
    """One chunk of a document; ``heading`` is the heading path joined with ' > ' (structural chunker)."""

    id: str
    index: int
    text: str
    heading: str = ""


@dataclass
class EntityRecord:
    """An entity mentioned in the document, already resolved to its id."""

    id: str
    label: str
    name: str
    description: str = ""
    chunk_ids: list[str] = field(default_factory=list)
    properties: dict[str, MetaValue] = field(default_factory=dict)
    """Values of the properties its ontology type declares."""


@dataclass
class RelationRecord:
    """A relation between two entities of the document, with the fact sentence and the chunk it came from."""

    source_id: str
    target_id: str
    type: str
    fact: str
    chunk_id: str
    grouped: bool = False
    """A co-mention relation: every relation of the same type and fact is stored as one fact node (``__Fact__``)
    naming all their entities, embedded once (the ``ner`` extractor's sentences); typed relations keep their own."""


@dataclass
class DocumentBatch:
    """Everything one document adds to the graph; written in a single atomic query."""

    document: DocumentRecord
    chunks: list[ChunkRecord]
    entities: list[EntityRecord] = field(default_factory=list)
    relations: list[RelationRecord] = field(default_factory=list)
