"""Candidate chunks for the ``passages`` path, each found by one signal and carrying what fusion needs.

Three independent searches, each one bounded read-only query:

* :func:`vector_candidates`: nearest chunks by embedding (cosine similarity);
* :func:`lexical_candidates`: BM25-style keyword search (see there for why it is not FalkorDB's own score);
  :func:`keyword_search` also returns the question's term weights, counting its new words in the same query;
* :func:`entity_candidates`: chunks that the entities found in the question are MENTIONED_IN.

Every candidate comes with its cosine similarity to the question (computed by the server on the stored
vector), its document id, title and path, and the chunk's text and heading: chain scoring reads the words of
the best candidates, the titled hop the names their text writes, and the passages returned need no further
read (a chunk's vector never crosses the wire).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._keys import name_key, unaccented
from ..store.graph import GraphStore
from ._cypher import QueryVector, cosine, vector_param
from .fulltext import (
    CHUNK_ESTIMATES,
    MAX_DF,
    POSTINGS_CAP,
    cached_counts,
    counts_params,
    estimated_counts,
    query_terms,
    remember_counts,
    term_weights,
    weights_of,
)
from .names import Anchor

__all__ = ["BESIDE_FROM", "CHUNK_COLUMNS", "FILTER_SCAN", "FUZZY_MIN", "INDEX_BREADTH", "WITH_TITLE", "Candidate",
           "TermWeights", "candidate", "entity_candidates", "index_breadth", "keyword_search", "lexical_candidates",
           "loose_key", "may_misspell", "spelled_near", "title_key", "vector_and_cosines", "vector_candidates"]

COSINE = cosine("c")
"""Cypher for the cosine similarity of chunk ``c`` to the question vector ``$v`` (0 before finalize)."""
WITH_TITLE = "OPTIONAL MATCH (d:Document {id: c.document_id}) "
"""Cypher binding chunk ``c``'s document to ``d`` (for its title and path), after a candidate query's search."""
CHUNK_COLUMNS = "c.text, c.heading, d.path"
"""What a candidate query returns after ``c.id, c.document_id, d.title, cos``: read by :func:`candidate`."""
FILTER_SCAN = 20_000
"""With a document filter, vector search scans at most this many chunks of those documents, exactly."""
INDEX_BREADTH = 100
"""The chunk vector index is asked for at least this many neighbours, and the best ``k`` kept: its (HNSW)
search is only as wide as the number asked for, and at 10 it found 81% of the exact 10 nearest chunks on the
2Wiki sample (96% at 30, 99.7% at 100)."""
BM25_K1 = 1.2
BM25_B = 0.75
_LEX_PRE = 100
"""Chunks re-scored with length normalisation after the first, idf-only pass."""
_ENTITY_SCAN = 200
"""Mentions read per entity before keeping its ``per_entity`` chunks nearest to the question."""
_PARENTHESIS = re.compile(r"\s*\([^()]*\)\s*$")
_PUNCTUATION = re.compile(r"[^\w\s]+")


@functools.lru_cache(maxsize=4096)
def title_key(title: str) -> str:
    """A document title as a name: without a trailing parenthesis ("Rush (band)" -> "rush"), normalised."""
    return name_key(_PARENTHESIS.sub("", title))


@functools.lru_cache(maxsize=8192)
def loose_key(key: str) -> str:
    """A name key without inner punctuation or accents, to compare a title with the question's phrases: the
    title "J. M. Barrie" has the key "j. m. barrie", the question's words "J. M. Barrie?" give "j m barrie"
    (each word loses its edge punctuation); both become "j m barrie". A question typed without accents names
    its title too: "Aschenbrodel" and the title "Aschenbrödel" both become "aschenbrodel"."""
    return " ".join(_PUNCTUATION.sub(" ", unaccented(key)).split())


def index_breadth(k: int) -> int:
    """How many neighbours to ask the chunk vector index for, to keep the best ``k``."""
    return max(int(k), INDEX_BREADTH)


@dataclass
class Candidate:
    """A chunk that one or more signals found, with the features fusion scores it by."""

    chunk_id: str
    document_id: str
    title: str
    cosine: float
    """Cosine similarity of the chunk's stored embedding to the question."""
    lexical: float = 0.0
    """Keyword match in [0, 1] (see :func:`lexical_candidates`)."""
    entity: float = 0.0
    """Sum of the weights of the question's entities it mentions, capped at 1."""
    hop: float = 0.0
    """Weight of the best seed chunk naming an entity that titles this chunk's document (see :mod:`.bridge`)."""
    bridge_via: list[tuple[str, float]] = field(default_factory=list)
    """Bridge expansion (see :mod:`.bridge`): the entities it was reached through, as (name key, weight)."""
    parent: str = ""
    """The chunk whose entity led here (bridge or titled hop; empty for a direct match): a link of its chain."""
    text: str = ""
    """The chunk's text (when ``loaded``)."""
    found_by: list[str] = field(default_factory=list)
    heading: str = ""
    path: str = ""
    """The chunk's heading and its document's path (when ``loaded``)."""
    loaded: bool = False
    """Whether its query read the chunk's text, heading and path (every candidate query does)."""
    seed_cosine: float | None = None
    """Its cosine to the vector feedback's seed passage, when its query read it (:mod:`.feedback`)."""
    section_size: int | None = None
    """The chunks of its section (``Chunk.section_size``, written at ingest), when its query read it (the vector
    and keyword searches do): 1 says no neighbour needs reading for the keyword feature (:mod:`.term_frequency`)."""

    @property
    def alone(self) -> bool:
        """Whether its query read that it is alone under its heading (unknown: False)."""
        return self.section_size is not None and self.section_size <= 1


