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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..store.graph import GraphStore
from ..text.keyword_terms import TERM_RULE, question_terms, text_terms
from .fulltext import idf
from .term_frequency import K1, B, Section

__all__ = ["HEADING_WEIGHT", "CorpusStats", "corpus_bm25", "read_corpus_stats"]

HEADING_WEIGHT = 3.0
"""A term of the heading trail (document title and heading) counts this many times a term of the text."""

_READ = (
    "MATCH (m:__Meta__ {key: 'keyword_stats'}) WHERE m.rule = $rule\n"
    "UNWIND $terms AS x OPTIONAL MATCH (t:__Term__ {term: x})\n"
    "RETURN m.sections, m.words, collect([x, t.df])"
)


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


async def read_corpus_stats(store: GraphStore, question: str) -> CorpusStats | None:
    """The statistics of the question's terms, in one query; None when the graph has none under the current term
    rule (a graph written by the previous release and not finalized since: the caller scores with its candidates'
    statistics then)."""
    terms = question_terms(question)
    if not terms:
        return None
    rows = await store.ro_query(_READ, {"rule": TERM_RULE, "terms": terms})
    if not rows or not rows[0][0]:
        return None
    sections, words, pairs = rows[0]
    return CorpusStats(sections=int(sections), mean_length=max(1.0, float(words or 0) / int(sections)),
                       df={str(term): int(n) for term, n in pairs if n})


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
    norm = K1 * (1 - B + B * length / mean_length)
    return sum(weights[term] * tf * (K1 + 1) / (tf + norm) for term, tf in counts.items())


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
