"""``retrieve``: run the five search paths for a question concurrently and collect their scored hits.

No LLM call happens here: the only model used is the embedder, once, for the question. Every query is
read-only (``GRAPH.RO_QUERY``), takes the question's words and vector as parameters, and is bounded.

The paths share one step: finding the question's entities (``exact_names`` + ``fuzzy_names``), which are also
the anchors ``links`` walks from and whose mentions ``passages`` reads. It runs once, concurrently with the
searches that do not need it (facts, chunk vector and keyword search), and only the entity paths asked for
are reported.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ..models.embedder import Embedder
from ..store.graph import GraphStore
from ._cypher import VectorParam
from ._tasks import cancel_all
from .content_words import content_words
from .facts import facts
from .hits import EntityHit, PassageHit, RelationHit, RetrievalHits
from .links import links
from .names import Anchor, add_cards, anchors_from, exact_names, fuzzy_names
from .passages import keywords_first, passages

__all__ = ["ALL_PATHS", "MAX_TOP_K", "retrieve"]

ALL_PATHS = ("facts", "exact_names", "fuzzy_names", "links", "passages")
MAX_TOP_K = 100


def _paths(paths: Sequence[str] | None) -> list[str]:
    if not paths:
        return list(ALL_PATHS)
    unknown = [p for p in paths if p not in ALL_PATHS]
    if unknown:
        raise ValueError(f"unknown retrieve path(s) {', '.join(map(repr, unknown))}; "
                         f"valid paths are: {', '.join(ALL_PATHS)}")
    return [p for p in ALL_PATHS if p in paths]


async def retrieve(store: GraphStore, embedder: Embedder, question: str, *, paths: Sequence[str] | None = None,
                   top_k: int = 10, expand_hops: int = 1, document_ids: Sequence[str] | None = None,
                   min_score: float | None = None) -> RetrievalHits:
    """Search the graph for ``question`` along ``paths`` (default: all five), concurrently.

    Args:
        paths: any of ``facts``, ``exact_names``, ``fuzzy_names``, ``links``, ``passages``.
        top_k: items per path (1-100); ``links`` returns up to 4 x ``top_k`` relations (40 at most).
        expand_hops: how far ``links`` walks from the entities found (1-5).
        document_ids: only what these documents hold (passages in them, entities mentioned in them,
            relations whose facts come from them); None or empty = everything.
        min_score: drop every item scoring below this (scores are in [0, 1], higher is better).

    Returns:
        :class:`RetrievalHits`: ``entities`` (exact then fuzzy matches), ``relations`` (links), ``facts`` and
        ``passages``, each best first and scored as its module documents.

    Raises:
        ValueError: an unknown path name.
    """
    chosen = _paths(paths)
    top_k = max(1, min(MAX_TOP_K, int(top_k)))
    docs = list(document_ids) if document_ids else None
    hits = RetrievalHits(question=question, paths_run=chosen)

    need_entities = bool({"exact_names", "fuzzy_names", "links", "passages"} & set(chosen))
    need_exact = bool({"exact_names", "links", "passages"} & set(chosen))
    # the queries that need no vector run while the question is being embedded
    exact_task: asyncio.Future[list[EntityHit]] = asyncio.ensure_future(
        exact_names(store, question, top_k, docs) if need_exact else _empty())
    keyword_task: asyncio.Future[Any] | None = asyncio.ensure_future(
        keywords_first(store, question, top_k, docs)) if "passages" in chosen else None
    try:
        vector = VectorParam((await embedder.aembed([question]))[0].tolist())
    except BaseException:
        await cancel_all([exact_task] + ([keyword_task] if keyword_task else []))
        raise
    fuzzy_task: asyncio.Future[list[EntityHit]] = asyncio.ensure_future(
        fuzzy_names(store, question, vector, top_k + 5, docs) if need_entities else _empty())

    async def anchors() -> list[Anchor]:
        exact, fuzzy = await asyncio.gather(asyncio.shield(exact_task), asyncio.shield(fuzzy_task))
        return anchors_from(exact, fuzzy)

    async def run_links() -> list[RelationHit]:
        return await links(store, vector, await anchors(), top_k, expand_hops, docs)

    async def entities() -> list[EntityHit]:
        exact, fuzzy = await asyncio.gather(asyncio.shield(exact_task), asyncio.shield(fuzzy_task))
        # an entity both paths find is reported once, as exact; alone, fuzzy_names reports it itself
        named = {h.entity_id for h in exact} if "exact_names" in chosen else set()
        fuzzy = [h for h in fuzzy if h.entity_id not in named][:top_k]
        found = (exact if "exact_names" in chosen else []) + (fuzzy if "fuzzy_names" in chosen else [])
        # read for the hits reported only: the name queries' rows are more (on HotpotQA and 2Wiki, reading every
        # row's card in them cost more server time than this query)
        await add_cards(store, found)  # the entity cards' documents and aliases
        return found

    tasks: list[asyncio.Future[Any]] = [exact_task, fuzzy_task] + ([keyword_task] if keyword_task else [])
    facts_task: asyncio.Future[list[RelationHit]] = asyncio.ensure_future(
        facts(store, vector, top_k, docs, question) if "facts" in chosen else _empty())
    links_task: asyncio.Future[list[RelationHit]] = asyncio.ensure_future(
        run_links() if "links" in chosen else _empty())
    passages_task: asyncio.Future[list[PassageHit]] = asyncio.ensure_future(
        passages(store, question, vector, top_k, anchors=anchors(), document_ids=docs, keywords=keyword_task)
        if "passages" in chosen else _empty())
    entities_task: asyncio.Future[list[EntityHit]] = asyncio.ensure_future(entities())
    tasks += [facts_task, links_task, passages_task, entities_task]
    try:
        hits.entities, hits.facts, hits.relations, hits.passages = await asyncio.gather(
            entities_task, facts_task, links_task, passages_task)
    except BaseException:
        await cancel_all(tasks)
        raise
    if hits.facts or hits.relations:
        hits.question_words = await content_words(store, question)
    if min_score is not None:
        hits.entities = [h for h in hits.entities if h.score >= min_score]
        hits.relations = [h for h in hits.relations if h.score >= min_score]
        hits.facts = [h for h in hits.facts if h.score >= min_score]
        hits.passages = [h for h in hits.passages if h.score >= min_score]
    return hits


async def _empty() -> list[Any]:
    return []
