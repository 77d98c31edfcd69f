"""The small corpus the adapter tests share: one document in which Alice Smith works at Acme Corp."""

from __future__ import annotations

import re

from graphrag_agents.ingest.records import (
    ChunkRecord,
    DocumentBatch,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    entity_id,
)
from graphrag_agents.ingest.writer import write_document
from graphrag_agents.kg import KnowledgeGraph

QUESTION = "Where does Alice Smith work?"
TEXT = "Alice Smith works at Acme Corp in Berlin. Acme Corp was founded in 1999."


async def write_acme(kg: KnowledgeGraph) -> None:
    """One document, two entities and a relation, written directly (no extractor)."""
    await kg.ensure_schema()
    chunk = ChunkRecord(id="acme#0", index=0, text=TEXT)
    alice, acme = entity_id("Person", "Alice Smith"), entity_id("Company", "Acme Corp")
    await write_document(kg.store, DocumentBatch(
        DocumentRecord(id="acme", title="Acme", content_hash="h"), [chunk],
        [EntityRecord(alice, "Person", "Alice Smith", "An engineer", [chunk.id]),
         EntityRecord(acme, "Company", "Acme Corp", "A company in Berlin", [chunk.id])],
        [RelationRecord(alice, acme, "WORKS_AT", "Alice Smith works at Acme Corp in Berlin.", chunk.id)],
    ))
    await kg.finalize()


def cite(text: str, claim: str = "works at Acme Corp") -> int:
    """The evidence number of the first item in a tool's text that says ``claim``."""
    number = None
    for line in text.splitlines():
        marker = re.match(r"\[(\d+)\]", line)
        number = int(marker.group(1)) if marker else number
        if claim in line and number is not None:
            return number
    raise AssertionError(f"no evidence says {claim!r}: {text}")