def candidate(row: Sequence[Any], signal: str) -> Candidate:
    """A candidate from a row ``c.id, c.document_id, d.title, cos,`` + :data:`CHUNK_COLUMNS`."""
    cid, doc_id, title, cosine, text, heading, path = row[:7]
    return Candidate(chunk_id=str(cid), document_id=str(doc_id), title=str(title or ""), cosine=float(cosine),
                     found_by=[signal], text=str(text or ""), heading=str(heading or ""), path=str(path or ""),
                     loaded=True)


async def vector_candidates(store: GraphStore, vector: QueryVector, k: int,
                            document_ids: Sequence[str] | None = None) -> list[Candidate]:
    """The ``k`` chunks nearest to the question vector, best first.

    With ``document_ids``, the chunks of those documents are compared exactly (up to 20,000 of them) instead
    of asking the vector index, which cannot filter while it searches.
    """
    return (await vector_and_cosines(store, vector, k, document_ids, ()))[0]


async def vector_and_cosines(store: GraphStore, vector: QueryVector, k: int, document_ids: Sequence[str] | None,
                             chunk_ids: Sequence[str]) -> tuple[list[Candidate], dict[str, float]]:
    """:func:`vector_candidates`, and in the same query the cosine similarity to the question of each of
    ``chunk_ids`` (the keyword search's candidates when it ran before the question's vector was known). A vector
    candidate among ``chunk_ids`` comes without its text (``loaded`` False): the caller has it."""
    params: dict[str, Any] = {"v": vector_param(vector), "k": int(k), "docs": list(document_ids or []),
                              "scan": FILTER_SCAN, "search": index_breadth(k)}
    return await _vector_search(store, _VECTOR_FILTERED if document_ids else _VECTOR, params, chunk_ids)


_VECTOR = ("CALL db.idx.vector.queryNodes('Chunk', 'embedding', $search, vecf32($v)) YIELD node, score "
           "WITH node AS c, 1 - score AS cos ORDER BY cos DESC LIMIT $k ")
_VECTOR_FILTERED = ("MATCH (c:Chunk) WHERE c.document_id IN $docs WITH c LIMIT $scan "
                    f"WITH c, {COSINE} AS cos ORDER BY cos DESC LIMIT $k ")
