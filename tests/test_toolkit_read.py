"""The read tools through GraphRAGToolkit: schemas, validation, evidence numbering, read-only at the database."""

from __future__ import annotations

import re
from typing import Any

import pytest
from snapshot import assert_snapshot

from graphrag_agents.errors import GraphNotFound, ReadOnlyViolation, ToolError
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
from graphrag_agents.tools.results import (
    RETRIEVE_TEXT_CHARS,
    EntityItem,
    PassageItem,
    RelationItem,
    RetrieveResult,
    llm_text,
)
from graphrag_agents.tools.toolkit import READ_TOOLS, WRITE_TOOLS, GraphRAGToolkit


async def _acme_graph(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    text = "Alice Smith works at Acme Corp in Berlin. Acme Corp was founded in 1999."
    chunk = ChunkRecord(id="acme#0", index=0, text=text)
    alice, acme = entity_id("Person", "Alice Smith"), entity_id("Company", "Acme Corp")
    batch = DocumentBatch(
        DocumentRecord(id="file:notes/acme.md", title="Acme", content_hash="h", loader="markdown",
                       path="file:notes/acme.md"),
        [chunk],
        [EntityRecord(alice, "Person", "Alice Smith", "An engineer", [chunk.id]),
         EntityRecord(acme, "Company", "Acme Corp", "A company in Berlin", [chunk.id])],
        [RelationRecord(alice, acme, "WORKS_AT", "Alice Smith works at Acme Corp in Berlin.", chunk.id)],
    )
    await write_document(kg.store, batch)
    await kg.finalize()


async def test_every_tool_declares_all_four_annotations(kg: KnowledgeGraph) -> None:
    for spec in GraphRAGToolkit(kg, files_root=None).tool_specs():
        hints = spec.annotations.as_mcp()
        assert set(hints) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
        assert all(isinstance(v, bool) for v in hints.values())


async def test_schemas_are_closed(kg: KnowledgeGraph) -> None:
    for spec in GraphRAGToolkit(kg).tool_specs():
        assert spec.input_schema.get("additionalProperties") is False, spec.name


async def test_read_only_hides_and_refuses_write_tools(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg, read_only=True)
    names = {s.name for s in toolkit.tool_specs()}
    assert names == set(READ_TOOLS)
    for name in WRITE_TOOLS:
        with pytest.raises(ReadOnlyViolation, match="read-only"):
            await toolkit.call(name, {})


async def test_include_limits_the_tools(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg, include=["retrieve", "check_citations"])
    assert [s.name for s in toolkit.tool_specs()] == ["retrieve", "check_citations"]
    with pytest.raises(ToolError, match="Available tools: retrieve, check_citations"):
        await toolkit.call("status")
    with pytest.raises(ValueError, match="Unknown tool names"):
        GraphRAGToolkit(kg, include=["nope"])


async def test_read_tools_on_a_missing_graph_name_it(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg)
    for name, args in (("status", {}), ("get_ontology", {}), ("retrieve", {"question": "x"})):
        with pytest.raises(GraphNotFound, match=kg.name):
            await toolkit.call(name, args)
    assert not await kg.store.exists(), "a read tool must create nothing"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "question"),
        ({"question": ""}, "question"),
        ({"question": "   "}, "empty"),
        ({"question": 42}, "question"),
        ({"question": "x" * 2001}, "2000"),
        ({"question": "bad\x00char"}, "control character"),
        ({"question": "ok", "top_k": 0}, "top_k"),
        ({"question": "ok", "top_k": "ten"}, "top_k"),
        ({"question": "ok", "expand_hops": 6}, "expand_hops"),
        ({"question": "ok", "paths": ["nope"]}, "paths"),
        ({"question": "ok", "paths": []}, "paths"),
        ({"question": "ok", "surprise": 1}, "surprise"),
        ({"question": "ok", "document_ids": ["x"] * 101}, "document_ids"),
        ({"question": "ok", "min_score": 2}, "min_score"),
    ],
)
async def test_bad_retrieve_arguments_give_tool_errors_with_hints(kg: KnowledgeGraph, args: dict[str, Any],
                                                                  needle: str) -> None:
    with pytest.raises(ToolError) as err:
        await GraphRAGToolkit(kg).call("retrieve", args)
    assert needle in str(err.value)
    assert err.value.hint


