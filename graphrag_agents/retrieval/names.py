"""The two entity paths: ``exact_names`` (entities the question names) and ``fuzzy_names`` (full-text + vector).

Both return :class:`EntityHit` lists. Their entities are also the *anchors* that ``links`` walks from and whose
mentions ``passages`` reads, so each anchor carries a weight: how specific the entity is (a name mentioned in
one chunk says more than one mentioned in a thousand).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._keys import name_key
from ..store.graph import GraphStore
from ._cypher import QueryVector, cosine, vector_param
from .fulltext import MAX_DF, STOPWORDS, label_size, query_terms, weighted_terms_query
from .hits import EntityHit

__all__ = ["CARD_DOCUMENTS", "Anchor", "NameKey", "add_cards", "anchors_from", "exact_names", "fuzzy_names",
           "name_keys", "specificity"]

MAX_NGRAM = 6
"""Longest name matched, in words."""
_MAX_KEYS = 400
_TOKEN = re.compile(r"\S+")
_EDGE = "\"'“”‘’`()[]{}<>?!,;:."
_ARTICLES = ("the ", "a ", "an ")


@dataclass
class Anchor:
    """An entity found in the question, as a starting point for ``links`` and ``passages``."""

    entity_id: str
    weight: float
    """In (0, 1]: how much its mentions count as evidence (its hit score, halved for fuzzy matches)."""
    named: bool = False
    """Whether the question names it exactly (``exact_names``); bridge expansion does not follow those."""


def specificity(mentions: int) -> float:
    """1 for an entity mentioned in a single chunk, falling slowly with more: ln 2 / ln(1 + mentions)."""
    return math.log(2) / math.log(1 + max(1, mentions))


def _tokens(question: str) -> list[str]:
    words: list[str] = []
    for raw in _TOKEN.findall(question):
        word = raw.strip(_EDGE)
        for suffix in ("'s", "’s"):
            if word.lower().endswith(suffix):
                word = word[: -len(suffix)]
        if word:
            words.append(word)
    return words


def _looks_like_name(word: str) -> bool:
    return word[:1].isupper() or any(ch.isdigit() for ch in word)


@dataclass(frozen=True)
class NameKey:
    """A phrase of the question that could be a name."""

    words: int
    """Its length in words."""
    cased: bool
    """Whether it is written like a name (a capitalised word or a digit in it), or the question has no case."""


def name_keys(question: str) -> dict[str, NameKey]:
    """Every normalised n-gram (1-6 words) of the question that could be a name.

    Keys use the same normalisation as stored names (:func:`~graphrag_agents.ingest.records.name_key`); an
    n-gram made only of stopwords or of one character is skipped, and a leading article is tried both ways
    ("United States" also looks up "the united states").
    """
    return dict(_name_keys(question))


@functools.lru_cache(maxsize=256)
def _name_keys(question: str) -> tuple[tuple[str, NameKey], ...]:
    words = _tokens(question)
    # each word's tests once, not once per n-gram holding it (a question of 30 words has 165 n-grams)
    stop = [w.lower() in STOPWORDS for w in words]
    named = [_looks_like_name(w) and not s for w, s in zip(words, stop, strict=True)]
    caseless = not any(_looks_like_name(w) for w in words[1:])
    keys: dict[str, NameKey] = {}
    for n in range(min(MAX_NGRAM, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            if all(stop[i:i + n]):
                continue
            key = name_key(" ".join(words[i:i + n]))
            if len(key) < 2 or key.isdigit():
                continue
            cased = caseless or any(named[i:i + n])
            info = NameKey(n, cased)
            keys.setdefault(key, info)
            stripped = next((key[len(a):] for a in _ARTICLES if key.startswith(a)), None)
            keys.setdefault(stripped if stripped else "the " + key, info)
    return tuple(keys.items())[:_MAX_KEYS]


_MENTION_FILTER = (
    "CALL { WITH e MATCH (e)-[:MENTIONED_IN]->(c:Chunk) WHERE c.document_id IN $docs RETURN c LIMIT 1 } "
)
LOWERCASE_FACTOR = 0.25
"""Exact-name score factor for a name the question writes in lower case (a "rock band" is not "Rock")."""
NESTED_FACTOR = 0.5
"""Exact-name score factor for a name inside a longer name the question also matches."""
FUZZY_ANCHORS = 3
"""Fuzzy matches that also serve as anchors (at half their score) for ``links`` and ``passages``..."""
FUZZY_ANCHOR_MIN = 0.4
"""...when they score at least this much (a weak fuzzy match is not an entity the question is about)."""


async def exact_names(store: GraphStore, question: str, top_k: int,
                      document_ids: Sequence[str] | None = None) -> list[EntityHit]:
    """Entities whose normalised name is a phrase of the question, best first, at most ``top_k``.

    Score, in (0, 1]: :func:`specificity` of the entity (1 when mentioned in one chunk, 0.5 at 3 chunks,
    0.15 at 100), times 0.25 when the question writes the phrase in lower case although it uses capitals
    elsewhere, times 0.5 when the name lies inside a longer name the question also matches ("Fame" inside
    "Modern Drummer Hall of Fame"). One read-only query over the ``name_key`` index.
    """
    keys = name_keys(question)
    if not keys:
        return []
    rows = await store.ro_query(
        "UNWIND $keys AS k MATCH (e:__Entity__ {name_key: k}) "
        + (_MENTION_FILTER if document_ids else "")
        + "RETURN e.id, e.name, e.label, e.description, k, outdegree(e, 'MENTIONED_IN') LIMIT $limit",
        {"keys": list(keys), "docs": list(document_ids or []), "limit": 4 * max(top_k, 10)},
    )
    matched = {str(r[4]) for r in rows}
    best: dict[str, EntityHit] = {}
    for eid, name, label, description, key, mentions in rows:
        score = specificity(int(mentions))
        if not keys[str(key)].cased:
            score *= LOWERCASE_FACTOR
        if any(other != key and f" {key} " in f" {other} " for other in matched):
            score *= NESTED_FACTOR
        hit = EntityHit(entity_id=str(eid), name=str(name), label=str(label or ""),
                        description=str(description or ""), score=round(score, 4), path="exact_names",
                        mentions=int(mentions))
        if str(eid) not in best or best[str(eid)].score < hit.score:
            best[str(eid)] = hit
    return sorted(best.values(), key=lambda h: (-h.score, h.name))[:top_k]


async def fuzzy_names(store: GraphStore, question: str, vector: QueryVector, top_k: int,
                      document_ids: Sequence[str] | None = None) -> list[EntityHit]:
    """Entities found by full-text over names and descriptions and by vector search over entity embeddings.

    Candidates: the entities whose name or description holds the question's rarest words (idf-weighted, see
    :func:`~.fulltext.weighted_terms_query`) and the entities nearest the question's embedding. Score, in
    [0, 1]: the mean of the share of the entity name's words that the question contains and the cosine
    similarity of its embedding (name + description) to the question. Best first, at most ``top_k``. Both
    searches are one query (``UNION ALL``).
    """
    pool = max(top_k, 5)
    doc_filter = _MENTION_FILTER if document_ids else ""
    columns = f"RETURN e.id, e.name, e.label, e.description, {cosine('e')}, outdegree(e, 'MENTIONED_IN')"
    params: dict[str, Any] = {"v": vector_param(vector), "k": pool, "docs": list(document_ids or []),
                              "terms": query_terms(question), "maxdf": MAX_DF}
    query = ("CALL db.idx.vector.queryNodes('__Entity__', 'embedding', $k, vecf32($v)) YIELD node "
             "WITH node AS e " + doc_filter + columns)
    if params["terms"]:  # the word search in the same query (one round trip); the label's size is remembered
        params["n"] = await label_size(store, "__Entity__")
        query += (" UNION ALL " + weighted_terms_query("__Entity__")
                  + "WITH node AS e, sum(w[1]) AS s ORDER BY s DESC LIMIT $k " + doc_filter + columns)
    asked = set(params["terms"])
    best: dict[str, EntityHit] = {}
    for eid, name, label, description, cos, mentions in await store.ro_query(query, params):
        words = query_terms(str(name))
        coverage = sum(1 for w in words if w in asked) / len(words) if words else 0.0
        best[str(eid)] = EntityHit(
            entity_id=str(eid), name=str(name), label=str(label or ""), description=str(description or ""),
            score=round((coverage + max(0.0, float(cos))) / 2, 4), path="fuzzy_names", mentions=int(mentions))
    return sorted(best.values(), key=lambda h: (-h.score, h.name))[:top_k]


CARD_DOCUMENTS = 3
"""Document titles an entity card lists."""


async def add_cards(store: GraphStore, entities: Sequence[EntityHit]) -> None:
    """Fill in what an entity card shows besides its name and type: the titles of up to 3 documents that mention
    it (from its first mentions) and the types it was outvoted for (``aliases``). One read-only query."""
    if not entities:
        return
    rows = await store.ro_query(
        "UNWIND $ids AS eid MATCH (e:__Entity__ {id: eid}) "
        "CALL { WITH e MATCH (e)-[:MENTIONED_IN]->(c:Chunk) WITH DISTINCT c.document_id AS doc LIMIT $docs "
        "MATCH (d:Document {id: doc}) RETURN collect(coalesce(d.title, d.id)) AS titles } "
        "RETURN e.id, titles, e.aliases",
        {"ids": list(dict.fromkeys(e.entity_id for e in entities)), "docs": CARD_DOCUMENTS},
    )
    cards = {str(eid): ([str(t) for t in titles or [] if t], [str(a) for a in aliases or []])
             for eid, titles, aliases in rows}
    for hit in entities:
        hit.documents, hit.aliases = cards.get(hit.entity_id, ([], []))


def anchors_from(exact: Sequence[EntityHit], fuzzy: Sequence[EntityHit]) -> list[Anchor]:
    """The entities ``links`` and ``passages`` start from: every exact match, and the best fuzzy ones (scoring
    at least 0.4, at most 3) at half their score."""
    found = [Anchor(h.entity_id, h.score, named=True) for h in exact]
    seen = {a.entity_id for a in found}
    found += [Anchor(h.entity_id, h.score / 2) for h in fuzzy
              if h.entity_id not in seen and h.score >= FUZZY_ANCHOR_MIN][:FUZZY_ANCHORS]
    return found