_VECTOR_COLUMNS = ("c.id AS id, c.document_id AS document_id, d.title AS title, cos, "
                   # the text of a chunk the caller has read already does not come again
                   "CASE WHEN c.id IN $ids THEN null ELSE c.text END AS text, "
                   "c.heading AS heading, d.path AS path, c.section_size AS section_size, true AS found")
_COSINES = (f"UNION ALL UNWIND $ids AS cid MATCH (c:Chunk {{id: cid}}) RETURN c.id AS id, null AS document_id, "
            f"null AS title, {COSINE} AS cos, null AS text, null AS heading, null AS path, "
            "null AS section_size, false AS found")


async def _vector_search(store: GraphStore, query: str, params: dict[str, Any],
                         chunk_ids: Sequence[str]) -> tuple[list[Candidate], dict[str, float]]:
    if not chunk_ids:
        rows = await store.ro_query(
            query + WITH_TITLE + f"RETURN c.id, c.document_id, d.title, cos, {CHUNK_COLUMNS}, c.section_size", params)
        return [_sized(candidate(row, "vector"), row[7]) for row in rows], {}
    rows = await store.ro_query(query + WITH_TITLE + "RETURN " + _VECTOR_COLUMNS + " " + _COSINES,
                                {**params, "ids": list(chunk_ids)})
    found = [_sized(candidate(row, "vector"), row[7]) for row in rows if row[8]]
    have = set(chunk_ids)
    for cand in found:
        cand.loaded = cand.chunk_id not in have  # its text is the caller's (merged in by passages._merge)
    return found, {str(row[0]): float(row[3]) for row in rows if not row[8]}


def _sized(cand: Candidate, section_size: Any) -> Candidate:
    cand.section_size = None if section_size is None else int(section_size)
    return cand


_POSTINGS = (
    # ORDER BY before LIMIT: a LIMIT right after a procedure inside CALL {} is not reset per row in FalkorDB
    # 4.x (the next term's rows continue the previous term's count), so the cap is taken over sorted postings
    "CALL { WITH w CALL db.idx.fulltext.queryNodes('Chunk', w[0]) YIELD node, score "
    "RETURN node ORDER BY score DESC LIMIT $cap } "
    "{filter}"
)
_ALL_POSTINGS = (
    # a term with no more postings than the cap: all of them, read without the subquery and its sort by score
    # (13-17% of the query's server time on the samples: benchmarks/results/retrieval-latency-history.md)
    "CALL db.idx.fulltext.queryNodes('Chunk', w[0]) YIELD node {filter}"
)


def _ranked(carry: str, total: str) -> str:
    """The BM25-style scoring of the postings ``node`` of the terms ``w`` (idf ``w[1]``) into ``c, lex``, keeping
    the variables ``carry`` (``""`` or ``"x, "``), the question's idf mass being ``total``."""
    return (
        # ties broken by the node, so the 100 kept (and their mean length) do not depend on the query's shape
        f"WITH {carry}node, sum(w[1]) AS s ORDER BY s DESC, id(node) LIMIT $pre "
        f"WITH {carry}collect([node, s, size(node.text)]) AS found "
        f"WITH {carry}found, reduce(a = 0.0, x IN found | a + x[2]) / size(found) AS avglen "
        "UNWIND found AS x "
        f"WITH {carry}x[0] AS c, x[1] / {total} * ($k1 + 1) / (1 + $k1 * (1 - $b + $b * x[2] / avglen)) AS lex "
    )


_RETURN = WITH_TITLE + f"RETURN c.id, c.document_id, d.title, {COSINE}, {CHUNK_COLUMNS}, lex, c.section_size"

