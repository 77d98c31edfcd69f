"""Which entity cards and facts ``finalize`` embeds: by default only entities mentioned in two or more chunks.

The others are still found by name (``exact_names``, the full-text half of ``fuzzy_names``); ``entity_vectors="all"``
restores the previous behaviour and is remembered; a graph built with every vector keeps serving every path.
"""

from __future__ import annotations

import numpy as np
import pytest

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
from graphrag_agents.retrieval.names import exact_names, fuzzy_names

ZEPHYRINE = entity_id("Person", "Zephyrine Moreau")
ACME = entity_id("Organization", "Acme Corp")
ORLA = entity_id("Person", "Orla Quist")
ONE = "Zephyrine Moreau designed the glass bridge for Acme Corp."
TWO = "Acme Corp opened its second factory near Lyon."
THREE = "Orla Quist audited the accounts of Acme Corp."


async def _write(kg: KnowledgeGraph, doc: str, text: str, *people: tuple[str, str]) -> None:
    chunk = ChunkRecord(id=f"{doc}#0", index=0, text=text)
    entities = [EntityRecord(ACME, "Organization", "Acme Corp", "", [chunk.id])]
    entities += [EntityRecord(eid, "Person", name, "", [chunk.id]) for eid, name in people]
    relations = [RelationRecord(eid, ACME, "WORKS_FOR", text, chunk.id) for eid, _ in people]
    await write_document(kg.store, DocumentBatch(DocumentRecord(id=doc, title=doc, content_hash=doc), [chunk],
                                                 entities, relations))


async def _embedded(kg: KnowledgeGraph) -> dict[str, bool]:
    rows = await kg.store.ro_query("MATCH (e:__Entity__) RETURN e.id, e.embedding IS NOT NULL")
    return {str(eid): bool(has) for eid, has in rows}


