"""Facts without vectors: found and ordered through the vectors of the chunks that state them.

``finalize`` embeds co-mention facts (``__Fact__`` nodes: a sentence of a chunk) only under
``fact_vectors="all"``, and typed relations' facts unless ``fact_vectors="none"``. For a kind without vectors,

* the ``facts`` path returns the facts of that kind stated in the chunks nearest the question
  (:func:`facts_by_passage`: 10 chunks, 100 facts read per entity they mention), each scored by its chunk's cosine
  similarity to the question, ties broken by the share of the question's words the fact holds;
* ``links`` orders the relations it walks by the cosine of the chunk each was read from
  (:func:`fact_similarity`), instead of its fact's.

Which kinds have vectors follows the ``fact_vectors`` rule the graph's last ``finalize`` stored (none stored: a
graph finalized by an earlier version, every fact embedded), read once per :data:`RULE_TTL_S` per store (a
``finalize`` in this process forgets it at once, see :func:`forget_rules`).
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from ..store.graph import GraphStore
from ._cypher import QueryVector, cosine, vector_param
from ._tasks import all_or_none
from .facts import FACT_RETURN, RELATION_RETURN, fact_hit, fact_members, relation_hit
from .fulltext import query_terms
from .hits import RelationHit

__all__ = ["FANOUT", "RULE_TTL_S", "Unembedded", "fact_similarity", "facts_by_passage", "forget_rules", "unembedded"]

RULE_TTL_S = 10.0
"""How long a store's ``fact_vectors`` rule is trusted before it is read again."""
_PER_CHUNK = 5  # facts kept per chunk asked for (a chunk rarely states more that matter)
FANOUT = 100
"""Facts read per entity of a chunk (as ``links`` reads them): a hub named in 10,000 facts costs no more than one
named in 100. A fact of the chunk is still found through any of its other entities."""

@dataclass(frozen=True)
class Unembedded:
    """Which kinds of fact a graph holds without vectors."""

    typed: bool = False
    """Typed relations' facts (``RELATES`` edges): under ``fact_vectors="none"``."""
    grouped: bool = False
    """Co-mention facts (``__Fact__`` nodes): under ``"typed"`` and ``"none"``."""


_rules: weakref.WeakKeyDictionary[GraphStore, tuple[float, Unembedded]] = weakref.WeakKeyDictionary()


async def unembedded(store: GraphStore) -> Unembedded:
    """Which kinds of fact the graph's last ``finalize`` left without vectors."""
    seen = _rules.get(store)
    if seen is not None and time.monotonic() - seen[0] < RULE_TTL_S:
        return seen[1]
    rows = await store.ro_query("MATCH (m:__Meta__ {key: 'graph'}) RETURN m.fact_vectors LIMIT 1")
    rule = rows[0][0] if rows else None
    found = Unembedded(typed=rule == "none", grouped=rule in ("typed", "none"))
    _rules[store] = (time.monotonic(), found)
    return found


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
                           document_ids: Sequence[str] | None = None, *, typed: bool = True,
                           grouped: bool = True) -> list[RelationHit]:
    """The ``top_k`` facts (typed relations when ``typed``, co-mention facts when ``grouped``) stated in the chunks
    nearest the question, best first (see the module docstring)."""
    k = max(top_k, 10) * (3 if document_ids else 1)
    params = {"k": int(k), "v": vector_param(vector), "docs": list(document_ids or []),
              "pool": int(top_k * _PER_CHUNK), "fanout": FANOUT}
    chunks = ("CALL db.idx.vector.queryNodes('Chunk', 'embedding', $k, vecf32($v)) YIELD node, score "
              "WITH node AS c, 1 - score AS sim " + ("WHERE c.document_id IN $docs " if document_ids else "")
              + "MATCH (e:__Entity__)-[:MENTIONED_IN]->(c) ")
    queries = []
    if typed:
        queries.append(store.ro_query(
            chunks + "CALL { WITH e MATCH (e)-[r:RELATES]->(:__Entity__) RETURN r LIMIT $fanout } "
            "WITH c, sim, r WHERE c.id IN r.chunk_ids "
            "WITH r, max(sim) AS score ORDER BY score DESC LIMIT $pool "
            f"WITH r, score, startNode(r) AS a, endNode(r) AS b RETURN {RELATION_RETURN}, score", params))
    if grouped:
        queries.append(store.ro_query(
            chunks + "CALL { WITH e MATCH (e)-[:IN_FACT]->(f:__Fact__) RETURN f LIMIT $fanout } "
            "WITH c, sim, f WHERE c.id IN f.chunk_ids "
            "WITH f, max(sim) AS score ORDER BY score DESC LIMIT $pool "
            + fact_members("score") + f"RETURN {FACT_RETURN}, score", params))
    results = await all_or_none(*queries)
    hits: list[RelationHit] = []
    for rows in results:
        for row in rows:
            hits.append(fact_hit(row, float(row[5]), "facts") if len(row) == 6
                        else relation_hit(row, float(row[9]), "facts"))
    asked = set(query_terms(question))

    def covered(hit: RelationHit) -> float:
        words = set(query_terms(hit.fact))
        return len(words & asked) / len(asked) if asked else 0.0

    hits.sort(key=lambda h: (-h.score, -covered(h), h.fact))
    return hits[:top_k]