_LEXICAL = "UNWIND $weights AS w " + _POSTINGS + _ranked("", "$total") + "ORDER BY lex DESC LIMIT $k " + _RETURN
_UNCAPPED_LEXICAL = (
    "UNWIND $weights AS w " + _ALL_POSTINGS + _ranked("", "$total") + "ORDER BY lex DESC LIMIT $k " + _RETURN
)
""":data:`_LEXICAL` for terms none of which has more postings than the cap: the same postings, read faster."""
_BESIDE_LEXICAL = _UNCAPPED_LEXICAL.replace("queryNodes('Chunk', w[0])", "queryNodes('Chunk', w[2])")
""":data:`_UNCAPPED_LEXICAL` reading each term by its full-text query ``w[2]``: a word over the cap only beside the
question's rarer words (:data:`BESIDE_FROM`)."""
BESIDE_FROM = MAX_DF
"""On a graph of this many chunks or more, a word in more than ``POSTINGS_CAP`` chunks is read only beside the
question's rarer words (RediSearch ``word (rare1 | rare2)``, an intersection that does not read all its postings)
instead of by its best postings by full-text score (which FalkorDB sorts every posting to find), when the question
has a word under the cap: a chunk holding none of the rarer words is left out. At 100k chunks the search then took
a quarter of the server time and kept the answer paragraph among its candidates more often
(``docs/scale.md``). Below it (every graph on which ``MAX_DF`` leaves no word out) nothing changes."""


_READ_ONCE = (
    # a term the statistics put under the cap (or do not hold), not counted yet: its postings read once, unsorted,
    # for both its count and its search
    "CALL { WITH t, known, est WITH t, known, est WHERE known < 0 AND est <= $cap "
    "CALL db.idx.fulltext.queryNodes('Chunk', t) YIELD node RETURN collect(node) AS found } "
    # a term over the cap: counted here, searched by its best postings below
    "CALL { WITH t, known, est WITH t, known, est WHERE known < 0 AND est > $cap AND est <= $countcap "
    "CALL db.idx.fulltext.queryNodes('Chunk', t) YIELD node RETURN count(node) AS counted } "
    "WITH i, t, found, CASE WHEN known >= 0 THEN known WHEN est > $countcap THEN est WHEN est > $cap THEN counted "
    "ELSE size(found) END AS df ORDER BY i "
    "WITH collect([t, df, CASE WHEN size(found) > 0 AND df <= $cap THEN found ELSE null END]) AS read "
)
_EITHER_POSTINGS = (
    # per term: the postings read with its count; else all of them unsorted under the cap; over it, its best ones,
    # or on a large graph only those beside the question's rarer words ($rare: them OR-ed)
    "CALL { WITH w, rare WITH w, rare WHERE w[3] IS NOT NULL UNWIND w[3] AS node RETURN node "
    "UNION ALL WITH w, rare WITH w, rare WHERE w[3] IS NULL AND w[2] <= $cap "
    "CALL db.idx.fulltext.queryNodes('Chunk', w[0]) YIELD node RETURN node "
    "UNION ALL WITH w, rare WITH w, rare WHERE w[2] > $cap AND (rare = '' OR $n < $beside) "
    "CALL db.idx.fulltext.queryNodes('Chunk', w[0]) YIELD node, score "
    "WITH node, score ORDER BY score DESC LIMIT $cap RETURN node "
    "UNION ALL WITH w, rare WITH w, rare WHERE w[2] > $cap AND rare <> '' AND $n >= $beside "
    "CALL db.idx.fulltext.queryNodes('Chunk', w[0] + ' (' + rare + ')') YIELD node RETURN node } "
    "{filter:total, }"
)