async def test_non_object_arguments(kg: KnowledgeGraph) -> None:
    with pytest.raises(ToolError, match="JSON object"):
        await GraphRAGToolkit(kg).call("retrieve", ["question"])  # type: ignore[arg-type]


async def test_evidence_numbers_run_across_calls_and_sessions_are_separate(kg: KnowledgeGraph) -> None:
    await _acme_graph(kg)
    toolkit = GraphRAGToolkit(kg)
    status = await toolkit.status()
    assert status.n == 1 and status.entities == 2 and status.entity_labels == {"Company": 1, "Person": 1}
    found = await toolkit.retrieve("Where does Alice Smith work?", paths=["passages"])
    assert [p.n for p in found.passages] == [2]
    assert found.passages[0].file == "acme.md"
    again = await toolkit.retrieve("Where does Alice Smith work?", paths=["passages"])
    assert again.passages[0].n == 2, "the same passage keeps its number"
    other = toolkit.new_session()
    assert (await other.status()).n == 1
    assert len(toolkit.ledger) == 2 and len(other.ledger) == 1


async def test_ledger_capacity_drops_oldest(kg: KnowledgeGraph) -> None:
    await _acme_graph(kg)
    toolkit = GraphRAGToolkit(kg, ledger_capacity=1)
    first = await toolkit.status()
    await toolkit.get_ontology()
    assert first.n not in toolkit.ledger and len(toolkit.ledger) == 1


async def test_status_and_ontology_are_citable(kg: KnowledgeGraph) -> None:
    await _acme_graph(kg)
    toolkit = GraphRAGToolkit(kg)
    status = await toolkit.status()
    check = await toolkit.check_citations(f"The graph holds 2 entities [{status.n}].")
    assert check.grounded and check.cited == [status.n]
    onto = await toolkit.get_ontology()
    assert onto.hint and "set_ontology" in onto.hint


async def test_read_queries_cannot_write(kg: KnowledgeGraph) -> None:
    await _acme_graph(kg)
    with pytest.raises(Exception, match="read-only"):
        await kg.store.ro_query("CREATE (:Chunk {id: 'sneaky'})")
    rows = await kg.store.ro_query("MATCH (c:Chunk {id: 'sneaky'}) RETURN count(c)")
    assert rows[0][0] == 0


def _sample_result() -> RetrieveResult:
    passages = [PassageItem(n=10 + i, document_id=f"file:p{i}.md", file=f"p{i}.md", text=("word " * 300).strip(),
                            score=0.5) for i in range(12)]
    return RetrieveResult(question="What?", paths=["passages"], passages=passages, hint="Cite as [n].")


def test_to_llm_text_budget_snapshot() -> None:
    text = _sample_result().to_llm_text(max_chars=4000)
    assert len(text) <= 4000
    assert "more omitted)" in text and "score 0.5" in text
    assert_snapshot("retrieve_budget.txt", text)


def test_whole_floats_print_as_integers() -> None:
    from graphrag_agents.evidence.render import fmt_number

    assert fmt_number(40.0) == "40" and fmt_number(0.25) == "0.25" and fmt_number(3) == "3"


def test_a_relation_found_as_fact_and_link_is_one_item_shown_once() -> None:
    from graphrag_agents.evidence import EvidenceLedger
    from graphrag_agents.retrieval.hits import RelationHit, RetrievalHits
    from graphrag_agents.tools.read_tools import number_retrieval

    def hit(target: str, path: str) -> RelationHit:
        return RelationHit(source="Ada", source_label="Person", type="MET", target=target, target_label="Person",
                           fact=f"Ada met {target}.", score=0.9, path=path)

    ledger = EvidenceLedger()
    hits = RetrievalHits(question="Whom did Ada meet?", relations=[hit("Babbage", "links"), hit("Mary", "links")],
                         facts=[hit("Babbage", "facts")])
    result = number_retrieval(ledger, hits)
    assert [r.target for r in result.relations] == ["Mary"]
    assert [f.target for f in result.facts] == ["Babbage"]
    assert len(ledger) == 2 and sorted(result.evidence_numbers()) == [1, 2]
    again = number_retrieval(ledger, RetrievalHits(question="q", relations=[hit("Babbage", "links")]))
    assert [r.n for r in again.relations] == [result.facts[0].n] and len(ledger) == 2


