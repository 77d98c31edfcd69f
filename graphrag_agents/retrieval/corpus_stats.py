"""The keyword feature scored with the whole graph's statistics: BM25 with each term's document frequency over every
section and the mean section length of the graph, as written at ingest (``ingest/keyword_stats.py``).

Why: the candidate pool is a few dozen sections chosen because they hold the question's words, so counting the
document frequency and the mean length over them misjudges both: a word every candidate holds looks common though
few sections of the graph hold it, and a long gold section is measured against the other long candidates, not the
graph's sections. On npm's docs (``techdocs_a``) the pool's statistics ranked the gold sections at nDCG@10 .863;
the graph's, with the Snowball stemmer and identifiers read whole and by their parts
(:mod:`graphrag_agents.text.keyword_terms`), rank them higher (``docs/retrieval.md`` has the figures).

BM25 (k1 :data:`~.term_frequency.K1`, b :data:`~.term_frequency.B`): per question term, idf
ln(1 + (N - df + 0.5) / (df + 0.5)) over the N sections of the graph, times the term's frequency in the
candidate's section (its text and, for the best candidates, its neighbours under the same heading; a term of the
heading trail counts :data:`HEADING_WEIGHT` times) saturated by k1, the section's length normalised against the
graph's mean section length. Divided by the best candidate's, so in [0, 1].
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..store.graph import GraphStore
from ..text.keyword_terms import TERM_RULE, question_terms, text_terms
from .fulltext import idf
from .term_frequency import Section, bm25, sections_and

__all__ = ["HEADING_WEIGHT", "STATS_TTL_S", "CorpusStats", "corpus_bm25", "read_corpus_stats", "sections_and_stats",
           "stats_from", "stats_query"]

HEADING_WEIGHT = 3.0
"""A term of the heading trail (document title and heading) counts this many times a term of the text."""

_READ = (
    "MATCH (m:__Meta__ {key: 'keyword_stats'}) WHERE m.rule = $rule\n"
    "UNWIND CASE WHEN size($terms) = 0 THEN [null] ELSE $terms END AS x OPTIONAL MATCH (t:__Term__ {term: x})\n"
    "WITH m, collect([x, t.df]) AS pairs\n"
    "RETURN null AS cid, [[m.sections, m.words]] + pairs AS found"
)
"""The statistics of ``$terms``: one row, ``null`` (so it can follow a section read, ``UNION ALL``) and
``[[sections, words], [term, df or null], ...]``; no row when the graph has none under ``$rule``."""


@dataclass(frozen=True)
class CorpusStats:
    """The graph's keyword statistics for one question's terms."""

    sections: int
    mean_length: float
    df: Mapping[str, int]
    """Per term of the question, the sections holding it (terms in none left out)."""

    def weights(self) -> dict[str, float]:
        """Per term, its idf over the graph's sections."""
        return {term: idf(self.sections, n) for term, n in self.df.items() if n > 0}


STATS_TTL_S = 10.0
"""How long the statistics read are trusted when this process has not written the graph since (as
``fulltext.LABEL_SIZE_TTL_S``): another process's write moves a term's idf by its share of the sections."""
_TERMS_KEPT = 20_000


class _Known:
    """One store's statistics as read: the section count and length, and each term's count (0: in no section)."""

    def __init__(self) -> None:
        self.totals: tuple[int, int] | None = None
        self.df: dict[str, int] = {}
        self.writes = -1
        self.since = 0.0

    def current(self, store: GraphStore) -> _Known:
        now = time.monotonic()
        if store.writes != self.writes or now - self.since > STATS_TTL_S or len(self.df) > _TERMS_KEPT:
            self.totals, self.df, self.writes, self.since = None, {}, store.writes, now
        return self


_known: weakref.WeakKeyDictionary[GraphStore, _Known] = weakref.WeakKeyDictionary()


async def read_corpus_stats(store: GraphStore, question: str) -> CorpusStats | None:
    """The statistics of the question's terms, in one query (none when every term was read in the last
    :data:`STATS_TTL_S` and this process has not written since); None when the graph has none under the current
    term rule (a graph written by the previous release and not finalized since: the caller scores with its
    candidates' statistics then)."""
    query = stats_query(store, question)
    return stats_from(store, question, await store.ro_query(*query) if query is not None else None)


async def sections_and_stats(store: GraphStore, chunk_ids: Sequence[str], known: Mapping[str, str] | None,
                             question: str) -> tuple[dict[str, list[str]], CorpusStats | None]:
    """:func:`~.term_frequency.section_texts` and :func:`read_corpus_stats` in one query (either alone when the
    other needs none)."""
    query = stats_query(store, question)
    texts, rows = await sections_and(store, chunk_ids, known, query)
    return texts, stats_from(store, question, rows)


def stats_query(store: GraphStore, question: str) -> tuple[str, dict[str, Any]] | None:
    """The read of the question's terms not remembered (:data:`_READ` and its parameters), or None when every
    one is."""
    terms = question_terms(question)
    known = _known.setdefault(store, _Known()).current(store)
    missing = [t for t in terms if t not in known.df]
    if not terms or (not missing and known.totals is not None):
        return None
    return _READ, {"rule": TERM_RULE, "terms": missing}


def stats_from(store: GraphStore, question: str, rows: Sequence[Sequence[Any]] | None) -> CorpusStats | None:
    """The question's statistics from what :func:`stats_query`'s read returned (None: it was not sent, every
    term being remembered), remembering them."""
    terms = question_terms(question)
    known = _known.setdefault(store, _Known()).current(store)
    if rows is not None:
        if not rows:
            return None
        (sections, words), *pairs = rows[0][1]
        if not sections:
            return None
        known.totals = (int(sections), int(words or 0))
        known.df.update((str(term), int(n or 0)) for term, n in pairs if term is not None)
    if not terms or known.totals is None:
        return None
    sections, words = known.totals
    return CorpusStats(sections=sections, mean_length=max(1.0, words / sections),
                       df={t: known.df[t] for t in terms if known.df.get(t)})


def corpus_bm25(sections: Mapping[str, Section], stats: CorpusStats) -> dict[str, float]:
    """Per candidate id, BM25 of its section with the graph's statistics (the module docstring), divided by the
    best candidate's (all 0 when no section holds a term)."""
    weights = stats.weights()
    if not weights or not sections:
        return dict.fromkeys(sections, 0.0)
    raw = {cid: _score(section, weights, stats.mean_length) for cid, section in sections.items()}
    best = max(raw.values())
    return {cid: value / best if best > 0 else 0.0 for cid, value in raw.items()}


def _score(section: Section, weights: Mapping[str, float], mean_length: float) -> float:
    counts, length = _counts(section.texts, weights)
    for term, n in text_terms(section.heading)[0].items():
        if term in weights:
            counts[term] = counts.get(term, 0.0) + HEADING_WEIGHT * n
    return bm25(counts, length / mean_length, weights)


def _counts(texts: Sequence[str], weights: Mapping[str, float]) -> tuple[dict[str, float], int]:
    counts: dict[str, float] = {}
    length = 0
    for text in texts:
        found, words = text_terms(text)
        length += words
        for term in weights:
            n = found.get(term)
            if n:
                counts[term] = counts.get(term, 0.0) + n
    return counts, length