_COUNTING_LEXICAL = (
    # the terms not counted yet ($dfs[i] = -1) counted, or estimated from the keyword statistics, in the query
    CHUNK_ESTIMATES + _READ_ONCE
    + "WITH [x IN read | [x[0], x[1]]] AS counts, [x IN read WHERE x[1] > 0 AND x[1] < $maxdf "
    "| [x[0], log(1 + ($n - x[1] + 0.5) / (x[1] + 0.5)), x[1], x[2]]] AS weights "
    "WITH counts, weights, reduce(a = 0.0, w IN weights | a + w[1]) AS total, "
    "reduce(q = '', x IN weights | CASE WHEN x[2] <= $cap THEN q + CASE WHEN q = '' THEN '' ELSE ' | ' END + x[0] "
    "ELSE q END) AS rare "
    # the search in a subquery of that one row, so the counts are not carried through its aggregations (as a
    # grouping key of every posting they made it slower than the count and the search apart)
    "CALL { WITH weights, total, rare UNWIND weights AS w " + _EITHER_POSTINGS
    + _ranked("total, ", "total") + "RETURN c, lex ORDER BY lex DESC LIMIT $k } " + _RETURN + ", counts"
)
"""The keyword search that counts the terms not yet counted itself, in the question's order (as term_weights does:
:data:`~.fulltext.CHUNK_COUNTS`, the words the keyword statistics put in ``MAX_DF`` chunks or more estimated), and
reads each term's postings as its count calls for: all of them unsorted when it has at most the cap (for a word
counted here, the very postings its count read: one read of them, not two), its best ones by full-text score up to
the cap otherwise (what :data:`_LEXICAL` reads of every term), so no second search follows whatever the counts turn
out to be."""


TermWeights = tuple[list[list[str | float]], float]
"""What :func:`~.fulltext.term_weights` returns: ``[[term, idf], ...]`` and their summed idf."""


async def lexical_candidates(store: GraphStore, question: str, vector: QueryVector, k: int,
                             document_ids: Sequence[str] | None = None, *,
                             weighted: Awaitable[TermWeights] | None = None) -> list[Candidate]:
    """The ``k`` chunks that best match the question's content words, BM25-style, best first.

    FalkorDB's full-text score counts term occurrences but not how rare a term is (a paragraph saying "rock"
    four times outranks the only one naming "Counterparts"), so each term is weighted by its idf
    (:func:`~.fulltext.term_weights`: document frequencies cached; terms in 5,000 chunks or more skipped). Per
    term at most ``POSTINGS_CAP`` postings are read, in the full-text index's own order (best full-text score
    first), or on a graph of ``BESIDE_FROM`` chunks or more only those beside the question's rarer words, so a
    common word costs little more on a large graph than on a small one; with ``document_ids`` every
    posting is read, since the filter applies after the index. A chunk's score is the idf of the terms it
    contains over the idf of all the question's terms (the share of the question it covers), times BM25's
    length factor (k1 = 1.2, b = 0.75, against the mean length of the 100 best chunks), capped at 1. One
    query: the terms not counted yet are counted in it (:func:`keyword_search`); only ``k`` rows come back.
    ``weighted``: the question's term weights when the caller already has them asked for.
    """
    if weighted is None:
        return (await keyword_search(store, question, vector, k, document_ids))[0]
    if not query_terms(question):
        return []
    return await _search(store, await weighted, vector, k, document_ids)


def _cap(document_ids: Sequence[str] | None) -> int:
    """Postings read per term: with a document filter all of them (the filter applies after the index)."""
    return MAX_DF if document_ids else POSTINGS_CAP


def _over_cap(dfs: Iterable[int], document_ids: Sequence[str] | None) -> bool:
    """Whether a term to search (in fewer than ``MAX_DF`` chunks) has more postings than :func:`_cap`."""
    cap = _cap(document_ids)
    return any(cap < df < MAX_DF for df in dfs)


def _params(vector: QueryVector | None, k: int, document_ids: Sequence[str] | None) -> dict[str, Any]:
    params = {"cap": _cap(document_ids), "pre": _LEX_PRE, "k": int(k), "k1": BM25_K1, "beside": BESIDE_FROM,
              "b": BM25_B, "docs": list(document_ids or [])}
    if vector is not None:
        params["v"] = vector_param(vector)
    return params