def test_to_llm_text_passages_then_facts_then_entities_snapshot() -> None:
    from graphrag_agents.evidence import EvidenceLedger
    from graphrag_agents.retrieval.hits import EntityHit, FactEntity, PassageHit, RelationHit, RetrievalHits
    from graphrag_agents.tools.read_tools import number_retrieval

    shown = "Van Hook Township is a township in Mountrail County, North Dakota."
    other = "Mountrail County was created in 1873 and named for Joseph Mountraille."
    ents = [FactEntity(f"Location:{n.lower()}", n, "Location")
            for n in ("Van Hook Township", "Mountrail County", "North Dakota")]
    hits = RetrievalHits(
        question="When was the county of Van Hook Township created?",
        passages=[PassageHit("vh#0", "vh", shown + " It had 200 people in 2010.", 0.71, title="Van Hook Township")],
        facts=[RelationHit("", "", "RELATED_TO", "", "", shown, 0.69, "facts", chunk_ids=["vh#0"], entities=ents,
                           fact_id="RELATED_TO:a"),
               RelationHit("", "", "RELATED_TO", "", "", other, 0.55, "facts", chunk_ids=["mc#0"],
                           entities=[ents[1], FactEntity("Person:joseph mountraille", "Joseph Mountraille",
                                                         "Person")], fact_id="RELATED_TO:b")],
        relations=[RelationHit("Van Hook Township", "Location", "LOCATED_IN", "North Dakota", "Location", shown,
                               0.5, "links", hop=1, chunk_ids=["vh#0"])],
        entities=[EntityHit("Location:van hook township", "Van Hook Township", "Location", "", 1.0, "exact_names",
                            mentions=1, documents=["Van Hook Township"]),
                  EntityHit("Location:mountrail county", "Mountrail County", "Location", "", 0.4, "exact_names",
                            mentions=12, documents=["Mountrail County", "Van Hook Township", "Stanley"],
                            aliases=["Person"])],
    )
    result = number_retrieval(EvidenceLedger(), hits)
    assert [p.n for p in result.passages] == [1] and [f.n for f in result.facts] == [2]
    assert result.relations[0].in_passage == 1
    text = result.to_llm_text()
    assert text.count(shown) == 1 and text.count(other) == 1
    assert text.index("Passages:") < text.index("Facts:") < text.index("Related facts:") < text.index("Entities:")
    assert_snapshot("retrieve_sections.txt", text)


def _crowded_result(n: int = 100, *, seen: bool = False) -> RetrieveResult:
    """Ten passages and ``n`` facts, related facts and entity cards; ``seen``: every fact is stated in a passage
    and every entity is named in one (nothing outside the passages)."""
    passages = [PassageItem(n=i, document_id=f"d{i}", file=f"d{i}", text=f"Passage {i} names Entity {i}. "
                            + "text " * 90, score=0.5) for i in range(1, 11)]
    where = 1 if seen else None
    related = [RelationItem(n=1000 + i, type="RELATED_TO", entities=["A", f"B{i}"], fact="fact words " * 25,
                            score=0.4, hop=1, in_passage=where) for i in range(n)]
    facts = [RelationItem(n=2000 + i, type="RELATED_TO", entities=["C", f"D{i}"], fact="other words " * 25,
                          score=0.4, in_passage=where) for i in range(n)]
    entities = [EntityItem(n=3000 + i, name=f"Entity {i % 10 + 1 if seen else i + 100}", label="Person", score=0.5,
                           path="exact_names", mentions=3, documents=["Some document"]) for i in range(n)]
    return RetrieveResult(question="q", paths=["passages", "links"], passages=passages, relations=related,
                          facts=facts, entities=entities)


