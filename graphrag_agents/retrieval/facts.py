"""The ``facts`` path: vector search over the stored facts.

Two kinds of fact are searched together. A typed relation carries its own fact and vector on its ``RELATES``
edge; a co-mention fact (the ``ner`` extractor's sentence naming several entities) is one ``__Fact__`` node with
one vector, linked to every entity it names, so a sentence naming four entities is one hit, not six.

A graph written before fact nodes existed (its co-mention facts still on ``RELATES`` edges) has no fact index
until its next write or ``finalize``; it is searched through its edges alone, and ``finalize`` regroups them
(see :mod:`~graphrag_agents.ingest.regroup`).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from ..store.graph import GraphStore
from ._cypher import QueryVector, vector_param
from ._tasks import all_or_none
from .hits import FactEntity, RelationHit

__all__ = ["DOC_FILTER", "FACT_DOC_FILTER", "FACT_RETURN", "RELATION_RETURN", "fact_hit", "fact_members", "facts",
           "has_fact_index", "relation_hit"]

_MAX_POOL = 200

RELATION_RETURN = ("a.name, a.label, r.type, b.name, b.label, r.fact, r.chunk_ids, a.id, b.id")
"""The columns :func:`relation_hit` reads, for a match that binds ``(a)-[r]->(b)``."""

FACT_RETURN = "f.id, f.type, f.text, f.chunk_ids, members"
"""The columns :func:`fact_hit` reads, for a fact node ``f`` and ``members = collect([id, name, label])``."""



def fact_members(keep: str) -> str:
    """Cypher collecting the entities of each fact ``f`` as ``members``, keeping the variable ``keep``."""
    assert keep.isidentifier()
    return f"MATCH (m:__Entity__)-[:IN_FACT]->(f) WITH f, {keep}, collect([m.id, m.name, m.label]) AS members "

DOC_FILTER = (
    "CALL { WITH r UNWIND r.chunk_ids AS cid MATCH (c:Chunk {id: cid}) WHERE c.document_id IN $docs "
    "RETURN c LIMIT 1 } "
)
"""Keeps a relation ``r`` only when one of its chunks belongs to a document in ``$docs``."""

FACT_DOC_FILTER = DOC_FILTER.replace("WITH r UNWIND r.", "WITH f UNWIND f.")
"""Keeps a fact node ``f`` only when one of its chunks belongs to a document in ``$docs``."""

# Stores whose graph has the fact index. Only a yes is remembered: the index, once built, is never dropped.
_indexed: weakref.WeakKeyDictionary[GraphStore, bool] = weakref.WeakKeyDictionary()


async def has_fact_index(store: GraphStore) -> bool:
    """Whether the graph has the ``__Fact__`` vector index (a graph not written since before fact nodes has not)."""
    if _indexed.get(store):
        return True
    rows = await store.ro_query("CALL db.indexes() YIELD label, types WHERE label = '__Fact__' RETURN types")
    found = any("embedding" in dict(types) for (types,) in rows)
    if found:
        _indexed[store] = True
    return found


def relation_hit(row: Sequence[Any], score: float, path: str, hop: int = 0) -> RelationHit:
    """A :class:`RelationHit` from the :data:`RELATION_RETURN` columns of a row."""
    src, src_label, rel_type, dst, dst_label, fact, chunk_ids, src_id, dst_id = row[:9]
    return RelationHit(
        source=str(src), source_label=str(src_label or ""), type=str(rel_type or ""), target=str(dst),
        target_label=str(dst_label or ""), fact=str(fact or ""), score=round(max(0.0, score), 4), path=path,
        hop=hop, chunk_ids=[str(c) for c in (chunk_ids or [])], source_id=str(src_id), target_id=str(dst_id),
    )


def fact_hit(row: Sequence[Any], score: float, path: str, hop: int = 0) -> RelationHit:
    """A co-mention :class:`RelationHit` from the :data:`FACT_RETURN` columns of a row.

    Its entities are ordered as the sentence names them (then by name), so the item reads like the sentence.
    """
    fid, fact_type, text, chunk_ids, members = row[:5]
    text = str(text or "")
    folded = text.casefold()
    ents = {str(m[0]): FactEntity(str(m[0]), str(m[1]), str(m[2] or "")) for m in members or []}

    def place(e: FactEntity) -> tuple[int, str]:
        at = folded.find(e.name.casefold())
        return (at if at >= 0 else len(folded), e.name)

    return RelationHit(
        source="", source_label="", type=str(fact_type or ""), target="", target_label="", fact=text,
        score=round(max(0.0, score), 4), path=path, hop=hop, chunk_ids=[str(c) for c in (chunk_ids or [])],
        entities=sorted(ents.values(), key=place), fact_id=str(fid),
    )


async def facts(store: GraphStore, vector: QueryVector, top_k: int,
                document_ids: Sequence[str] | None = None, question: str = "") -> list[RelationHit]:
    """The ``top_k`` facts (typed relations and co-mention facts) whose text is nearest to the question.

    Score: cosine similarity of the fact's embedding to the question's (FalkorDB returns the cosine
    *distance*; similarity = 1 - distance), in [0, 1] for the texts that occur in practice. With a
    ``document_ids`` filter, more neighbours are fetched (up to 200) and those without a chunk in the
    documents dropped, since the vector index cannot filter while it searches. A kind of fact the graph holds
    without vectors (co-mention facts, by default) is found among the facts of the chunks nearest the question
    instead, scored by their chunk's similarity (:mod:`.unembedded_facts`).
    """
    from .unembedded_facts import facts_by_passage, unembedded  # it builds on this module

    missing = await unembedded(store)
    if missing.typed or missing.grouped:
        found = [facts_by_passage(store, vector, top_k, question, document_ids, typed=missing.typed,
                                  grouped=missing.grouped)]
        if not missing.typed:
            found.append(_typed_facts(store, vector, top_k, document_ids))
        hits = [h for part in await all_or_none(*found) for h in part]
        hits.sort(key=lambda h: -h.score)  # stable: facts of one chunk keep their order
        return hits[:top_k]
    if not await has_fact_index(store):
        return await _typed_facts(store, vector, top_k, document_ids)
    # both kinds in one query (one round trip; FalkorDB answers the union a little faster than the two)
    rows = await store.ro_query(_typed_query(document_ids, f"'typed' AS kind, [{RELATION_RETURN}] AS row")
                                + " UNION ALL " + _fact_query(document_ids), _params(vector, top_k, document_ids))
    hits = [(relation_hit if kind == "typed" else fact_hit)(row, 1.0 - float(score), "facts")
            for kind, row, score in rows]
    hits.sort(key=lambda h: -h.score)  # stable: the typed facts first among equal scores, as before
    return hits[:top_k]


def _params(vector: QueryVector, top_k: int, document_ids: Sequence[str] | None) -> dict[str, Any]:
    k = min(_MAX_POOL, top_k * 5) if document_ids else top_k
    return {"k": int(k), "v": vector_param(vector), "docs": list(document_ids or []), "top": int(top_k)}


def _typed_query(document_ids: Sequence[str] | None, columns: str) -> str:
    return ("CALL db.idx.vector.queryRelationships('RELATES', 'embedding', $k, vecf32($v)) "
            "YIELD relationship, score WITH relationship AS r, score "
            + (DOC_FILTER if document_ids else "")
            + f"WITH r, score, startNode(r) AS a, endNode(r) AS b RETURN {columns}, score "
            "ORDER BY score ASC LIMIT $top")


def _fact_query(document_ids: Sequence[str] | None) -> str:
    return ("CALL db.idx.vector.queryNodes('__Fact__', 'embedding', $k, vecf32($v)) YIELD node, score "
            "WITH node AS f, score " + (FACT_DOC_FILTER if document_ids else "") + fact_members("score")
            + f"RETURN 'fact' AS kind, [{FACT_RETURN}] AS row, score ORDER BY score ASC LIMIT $top")


async def _typed_facts(store: GraphStore, vector: QueryVector, top_k: int,
                       document_ids: Sequence[str] | None) -> list[RelationHit]:
    """The typed relations whose fact vectors are nearest to the question."""
    rows = await store.ro_query(_typed_query(document_ids, RELATION_RETURN), _params(vector, top_k, document_ids))
    return [relation_hit(row, 1.0 - float(row[9]), "facts") for row in rows]
