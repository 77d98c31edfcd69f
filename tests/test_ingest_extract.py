"""Extraction end to end with the offline ner extractor, the ontology it is pruned against, and resolution."""

from __future__ import annotations

import json

import pytest

from graphrag_agents.errors import ToolError
from graphrag_agents.ingest.extraction import Extraction, RawEntity, RawRelation, to_records
from graphrag_agents.ingest.ontology_store import DEFAULT_ONTOLOGY, to_ontology
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.ingest.records import ChunkRecord
from graphrag_agents.ingest.report import PrunedReport
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.chat import ChatModel

NER = IngestPlan(extractor="ner")
TEXT = ("Jeff Porcaro was an American drummer with the band Toto. "
        "He was born in Hartford, Connecticut. Porcaro later lived in Los Angeles.")


async def test_ner_default_ontology_typed_entities_and_sentence_facts(kg: KnowledgeGraph) -> None:
    report = await kg.ingest(text=TEXT, document_id="porcaro", plan=NER)
    assert report.status == "ingested" and report.llm_calls == 0
    ontology = await kg.get_ontology()
    assert {e.label for e in ontology.entities} == {e.label for e in DEFAULT_ONTOLOGY.entities}
    rows = await kg.store.ro_query("MATCH (e:__Entity__) RETURN e.name, e.label ORDER BY e.name")
    entities = {name: label for name, label in rows}
    assert entities["Jeff Porcaro"] == "Person" and entities["Hartford"] == "Location"
    assert entities.get("American") == "Group"
    # one fact node per sentence naming its entities, no per-pair edges
    assert await kg.store.ro_query("MATCH ()-[r:RELATES]->() RETURN count(r)") == [[0]]
    facts = await kg.store.ro_query(
        "MATCH (e:__Entity__)-[:IN_FACT]->(f:__Fact__) RETURN f.type, f.text, f.chunk_ids, collect(e.name)")
    assert facts and all(t == "RELATED_TO" for t, _, _, _ in facts)
    assert len({text for _, text, _, _ in facts}) == len(facts)
    first = next(f for f in facts if f[1].startswith("Jeff Porcaro"))
    assert set(first[3]) == {"Jeff Porcaro", "American", "Toto"}
    hartford = [f for f in facts if "Hartford" in f[3]]
    assert len(hartford) == 1 and hartford[0][1] == "He was born in Hartford, Connecticut."
    assert set(hartford[0][3]) == {"Hartford", "Connecticut"}
    assert all(f[2] == ["porcaro#0"] for f in facts)
    assert (await kg.status()).relation_types == {"RELATED_TO": 4}  # 3 pairs + 1 pair
    mentions = await kg.store.ro_query("MATCH (:__Entity__ {name: 'Toto'})-[:MENTIONED_IN]->(c) RETURN c.id")
    assert mentions == [["porcaro#0"]]


async def test_user_ontology_keeps_defaults_out_and_prunes_with_the_exact_call(kg: KnowledgeGraph) -> None:
    await kg.set_ontology(entities=[{"label": "Musician"}, {"label": "City"}],
                          relations=[{"label": "RELATED_TO", "patterns": [["Musician", "Musician"]]}])
    kg.ner.label_map = {"PERSON": "Musician"}
    try:
        report = await kg.ingest(text=TEXT, document_id="porcaro", plan=NER)
    finally:
        kg.ner.label_map = {}
    ontology = await kg.get_ontology()
    assert [e.label for e in ontology.entities] == ["Musician", "City"]  # no defaults added
    labels = (await kg.status()).entity_labels
    assert labels.get("Musician") == 1 and labels.get("City") == 3  # Jeff Porcaro; Hartford, Connecticut, L.A.
    pruned = report.pruned
    assert pruned.unknown_endpoints == 3  # Jeff Porcaro with American and Toto, American with Toto
    assert pruned.unknown_entities == {"NORP": 1, "ORG": 1}
    assert pruned.patterns == {"City-RELATED_TO->City": 1}
    assert pruned.pattern_examples["City-RELATED_TO->City"] == "He was born in Hartford, Connecticut."
    call = pruned.set_ontology_call
    assert call == {"entities": [], "relations": [{"label": "RELATED_TO", "patterns": [["City", "City"]]}]}
    assert report.hint and "set_ontology(" in report.hint and json.dumps(call["relations"]) in report.hint
    # the call is exact: declaring it keeps the relation on re-extraction
    await kg.set_ontology(**call)
    kg.ner.label_map = {"PERSON": "Musician"}
    try:
        again = await kg.ingest(text=TEXT, document_id="porcaro", plan=NER, reextract=True)
    finally:
        kg.ner.label_map = {}
    assert again.status == "reextracted" and not again.pruned.patterns
    assert (await kg.status()).relation_types == {"RELATED_TO": 1}


