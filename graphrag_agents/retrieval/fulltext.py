"""Turn free text into a safe full-text (RediSearch) query: words only, stopwords out, OR-ed; weigh terms by rarity."""

from __future__ import annotations

import math
import time
import weakref
from collections import OrderedDict

from .._keys import STOPWORDS, fulltext_query, query_terms
from ..store.graph import GraphStore
from ..text.keyword_terms import TERM_RULE, stem

__all__ = ["CHUNK_COUNTS", "CHUNK_ESTIMATES", "ESTIMATED_FROM", "LABEL_SIZE_TTL_S", "MAX_DF", "POSTINGS_CAP",
           "STOPWORDS", "cached_counts", "counts_params", "estimated_counts", "fulltext_query", "label_count",
           "label_size", "query_terms", "remember_counts", "term_weights", "weighted_terms_query", "weights_of"]

MAX_DF = 5_000
"""A term found in this many nodes or more is skipped: reading its postings costs most and it weighs least."""


def weighted_terms_query(label: str) -> str:
    """Cypher that looks up each of ``$terms`` in ``label``'s full-text index, weighted by rarity.

    FalkorDB's full-text score counts occurrences but ignores how rare a term is, so each term is looked up
    once to count the nodes containing it (df, over the ``$n`` nodes of the label: :func:`label_size`) and
    weighted by
    idf = ln(1 + (n - df + 0.5) / (df + 0.5)); terms in ``$maxdf`` nodes or more are dropped. The query then
    yields one row per (term, matching node) with ``w`` = [term, idf], ``node`` and ``total`` (the summed idf
    of the question's terms); callers aggregate ``sum(w[1])`` per node. ``label`` is one of ours, never user
    input; the terms are words from :func:`query_terms`, passed as parameters.
    """
    assert label in ("Chunk", "__Entity__")
    return (
        "WITH $n AS n UNWIND $terms AS t "
        # Counted whole: a LIMIT after a procedure inside CALL {} is not reset per term in FalkorDB 4.x
        f"CALL {{ WITH t CALL db.idx.fulltext.queryNodes('{label}', t) YIELD node RETURN count(node) AS df }} "
        "WITH n, t, df WHERE df > 0 AND df < $maxdf "
        "WITH t, log(1 + (n - df + 0.5) / (df + 0.5)) AS idf "
        "WITH collect([t, idf]) AS weights, sum(idf) AS total "
        "UNWIND weights AS w "
        f"CALL db.idx.fulltext.queryNodes('{label}', w[0]) YIELD node "
    )


async def label_count(store: GraphStore, label: str) -> int:
    """How many ``label`` nodes the graph holds, asked now (:func:`label_size` remembers it a short while).

    Asked on its own because FalkorDB answers exactly ``MATCH (x:L) RETURN count(x)`` from the label's stored
    size, while the same count inside a larger query scans every node of the label.
    """
    assert label in ("Chunk", "__Entity__")
    rows = await store.ro_query(f"MATCH (x:{label}) RETURN count(x)")
    return int(rows[0][0]) if rows else 0


LABEL_SIZE_TTL_S = 10.0
"""How long :func:`label_size` trusts a label's size when this process has not written the graph since."""


async def label_size(store: GraphStore, label: str) -> int:
    """``$n`` of :func:`weighted_terms_query`: :func:`label_count`, remembered per store and label.

    The size is asked again once the store's graph has been written by this process (``GraphStore.writes``)
    or ``LABEL_SIZE_TTL_S`` seconds after it was asked, so a question no longer pays a round trip for it. What
    a stale size costs: for at most those seconds after another process added or removed ``label`` nodes, the
    idf of every word is computed over the old node count (off by the share of nodes changed: a few percent
    for a typical batch, the order of the words unchanged), and since the cached document frequencies of
    :func:`term_weights` are only as fresh as this size, a word counted before that write keeps its old count
    too (a word counted then as in no node stays out of the keyword search). This process's own writes are
    seen at once.
    """
    known = _frequencies.setdefault(store, _Frequencies())
    writes, now = store.writes, time.monotonic()
    got = known.size.get(label)
    if got is not None and got[1] == writes and now - got[2] < LABEL_SIZE_TTL_S:
        return got[0]
    n = await label_count(store, label)
    known.size[label] = (n, writes, now)  # as of when it was asked: a write finishing meanwhile outdates it
    return n


POSTINGS_CAP = 1_000
"""Postings read per term by the chunk keyword search, best full-text score first (see :func:`term_weights`)."""

