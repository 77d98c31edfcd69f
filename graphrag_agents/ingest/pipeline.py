"""The ingestion pipeline: text -> chunks -> batch -> one atomic write, skipping unchanged documents."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from ..store.graph import GraphStore
from .chunkers import get_chunker
from .records import ChunkRecord, DocumentBatch, DocumentRecord, chunk_id
from .writer import replace_document, write_document

__all__ = ["DocumentStatus", "IngestStatus", "ingest_text"]

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
    """Why it failed, when it did."""
    path: str | None = None
    plan: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def content_hash(text: str) -> str:
    """sha256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def _stored_hash(store: GraphStore, document_id: str) -> str | None:
    rows = await store.ro_query("MATCH (d:Document {id: $id}) RETURN d.content_hash", {"id": document_id})
    return str(rows[0][0]) if rows else None


async def ingest_text(store: GraphStore, text: str, document_id: str, *, title: str | None = None,
                      chunker: str = "sentence", reextract: bool = False) -> DocumentStatus:
    """Chunk ``text`` and write it as document ``document_id``; unchanged text is skipped."""
    digest = content_hash(text)
    stored = await _stored_hash(store, document_id)
    if stored == digest and not reextract:
        return DocumentStatus(document_id, "unchanged")
    pieces = get_chunker(chunker).chunk(text)
    batch = DocumentBatch(
        document=DocumentRecord(id=document_id, title=title or document_id, content_hash=digest, loader="text"),
        chunks=[ChunkRecord(id=chunk_id(document_id, p.index), index=p.index, text=p.text) for p in pieces],
    )
    if stored is None:
        await write_document(store, batch)
        status: IngestStatus = "ingested"
    else:
        await replace_document(store, batch)
        status = "reextracted" if stored == digest else "updated"
    return DocumentStatus(document_id, status, chunks=len(batch.chunks))
