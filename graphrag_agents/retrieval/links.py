"""The ``links`` path: facts around the entities found, walked hop by hop with a cap shared per hop.

The facts of an entity are its typed relations and the co-mention facts naming it (one item per fact, however
many of the hop's entities it names).

The walk is a beam: hop 1 reads the relations of the anchor entities, hop n those of the new entities that the
relations kept at hop n-1 reached. The total is capped at ``4 x top_k`` relations (40 at most) and each hop is
promised an equal share of that cap, so a busy first hop cannot crowd out the deeper ones; a share a hop does
not use passes on to the next hop, and what the last hop leaves is filled with the best relations the earlier
hops had to drop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..store.graph import GraphStore
from ._cypher import QueryVector, vector_param
from .facts import (
    DOC_FILTER,
    FACT_DOC_FILTER,
    FACT_RETURN,
    RELATION_RETURN,
    fact_hit,
    fact_members,
    has_fact_index,
    relation_hit,
)
from .hits import RelationHit
from .names import Anchor
from .unembedded_facts import Unembedded, fact_similarity, unembedded

__all__ = ["HOP_DECAY", "MAX_HOPS", "hop_shares", "links", "links_cap"]

MAX_HOPS = 5
HOP_DECAY = 0.8
"""A relation n hops out scores its fact's cosine times ``HOP_DECAY ** (n - 1)``."""
FANOUT = 100
"""Relations read per entity per hop: a hub with 10,000 relations costs no more than one with 100."""
_MAX_FRONTIER = 40
_EMBEDDED = Unembedded()


def links_cap(top_k: int) -> int:
    """Total relations ``links`` may return: 4 x ``top_k``, at most 40."""
    return max(1, min(4 * top_k, 40))


def hop_shares(cap: int, hops: int) -> list[int]:
    """The cap split evenly over the hops, the remainder going to the nearest ones."""
    return [cap // hops + (1 if i < cap % hops else 0) for i in range(hops)]


def _query(filtered: bool, by_chunk: bool = False) -> str:
    doc_filter = DOC_FILTER if filtered else ""
    clause, sim = fact_similarity("r", by_chunk)
    return (
        "UNWIND $frontier AS fid MATCH (e:__Entity__ {id: fid}) "
        "CALL { WITH e MATCH (e)-[r:RELATES]-(:__Entity__) WHERE NOT id(r) IN $seen RETURN r LIMIT $fanout } "
        "WITH DISTINCT r " + doc_filter + clause
        + "WITH r, startNode(r) AS a, endNode(r) AS b, "
        f"{sim} AS sim "
        f"RETURN 'typed' AS kind, [{RELATION_RETURN}] AS row, sim, id(r) AS nid ORDER BY sim DESC LIMIT $limit"
    )


def _fact_query(filtered: bool, by_chunk: bool = False) -> str:
    doc_filter = FACT_DOC_FILTER if filtered else ""
    clause, sim = fact_similarity("f", by_chunk)
    return (
        "UNWIND $frontier AS fid MATCH (e:__Entity__ {id: fid}) "
        "CALL { WITH e MATCH (e)-[:IN_FACT]->(f:__Fact__) WHERE NOT id(f) IN $seen_facts RETURN f LIMIT $fanout } "
        "WITH DISTINCT f " + doc_filter + clause
        + f"WITH f, {sim} AS sim ORDER BY sim DESC LIMIT $limit "
        + fact_members("sim")
        + f"RETURN 'fact' AS kind, [{FACT_RETURN}] AS row, sim, id(f) AS nid ORDER BY sim DESC"
    )


async def _hop(store: GraphStore, filtered: bool, indexed: bool, params: dict[str, Any],
               decay: float, hop: int, by_chunk: Unembedded = _EMBEDDED) -> tuple[list[RelationHit], list[int],
                                                                                  list[int]]:
    """One hop's relations and facts, best first, with the ids of the edges and fact nodes read (both kinds in
    one ``UNION ALL`` query: one round trip)."""
    query = _query(filtered, by_chunk.typed)
    if indexed:
        query += " UNION ALL " + _fact_query(filtered, by_chunk.grouped)
    found: list[RelationHit] = []
    edges: list[int] = []
    nodes: list[int] = []
    for kind, row, sim, nid in await store.ro_query(query, params):
        if kind == "typed":
            found.append(relation_hit(row, float(sim) * decay, "links", hop))
            edges.append(int(nid))
        else:
            found.append(fact_hit(row, float(sim) * decay, "links", hop))
            nodes.append(int(nid))
    found.sort(key=lambda h: -h.score)
    return found[:params["limit"]], edges, nodes


async def links(store: GraphStore, vector: QueryVector, anchors: Sequence[Anchor], top_k: int,
                expand_hops: int = 1, document_ids: Sequence[str] | None = None) -> list[RelationHit]:
    """Relations up to ``expand_hops`` (1-5) hops from ``anchors``, best first, each with its ``hop``.

    Score: cosine similarity of the relation's fact embedding to the question (for a fact without one, of the
    embedding of the chunk it was read from: :mod:`.unembedded_facts`), times ``0.8 ** (hop - 1)``.
    """
    hops = max(1, min(MAX_HOPS, int(expand_hops)))
    cap = links_cap(top_k)
    shares = hop_shares(cap, hops)
    frontier = list(dict.fromkeys(a.entity_id for a in anchors))[:_MAX_FRONTIER]
    visited = set(frontier)
    seen: list[int] = []
    seen_facts: list[int] = []
    kept: list[RelationHit] = []
    dropped: list[RelationHit] = []
    carry = 0
    v = vector_param(vector)
    indexed = bool(frontier) and await has_fact_index(store)
    by_chunk = await unembedded(store) if frontier else _EMBEDDED
    for hop in range(1, hops + 1):
        if not frontier:
            break
        budget = shares[hop - 1] + carry
        found, edges, nodes = await _hop(store, bool(document_ids), indexed, {
            "frontier": frontier, "seen": seen, "seen_facts": seen_facts, "fanout": FANOUT, "v": v,
            "docs": list(document_ids or []), "limit": cap,
        }, HOP_DECAY ** (hop - 1), hop, by_chunk)
        seen += edges
        seen_facts += nodes
        taken, rest = found[:budget], found[budget:]
        carry = budget - len(taken)
        kept += taken
        dropped += rest
        frontier = []
        for hit in taken:
            for end in hit.entity_ids:
                if end not in visited:
                    visited.add(end)
                    frontier.append(end)
        frontier = frontier[:_MAX_FRONTIER]
    room = cap - len(kept)
    if room > 0:
        kept += sorted(dropped, key=lambda h: -h.score)[:room]
    kept.sort(key=lambda h: (-h.score, h.hop))
    return kept