CHUNK_ESTIMATES = (
    "OPTIONAL MATCH (m:__Meta__ {key: 'keyword_stats'}) WHERE m.rule = $rule "
    "WITH CASE WHEN m.sections > 0 THEN toFloat($n) / m.sections ELSE null END AS scale "
    "UNWIND range(0, size($terms) - 1) AS i WITH scale, i, $terms[i] AS t, $dfs[i] AS known, $stems[i] AS st "
    "OPTIONAL MATCH (s:__Term__ {term: st}) WHERE known < 0 AND scale IS NOT NULL "
    "WITH i, t, known, CASE WHEN s IS NULL THEN -1 ELSE toInteger(round(s.df * scale)) END AS est "
)
"""The first part of :data:`CHUNK_COUNTS`: per term ``i`` (``t``), its known count and the statistics' estimate
``est`` (-1: none)."""
CHUNK_COUNTS = CHUNK_ESTIMATES + (
    "CALL { WITH t, known, est WITH t, known, est WHERE known < 0 AND est <= $countcap "
    "CALL db.idx.fulltext.queryNodes('Chunk', t) YIELD node RETURN count(node) AS counted } "
    "WITH i, t, CASE WHEN known >= 0 THEN known WHEN est > $countcap THEN est ELSE counted END AS df ORDER BY i "
)
"""Cypher: each of ``$terms`` (chunk full-text words, in the question's order ``i``) with its document frequency
``df``: ``$dfs[i]`` when known (>= 0); else, when the graph's keyword statistics (``ingest/keyword_stats.py``,
under ``$rule``) put its stem ``$stems[i]`` in more than ``$countcap`` chunks (its section count scaled by chunks
per section, ``$n`` chunks), that estimate, read from one index seek; else counted from its postings (about
``$countcap`` at most, or a word the statistics do not hold: a respelled one, or a graph without them).
:func:`counts_params` sets ``$countcap`` below ``MAX_DF``: a word in ``MAX_DF`` chunks or more is left out of the
keyword search, and it is the graph's common words that have the most postings ("american": 21,752 of 100k
synthetic chunks), so none is counted to be dropped. A graph under ``MAX_DF`` chunks has every word counted."""


def counts_params(n: int, terms: list[str], dfs: list[int]) -> dict[str, object]:
    """The parameters of :data:`CHUNK_COUNTS` (a respelled ``%word%`` has no stem: it is counted)."""
    return {"terms": terms, "dfs": dfs, "n": n, "rule": TERM_RULE, "countcap": MAX_DF - 1,
            "stems": [None if t.startswith("%") else stem(t) for t in terms]}


ESTIMATED_FROM = MAX_DF
"""On a graph of this many chunks or more, a question word the keyword statistics hold is not counted: its document
frequency is their estimate (:func:`estimated_counts`). Counting reads all of a word's postings, which on a small
graph the search reads anyway; on a large one it is what the keyword search spends most on. On the 100k-chunk graph
of ``docs/scale.md`` it cut retrieve's CPU (client and server) by 14%, with the same recall@5 and the top 10 of 1
question in 100 changed; on the three shared corpora built into one graph of 7,677 chunks the rankings stayed
(``docs/scale.md``). Below it (every shared evaluation graph alone) nothing changes."""


async def estimated_counts(store: GraphStore, n: int, terms: list[str], dfs: list[int]) -> list[int]:
    """``dfs`` (``-1``: not known) with, on a graph of ``ESTIMATED_FROM`` chunks or more, each unknown term the
    keyword statistics hold given their estimate (:data:`CHUNK_ESTIMATES`: its stem's section count scaled by chunks
    per section), in one query of an index seek per term; remembered as its count is (:func:`remember_counts`). A
    term they do not hold (a word in no section, a respelled one) stays unknown: the keyword search counts it."""
    unknown = [i for i, df in enumerate(dfs) if df < 0 and not terms[i].startswith("%")]
    if n < ESTIMATED_FROM or not unknown:
        return dfs
    asked = [terms[i] for i in unknown]
    rows = await store.ro_query(CHUNK_ESTIMATES + "RETURN i, est", counts_params(n, asked, [-1] * len(asked)))
    found = {asked[int(i)]: int(est) for i, est in rows if int(est) > 0}
    remember_counts(store, "Chunk", n, found)
    return [found.get(t, df) if df < 0 else df for t, df in zip(terms, dfs, strict=True)]