def _query(template: str, document_ids: Sequence[str] | None, vector: QueryVector | None) -> str:
    for carry in ("total, ", ""):
        spot = "{filter:" + carry + "}" if carry else "{filter}"
        template = template.replace(spot, f"WITH {carry}w, node WHERE node.document_id IN $docs "
                                    if document_ids else "")
    # without the question's vector (asked while it is being embedded) the cosine comes later (0.0 until then)
    return template if vector is not None else template.replace(COSINE, "0.0")


def _found(rows: Sequence[Sequence[Any]]) -> list[Candidate]:
    found = []
    for row in rows:
        found_chunk = _sized(candidate(row, "fulltext"), row[8])
        found_chunk.lexical = min(1.0, max(0.0, float(row[7])))
        found.append(found_chunk)
    return found


async def _search(store: GraphStore, weighted: TermWeights, vector: QueryVector | None, k: int,
                  document_ids: Sequence[str] | None, *, under_cap: bool = False,
                  beside: list[str] | None = None) -> list[Candidate]:
    """The keyword search of ``weighted``; ``under_cap``: no term has more postings than the cap (its document
    frequency is known), so the query need not sort them to cap them; ``beside``: per term, its full-text query
    (a word over the cap only beside the rarer ones: :data:`BESIDE_FROM`)."""
    weights, total = weighted
    if not weights:
        return []
    template = _UNCAPPED_LEXICAL if under_cap else _LEXICAL
    if beside is not None:
        template, weights = _BESIDE_LEXICAL, [[*w, q] for w, q in zip(weights, beside, strict=True)]
    rows = await store.ro_query(_query(template, document_ids, vector),
                                {"weights": weights, "total": total, **_params(vector, k, document_ids)})
    return _found(rows)


def _beside(n: int, terms: list[str], dfs: list[int], document_ids: Sequence[str] | None) -> list[str] | None:
    """Per searched term (as :func:`~.fulltext.weights_of` keeps them), its full-text query when a word over the cap
    is read beside the rarer ones (:data:`BESIDE_FROM`), else None."""
    cap = _cap(document_ids)
    kept = [(t, df) for t, df in zip(terms, dfs, strict=True) if 0 < df < MAX_DF]
    rare = " | ".join(t for t, df in kept if df <= cap)
    if n < BESIDE_FROM or not rare or all(df <= cap for _, df in kept):
        return None
    return [t if df <= cap else f"{t} ({rare})" for t, df in kept]


async def keyword_search(store: GraphStore, question: str, vector: QueryVector | None, k: int,
                         document_ids: Sequence[str] | None = None, *,
                         _respelled: bool = False) -> tuple[list[Candidate], TermWeights]:
    """:func:`lexical_candidates` and the question's term weights (:func:`~.fulltext.term_weights`), in one
    round trip: the terms whose document frequency is not remembered yet are counted by the search query
    itself (and remembered), instead of by a query before it. Its idf is computed by the server, the same
    formula; the weights returned are computed here from the same counts.

    A word no chunk holds (a typo, or a name typed without its accents: "Tekeze" for "Tekezé") is searched one
    letter off (:func:`spelled_near`); the first time such a word is seen that takes a second round trip. A
    word in more than ``POSTINGS_CAP`` chunks is searched by its best postings up to the cap, in the same query;
    a word the keyword statistics put in ``MAX_DF`` chunks or more is not counted but estimated from them, and
    left out (:data:`~.fulltext.CHUNK_COUNTS`). On a graph of ``ESTIMATED_FROM`` chunks or more no word the
    statistics hold is counted: each takes their estimate (:func:`~.fulltext.estimated_counts`), and only the words
    they do not hold are counted by the search query.

    ``vector`` None: the candidates' ``cosine`` is left at 0, so the search can run while the question is being
    embedded (:func:`vector_and_cosines` reads their cosines with the vector search)."""
    words = query_terms(question)
    if not words:
        return [], ([], 0.0)
    n, dfs = await cached_counts(store, "Chunk", words)
    dfs = await estimated_counts(store, n, words, dfs)
    terms = [spelled_near(t) if df == 0 and may_misspell(t) else t for t, df in zip(words, dfs, strict=True)]
    if terms != words:
        n, dfs = await cached_counts(store, "Chunk", terms)
    if min(dfs) >= 0:
        weighted = weights_of(n, terms, dfs)
        under_cap = not _over_cap(dfs, document_ids)  # a word known to be over the cap needs the capped search
        beside = _beside(n, terms, dfs, document_ids)
        return await _search(store, weighted, vector, k, document_ids, under_cap=under_cap, beside=beside), weighted
    rows = await store.ro_query(_query(_COUNTING_LEXICAL, document_ids, vector), {
        **counts_params(n, terms, dfs), "maxdf": MAX_DF, **_params(vector, k, document_ids)})
    if rows:
        counts = {str(t): int(df) for t, df in rows[0][9]}
        remember_counts(store, "Chunk", n, counts)
        found, weighted = _found(rows), weights_of(n, terms, [counts[t] for t in terms])
    else:  # no term left to search, or none matched: the counts did not come back
        found, weighted = [], await term_weights(store, "Chunk", terms)
        _, known = await cached_counts(store, "Chunk", terms)  # term_weights counted them all
        counts = dict(zip(terms, known, strict=True))
    if not _respelled and any(counts.get(t) == 0 and may_misspell(t) for t in terms):
        # a word no chunk holds, seen for the first time: search again, that word now spelled one letter off
        return await keyword_search(store, question, vector, k, document_ids, _respelled=True)
    return found, weighted


