"""Retrieval measurements for one question: ``retrieve`` (all paths), each path alone, and the dense baseline.

Every measurement ends as a ranked list of *paragraph* (document) ids, best first, without repeats; recall@k
is then computed on its first k ids (:mod:`.metrics`). How each kind of item maps to paragraphs:

* ``retrieve`` (all paths) and ``passages``: each passage -> its document, then the documents of the copies folded
  into it (the same text standing in several places is one passage naming each), in the order returned.
* ``facts`` and ``links``: each relation -> the documents of its ``chunk_ids`` (the chunks its fact sentence
  came from), in the order returned.
* ``exact_names`` and ``fuzzy_names``: an entity is not a place in a text but a pointer to every chunk it is
  ``MENTIONED_IN``. A document scores the sum of the scores of the path's entities mentioned in it; documents
  rank by that sum (ties: the best-ranked entity first, then the id). A paragraph naming two of the entities
  found outranks one naming a single entity.
* dense baseline: ``passages.dense_passages`` (chunk vector search alone) -> documents, in order.

Every call asks for ``top_k`` = the largest k measured. Latency is wall time of the call including the
question's embedding; the mapping queries run outside the timed part.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..evidence import EvidenceLedger
from ..kg import KnowledgeGraph
from ..retrieval.hits import EntityHit, RelationHit, RetrievalHits
from ..retrieval.passages import dense_passages
from ..tools.read_tools import number_retrieval
from ..tools.results import EntityItem, RelationItem, RetrieveResult
from .dataset import Question
from .metrics import all_gold_at_k, recall_at_k, unique

__all__ = ["PATHS", "Measurement", "measure_question", "path_documents"]

PATHS = ("passages", "facts", "exact_names", "fuzzy_names", "links")
"""The retrieve paths measured one by one (``paths=[p]``)."""


@dataclass
class Measurement:
    """One method's result for one question."""

    docs: list[str]
    """Distinct paragraph ids, best first (cut to the largest k by :meth:`score`)."""
    ms: float
    """Wall time of the call, milliseconds."""
    items: int
    """Items returned (passages, entities, relations, facts)."""
    chars: int
    """Characters of the items' text."""
    recall: dict[str, float] = field(default_factory=dict)
    """recall@k by k (as a string, for JSON)."""
    all_gold: dict[str, bool] = field(default_factory=dict)
    """all-gold@k by k."""
    llm_chars: int = 0
    """Characters of the rendered evidence a model reads (``to_llm_text()``, 4,400 at most); retrieve only."""

    def score(self, gold: Sequence[str], ks: Sequence[int]) -> Measurement:
        """Keep the first ``max(ks)`` paragraphs and fill :attr:`recall` and :attr:`all_gold` for each k."""
        self.docs = self.docs[:max(ks)]
        self.recall = {str(k): round(recall_at_k(self.docs, gold, k), 4) for k in ks}
        self.all_gold = {str(k): all_gold_at_k(self.docs, gold, k) for k in ks}
        return self


async def _chunk_documents(kg: KnowledgeGraph, chunk_ids: Sequence[str]) -> dict[str, str]:
    if not chunk_ids:
        return {}
    rows = await kg.store.ro_query("UNWIND $ids AS cid MATCH (c:Chunk {id: cid}) RETURN cid, c.document_id",
                                   {"ids": list(dict.fromkeys(chunk_ids))})
    return {str(c): str(d) for c, d in rows}


async def _entity_documents(kg: KnowledgeGraph, entity_ids: Sequence[str]) -> dict[str, list[str]]:
    if not entity_ids:
        return {}
    rows = await kg.store.ro_query(
        "UNWIND $ids AS eid MATCH (:__Entity__ {id: eid})-[:MENTIONED_IN]->(c:Chunk) "
        "RETURN DISTINCT eid, c.document_id", {"ids": list(dict.fromkeys(entity_ids))})
    found: dict[str, list[str]] = {}
    for eid, doc in rows:
        found.setdefault(str(eid), []).append(str(doc))
    return found


