"""Personalized PageRank over the candidates' entities, seeded by the question: a measured option, off by default.

HippoRAG 2 ranks passages by a PageRank walk that restarts at the question's entities and its best passages.
Here the walk runs on the candidates the chain search found (no wider): a graph of those chunks and the
non-hub entities MENTIONED_IN them (one read-only query, per chunk at most ``PER_CHUNK`` entities, hubs above
``bridge.HUB_MENTIONS`` mentions left out), restarting with probability ``RESTART`` at the question's anchors
(by their weight) and at the direct matches (by their cosine). A chunk's feature is its visit probability over
the best chunk's, in [0, 1]. ``Experiments.ppr`` (:mod:`._experiments`, set by ``benchmarks/`` only) weighs it in
the passage score; at 0 (always, outside a benchmark) the query is not run.
``benchmarks/results/retrieval-weights-history.md`` ("Personalized PageRank, again") has the measurements that keep
it off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..store.graph import GraphStore
from .bridge import HUB_MENTIONS
from .candidates import Candidate
from .names import Anchor

__all__ = ["PER_CHUNK", "RESTART", "STEPS", "ppr_feature"]

PER_CHUNK = 50
"""Entities read per candidate chunk."""
RESTART = 0.5
"""Probability of jumping back to the seeds at each step (HippoRAG 2's damping 0.5)."""
STEPS = 20
"""Power-iteration steps (the walk has converged to 1e-6 on the samples by then)."""


async def ppr_feature(store: GraphStore, merged: Mapping[str, Candidate],
                      anchors: Sequence[Anchor]) -> dict[str, float]:
    """Per candidate chunk, its personalized PageRank over the best chunk's (module docstring)."""
    if not merged:
        return {}
    rows = await store.ro_query(
        "UNWIND $ids AS cid MATCH (c:Chunk {id: cid}) "
        "CALL { WITH c MATCH (e:__Entity__)-[:MENTIONED_IN]->(c) WHERE outdegree(e, 'MENTIONED_IN') <= $hub "
        "RETURN e LIMIT $per } RETURN cid, collect(e.id)",
        {"ids": list(merged), "hub": HUB_MENTIONS, "per": PER_CHUNK})
    links: dict[str, set[str]] = {}
    for cid, entities in rows:
        chunk = f"c:{cid}"
        for eid in entities or []:
            links.setdefault(chunk, set()).add(f"e:{eid}")
            links.setdefault(f"e:{eid}", set()).add(chunk)
    seeds: dict[str, float] = {}
    for anchor in anchors:
        if f"e:{anchor.entity_id}" in links:
            seeds[f"e:{anchor.entity_id}"] = seeds.get(f"e:{anchor.entity_id}", 0.0) + anchor.weight
    for cid, cand in merged.items():
        if "vector" in cand.found_by or "fulltext" in cand.found_by:
            seeds[f"c:{cid}"] = seeds.get(f"c:{cid}", 0.0) + max(0.0, cand.cosine)
    total = sum(seeds.values())
    if total <= 0:
        return {}
    start = {node: w / total for node, w in seeds.items()}
    rank = dict(start)
    for _ in range(STEPS):
        nxt = {node: RESTART * w for node, w in start.items()}
        for node, mass in rank.items():
            out = links.get(node)
            if not out:
                nxt[node] = nxt.get(node, 0.0) + (1 - RESTART) * mass  # a node with no links keeps its mass
                continue
            share = (1 - RESTART) * mass / len(out)
            for other in out:
                nxt[other] = nxt.get(other, 0.0) + share
        rank = nxt
    chunks = {cid: rank.get(f"c:{cid}", 0.0) for cid in merged}
    best = max(chunks.values(), default=0.0)
    return {cid: value / best for cid, value in chunks.items()} if best > 0 else {}