def test_llm_style_pruning_counts_each_kind() -> None:
    ontology = to_ontology(
        entities=[{"label": "Person"}, {"label": "Company"}],
        relations=[{"label": "WORKS_AT", "patterns": [["Person", "Company"]]}])
    chunks = [ChunkRecord("d#0", 0, "text")]
    extraction = Extraction(
        entities=[RawEntity("Alice", "person", 0, "An engineer."), RawEntity("Acme", "Company", 0),
                  RawEntity("Alice", "Person", 0, "Works at Acme."), RawEntity("Paris", "City", 0),
                  RawEntity("Thing", "", 0)],
        relations=[RawRelation("Alice", "Acme", "works_at", "Alice works at Acme.", 0),
                   RawRelation("Alice", "Paris", "LIVES_IN", "Alice lives in Paris.", 0),
                   RawRelation("Acme", "Alice", "WORKS_AT", "Acme employs Alice.", 0),
                   RawRelation("Alice", "Paris", "WORKS_AT", "Alice works in Paris.", 0),
                   RawRelation("Alice", "Thing", "WORKS_AT", "?", 0)])
    pruned = PrunedReport()
    entities, relations = to_records("d", chunks, extraction, ontology, pruned)
    alice = next(e for e in entities if e.name == "Alice")
    assert alice.label == "Person" and alice.description == "An engineer. Works at Acme."  # exact resolution
    assert {e.label for e in entities} == {"Person", "Company", "Unknown"}
    assert [(r.source_id, r.type, r.target_id) for r in relations] == [
        ("Person:alice", "WORKS_AT", "Company:acme")]
    assert pruned.entity_types == {"City": 1} and pruned.relation_types == {"LIVES_IN": 1}
    assert pruned.patterns == {"Company-WORKS_AT->Person": 1, "Person-WORKS_AT->City": 1}
    assert pruned.unknown_endpoints == 1 and pruned.unknown_entities == {"Unknown": 1}
    assert pruned.set_ontology_call == {
        "entities": [{"label": "City"}],
        "relations": [{"label": "LIVES_IN", "patterns": [["Person", "City"]]},
                      {"label": "WORKS_AT", "patterns": [["Company", "Person"], ["Person", "City"]]}]}
    merged, _ = ontology.merge(to_ontology(**pruned.set_ontology_call))  # the call is valid as given
    assert merged.allows("Person", "LIVES_IN", "City")


@pytest.mark.parametrize("label, rule", [
    ("A|B", "contains '|'"), ("Drug:Class", "contains ':'"), ("`x`", "contains '`'"), ("a\nb", "line break"),
    ("__Entity__", "__X__ name"), ("chunk", "reserved"), ("Document", "reserved"), ("Unknown", "reserved"),
])
async def test_set_ontology_refuses_labels_naming_the_rule(kg: KnowledgeGraph, label: str, rule: str) -> None:
    with pytest.raises(ToolError, match=rule):
        await kg.set_ontology(entities=[{"label": label}])


async def test_set_ontology_only_adds(kg: KnowledgeGraph) -> None:
    _, changes = await kg.set_ontology(entities=[{"label": "Drug", "description": "A medicine."}])
    assert changes.added_entities == ["Drug"]
    ontology, changes = await kg.set_ontology(
        entities=[{"label": "Drug", "description": "Other text", "properties": ["dose"]}, {"label": "Disease"}],
        relations=[{"label": "TREATS", "patterns": [["Drug", "Disease"]]}])
    assert changes.added_entities == ["Disease"] and changes.kept_descriptions == ["Drug"]
    assert ontology.entity("Drug").description == "A medicine."  # type: ignore[union-attr]
    assert ontology.entity("Drug").properties == ["dose"]  # type: ignore[union-attr]
    assert (await kg.get_ontology()) == ontology
    with pytest.raises(ToolError, match="not declared"):
        await kg.set_ontology(relations=[{"label": "CAUSES", "patterns": [["Drug", "Symptom"]]}])


class ScriptedChat(ChatModel):
    """Answers pair checks from a script (tests only): True when both names are in ``same``."""

    def __init__(self, same: set[frozenset[str]]) -> None:
        super().__init__("scripted/model")
        self.same = same
        self.asked: list[str] = []

    async def complete(self, messages, *, json_mode=False):  # type: ignore[no-untyped-def,override]
        prompt = messages[-1]["content"]
        names = [line.split(": ", 1)[1].split(" (")[0] for line in prompt.splitlines()[1:3]]
        self.asked.append(" / ".join(names))
        self.usage.calls += 1
        return json.dumps({"same": frozenset(names) in self.same})


async def test_llm_verified_merges_confirmed_pairs_within_budget(kg: KnowledgeGraph) -> None:
    await kg.ingest(text="Marie Curie won the Nobel Prize in Physics.", document_id="a", plan=NER)
    await kg.finalize()
    chat = ScriptedChat({frozenset({"Curie", "Marie Curie"})})
    kg.llm = chat
    plan = IngestPlan(extractor="ner", resolver="llm_verified", max_llm_pairs=3)
    report = await kg.ingest(text="Curie taught in Paris. Curie was born in Warsaw.", document_id="b", plan=plan)
    assert 1 <= len(chat.asked) <= 3 and report.llm_calls == len(chat.asked)
    assert report.documents[0].extra.get("merged") == 1
    rows = await kg.store.ro_query(
        "MATCH (e:__Entity__ {name: 'Marie Curie'})-[:MENTIONED_IN]->(c) RETURN c.id ORDER BY c.id")
    assert [r[0] for r in rows] == ["a#0", "b#0"]
    assert not await kg.store.ro_query("MATCH (e:__Entity__ {name: 'Curie'}) RETURN e")
    budget = ScriptedChat(set())
    kg.llm = budget
    await kg.ingest(text="Marie Curie taught in Paris. Curie was born in Warsaw. Pierre Curie was her husband.",
                    document_id="c",
                    plan=IngestPlan(extractor="ner", resolver="llm_verified", max_llm_pairs=1))
    assert len(budget.asked) == 1


