"""Vector feedback: the question's embedding moved toward its best direct match, as a second dense signal.

A question of three or four hops names its first link only ("the spouse of the producer of Dolores
Claiborne"): the later links' passages share almost nothing with the question's vector. The best direct
match (the film's paragraph) names the next link (the producer), so the question's vector plus that passage's
stored vector points between the two, toward the passages about what the first passage names. This is
Rocchio's relevance feedback on the dense side, with the best match taken as relevant.

``moved = q + shift * p`` (both unit length; ``shift`` 1, ``PassageWeights.feedback_shift``). Its cosine to a
chunk ``c`` follows from two cosines the server computes, so no vector crosses the wire and nothing is
embedded again::

    cos(moved, c) = (cos(q, c) + shift * cos(p, c)) / sqrt(1 + shift**2 + 2 * shift * cos(q, p))

The chunks nearest to ``moved`` are looked for among the vector index's neighbours of ``p`` (those near ``q`` are
the vector candidates already) and are candidates; every candidate's cosine to ``moved`` is a feature of the passage
score (``PassageWeights.feedback``, weight 1). Both were chosen on fold A of the HotpotQA, 2Wiki and MuSiQue samples
together (``benchmarks/results/retrieval-weights-history.md``, "Vector feedback"). Bounds: one query for the search
(100 neighbours of the seed asked, ``k`` kept; with a document filter, an exact scan of at most 20,000 of their
chunks, as :func:`.candidates.vector_candidates`), and the feature of at most ``FEATURE_POOL`` candidates: their
cosines to the seed are read beside the search (the direct matches' by :func:`seed_cosines`, the first hop's by the
hop queries themselves), so it costs no round trip of its own."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store.graph import GraphStore
from ._cypher import VectorParam, cosine
from .candidates import FILTER_SCAN, WITH_TITLE, Candidate, candidate, index_breadth

__all__ = ["FEATURE_POOL", "SHIFT", "Feedback", "feedback_and_cosines", "feedback_cosines", "feedback_search",
           "seed_cosines"]

SHIFT = 1.0
"""How much of the seed passage's vector is added to the question's (both unit length)."""
FEATURE_POOL = 40
"""Candidates whose cosine to the moved vector is read, the best by score so far (those the feedback search found
have it already); the rest count 0. 200 gave the same recall@5 to the digit on the three samples, at 1 ms more."""
_SEED = "MATCH (s:Chunk {id: $seed}) WHERE s.embedding IS NOT NULL "
_TO_SEED = "(CASE WHEN c.embedding IS NULL THEN 0.0 ELSE 1 - vec.cosineDistance(s.embedding, c.embedding) END)"
"""A chunk's cosine to the seed's vector; 0 for a chunk written since the last finalize (no vector yet)."""


@dataclass
class Feedback:
    """The moved vector of one retrieve: its seed, and each chunk's cosine to it read so far (``near``)."""

    seed: str
    shift: float
    norm: float
    """``|q + shift * p|``, from the seed's cosine to the question."""
    near: dict[str, float]

    def cosine(self, question_cosine: float, seed_cosine: float) -> float:
        """A chunk's cosine to the moved vector, from its cosines to the question and to the seed."""
        return (question_cosine + self.shift * seed_cosine) / self.norm


def _norm(shift: float, seed_question_cosine: float) -> float:
    return math.sqrt(max(1e-12, 1.0 + shift * shift + 2.0 * shift * seed_question_cosine))


async def feedback_search(store: GraphStore, question: VectorParam, seed: Candidate, k: int,
                          document_ids: Sequence[str] | None = None,
                          shift: float = SHIFT) -> tuple[Feedback | None, list[Candidate]]:
    """The ``k`` chunks nearest to the question's vector moved toward ``seed``'s (each with its cosine to the
    question, like every candidate), and the :class:`Feedback` holding their cosines to it (None, and no chunk,
    when the seed has no vector yet)."""
    feedback, found, _ = await feedback_and_cosines(store, question, seed, k, (), document_ids, shift)
    return feedback, found


