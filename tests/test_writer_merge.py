"""The writer's merge of entities and relations mentioned again: descriptions grow, properties update, chunks
accumulate, and a mention that adds nothing leaves the stored item as it was."""

from __future__ import annotations

from graphrag_agents.ingest.records import (
    ChunkRecord,
    DocumentBatch,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    entity_id,
)
from graphrag_agents.ingest.writer import write_document, write_documents
from graphrag_agents.kg import KnowledgeGraph

ADA = entity_id("Person", "Ada Lovelace")
BABBAGE = entity_id("Person", "Charles Babbage")
FACT = "Ada Lovelace worked with Charles Babbage."


def _batch(doc: str, ada_description: str = "", ada_props: dict[str, str] | None = None) -> DocumentBatch:
    chunk = ChunkRecord(f"{doc}#0", 0, f"{FACT} ({doc})")
    return DocumentBatch(
        DocumentRecord(id=doc, title=doc, content_hash=doc), [chunk],
        [EntityRecord(ADA, "Person", "Ada Lovelace", ada_description, [chunk.id], dict(ada_props or {})),
         EntityRecord(BABBAGE, "Person", "Charles Babbage", "", [chunk.id])],
        [RelationRecord(ADA, BABBAGE, "WORKED_WITH", FACT, chunk.id)],
    )


async def _ada(kg: KnowledgeGraph) -> list[object]:
    rows = await kg.store.ro_query(
        f"MATCH (x:__Entity__ {{id: '{ADA}'}}) RETURN x.description, x.stale, x.era, x.embedding IS NULL")
    return list(rows[0])


async def _chunks_of_fact(kg: KnowledgeGraph) -> list[str]:
    rows = await kg.store.ro_query("MATCH ()-[r:RELATES]->() RETURN r.chunk_ids")
    assert len(rows) == 1, "one relation, however many chunks state it"
    return sorted(rows[0][0])


async def test_mentions_again_merge_into_the_stored_entity_and_relation(kg: KnowledgeGraph) -> None:
    await write_document(kg.store, _batch("a", "Mathematician", {"era": "Victorian"}))
    # every entity card embedded (the default embeds only those of two or more chunks): the vector must survive
    await kg.finalize(progress=False, entity_vectors="all")
    assert await _ada(kg) == ["Mathematician", False, "Victorian", False]

    await write_document(kg.store, _batch("b"))  # adds nothing to Ada: she keeps her vector, not stale
    assert await _ada(kg) == ["Mathematician", False, "Victorian", False]
    assert await _chunks_of_fact(kg) == ["a#0", "b#0"]

    await write_document(kg.store, _batch("c", "Mathematician"))  # a description she already has
    assert await _ada(kg) == ["Mathematician", False, "Victorian", False]

    await write_document(kg.store, _batch("d", "Wrote the first program", {"era": "19th century"}))
    assert await _ada(kg) == ["Mathematician Wrote the first program", True, "19th century", False]
    assert await _chunks_of_fact(kg) == ["a#0", "b#0", "c#0", "d#0"]


async def test_one_write_of_several_documents_merges_their_mentions(kg: KnowledgeGraph) -> None:
    await write_documents(kg.store, [_batch("a", "Mathematician"), _batch("b", "Writer", {"era": "Victorian"}),
                                     _batch("c", "Mathematician")])
    description, _, era, _ = await _ada(kg)
    assert (description, era) == ("Mathematician Writer", "Victorian")
    assert await _chunks_of_fact(kg) == ["a#0", "b#0", "c#0"]
    rows = await kg.store.ro_query("MATCH (x:__Entity__) RETURN count(x)")
    assert rows[0][0] == 2