def _relation_docs(relations: Sequence[RelationHit], chunk_docs: dict[str, str]) -> list[str]:
    return unique(chunk_docs[c] for r in relations for c in r.chunk_ids if c in chunk_docs)


def _entity_docs(entities: Sequence[EntityHit], mentions: dict[str, list[str]]) -> list[str]:
    votes: dict[str, tuple[float, int]] = {}
    for rank, entity in enumerate(entities):
        for doc in mentions.get(entity.entity_id, []):
            total, best = votes.get(doc, (0.0, rank))
            votes[doc] = (total + entity.score, min(best, rank))
    return sorted(votes, key=lambda d: (-votes[d][0], votes[d][1], d))


async def path_documents(kg: KnowledgeGraph, hits: RetrievalHits, path: str) -> list[str]:
    """The distinct paragraph ids ``path``'s items in ``hits`` point to, best first (rules: module docstring)."""
    if path == "passages":  # a passage folded from copies names every source, its own first
        return unique(d for p in hits.passages for d in p.document_ids)
    if path in ("facts", "links"):
        relations = hits.facts if path == "facts" else hits.relations
        return _relation_docs(relations, await _chunk_documents(kg, [c for r in relations for c in r.chunk_ids]))
    if path in ("exact_names", "fuzzy_names"):
        entities = [e for e in hits.entities if e.path == path]
        return _entity_docs(entities, await _entity_documents(kg, [e.entity_id for e in entities]))
    raise ValueError(f"unknown retrieve path {path!r}; known paths: {', '.join(PATHS)}")


def _items_and_chars(hits: RetrievalHits) -> tuple[int, int]:
    """Items ``retrieve`` returns for ``hits`` and the characters of their texts (what a reader gets).

    Counted on the numbered result: a fact found by both fact paths is one item, a co-mention fact a returned
    passage states is not returned, and a typed relation there shows no text of its own.
    """
    result = number_retrieval(EvidenceLedger(), hits)
    texts = [p.text for p in result.passages]
    texts += [f"{e.name} {e.description}" for e in result.entities]
    texts += [r.ends() + ("" if r.in_passage is not None else " " + r.fact) for r in (*result.relations,
                                                                                         *result.facts)]
    return len(texts), sum(len(t) for t in texts)


def _relation_key(r: RelationHit | RelationItem) -> tuple[str, str, str, tuple[str, ...], str]:
    names = tuple(e if isinstance(e, str) else e.name for e in r.entities)
    return r.source, r.type, r.target, names, r.fact


def _shown_entities(result: RetrieveResult, hits: RetrievalHits) -> list[tuple[EntityItem, EntityHit]]:
    """Each numbered entity card with the hit it was numbered from: the cards are the hits in order, less those
    that did not earn a place beside the passages (:mod:`~graphrag_agents.tools.earned`)."""
    pairs: list[tuple[EntityItem, EntityHit]] = []
    remaining = iter(hits.entities)
    for item in result.entities:
        for hit in remaining:
            if (hit.name, hit.label) == (item.name, item.label):
                pairs.append((item, hit))
                break
    return pairs