async def feedback_and_cosines(store: GraphStore, question: VectorParam, seed: Candidate, k: int,
                               chunk_ids: Sequence[str], document_ids: Sequence[str] | None = None,
                               shift: float = SHIFT) -> tuple[Feedback | None, list[Candidate], dict[str, float]]:
    """:func:`feedback_search`, and in the same query :func:`seed_cosines` of ``chunk_ids`` (the direct matches,
    whose feature needs them): one round trip for both."""
    norm = _norm(shift, seed.cosine)
    params: dict[str, Any] = {"v": question, "seed": seed.chunk_id, "k": int(k), "search": index_breadth(k),
                              "docs": list(document_ids or []), "scan": FILTER_SCAN, "shift": shift, "norm": norm,
                              "ids": list(chunk_ids)}
    near = f"({cosine('c')} + $shift * {_TO_SEED}) / $norm"
    if document_ids:
        found = "MATCH (c:Chunk) WHERE c.document_id IN $docs WITH s, c LIMIT $scan "
    else:
        found = ("CALL db.idx.vector.queryNodes('Chunk', 'embedding', $search, s.embedding) YIELD node "
                 "WITH s, node AS c ")
    rows = await store.ro_query(
        _SEED + found + f"WITH c, {near} AS near ORDER BY near DESC LIMIT $k " + WITH_TITLE
        + f"RETURN c.id AS id, c.document_id AS document_id, d.title AS title, {cosine('c')} AS cos, "
        "c.text AS text, c.heading AS heading, d.path AS path, near, true AS found "
        f"UNION ALL {_SEED}UNWIND $ids AS id MATCH (c:Chunk {{id: id}}) RETURN c.id AS id, null AS document_id, "
        f"null AS title, null AS cos, null AS text, null AS heading, null AS path, {_TO_SEED} AS near, "
        "false AS found", params)
    searched = [row for row in rows if row[8]]
    to_seed = {str(row[0]): float(row[7]) for row in rows if not row[8]}
    if not searched:  # the seed has no vector yet (or the filter's documents no chunk)
        return None, [], to_seed
    return (Feedback(seed.chunk_id, shift, norm, {str(row[0]): float(row[7]) for row in searched}),
            [candidate(row, "feedback") for row in searched], to_seed)


async def seed_cosines(store: GraphStore, seed: str, chunk_ids: Sequence[str]) -> dict[str, float]:
    """Each chunk's cosine to the ``seed`` chunk's vector (a chunk deleted meanwhile, or a seed without a vector,
    left out): read for the direct matches beside the feedback search, so the feature needs no later round trip."""
    if not chunk_ids:
        return {}
    rows = await store.ro_query(_SEED + f"UNWIND $ids AS id MATCH (c:Chunk {{id: id}}) RETURN c.id, {_TO_SEED}",
                                {"seed": seed, "ids": list(chunk_ids)})
    return {str(cid): float(to_seed) for cid, to_seed in rows}


async def feedback_cosines(store: GraphStore, feedback: Feedback, candidates: Sequence[Candidate]) -> None:
    """Fill ``feedback.near`` with the cosine to the moved vector of the ``candidates`` (at most ``FEATURE_POOL``)
    not in it yet: from the cosine to the seed their query read (``Candidate.seed_cosine``), else in one query
    (a chunk deleted meanwhile is left out)."""
    unread: dict[str, float] = {}
    for c in candidates[:FEATURE_POOL]:
        if c.chunk_id in feedback.near:
            continue
        if c.seed_cosine is not None:
            feedback.near[c.chunk_id] = feedback.cosine(c.cosine, c.seed_cosine)
        else:
            unread[c.chunk_id] = c.cosine
    if not unread:
        return
    for cid, to_seed in (await seed_cosines(store, feedback.seed, list(unread))).items():
        feedback.near[cid] = feedback.cosine(unread[cid], to_seed)
