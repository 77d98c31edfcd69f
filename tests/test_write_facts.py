"""add_facts round trips, and hostile arguments for every write tool: always a ToolError with a hint, no write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphrag_agents.errors import ReadOnlyViolation, ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

ONTOLOGY: dict[str, Any] = {
    "entities": [{"label": "Drug"}, {"label": "Disease"}, {"label": "Medical device"}, {"label": "Médicament"}],
    "relations": [{"label": "TREATS", "patterns": [["Drug", "Disease"], ["Médicament", "Disease"]]},
                  {"label": "USED_FOR", "patterns": [["Medical device", "Disease"]]}],
}
TEXT = ("Aspirin treats headache in most adults. The Stent-X device is used for coronary disease. "
        "Paracétamol treats fever.")
ENTITIES = [{"name": "Aspirin", "label": "Drug", "description": "A common painkiller"},
            {"name": "headache", "label": "Disease"}, {"name": "Stent-X", "label": "Medical device"},
            {"name": "coronary disease", "label": "Disease"}, {"name": "Paracétamol", "label": "Médicament"},
            {"name": "fever", "label": "Disease"}]
RELATIONS = [{"source": "Aspirin", "target": "headache", "type": "TREATS"},
             {"source": "Stent-X", "target": "coronary disease", "type": "USED_FOR"},
             {"source": "Paracétamol", "target": "fever", "type": "TREATS", "fact": "Paracétamol treats fever."}]


@pytest.fixture
async def toolkit(kg: KnowledgeGraph, tmp_path: Path) -> GraphRAGToolkit:
    root = tmp_path / "root"
    root.mkdir()
    (root / "c.txt").write_text("A file.")
    tk = GraphRAGToolkit(kg, files_root=root)
    await tk.set_ontology(**ONTOLOGY)
    return tk


async def test_add_facts_round_trip(toolkit: GraphRAGToolkit, kg: KnowledgeGraph) -> None:
    added = await toolkit.add_facts(TEXT, ENTITIES, RELATIONS)
    assert added.status == "ingested" and added.document_id.startswith("facts:")
    assert (added.entities, added.relations, added.chunks) == (6, 3, 1)
    assert added.hint and "finalize" in added.hint
    await toolkit.finalize()
    rows = await kg.store.ro_query(
        "MATCH (a:__Entity__)-[r:RELATES]->(b:__Entity__) MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) "
        "WHERE c.id IN r.chunk_ids RETURN a.name, r.type, b.name, r.fact, d.id ORDER BY a.name")
    assert [(a, t, b, d) for a, t, b, _, d in rows] == [
        ("Aspirin", "TREATS", "headache", added.document_id),
        ("Paracétamol", "TREATS", "fever", added.document_id),
        ("Stent-X", "USED_FOR", "coronary disease", added.document_id)]
    assert rows[0][3] == "Aspirin treats headache in most adults."  # the text's sentence naming both ends
    labels = await kg.store.ro_query("MATCH (e:`Medical device`) RETURN e.name")
    assert labels == [["Stent-X"]]
    found = await toolkit.retrieve("What does aspirin treat?")
    assert any(p.document_id == added.document_id and "Aspirin treats headache" in p.text for p in found.passages)
    if found.facts:  # once the facts path is served, the fact itself is evidence
        assert any(f.type == "TREATS" and f.source == "Aspirin" for f in found.facts)
    assert (await toolkit.status()).unembedded == 0

    same = await toolkit.add_facts(TEXT, ENTITIES, RELATIONS)
    assert same.status == "unchanged"
    fewer = await toolkit.add_facts(TEXT, ENTITIES[:2], RELATIONS[:1])
    assert fewer.status == "updated" and fewer.hint and "Replaced" in fewer.hint
    left = await kg.store.ro_query("MATCH ()-[r:RELATES]->() RETURN count(r)")
    assert left == [[1]]
    named = await toolkit.add_facts("Ibuprofen treats fever.", [{"name": "Ibuprofen", "label": "Drug"},
                                                               {"name": "fever", "label": "Disease"}],
                                    [{"source": "ibuprofen", "target": "Fever", "type": "TREATS"}],
                                    document_id="notes-1", title="Notes")
    assert named.document_id == "notes-1" and named.relations == 1


async def test_add_facts_under_on_write_finalizes(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg, finalize_policy="on_write")
    await toolkit.set_ontology(**ONTOLOGY)
    assert next(s for s in toolkit.tool_specs() if s.name == "add_facts").annotations.open_world
    added = await toolkit.add_facts(TEXT, ENTITIES, RELATIONS)
    assert added.finalized is True and (await kg.status()).unembedded == 0


@pytest.mark.parametrize(("entities", "relations", "message", "hint"), [
    ([{"name": "Aspirin", "label": "Symptom"}], [], "undeclared label 'Symptom'",
     'set_ontology("entities": [{"label": "Symptom"}]'),
    ([{"name": "Aspirin", "label": "drug"}], [], "differs in case from the declared 'Drug'",
     "declared labels' spelling"),
    (ENTITIES[:2], [{"source": "Aspirin", "target": "headache", "type": "CURES"}], "undeclared type 'CURES'",
     '"relations": [{"label": "CURES", "patterns": [["Drug", "Disease"]]}]'),
    (ENTITIES[:2], [{"source": "headache", "target": "Aspirin", "type": "TREATS"}],
     "'TREATS' is not declared for ('Disease', 'Drug')", '"patterns": [["Disease", "Drug"]]'),
    (ENTITIES[:2], [{"source": "Aspirin", "target": "migraine", "type": "TREATS"}],
     "target 'migraine' is not one of `entities`", "List every relation's source and target"),
    ([{"name": "Mercury", "label": "Drug"}, {"name": "mercury", "label": "Disease"}],
     [{"source": "Mercury", "target": "Mercury", "type": "TREATS"}], "has several types", "one label"),
])
async def test_add_facts_refuses_what_the_ontology_lacks(toolkit: GraphRAGToolkit, kg: KnowledgeGraph,
                                                         entities: list[dict[str, str]],
                                                         relations: list[dict[str, str]], message: str,
                                                         hint: str) -> None:
    with pytest.raises(ToolError) as err:
        await toolkit.add_facts(TEXT, entities, relations)
    assert message in err.value.message and "nothing was written" in err.value.message
    assert hint in err.value.hint
    assert await kg.store.ro_query("MATCH (d:Document) RETURN count(d)") == [[0]]


async def test_add_facts_never_overwrites_files_or_texts(toolkit: GraphRAGToolkit) -> None:
    await toolkit.ingest("Plain text document.", document_id="t1", plan=[{"extractor": "none"}])
    await toolkit.ingest(files=["c.txt"], plan=[{"extractor": "none"}])
    for document_id, expected in (("t1", "holds text ingested with ingest"), ("file:c.txt", "file id"),
                                  ("c.txt", "names a file under the files root"), ("file:nope", "file id")):
        with pytest.raises(ToolError) as err:
            await toolkit.add_facts(TEXT, ENTITIES, RELATIONS, document_id=document_id)
        assert expected in err.value.message and err.value.hint


_HOSTILE_LABELS = ["Drug`) MATCH (n) DETACH DELETE n //", "Drug:Evil", "A|B", "__Entity__", "Chunk", "unknown",
                   "Drug\nX", "", "x" * 65, "Drug;DROP", "{x}"]
HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("preview_files", {"files": "notes"}), ("preview_files", {"offset": -1}), ("preview_files", {"offset": "x"}),
    ("preview_files", {"offset": 10**9}), ("preview_files", {"sample_chars": 10}), ("preview_files", {"x": 1}),
    ("preview_files", {"files": ["a\x00b"]}), ("preview_files", {"files": ["x" * 5000]}),
    ("preview_files", {"files": []}), ("preview_files", {"files": [" "]}), ("preview_files", {"files": ["a"] * 51}),
    ("preview_files", {"files": ["../outside"]}), ("preview_files", {"files": ["/etc/passwd"]}),
    ("preview_files", {"files": [".hidden/x.md"]}), ("preview_files", {"files": ["missing.md"]}),
    ("set_ontology", {}), ("set_ontology", {"entities": "Drug"}), ("set_ontology", {"entities": [{"label": 5}]}),
    *[("set_ontology", {"entities": [{"label": label}]}) for label in _HOSTILE_LABELS],
    *[("set_ontology", {"relations": [{"label": label}]}) for label in _HOSTILE_LABELS[:4]],
    ("set_ontology", {"entities": [{"label": "Drug", "evil": 1}]}),
    ("set_ontology", {"entities": [{"label": "Drug", "properties": ["id"]}]}),
    ("set_ontology", {"entities": [{"label": "Drug", "description": "a\x07b"}]}),
    ("set_ontology", {"entities": [{"label": "Drug", "description": "d" * 5000}]}),
    ("set_ontology", {"entities": [{"label": f"T{i}"} for i in range(201)]}),
    ("set_ontology", {"relations": [{"label": "T", "patterns": [["Drug"]]}]}),
    ("set_ontology", {"relations": [{"label": "T", "patterns": [["Drug", "Ghost"]]}]}),
    ("set_ontology", {"entities": [{"label": "Drug"}, {"label": "DRUG"}]}),
    ("ingest", {}), ("ingest", {"text": ""}), ("ingest", {"text": "   "}), ("ingest", {"text": 5}),
    ("ingest", {"text": "a\x00b"}), ("ingest", {"text": "a\x1b[31m"}), ("ingest", {"text": "x" * 2_000_001}),
    ("ingest", {"text": "a", "files": ["c.txt"]}), ("ingest", {"files": ["c.txt"], "document_id": "x"}),
    ("ingest", {"files": "c.txt"}), ("ingest", {"files": ["c.txt"] * 51}),
    ("ingest", {"files": ["c.txt"], "plan": [{"chunker": "magic"}]}),
    ("ingest", {"files": ["c.txt"], "plan": [{"bogus": 1}]}), ("ingest", {"files": ["c.txt"], "plan": []}),
    ("ingest", {"files": ["c.txt"], "plan": [{"max_llm_pairs": -5}]}),
    ("ingest", {"files": ["c.txt"], "plan": [{"chunk_params": {"size": 10**9}}]}),
    ("ingest", {"files": ["c.txt"], "plan": [{"match": "x" * 600}]}),
    ("ingest", {"text": "a", "document_id": "file:c.txt"}), ("ingest", {"text": "a", "document_id": "c.txt"}),
    ("ingest", {"text": "a", "reextract": "maybe"}), ("ingest", {"text": "a", "document_id": "x" * 600}),
    ("ingest", {"text": "a", "document_id": "a\x00b"}), ("ingest", {"text": "a", "title": "t\x08"}),
    ("ingest", {"unknown": 1}),
    ("finalize", {"force": True}),
    ("add_facts", {}), ("add_facts", {"text": "x", "entities": []}), ("add_facts", {"text": " ", "entities": [{}]}),
    *[("add_facts", {"text": "x", "entities": [{"name": "A", "label": label}]}) for label in _HOSTILE_LABELS],
    ("add_facts", {"text": "x" * 100_001, "entities": [{"name": "A", "label": "Drug"}]}),
    ("add_facts", {"text": "a\x1bb", "entities": [{"name": "A", "label": "Drug"}]}),
    ("add_facts", {"text": "x", "entities": [{"name": "", "label": "Drug"}]}),
    ("add_facts", {"text": "x", "entities": [{"name": "A\x00", "label": "Drug"}]}),
    ("add_facts", {"text": "x", "entities": [{"name": "n" * 301, "label": "Drug"}]}),
    ("add_facts", {"text": "x", "entities": [{"name": f"A{i}", "label": "Drug"} for i in range(201)]}),
    ("add_facts", {"text": "x", "entities": [{"name": "A", "label": "Drug"}],
                   "relations": [{"source": "A", "target": "A", "type": "TREATS"}] * 501}),
    ("add_facts", {"text": "x", "entities": [{"name": "A", "label": "Drug"}],
                   "relations": [{"source": "A", "target": "A", "type": "T`]->() DELETE r //"}]}),
    ("add_facts", {"text": "x", "entities": [{"name": "A", "label": "Drug", "id": "evil"}]}),
    ("add_facts", {"text": "x", "entities": [{"name": "A", "label": "Drug"}], "document_id": "file:c.txt"}),
    ("add_facts", {"text": "x", "entities": [{"name": "A", "label": "Drug"}], "document_id": ""}),
]


async def test_hostile_arguments_give_tool_errors_and_write_nothing(toolkit: GraphRAGToolkit,
                                                                    kg: KnowledgeGraph) -> None:
    before = (await toolkit.get_ontology()).summary()
    for name, args in HOSTILE:
        with pytest.raises(ToolError) as err:
            await toolkit.call(name, args)
        assert not isinstance(err.value, ReadOnlyViolation)
        assert err.value.hint, (name, args)
        assert len(str(err.value)) < 3000, (name, "error text must stay short")
    assert await kg.store.ro_query("MATCH (d:Document) RETURN count(d)") == [[0]]
    assert await kg.store.ro_query("MATCH (e:__Entity__) RETURN count(e)") == [[0]]
    assert (await toolkit.get_ontology()).summary() == before
    with pytest.raises(ToolError):
        await toolkit.call("preview_files", ["not", "an", "object"])  # type: ignore[arg-type]