def _section(text: str, title: str) -> str:
    """The block of ``text`` under ``title:`` up to the next blank line ('' when the section is not shown)."""
    start = text.find(f"\n{title}:\n")
    return text[start + 1:].split("\n\n", 1)[0] if start >= 0 else ""


def test_every_section_with_unseen_content_is_shown_or_named_at_every_budget() -> None:
    result = _crowded_result()
    for budget in (600, 1500, 3000, 4400, 8000):
        text = result.to_llm_text(max_chars=budget)
        assert len(text) <= budget
        for title, noun, paths in (("Facts", "facts", '["facts"]'), ("Related facts", "related facts", '["links"]'),
                                   ("Entities", "entity cards", '["exact_names", "fuzzy_names"]')):
            block = _section(text, title)
            if block:  # shown: at least one item, and the note saying what is left out and how to read it
                assert re.search(r"^\[\d+\] ", block.split("\n", 1)[1], re.MULTILINE), (budget, title)
                assert re.search(rf"…\(\d+ more omitted\): retrieve with paths={re.escape(paths)} or a larger "
                                 "max_chars$", block), (budget, title)
            else:
                assert re.search(rf"\b100 {noun}\b.* left out; retrieve with paths=\[[^]]*{re.escape(paths[1:-1])}",
                                 text), (budget, title)
        if budget >= 1500:  # room for one line of each: nothing is left out whole
            assert all(_section(text, t) for t in ("Passages", "Facts", "Related facts", "Entities")), budget


def test_passages_keep_the_largest_share_at_least_twice_each_other_section() -> None:
    result = _crowded_result()
    for budget in (3000, 4400, 8000):
        text = result.to_llm_text(max_chars=budget)
        passages = len(_section(text, "Passages"))
        others = [len(_section(text, t)) for t in ("Facts", "Related facts", "Entities")]
        assert all(o > 0 for o in others) and passages >= 2 * max(others), (budget, passages, others)
        assert passages >= 0.6 * budget
    # a share below 1 keeps more room for the other sections
    default = result.to_llm_text(max_chars=3000)
    shared = result.to_llm_text(max_chars=3000, passages_share=0.4)
    assert len(_section(shared, "Passages")) < len(_section(default, "Passages"))
    assert len(_section(shared, "Related facts")) > len(_section(default, "Related facts"))
    with pytest.raises(ValueError, match="passages_share"):
        result.to_llm_text(passages_share=0)
    with pytest.raises(ValueError, match="section_floor"):
        result.to_llm_text(section_floor=0.5)


def test_sections_showing_only_what_the_passages_hold_get_no_floor() -> None:
    seen = _crowded_result(seen=True).to_llm_text(max_chars=3000)
    assert len(seen.split("\n\nFacts:")[0]) >= 0.9 * 3000, "passages take the budget"
    unseen = _crowded_result().to_llm_text(max_chars=3000)
    assert "[2000]" in unseen and "[2000]" not in seen
    assert "left out; retrieve with paths=" in seen, "what did not fit is still named"


def test_entity_cards_no_passage_covers_come_first() -> None:
    passages = [PassageItem(n=1, document_id="d", file="d", text="Ada Lovelace met Charles Babbage.", score=0.9)]
    entities = [EntityItem(n=2, name="Ada Lovelace", label="Person", score=0.9, path="exact_names"),
                EntityItem(n=3, name="Analytical Engine", label="Thing", score=0.5, path="fuzzy_names")]
    text = RetrieveResult(question="q", paths=["passages"], passages=passages, entities=entities).to_llm_text()
    assert text.index("[3] Analytical Engine") < text.index("[2] Ada Lovelace")


def test_retrieve_text_is_reader_sized_by_default_and_other_results_keep_8000() -> None:
    passages = [PassageItem(n=i, document_id=f"d{i}", file=f"d{i}", text=f"Passage {i}. " + "text " * 200,
                            score=0.5) for i in range(1, 11)]
    result = RetrieveResult(question="q", paths=["passages"], passages=passages)
    assert RETRIEVE_TEXT_CHARS == 4400
    assert len(llm_text(result)) <= RETRIEVE_TEXT_CHARS < len(result.to_llm_text(8000))
    assert llm_text(result, 8000) == result.to_llm_text(8000)