FUZZY_MIN = 5
"""Words of this many letters or more that no chunk holds are searched one letter off (:func:`spelled_near`)."""


def may_misspell(term: str) -> bool:
    """Whether a question word no chunk holds is looked up one letter off: a word of letters, ``FUZZY_MIN`` or
    more (not a number: 1998 one digit off is another year)."""
    return len(term) >= FUZZY_MIN and term.isalpha()


def spelled_near(term: str) -> str:
    """The full-text term matching the words one edit from ``term`` (RediSearch's ``%term%``): "tekeze" finds
    "tekezé", "reseach" finds "research" (a swap of two letters is two edits, not found). ``term`` holds word
    characters only, so no other operator comes in."""
    return f"%{term}%"


async def entity_candidates(store: GraphStore, anchors: Sequence[Anchor], vector: QueryVector, k: int,
                            per_entity: int = 10, document_ids: Sequence[str] | None = None) -> list[Candidate]:
    """Chunks the anchor entities are MENTIONED_IN: per entity its ``per_entity`` chunks nearest the question.

    ``entity`` = the sum of the weights of the anchors a chunk mentions, capped at 1. An entity's mentions
    are read up to 200 (a hub mentioned 10,000 times costs no more). At most ``k`` chunks, heaviest first.
    """
    if not anchors:
        return []
    doc_filter = "WHERE c.document_id IN $docs " if document_ids else ""
    rows = await store.ro_query(
        "UNWIND $anchors AS a MATCH (e:__Entity__ {id: a[0]}) "
        f"CALL {{ WITH e MATCH (e)-[:MENTIONED_IN]->(c:Chunk) {doc_filter}WITH c LIMIT $scan "
        f"WITH c, {COSINE} AS cos ORDER BY cos DESC LIMIT $per RETURN c, cos }} "
        "WITH c, cos, sum(a[1]) AS weight ORDER BY weight DESC, cos DESC LIMIT $k "
        + WITH_TITLE + f"RETURN c.id, c.document_id, d.title, cos, {CHUNK_COLUMNS}, weight",
        {"anchors": [[a.entity_id, float(a.weight)] for a in anchors], "v": vector_param(vector),
         "scan": _ENTITY_SCAN, "per": int(per_entity), "k": int(k), "docs": list(document_ids or [])},
    )
    found = []
    for row in rows:
        found_chunk = candidate(row, "entity")
        found_chunk.entity = min(1.0, float(row[7]))
        found.append(found_chunk)
    return found