def evidence_items(result: RetrieveResult, hits: RetrievalHits, gold: Sequence[str], chunk_docs: dict[str, str],
                   entity_docs: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The numbered evidence of a retrieve result as plain rows for the report, in number order.

    Each row is flagged ``gold`` when the item comes from a supporting paragraph: a passage of one, a relation
    whose fact sentence is in one, an entity mentioned in one. ``result`` must be ``hits`` numbered without a
    score floor; its entity cards are matched to those of ``hits`` in order, by name and type (relations by source,
    type, target and fact).
    """
    gold_set = set(gold)
    rows: list[dict[str, Any]] = []
    for item, e in _shown_entities(result, hits):
        rows.append({"n": item.n, "kind": "entity", "title": e.path, "score": e.score,
                     "gold": any(d in gold_set for d in entity_docs.get(e.entity_id, [])),
                     "text": f"{e.name} ({e.label})" + (f": {e.description}" if e.description else "")})
    found = {_relation_key(r): r for r in (*hits.relations, *hits.facts)}
    for kind, items in (("relation", result.relations), ("fact", result.facts)):
        for rel in items:
            r = found[_relation_key(rel)]
            rows.append({"n": rel.n, "kind": kind, "title": rel.ends(),
                         "score": r.score, "gold": any(chunk_docs.get(c) in gold_set for c in r.chunk_ids),
                         "text": r.fact})
    for p in result.passages:
        docs = [p.document_id, *(c.document_id for c in p.copies)]  # every source of the item
        rows.append({"n": p.n, "kind": "passage", "title": p.file, "score": p.score,
                     "gold": any(d in gold_set for d in docs), "text": p.text, "doc": p.document_id, "docs": docs})
    return sorted(rows, key=lambda row: int(row["n"]))


async def _timed_retrieve(kg: KnowledgeGraph, question: str, paths: Sequence[str] | None,
                          top_k: int) -> tuple[RetrievalHits, float]:
    started = time.perf_counter()
    hits = await kg.retrieve(question, paths=paths, top_k=top_k)
    return hits, (time.perf_counter() - started) * 1000


async def measure_question(kg: KnowledgeGraph, question: Question, ks: Sequence[int],
                           paths: Sequence[str] = PATHS) -> dict[str, Any]:
    """Run retrieve (all paths), each of ``paths`` alone and the dense baseline for ``question``.

    Returns the JSON-ready part of the question's record: ``retrieve``, ``dense``, ``paths`` (each a
    :class:`Measurement` as a dict), ``evidence`` (every numbered item of the all-paths call, flagged ``gold``)
    and ``evidence_text`` (those items as a model reads them: ``to_llm_text()``, 4,400 characters at most).
    """
    top_k = max(ks)
    gold = list(question.supporting_paragraph_ids)
    hits, ms = await _timed_retrieve(kg, question.question, None, top_k)
    result = number_retrieval(EvidenceLedger(), hits)
    chunk_docs = await _chunk_documents(kg, [c for r in (*hits.relations, *hits.facts) for c in r.chunk_ids])
    entity_docs = await _entity_documents(kg, [e.entity_id for e in hits.entities])
    items, chars = _items_and_chars(hits)
    rendered = result.to_llm_text()
    overall = Measurement(await path_documents(kg, hits, "passages"), ms, items, chars,
                          llm_chars=len(rendered)).score(gold, ks)
    started = time.perf_counter()
    vector = (await kg.embedder.aembed([question.question]))[0]
    dense_hits = await dense_passages(kg.store, vector, top_k)
    dense_ms = (time.perf_counter() - started) * 1000
    dense = Measurement(unique(h.document_id for h in dense_hits), dense_ms, len(dense_hits),
                        sum(len(h.text) for h in dense_hits)).score(gold, ks)
    per_path: dict[str, Measurement] = {}
    for path in paths:
        alone, path_ms = await _timed_retrieve(kg, question.question, [path], top_k)
        n, c = _items_and_chars(alone)
        per_path[path] = Measurement(await path_documents(kg, alone, path), path_ms, n, c).score(gold, ks)
    return {
        "retrieve": _as_dict(overall), "dense": _as_dict(dense),
        "paths": {p: _as_dict(m) for p, m in per_path.items()},
        "evidence": evidence_items(result, hits, gold, chunk_docs, entity_docs),
        "evidence_text": rendered,
    }


def _as_dict(m: Measurement) -> dict[str, Any]:
    return {"docs": m.docs, "ms": round(m.ms, 2), "items": m.items, "chars": m.chars, "recall": m.recall,
            "all_gold": m.all_gold, **({"llm_chars": m.llm_chars} if m.llm_chars else {})}
