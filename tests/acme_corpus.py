"""The small corpus the adapter and agent tests share: Alice Smith works at Acme Corp (and, for the agent tests, a
second document in which Bob Jones founded Globex)."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

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
GLOBEX = "Bob Jones founded Globex in Springfield in 2005."


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


async def write_acme_and_globex(kg: KnowledgeGraph) -> None:
    """Two documents (Acme, Globex), each with two entities and the relation of its first sentence, written
    directly (no extractor) and finalized."""
    await kg.ensure_schema()
    for doc, text, (a, a_label), (b, b_label), rel in (
        ("acme", TEXT, ("Alice Smith", "Person"), ("Acme Corp", "Company"), "WORKS_AT"),
        ("globex", GLOBEX, ("Bob Jones", "Person"), ("Globex", "Company"), "FOUNDED"),
    ):
        chunk = ChunkRecord(id=f"{doc}#0", index=0, text=text)
        ea, eb = entity_id(a_label, a), entity_id(b_label, b)
        await write_document(kg.store, DocumentBatch(
            DocumentRecord(id=doc, title=doc.title(), content_hash=doc), [chunk],
            [EntityRecord(ea, a_label, a, "", [chunk.id]), EntityRecord(eb, b_label, b, "", [chunk.id])],
            [RelationRecord(ea, eb, rel, text.split(". ")[0].rstrip(".") + ".", chunk.id)],
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


@asynccontextmanager
async def acme_and_globex_graph(data_dir: Path, embedder: Any, prefix: str) -> AsyncIterator[KnowledgeGraph]:
    """A graph of its own holding the two documents of :func:`write_acme_and_globex`, deleted afterwards (the
    agent tests' module fixtures)."""
    kg = await KnowledgeGraph.open(graph=f"{prefix}_{uuid.uuid4().hex[:10]}", data_dir=str(data_dir),
                                   embedder=embedder)
    await write_acme_and_globex(kg)
    try:
        yield kg
    finally:
        await kg.store.delete()
        await kg.close()
