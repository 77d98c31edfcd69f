"""``finalize``'s upgrade of graphs written before fact nodes: co-mention relations become one fact each.

Graphs written before this version store a co-mention sentence naming ``k`` entities as ``k(k-1)/2``
``RELATED_TO`` edges, each carrying the sentence and its own copy of the sentence's vector. Such a graph still
opens and answers (retrieval reads those edges as facts, one item per pair); ``finalize`` rewrites them into the
current shape: one ``__Fact__`` node per sentence, linked to each of its entities, embedded once.

Only the relations the ``ner`` extractor wrote are regrouped: ``RELATED_TO`` edges whose chunks belong to a
document whose stored plan names that extractor. A ``RELATED_TO`` relation written by the llm extractor or by
``add_facts`` is a typed relation and keeps its own edge. The graph is walked in windows of source node ids;
each window is rewritten in one atomic query, so an interrupted upgrade leaves a graph that still answers and
that the next ``finalize`` finishes.
"""

from __future__ import annotations

from typing import Any

from ..store.graph import GraphStore
from .ontology_store import CO_MENTION
from .writer import FACT_WRITE, fact_id

__all__ = ["NER_PLAN", "regroup_co_mentions"]

NER_PLAN = '"extractor": "ner"'
"""How a document's stored plan (JSON, sorted keys) names the ner extractor."""
_WINDOW = 2048
_STEP = "\nWITH count(*) AS _\n"
_WRITE = [
    FACT_WRITE,
    "UNWIND $edges AS p WITH p[0] AS source, p[1] AS edge "
    "MATCH (a)-[r:RELATES]->() WHERE id(a) = source AND id(r) = edge DELETE r",
]


async def regroup_co_mentions(store: GraphStore) -> int:
    """Rewrite the ner extractor's co-mention edges into fact nodes; returns how many edges were regrouped."""
    rows = await store.ro_query("MATCH (a)-[:RELATES {type: $t}]->() RETURN max(id(a))", {"t": CO_MENTION})
    if not rows or rows[0][0] is None:
        return 0
    max_id = int(rows[0][0])
    regrouped = 0
    for lo in range(0, max_id + 1, _WINDOW):
        edges = await store.ro_query(
            "MATCH (a:__Entity__) WHERE id(a) >= $lo AND id(a) < $hi "
            "MATCH (a)-[r:RELATES {type: $t}]->(b:__Entity__) RETURN id(a), id(r), a.id, b.id, r.fact, r.chunk_ids",
            {"lo": lo, "hi": lo + _WINDOW, "t": CO_MENTION})
        if not edges:
            continue
        ner_chunks = await _ner_chunks(store, {str(c) for *_, chunks in edges for c in chunks or []})
        facts: dict[str, dict[str, Any]] = {}
        moved: list[list[int]] = []
        for source, edge, src, dst, text, chunks in edges:
            kept = [str(c) for c in chunks or [] if str(c) in ner_chunks]
            if not kept or len(kept) < len(chunks or []):
                continue  # not (only) the ner extractor's: a typed relation that stays an edge
            fid = fact_id(CO_MENTION, str(text))
            row = facts.setdefault(fid, {"id": fid, "type": CO_MENTION, "text": str(text), "chunks": [],
                                         "members": []})
            row["chunks"] += [c for c in kept if c not in row["chunks"]]
            row["members"] += [e for e in (str(src), str(dst)) if e not in row["members"]]
            moved.append([int(source), int(edge)])
        if moved:
            await store.query(_STEP.join(_WRITE) + "\nRETURN 0", {"facts": list(facts.values()), "edges": moved})
            regrouped += len(moved)
    return regrouped


async def _ner_chunks(store: GraphStore, chunk_ids: set[str]) -> set[str]:
    """The chunks among ``chunk_ids`` whose document was ingested with the ner extractor."""
    rows = await store.ro_query(
        "UNWIND $ids AS cid MATCH (c:Chunk {id: cid}) MATCH (d:Document {id: c.document_id}) "
        "WHERE d.plan CONTAINS $plan RETURN c.id", {"ids": sorted(chunk_ids), "plan": NER_PLAN})
    return {str(c) for (c,) in rows}
