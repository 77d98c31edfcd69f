"""One fact, one vector, one evidence item: co-mention sentences stored once, and graphs written before that."""

from __future__ import annotations

import json

from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

NER = IngestPlan(extractor="ner")
TOWNSHIP = "Van Hook Township is a township in Mountrail County, North Dakota, United States."
FOUR = {"Van Hook Township", "Mountrail County", "North Dakota", "United States"}
TEXT = TOWNSHIP + " The County was named after the Baron. It has 200 people."


async def _count(kg: KnowledgeGraph, query: str) -> int:
    return int((await kg.store.ro_query(query))[0][0])


async def test_a_sentence_naming_four_entities_is_one_fact_one_vector_one_item(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="vanhook", plan=NER)
    report = await kg.finalize(fact_vectors="all")
    # six entity pairs, one stored fact and one vector (today's writer stored six edges with six vectors)
    assert await _count(kg, "MATCH ()-[r:RELATES]->() RETURN count(r)") == 0
    assert await _count(kg, "MATCH (f:__Fact__) RETURN count(f)") == 1
    assert report.embedded.facts == 1
    assert report.status.relation_types == {"RELATED_TO": 6}
    toolkit = GraphRAGToolkit(kg, read_only=True)
    facts = await toolkit.retrieve("Which county is Van Hook Township in?", paths=["facts"])
    assert len(facts.facts) == 1
    item = facts.facts[0]
    assert set(item.entities) == FOUR and item.entities[0] == "Van Hook Township"  # in the sentence's order
    assert item.fact == TOWNSHIP and item.type == "RELATED_TO"
    text = facts.to_llm_text()
    assert text.count(TOWNSHIP) == 1 and "Van Hook Township · Mountrail County" in text
    evidence = toolkit.ledger.get(item.n)
    assert evidence is not None and evidence.kind == "fact" and TOWNSHIP in evidence.content
    check = await toolkit.check_citations(f"Van Hook Township is in Mountrail County [{item.n}].")
    assert check.grounded and not check.unsupported


async def test_a_fact_a_passage_shows_is_not_repeated(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="vanhook", plan=NER)
    await kg.finalize()
    result = await GraphRAGToolkit(kg, read_only=True).retrieve("Which county is Van Hook Township in?")
    assert result.passages and TOWNSHIP in result.passages[0].text
    assert not result.facts and not result.relations  # its only fact is the passage's sentence
    text = result.to_llm_text()
    assert text.count(TOWNSHIP) == 1
    assert text.index("Passages:") < text.index("Entities:")


async def test_generic_single_words_are_not_entities(kg: KnowledgeGraph) -> None:
    # the previous version stored "Baron" (Person) and "University" (Organization) from this text
    text = "It was ruled by a Baron. The Baron lived in Berlin. He moved there with the University."
    await kg.ingest(text=text, document_id="baron", plan=NER)
    names = {n for (n,) in await kg.store.ro_query("MATCH (e:__Entity__) RETURN e.name")}
    assert names == {"Berlin"}


async def test_deleting_a_document_keeps_a_fact_another_document_states(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="one", plan=NER)
    await kg.ingest(text=TOWNSHIP + " Another paragraph.", document_id="two", plan=NER)
    rows = await kg.store.ro_query("MATCH (f:__Fact__) RETURN f.chunk_ids")
    assert len(rows) == 1 and sorted(rows[0][0]) == ["one#0", "two#0"]
    await kg.delete_document("one")
    rows = await kg.store.ro_query("MATCH (e)-[:IN_FACT]->(f:__Fact__) RETURN f.chunk_ids, count(e)")
    assert rows == [[["two#0"], 4]]
    await kg.delete_document("two")
    assert await _count(kg, "MATCH (f:__Fact__) RETURN count(f)") == 0


async def test_reingesting_a_changed_document_replaces_its_facts(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="one", plan=NER)
    await kg.ingest(text="Ada Lovelace met Charles Babbage in London.", document_id="one", plan=NER)
    rows = await kg.store.ro_query("MATCH (f:__Fact__) RETURN f.text")
    assert rows == [["Ada Lovelace met Charles Babbage in London."]]


def _plan(extractor: str) -> str:
    return json.dumps({"extractor": extractor}, sort_keys=True)


async def test_the_ner_extractors_split_types_of_one_name_are_voted_into_one(kg: KnowledgeGraph) -> None:
    from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, EntityRecord, entity_id
    from graphrag_agents.ingest.writer import write_document

    await kg.set_ontology(entities=[{"label": "Person"}, {"label": "Organization"}, {"label": "Location"}])

    async def doc(doc_id: str, extractor: str, entities: list[tuple[str, str]]) -> None:
        chunks = [ChunkRecord(f"{doc_id}#{i}", i, f"{name} text {i}.") for i, (name, _) in enumerate(entities)]
        records = [EntityRecord(entity_id(label, name), label, name, "", [chunks[i].id])
                   for i, (name, label) in enumerate(entities)]
        await write_document(kg.store, DocumentBatch(
            DocumentRecord(doc_id, doc_id, "h", metadata={"plan": _plan(extractor)}), chunks, records))

    await doc("a", "ner", [("Toto", "Organization"), ("Toto", "Organization"), ("Toto", "Person")])
    await doc("b", "ner", [("Toto", "Organization"), ("Baron Smith", "Person")])
    await doc("c", "llm", [("Jordan", "Person"), ("Jordan", "Location")])
    await doc("g", "ner", [("Giotto", "Location"), ("Giotto", "Person")])  # a tie: the ontology's order decides
    report = await kg.finalize()
    assert report.relabelled == 2
    rows = await kg.store.ro_query(
        "MATCH (e:__Entity__) RETURN e.name, e.label, e.aliases, outdegree(e, 'MENTIONED_IN') ORDER BY e.id")
    assert ["Toto", "Organization", ["Person"], 4] in rows
    assert ["Giotto", "Person", ["Location"], 2] in rows
    assert sorted(r[1] for r in rows if r[0] == "Jordan") == ["Location", "Person"]  # llm types are kept apart
    result = await GraphRAGToolkit(kg, read_only=True).retrieve("What is Toto?", paths=["exact_names"])
    card = result.entities[0]
    assert (card.name, card.label, card.aliases, card.mentions) == ("Toto", "Organization", ["Person"], 4)
    assert card.documents == ["a", "b"]
    assert card.line() == f"[{card.n}] Toto (Organization, also Person, 4 mentions, in a; b)"