_DF_CACHE_TERMS = 20_000


class _Frequencies:
    """Document frequencies of one store's terms, each with the label size it was counted at."""

    def __init__(self) -> None:
        self.df: OrderedDict[tuple[str, str], tuple[int, int]] = OrderedDict()
        self.size: dict[str, tuple[int, int, float]] = {}
        """Per label, the size last seen, with the store's write count and the monotonic time it was asked at."""

    def fresh(self, label: str, term: str, n: int | None) -> bool:
        got = self.df.get((label, term))
        return got is not None and got[0] == n

    def store(self, label: str, n: int, counts: dict[str, int]) -> None:
        for term, df in counts.items():
            self.df[(label, term)] = (n, df)
            self.df.move_to_end((label, term))
        while len(self.df) > _DF_CACHE_TERMS:
            self.df.popitem(last=False)


_frequencies: weakref.WeakKeyDictionary[GraphStore, _Frequencies] = weakref.WeakKeyDictionary()


def idf(n: int, df: int) -> float:
    """BM25's idf: ln(1 + (n - df + 0.5) / (df + 0.5))."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


async def _count(store: GraphStore, label: str, terms: list[str], n: int) -> dict[str, int]:
    if not terms:
        return {}
    if label == "Chunk":
        rows = await store.ro_query(CHUNK_COUNTS + "RETURN t, df", counts_params(n, terms, [-1] * len(terms)))
        return {str(t): int(df) for t, df in rows}
    rows = await store.ro_query(
        f"UNWIND $terms AS t CALL {{ WITH t CALL db.idx.fulltext.queryNodes('{label}', t) YIELD node "
        "RETURN count(node) AS df } RETURN t, df", {"terms": terms})
    counts = dict.fromkeys(terms, 0)
    counts.update((str(t), int(df)) for t, df in rows)
    return counts


async def term_weights(store: GraphStore, label: str, terms: list[str]) -> tuple[list[list[str | float]], float]:
    """``[[term, idf], ...]`` of the ``terms`` found in ``label``'s full-text index, and their summed idf.

    Terms in no node, and terms in ``MAX_DF`` nodes or more, are left out (as :func:`weighted_terms_query`
    does). Document frequencies are remembered per store, label and term with the label's size they were
    counted at (the size changes whenever nodes are added or removed, so a grown graph counts again): a
    question's words are counted once, not on every call. The label's size is :func:`label_size` (remembered
    a short while, so usually no query). For chunks, a word the graph's keyword statistics put in ``MAX_DF``
    chunks or more takes their estimate instead of a count (:data:`CHUNK_COUNTS`): counting reads every
    posting of a word, the costliest part of a keyword search on a large graph. (Counted whole, not up to a
    limit: a LIMIT after a procedure inside ``CALL {}`` is not reset per term in FalkorDB 4.x, so a capped count
    gives the next terms wrong counts.)
    """
    assert label in ("Chunk", "__Entity__")
    known = _frequencies.setdefault(store, _Frequencies())
    n = await label_size(store, label)
    known.store(label, n, await _count(store, label, [t for t in terms if not known.fresh(label, t, n)], n))
    return weights_of(n, terms, [known.df[(label, term)][1] for term in terms])


def weights_of(n: int, terms: list[str], dfs: list[int]) -> tuple[list[list[str | float]], float]:
    """What :func:`term_weights` returns, from each term's document frequency among ``n`` nodes."""
    weights: list[list[str | float]] = [[term, idf(n, df)] for term, df in zip(terms, dfs, strict=True)
                                          if 0 < df < MAX_DF]
    return weights, sum(float(w[1]) for w in weights)


async def cached_counts(store: GraphStore, label: str, terms: list[str]) -> tuple[int, list[int]]:
    """The label's size (:func:`label_size`) and each term's remembered document frequency at that size, -1 for
    a term not counted at it (a query that counts those itself passes them back to :func:`remember_counts`)."""
    assert label in ("Chunk", "__Entity__")
    n = await label_size(store, label)
    known = _frequencies.setdefault(store, _Frequencies())
    return n, [known.df[(label, t)][1] if known.fresh(label, t, n) else -1 for t in terms]


def remember_counts(store: GraphStore, label: str, n: int, counts: dict[str, int]) -> None:
    """Remember document frequencies counted at label size ``n`` (as :func:`term_weights` does)."""
    _frequencies.setdefault(store, _Frequencies()).store(label, n, counts)