async def _build(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    await _write(kg, "bridge", ONE, (ZEPHYRINE, "Zephyrine Moreau"))
    await _write(kg, "lyon", TWO)


async def test_an_entity_in_one_chunk_gets_no_vector_and_is_still_found_by_name(kg: KnowledgeGraph) -> None:
    await _build(kg)
    report = await kg.finalize(progress=False)
    assert await _embedded(kg) == {ACME: True, ZEPHYRINE: False}  # Acme Corp is in two chunks
    assert report.embedded.entities == 1 and report.status.unembedded == 0  # nothing waits: the rule skips it

    question = "Who designed the glass bridge, Zephyrine Moreau?"
    vector = kg.embedder.embed([question])[0].tolist()
    assert [h.entity_id for h in await exact_names(kg.store, question, 5)] == [ZEPHYRINE]
    fuzzy = await fuzzy_names(kg.store, "Which Zephyrine designed a bridge?", vector, 5)
    assert fuzzy and fuzzy[0].entity_id == ZEPHYRINE  # by its name, through the full-text index
    hits = await kg.retrieve(question, top_k=5)
    assert ZEPHYRINE in {e.entity_id for e in hits.entities}
    assert hits.passages[0].document_id == "bridge"


async def test_entity_vectors_all_restores_every_vector_and_is_remembered(kg: KnowledgeGraph) -> None:
    await _build(kg)
    report = await kg.finalize(progress=False, entity_vectors="all")
    assert await _embedded(kg) == {ACME: True, ZEPHYRINE: True} and report.embedded.entities == 2
    assert (await kg.vector_rules()).entities == "all"

    await _write(kg, "audit", THREE, (ORLA, "Orla Quist"))
    assert (await kg.status()).unembedded == 3  # the chunk, its fact and Orla Quist wait under the rule "all"
    again = await kg.finalize(progress=False)  # no argument: the graph's last rule
    assert again.embedded.entities == 1 and (await _embedded(kg))[ORLA]


async def test_an_entity_mentioned_again_is_embedded_by_the_next_finalize(kg: KnowledgeGraph) -> None:
    await _build(kg)
    await kg.finalize(progress=False)
    await _write(kg, "bridge-2", "Zephyrine Moreau later worked for Acme Corp in Lyon.",
                 (ZEPHYRINE, "Zephyrine Moreau"))
    assert (await kg.status()).unembedded == 3  # the chunk, its fact, and Zephyrine Moreau now in two chunks
    report = await kg.finalize(progress=False)
    assert report.embedded.entities == 1 and (await _embedded(kg))[ZEPHYRINE]


async def test_a_graph_built_with_every_vector_still_serves_every_path(kg: KnowledgeGraph) -> None:
    await _build(kg)
    await kg.finalize(progress=False, entity_vectors="all")
    # What the previous version left: every vector, and no rule in the metadata node.
    await kg.store.query("MATCH (m:__Meta__ {key: 'graph'}) REMOVE m.entity_vectors, m.fact_vectors")
    assert (await kg.vector_rules()).entities == "shared"
    question = "Who designed the glass bridge for Acme Corp?"
    before = await kg.retrieve(question, top_k=5)
    assert before.passages and before.entities and before.relations
    assert {h.path for h in before.entities} >= {"exact_names", "fuzzy_names"}
    assert before.facts and before.facts[0].fact == ONE

    report = await kg.finalize(progress=False)  # the new default keeps the vectors it finds
    assert report.embedded.entities == 0 and report.status.unembedded == 0
    assert await _embedded(kg) == {ACME: True, ZEPHYRINE: True}
    vector = kg.embedder.embed([question])[0].tolist()
    fuzzy = {h.entity_id: h.score for h in await fuzzy_names(kg.store, "glass bridge designer", vector, 5)}
    assert ZEPHYRINE in fuzzy  # found by its vector alone: no word of its name is in the question
    after = await kg.retrieve(question, top_k=5)
    assert [p.chunk_id for p in after.passages] == [p.chunk_id for p in before.passages]


async def test_without_fact_vectors_facts_and_links_read_their_chunks_vectors(kg: KnowledgeGraph) -> None:
    await _build(kg)
    await _write(kg, "audit", THREE, (ORLA, "Orla Quist"))
    report = await kg.finalize(progress=False, fact_vectors="none")
    assert report.embedded.facts == 0 and report.status.unembedded == 0
    question = "Who designed the glass bridge?"
    vector = kg.embedder.embed([question])[0]
    chunks = dict(zip(["bridge", "audit"], kg.embedder.embed(["bridge\n" + ONE, "audit\n" + THREE]), strict=True))
    similarity = {doc: float(vector @ v / (np.linalg.norm(vector) * np.linalg.norm(v))) for doc, v in chunks.items()}

    hits = await kg.retrieve(question, paths=["facts"], top_k=5)  # the facts of the nearest chunks
    assert [r.fact for r in hits.facts] == [ONE, THREE]
    assert hits.facts[0].score == pytest.approx(similarity["bridge"], abs=1e-3)
    hits = await kg.retrieve("Acme Corp: who designed the glass bridge?", paths=["links"], top_k=5)
    assert [r.fact for r in hits.relations] == [ONE, THREE]  # ordered by their chunks' vectors
    assert all(r.score > 0 for r in hits.relations)

    assert (await kg.finalize(progress=False, fact_vectors="all")).embedded.facts == 2  # the option restores them
    hits = await kg.retrieve(question, paths=["facts"], top_k=1)
    assert [r.fact for r in hits.facts] == [ONE]
    assert hits.facts[0].score == pytest.approx(
        float(vector @ kg.embedder.embed([ONE])[0]) / float(np.linalg.norm(vector)), abs=1e-2)


async def test_a_co_mention_fact_without_a_vector_is_found_through_its_chunk(
        kg: KnowledgeGraph) -> None:
    """The ner extractor's facts are sentences of their chunks: under fact_vectors="typed" only typed relations'
    facts are embedded, and the facts path finds the co-mention ones among the facts of the nearest chunks."""
    await kg.ensure_schema()
    for doc, text, eid, name in (("bridge", ONE, ZEPHYRINE, "Zephyrine Moreau"), ("audit", THREE, ORLA, "Orla Quist")):
        chunk = ChunkRecord(id=f"{doc}#0", index=0, text=text)
        await write_document(kg.store, DocumentBatch(
            DocumentRecord(id=doc, title=doc, content_hash=doc), [chunk],
            [EntityRecord(eid, "Person", name, "", [chunk.id]),
             EntityRecord(ACME, "Organization", "Acme Corp", "", [chunk.id])],
            [RelationRecord(eid, ACME, "RELATED_TO", text, chunk.id, grouped=True)]))
    report = await kg.finalize(progress=False, fact_vectors="typed")
    assert report.embedded.facts == 0 and report.status.unembedded == 0
    (embedded,), = await kg.store.ro_query("MATCH (f:__Fact__) WHERE f.embedding IS NOT NULL RETURN count(f)")
    assert embedded == 0
    hits = await kg.retrieve("Who audited the accounts?", paths=["facts"], top_k=2)
    assert [r.fact for r in hits.facts] == [THREE, ONE] and hits.facts[0].entities
    hits = await kg.retrieve("Acme Corp: who audited the accounts?", paths=["links"], top_k=2)
    assert [r.fact for r in hits.relations][:2] == [THREE, ONE] and all(r.score > 0 for r in hits.relations)

    assert (await kg.finalize(progress=False, fact_vectors="all")).embedded.facts == 2  # the previous behaviour
    hits = await kg.retrieve("Who audited the accounts?", paths=["facts"], top_k=1)
    assert [r.fact for r in hits.facts] == [THREE]


async def test_a_rule_that_does_not_exist_names_the_ones_that_do(kg: KnowledgeGraph) -> None:
    await _build(kg)
    with pytest.raises(ValueError, match="'shared'.*'all' or 'none'"):
        await kg.finalize(progress=False, entity_vectors="some")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'all' \\(the default\\), 'sentences' .*'typed' .* or 'none'"):
        await kg.finalize(progress=False, fact_vectors="lazy")  # type: ignore[arg-type]
