"""The ``llm_verified`` resolver: merge near-duplicate entities the chat model confirms, within a budget.

``exact`` resolution needs nothing here: entities of the same normalised name and type share an id, so they
are one record in a document (:func:`~.extraction.to_records`) and one node in the graph (``MERGE``).

``llm_verified`` goes further for one document's entities. Candidate pairs (same type, or one side Unknown)
come from name similarity (one name's words inside the other's, or a close spelling) and from embeddings
(the document's entity names against the stored entities' vectors, cosine >= 0.9); the graph's stored
entities are found through the full-text index on names. Pairs are asked best first, one LLM call each, at
most ``max_llm_pairs`` per document. A confirmed pair maps the document's entity onto the other one (the
stored entity, or within the document the one with the longer name), so its mentions and relations join it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from .._keys import fulltext_query
from ..models.chat import ChatModel
from ..models.embedder import Embedder
from ..store.graph import GraphStore
from .records import EntityRecord, RelationRecord, name_key
from .writer import UNKNOWN_LABEL

__all__ = ["Candidate", "candidate_pairs", "resolve_llm_verified"]

_MIN_COSINE = 0.9
_MIN_RATIO = 0.85


@dataclass
class Candidate:
    """An entity a document entity may be the same as."""

    id: str
    label: str
    name: str
    description: str
    score: float


def _similar(a: str, b: str) -> float:
    ka, kb = name_key(a), name_key(b)
    if ka == kb:
        return 1.0
    wa, wb = set(ka.split()), set(kb.split())
    if wa and wb and (wa <= wb or wb <= wa):
        return 0.9
    ratio = difflib.SequenceMatcher(None, ka, kb).ratio()
    return ratio if ratio >= _MIN_RATIO else 0.0


def _compatible(a: str, b: str) -> bool:
    return a == b or UNKNOWN_LABEL in (a, b)


async def _stored_candidates(store: GraphStore, entity: EntityRecord,
                             vector: Sequence[float] | None) -> list[Candidate]:
    found: dict[str, Candidate] = {}
    query = fulltext_query(entity.name)
    if query:
        rows = await store.ro_query(
            "CALL db.idx.fulltext.queryNodes('__Entity__', $q) YIELD node "
            "RETURN node.id, node.label, node.name, node.description LIMIT 20", {"q": query})
        for cid, label, name, desc in rows:
            score = _similar(entity.name, str(name))
            if score and cid != entity.id and _compatible(entity.label, str(label)):
                found[str(cid)] = Candidate(str(cid), str(label), str(name), str(desc or ""), score)
    if vector is not None:
        rows = await store.ro_query(
            "CALL db.idx.vector.queryNodes('__Entity__', 'embedding', 5, vecf32($v)) YIELD node, score "
            "RETURN node.id, node.label, node.name, node.description, score", {"v": [float(x) for x in vector]})
        for cid, label, name, desc, distance in rows:
            cosine = 1.0 - float(distance)
            if cosine >= _MIN_COSINE and cid != entity.id and _compatible(entity.label, str(label)):
                prior = found.get(str(cid))
                score = max(cosine, prior.score if prior else 0.0)
                found[str(cid)] = Candidate(str(cid), str(label), str(name), str(desc or ""), score)
    return list(found.values())


async def candidate_pairs(store: GraphStore | None, embedder: Embedder | None,
                          entities: Sequence[EntityRecord]) -> list[tuple[EntityRecord, Candidate]]:
    """Candidate (document entity, other entity) pairs, best first."""
    pairs: list[tuple[EntityRecord, Candidate]] = []
    for i, a in enumerate(entities):
        for b in entities[i + 1:]:
            score = _similar(a.name, b.name) if _compatible(a.label, b.label) else 0.0
            if score:
                small, big = (a, b) if len(a.name) <= len(b.name) else (b, a)
                pairs.append((small, Candidate(big.id, big.label, big.name, big.description, score)))
    if store is not None:
        # One embedder call for the document's names, not one per entity (each may be a paid request).
        vectors: list[Sequence[float] | None] = [None] * len(entities)
        if embedder is not None and entities:
            vectors = [row.tolist() for row in await embedder.aembed([e.name for e in entities])]
        for entity, vector in zip(entities, vectors, strict=True):
            pairs += [(entity, c) for c in await _stored_candidates(store, entity, vector)]
    unique: dict[frozenset[str], tuple[EntityRecord, Candidate]] = {}
    for pair in sorted(pairs, key=lambda p: p[1].score, reverse=True):
        unique.setdefault(frozenset((pair[0].id, pair[1].id)), pair)
    return list(unique.values())


async def _confirm(chat: ChatModel, a: EntityRecord, b: Candidate) -> bool:
    prompt = (
        "Do these two names refer to the same real-world entity? Reply with JSON "
        '{"same": true} or {"same": false} only.\n'
        f"A: {a.name} ({a.label}) {a.description}\nB: {b.name} ({b.label}) {b.description}"
    )
    raw = await chat.complete([{"role": "user", "content": prompt}], json_mode=True)
    try:
        return bool(json.loads(raw.strip().strip("`").removeprefix("json")).get("same") is True)
    except (ValueError, AttributeError):
        return False


async def resolve_llm_verified(store: GraphStore | None, embedder: Embedder | None, chat: ChatModel,
                               entities: list[EntityRecord], relations: list[RelationRecord],
                               max_llm_pairs: int) -> tuple[list[EntityRecord], list[RelationRecord], int, int]:
    """Merge confirmed duplicates; returns the entities, the relations, the merges and the LLM calls made."""
    if max_llm_pairs <= 0 or not entities:
        return entities, relations, 0, 0
    mapped: dict[str, tuple[str, str, str]] = {}  # document entity id -> (id, label, name) it joins
    calls = 0
    for entity, candidate in await candidate_pairs(store, embedder, entities):
        if calls >= max_llm_pairs:
            break
        targets = {t for t, _, _ in mapped.values()}
        if entity.id in mapped or entity.id in targets or candidate.id in mapped:
            continue
        if candidate.label == UNKNOWN_LABEL and entity.label != UNKNOWN_LABEL:
            continue  # never move a typed entity under Unknown
        calls += 1
        if await _confirm(chat, entity, candidate):
            mapped[entity.id] = (candidate.id, candidate.label, candidate.name)
    if not mapped:
        return entities, relations, 0, calls
    merged: dict[str, EntityRecord] = {}
    for e in entities:
        target_id, label, name = mapped.get(e.id, (e.id, e.label, e.name))
        into = merged.get(target_id)
        if into is None:
            merged[target_id] = EntityRecord(target_id, label, name, e.description, list(e.chunk_ids),
                                             dict(e.properties))
            continue
        into.chunk_ids += [c for c in e.chunk_ids if c not in into.chunk_ids]
        if e.description and e.description not in into.description:
            into.description = f"{into.description} {e.description}".strip()
    new_relations: dict[tuple[str, str, str, str], RelationRecord] = {}
    for r in relations:
        src, dst = mapped.get(r.source_id, (r.source_id,))[0], mapped.get(r.target_id, (r.target_id,))[0]
        if src != dst:
            new_relations.setdefault((src, dst, r.type, r.fact), RelationRecord(src, dst, r.type, r.fact, r.chunk_id,
                                                                                   r.grouped))
    return list(merged.values()), list(new_relations.values()), len(mapped), calls
