"""Facts without vectors (a graph finalized with ``fact_vectors="none"``): found and ordered through their chunks.

Such a graph has no fact vector to search or to order by, so

* the ``facts`` path returns the facts stated in the chunks nearest the question (:func:`facts_by_passage`), each
  scored by its chunk's cosine similarity to the question, ties broken by the share of the question's words the
  fact holds;
* ``links`` orders the relations it walks by the cosine of the chunk each was read from
  (:func:`fact_similarity`), instead of its fact's.

Whether a graph's facts have vectors is the ``fact_vectors`` rule its last ``finalize`` stored, read once per
:data:`RULE_TTL_S` per store (a ``finalize`` in this process forgets it at once, see :func:`forget_rules`).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Sequence

from ..store.graph import GraphStore
from ._cypher import QueryVector, cosine, vector_param
from .facts import FACT_RETURN, RELATION_RETURN, fact_hit, fact_members, relation_hit
from .fulltext import query_terms
from .hits import RelationHit

__all__ = ["RULE_TTL_S", "fact_similarity", "fact_vectors_off", "facts_by_passage", "forget_rules"]

RULE_TTL_S = 10.0
"""How long a store's ``fact_vectors`` rule is trusted before it is read again."""
_PER_CHUNK = 5  # facts read per chunk (a chunk rarely states more that matter)

_rules: weakref.WeakKeyDictionary[GraphStore, tuple[float, bool]] = weakref.WeakKeyDictionary()


async def fact_vectors_off(store: GraphStore) -> bool:
    """Whether the graph's last ``finalize`` left its facts without vectors (``fact_vectors="none"``)."""
    seen = _rules.get(store)
    if seen is not None and time.monotonic() - seen[0] < RULE_TTL_S:
        return seen[1]
    rows = await store.ro_query("MATCH (m:__Meta__ {key: 'graph'}) RETURN m.fact_vectors LIMIT 1")
    off = bool(rows) and rows[0][0] == "none"
    _rules[store] = (time.monotonic(), off)
    return off


def forget_rules(store: GraphStore) -> None:
    """Drop what :func:`fact_vectors_off` remembers of ``store`` (its rules just changed)."""
    _rules.pop(store, None)


def fact_similarity(var: str, by_chunk: bool) -> tuple[str, str]:
    """Cypher scoring fact ``var`` (a ``RELATES`` edge or a ``__Fact__`` node) against ``$v``: a clause to put
    before the ``WITH`` that uses it, and the expression. By its fact's vector, or (``by_chunk``) by the vector
    of the first chunk it was read from."""
    assert var.isidentifier()
    if not by_chunk:
        return "", cosine(var)
    return f"OPTIONAL MATCH (fact_chunk:Chunk {{id: {var}.chunk_ids[0]}}) ", cosine("fact_chunk")


async def facts_by_passage(store: GraphStore, vector: QueryVector, top_k: int, question: str,
                           document_ids: Sequence[str] | None = None) -> list[RelationHit]:
    """The ``top_k`` facts stated in the chunks nearest the question, best first (see the module docstring)."""
    k = max(top_k, 10) * (3 if document_ids else 1)
    params = {"k": int(k), "v": vector_param(vector), "docs": list(document_ids or []),
              "pool": int(top_k * _PER_CHUNK)}
    chunks = ("CALL db.idx.vector.queryNodes('Chunk', 'embedding', $k, vecf32($v)) YIELD node, score "
              "WITH node AS c, 1 - score AS sim " + ("WHERE c.document_id IN $docs " if document_ids else "")
              + "MATCH (e:__Entity__)-[:MENTIONED_IN]->(c) ")
    typed = store.ro_query(
        chunks + "MATCH (e)-[r:RELATES]->(:__Entity__) WHERE c.id IN r.chunk_ids "
        "WITH r, max(sim) AS score ORDER BY score DESC LIMIT $pool "
        f"WITH r, score, startNode(r) AS a, endNode(r) AS b RETURN {RELATION_RETURN}, score", params)
    grouped = store.ro_query(
        chunks + "MATCH (e)-[:IN_FACT]->(f:__Fact__) WHERE c.id IN f.chunk_ids "
        "WITH f, max(sim) AS score ORDER BY score DESC LIMIT $pool "
        + fact_members("score") + f"RETURN {FACT_RETURN}, score", params)
    typed_rows, fact_rows = await asyncio.gather(typed, grouped)
    hits = [relation_hit(row, float(row[9]), "facts") for row in typed_rows]
    hits += [fact_hit(row, float(row[5]), "facts") for row in fact_rows]
    asked = set(query_terms(question))

    def covered(hit: RelationHit) -> float:
        words = set(query_terms(hit.fact))
        return len(words & asked) / len(asked) if asked else 0.0

    hits.sort(key=lambda h: (-h.score, -covered(h), h.fact))
    return hits[:top_k]
