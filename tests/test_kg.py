"""KnowledgeGraph end to end on the real embedded FalkorDB: ingest -> finalize -> retrieve, updates, deletes."""

from __future__ import annotations

import pytest

from graphrag_agents.errors import GraphNotFound
from graphrag_agents.ingest.plan import IngestPlan
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

NONE = IngestPlan(extractor="none")
DOCS = {
    "curie": "Marie Curie was a physicist and chemist. She won the Nobel Prize in Physics in 1903.",
    "tower": "The Eiffel Tower is a wrought-iron tower in Paris. It was completed in 1889.",
    "tea": "Green tea is made from Camellia sinensis leaves. It originated in China.",
}


async def test_ingest_finalize_retrieve(kg: KnowledgeGraph) -> None:
    for doc_id, text in DOCS.items():
        result = await kg.ingest(text=text, document_id=doc_id, plan=NONE)
        assert result.status == "ingested" and result.documents[0].chunks >= 1
    before = await kg.status()
    assert before.documents == 3 and before.unembedded == before.chunks
    report = await kg.finalize()
    assert report.embedded.chunks == before.chunks
    assert report.status.unembedded == 0
    hits = await kg.retrieve("When was the Eiffel Tower finished?", paths=["passages"], top_k=2)
    assert hits.passages[0].document_id == "tower"
    assert 0 < hits.passages[0].score <= 1
    assert hits.passages[0].score >= hits.passages[-1].score or "fulltext" in hits.passages[-1].found_by


async def test_unchanged_text_is_skipped_and_changed_text_replaced(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=DOCS["tea"], document_id="tea", plan=NONE)
    assert (await kg.ingest(text=DOCS["tea"], document_id="tea", plan=NONE)).status == "unchanged"
    assert (await kg.ingest(text=DOCS["tea"], document_id="tea", plan=NONE, reextract=True)).status == "reextracted"
    updated = await kg.ingest(text="Black tea is fully oxidised.", document_id="tea", plan=NONE)
    assert updated.status == "updated"
    status = await kg.status()
    assert status.documents == 1 and status.chunks == updated.documents[0].chunks == 1


async def test_document_filter(kg: KnowledgeGraph) -> None:
    for doc_id, text in DOCS.items():
        await kg.ingest(text=text, document_id=doc_id, plan=NONE)
    await kg.finalize()
    hits = await kg.retrieve("Paris tower", paths=["passages"], document_ids=["tea"])
    assert {h.document_id for h in hits.passages} == {"tea"}


async def test_missing_graph_is_an_error_not_an_empty_answer(kg: KnowledgeGraph) -> None:
    with pytest.raises(GraphNotFound, match=f"Graph '{kg.name}' does not exist") as err:
        await kg.status()
    assert "Ingest documents" in err.value.hint
    with pytest.raises(GraphNotFound):
        await kg.retrieve("anything")


async def test_empty_text_fails_without_writing(kg: KnowledgeGraph) -> None:
    result = await kg.ingest(text="   ", document_id="blank")
    assert result.status == "failed" and result.documents[0].reason
    assert not await kg.store.exists() or (await kg.status()).documents == 0


def _batch(doc_id: str, people: list[str], company: str) -> DocumentBatch:
    text = f"{', '.join(people)} work at {company}."
    chunk = ChunkRecord(id=f"{doc_id}#0", index=0, text=text)
    ents = [EntityRecord(id=entity_id("Person", p), label="Person", name=p, chunk_ids=[chunk.id]) for p in people]
    ents.append(EntityRecord(id=entity_id("Company", company), label="Company", name=company, chunk_ids=[chunk.id]))
    rels = [RelationRecord(entity_id("Person", p), entity_id("Company", company), "WORKS_AT", text, chunk.id)
            for p in people]
    return DocumentBatch(DocumentRecord(id=doc_id, title=doc_id, content_hash=doc_id), [chunk], ents, rels)


async def test_delete_keeps_shared_entities_and_removes_orphans(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    await write_document(kg.store, _batch("a", ["Alice", "Bob"], "Acme"))
    await write_document(kg.store, _batch("b", ["Carol"], "Acme"))
    status = await kg.status()
    assert status.entity_labels == {"Person": 3, "Company": 1} and status.relations == 3
    assert await kg.delete_document("a")
    status = await kg.status()
    assert status.entity_labels == {"Person": 1, "Company": 1}
    assert status.relations == 1 and status.documents == 1 and status.chunks == 1
    assert not await kg.delete_document("a")


async def test_hostile_label_cannot_inject_cypher(kg: KnowledgeGraph) -> None:
    from graphrag_agents.errors import ToolError

    await kg.ensure_schema()
    batch = _batch("x", ["Mallory"], "Evil")
    batch.entities[0].label = "Person`) DETACH DELETE (n) //"
    with pytest.raises(ToolError):
        await write_document(kg.store, batch)
    assert not await kg.store.exists() or (await kg.status()).documents == 0


async def test_vector_indexes_are_created_with_the_cheaper_construction_effort(kg: KnowledgeGraph) -> None:
    from graphrag_agents.store.schema import EF_CONSTRUCTION, VECTOR_INDEXES

    await kg.ensure_schema()
    rows = await kg.store.ro_query("CALL db.indexes() YIELD label, types, options RETURN label, types, options")
    vector = {label: dict(options["embedding"]) for label, types, options in rows
              if "VECTOR" in (types.get("embedding") or [])}
    assert set(vector) == {label for label, _ in VECTOR_INDEXES}
    assert EF_CONSTRUCTION == 64 and all(o["efConstruction"] == 64 and o["M"] == 16 for o in vector.values())
    assert all(o["similarityFunction"] == "cosine" and o["dimension"] == kg.embedder.dimension
               for o in vector.values())
