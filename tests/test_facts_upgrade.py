"""A graph written before fact nodes (one RELATED_TO edge per pair, each with the sentence and its vector) still
opens and answers, and ``finalize`` upgrades it to one fact node per sentence."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.schema import wait_for_indexes
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SENTENCE = "Van Hook Township is a township in Mountrail County, North Dakota, United States."
NAMES = ["Van Hook Township", "Mountrail County", "North Dakota", "United States"]
TYPED = "Ada Lovelace is related to Charles Babbage through their work."
DIM = 384


async def _write_old_graph(kg: KnowledgeGraph) -> None:
    """The data shape and indexes the previous version wrote, in its own Cypher (no fact nodes, no fact index)."""
    q = kg.store.query
    vec = {t: v.tolist() for t, v in zip(
        [SENTENCE, TYPED, *NAMES, "Ada Lovelace", "Charles Babbage"],
        await kg.embedder.aembed([SENTENCE, TYPED, *NAMES, "Ada Lovelace", "Charles Babbage"]), strict=True)}
    await q("CREATE (:__Meta__ {key: 'graph', embed_model: $m, embed_dim: $d, ontology: '{}'})",
            {"m": kg.embedder.model_name, "d": DIM})
    for label, prop in [("Document", "id"), ("Chunk", "id"), ("Chunk", "document_id"), ("__Entity__", "id"),
                        ("__Entity__", "name_key")]:
        await q(f"CREATE INDEX FOR (n:{label}) ON (n.{prop})")
    opts = f"OPTIONS {{dimension: {DIM}, similarityFunction: 'cosine'}}"
    await q(f"CREATE VECTOR INDEX FOR (n:Chunk) ON (n.embedding) {opts}")
    await q(f"CREATE VECTOR INDEX FOR (n:__Entity__) ON (n.embedding) {opts}")
    await q(f"CREATE VECTOR INDEX FOR ()-[r:RELATES]->() ON (r.embedding) {opts}")
    await q("CALL db.idx.fulltext.createNodeIndex('Chunk', 'text')")
    await q("CALL db.idx.fulltext.createNodeIndex('__Entity__', 'name', 'description')")
    for doc, extractor, text, names in [("vanhook", "ner", SENTENCE, NAMES),
                                        ("ada", "llm", TYPED, ["Ada Lovelace", "Charles Babbage"])]:
        await q("CREATE (d:Document {id: $doc, title: $doc, path: $doc, content_hash: 'h', plan: $plan})"
                "-[:HAS_CHUNK]->(:Chunk {id: $cid, index: 0, text: $text, heading: '', document_id: $doc, "
                "embedding: vecf32($v)})",
                {"doc": doc, "cid": f"{doc}#0", "text": text, "v": vec[text],
                 "plan": json.dumps({"chunker": "sentence", "extractor": extractor}, sort_keys=True)})
        for name in names:
            await q("MATCH (c:Chunk {id: $cid}) CREATE (e:__Entity__:Location {id: $id, name: $name, "
                    "name_key: $key, label: 'Location', description: '', embedding: vecf32($v)})"
                    "-[:MENTIONED_IN]->(c)",
                    {"cid": f"{doc}#0", "id": f"Location:{name.lower()}", "name": name, "key": name.lower(),
                     "v": vec[name]})
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                await q("MATCH (a:__Entity__ {id: $a}), (b:__Entity__ {id: $b}) "
                        "CREATE (a)-[:RELATES {type: 'RELATED_TO', fact: $fact, chunk_ids: [$cid], "
                        "embedding: vecf32($v)}]->(b)",
                        {"a": f"Location:{a.lower()}", "b": f"Location:{b.lower()}", "fact": text,
                         "cid": f"{doc}#0", "v": vec[text]})


async def test_a_graph_of_the_previous_version_answers_then_finalize_upgrades_it(  # type: ignore[no-untyped-def]
        data_dir: Path, embedder) -> None:
    name = f"t_old_{uuid.uuid4().hex[:10]}"
    writer = await KnowledgeGraph.open(graph=name, data_dir=str(data_dir), embedder=embedder)
    try:
        await _write_old_graph(writer)
        await wait_for_indexes(writer.store)
    finally:
        await writer.close()
    kg = await KnowledgeGraph.open(graph=name, data_dir=str(data_dir), embedder=embedder)
    try:
        # opened read-only as it is: it answers, its co-mention edges read as facts (one item per pair)
        toolkit = GraphRAGToolkit(kg, read_only=True)
        old = await toolkit.retrieve("Which county is Van Hook Township in?", paths=["facts", "passages"])
        assert old.passages and old.passages[0].document_id == "vanhook"
        assert old.facts and all(f.fact in (SENTENCE, TYPED) for f in old.facts)
        assert sum(f.fact == SENTENCE for f in old.facts) == 6
        status = await kg.status()
        assert status.relation_types == {"RELATED_TO": 7} and status.unembedded == 0
        links = await toolkit.retrieve("Van Hook Township", paths=["exact_names", "links"])
        assert links.relations or links.facts

        report = await kg.finalize()
        assert report.regrouped == 6  # the ner document's edges; the llm one's typed relation stays an edge
        assert report.embedded.facts == 1
        assert await kg.store.ro_query("MATCH ()-[r:RELATES]->() RETURN r.fact") == [[TYPED]]
        rows = await kg.store.ro_query(
            "MATCH (e:__Entity__)-[:IN_FACT]->(f:__Fact__) RETURN f.text, f.chunk_ids, collect(e.name)")
        assert len(rows) == 1 and rows[0][:2] == [SENTENCE, ["vanhook#0"]] and set(rows[0][2]) == set(NAMES)
        assert (await kg.status()).relation_types == {"RELATED_TO": 7}
        new = await GraphRAGToolkit(kg, read_only=True).retrieve("Which county is Van Hook Township in?",
                                                                 paths=["facts"])
        assert [f.entities for f in new.facts if f.fact == SENTENCE] == [NAMES]
        assert [(f.source, f.target) for f in new.facts if f.fact == TYPED] == [("Ada Lovelace", "Charles Babbage")]
        again = await kg.finalize()
        assert again.regrouped == 0 and again.embedded.facts == 0
    finally:
        await kg.store.delete()
        await kg.close()
