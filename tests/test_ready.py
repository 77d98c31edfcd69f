"""``finalize`` leaves the graph ready: every label and relationship type is read once after the last write, so the
first ``retrieve`` does not pay for applying the build's pending changes (``graphrag_agents.ingest.ready``)."""

from __future__ import annotations

from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph


async def test_finalize_reads_every_label_and_relationship_type_after_its_last_write(kg: KnowledgeGraph) -> None:
    # hotpotqa.corpus.jsonl, row hotpotqa-bb274af401b0 ("Jeff Porcaro"), its first two sentences
    await kg.ingest(text="Jeffrey Thomas Porcaro (April 1, 1954 – August 5, 1992) was an American drummer, songwriter, "
                         "and record producer. In a career that spanned more than 20 years, Porcaro was best known "
                         "for his work with the rock band Toto.", document_id="hotpotqa-bb274af401b0",
                    plan=IngestPlan(extractor="ner"))
    log: list[tuple[str, str]] = []
    query, ro_query = kg.store.query, kg.store.ro_query

    async def writing(statement, params=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        log.append(("write", statement))
        return await query(statement, params, *args, **kwargs)

    async def reading(statement, params=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        log.append(("read", statement))
        return await ro_query(statement, params, *args, **kwargs)

    kg.store.query = writing  # type: ignore[method-assign]
    kg.store.ro_query = reading  # type: ignore[method-assign]
    await kg.finalize(progress=False, entity_vectors="all")
    last_write = max(i for i, (kind, _) in enumerate(log) if kind == "write")
    after = [statement for _, statement in log[last_write + 1:]]
    types = [row[0] for row in await ro_query("CALL db.relationshipTypes()")]
    labels = [row[0] for row in await ro_query("CALL db.labels()")]
    assert {"MENTIONED_IN", "HAS_CHUNK"} <= set(types) and {"Chunk", "__Entity__"} <= set(labels)
    for name in types:
        assert any(f"[r:`{name}`]" in s for s in after), (name, after)
    for name in labels:
        assert any(f"(n:`{name}`)" in s for s in after), (name, after)