async def test_finalize_dedupes_unknown_into_typed_embeds_and_counts(kg: KnowledgeGraph) -> None:
    await kg.set_ontology(entities=[{"label": "Place"}])  # no person type yet: people are Unknown
    await kg.ingest(text="Ada Lovelace met Charles Babbage.", document_id="b", plan=NER)
    await kg.set_ontology(entities=[{"label": "Person"}])
    await kg.ingest(text="Ada Lovelace wrote notes.", document_id="a", plan=NER)
    before = await kg.status()
    assert before.entity_labels.get("Unknown", 0) >= 1
    report = await kg.finalize(progress=False)
    assert report.merged == 1  # Ada; Charles Babbage has no typed twin and stays Unknown
    assert report.embedded.chunks == 2 and report.status.unembedded == 0
    rows = await kg.store.ro_query(
        "MATCH (e:__Entity__ {name: 'Ada Lovelace'})-[:MENTIONED_IN]->(c) RETURN e.label, c.id ORDER BY c.id")
    assert rows == [["Person", "a#0"], ["Person", "b#0"]]


async def test_an_entity_merge_run_twice_stores_what_one_run_does(kg: KnowledgeGraph) -> None:
    """The merge is retried after a lost reply (marked idempotent): a second run must change nothing."""
    from graphrag_agents.ingest.dedupe import merge_entities

    await kg.set_ontology(entities=[{"label": "Place"}])
    await kg.ingest(text="Ada Lovelace met Charles Babbage.", document_id="b", plan=NER)
    await kg.set_ontology(entities=[{"label": "Person"}])
    await kg.ingest(text="Ada Lovelace wrote notes.", document_id="a", plan=NER)
    (unknown,), = await kg.store.ro_query("MATCH (e:__Entity__ {name: 'Ada Lovelace', label: 'Unknown'}) RETURN e.id")
    (typed,), = await kg.store.ro_query("MATCH (e:__Entity__ {name: 'Ada Lovelace', label: 'Person'}) RETURN e.id")
    shape = ("MATCH (e:__Entity__)-[m:MENTIONED_IN]->(c) WITH e, collect(c.id) AS cs "
             "OPTIONAL MATCH (e)-[:IN_FACT]->(f) RETURN e.id, e.description, cs, count(f) ORDER BY e.id")
    await merge_entities(kg.store, [(unknown, typed)])
    once = await kg.store.ro_query(shape)
    await merge_entities(kg.store, [(unknown, typed)])
    assert await kg.store.ro_query(shape) == once
    assert [row[0] for row in once].count(typed) == 1 and unknown not in [row[0] for row in once]


async def test_finalize_walks_id_windows_and_sets_each_vector_on_its_own_item(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny id windows and batches: every item is embedded once, with the vector of its own text."""
    import numpy as np

    from graphrag_agents.ingest import embedding
    from graphrag_agents.ingest.embedding import VectorRules

    monkeypatch.setattr(embedding, "_ID_WINDOW", 3)
    monkeypatch.setattr(embedding, "_BATCH", 2)
    await kg.ingest(text="Ada Lovelace met Charles Babbage in London. Mary Somerville knew Ada Lovelace.",
                    document_id="a", plan=NER)
    await kg.ingest(text="Charles Babbage designed the Analytical Engine in London.", document_id="b", plan=NER)
    missing = await kg._missing_vectors(VectorRules("all", "all"))
    assert all(missing.values()), missing
    report = await kg.finalize(progress=False, entity_vectors="all", fact_vectors="all")
    assert (report.embedded.chunks, report.embedded.entities, report.embedded.facts) == (
        missing["chunks"], missing["entities"], missing["facts"])
    assert report.status.unembedded == 0
    rows = await kg.store.ro_query(  # a chunk is embedded below its document's title (and heading)
        "MATCH (c:Chunk) OPTIONAL MATCH (d:Document {id: c.document_id}) "
        "RETURN [d.title, c.heading, c.text] AS t, c.embedding AS v "
        "UNION ALL MATCH ()-[r:RELATES]->() RETURN r.fact AS t, r.embedding AS v")
    expected = kg.embedder.embed([embedding.chunk_embed_text(*text) if isinstance(text, list) else text
                                  for text, _ in rows])
    for (_, stored), want in zip(rows, expected, strict=True):
        assert np.allclose(np.asarray(stored, dtype=np.float32), want, atol=1e-5)
