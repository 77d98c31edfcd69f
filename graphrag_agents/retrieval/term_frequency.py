"""The sections the keyword feature reads (:func:`section_texts`), and the feature scored with the candidates' own
statistics (:func:`section_bm25`): what ``PassageWeights(statistics="pool")`` and a graph without the write-time
statistics use; the graph's statistics score by default (:mod:`.corpus_stats`).

Why: the keyword search (:mod:`.candidates`) finds chunks by the share of the question's idf they hold, each word
counted once, and only the chunks it returns carried a keyword score. On technical text that loses what BM25 keeps:
a section that says a word five times is about what the word names, and the heading it is filed under (a
command's page and section) names its subject. And a section split into chunks was scored a chunk at a time, so
the chunk holding the question's rarest word lacked the words its neighbour held. On npm's docs (`techdocs_a`) the
chunk-level coverage ranked its gold sections at nDCG@10 .838, below plain BM25 fused with the dense search
(.861); this feature, scored over the section's text, lifts it to .863 (``docs/retrieval.md``).

So once every path's candidates are known (:mod:`.passages` scores this feature when the graph links none of
them), each gets BM25 over the question's words: the term frequency in its section (its own text and, for the
best candidates, the texts of the neighbouring chunks under the same heading, :data:`SECTION_REACH` on each side)
saturated by k1, the section's length normalised against the candidates' mean (b), the heading trail
(document title and heading) counted :data:`HEADING_WEIGHT` times, and the idf the keyword search counted. The sum
is divided by the best candidate's, so the feature lies in [0, 1] whatever the question's length.

Words are compared after a fold close to the full-text index's stemming (:func:`fold`): lower case, a plural or
tense ending removed, so "installs" counts for "install" as it does in the index's document frequencies.
"""

from __future__ import annotations

import time
import weakref
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .._keys import QUERY_WORD as _WORD
from ..store.graph import GraphStore

__all__ = [
    "ALONE_TTL_S",
    "HEADING_WEIGHT",
    "K1",
    "SECTIONS_KEPT",
    "SECTION_REACH",
    "B",
    "Section",
    "bm25",
    "fold",
    "section_bm25",
    "section_texts",
    "sections_and",
    "term_counts",
]

K1 = 1.2
B = 0.75
HEADING_WEIGHT = 2.0
"""A word of the heading trail (document title and heading) counts this many times a word of the text."""
SECTION_REACH = 3
"""Neighbouring chunks read on each side of a candidate, while they stay under its heading."""
_ENDINGS = (("ies", "y"), ("ing", ""), ("ed", ""), ("s", ""))
_KEEP_S = ("ss", "us", "is")
"""Words whose final s is not a plural ending (``process``, ``status``, ``analysis``)."""


@lru_cache(maxsize=65_536)
def fold(word: str) -> str:
    """A lower-cased word without a plural or tense ending (``installs`` -> ``install``, ``caches`` -> ``cache``),
    keeping 3+ letters; folding a folded word changes nothing."""
    word = word.lower()
    for ending, replacement in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not (ending == "s" and word.endswith(_KEEP_S)):
            return word[:-len(ending)] + replacement
    return word


@dataclass(frozen=True)
class Section:
    """What a candidate's keyword feature reads: its section's texts and the heading trail it is filed under."""

    texts: Sequence[str]
    heading: str


def term_counts(section: Section, wanted: Mapping[str, float],
                read: dict[str, tuple[dict[str, int], int]] | None = None) -> tuple[dict[str, float], int]:
    """Per folded word of ``wanted``, its count in the section (a heading word counts :data:`HEADING_WEIGHT`
    times); and the section's length in words. ``read``: the counts of texts already read, by text (filled in)."""
    read = {} if read is None else read
    counts: dict[str, float] = {}
    length = 0
    for text in section.texts:
        got = read.get(text)
        if got is None:
            got = read[text] = _counted(text, wanted)
        length += got[1]
        for key, n in got[0].items():
            counts[key] = counts.get(key, 0.0) + n
    for key in map(fold, _WORD.findall(section.heading)):
        if key in wanted:
            counts[key] = counts.get(key, 0.0) + HEADING_WEIGHT
    return counts, length


def _counted(text: str, wanted: Mapping[str, float]) -> tuple[dict[str, int], int]:
    """The wanted words of ``text``, counted after folding, and its length in words."""
    folded, length = _folded(text)
    return {key: n for key, n in folded.items() if key in wanted}, length  # in the text's order, as summed


@lru_cache(maxsize=2_048)
def _folded(text: str) -> tuple[dict[str, int], int]:
    """Every word of ``text`` counted after folding, and its length in words: remembered per text, since the
    candidates of one graph's questions come back question after question (a chunk's text is the key, so an
    edited chunk is counted anew)."""
    found: dict[str, int] = {}
    words = Counter(_WORD.findall(text.lower()))  # each distinct word folded once
    for word, n in words.items():
        key = fold(word)
        found[key] = found.get(key, 0) + n
    return found, words.total()


def section_bm25(sections: Mapping[str, Section], idf: Mapping[str, float]) -> dict[str, float]:
    """Per candidate id, BM25 of its section over the words of ``idf`` (word -> idf), divided by the best
    candidate's score (all 0 when no section holds a word)."""
    weights: dict[str, float] = {}
    for word, value in idf.items():
        key = fold(word)
        weights[key] = max(weights.get(key, 0.0), value)
    if not weights or not sections:
        return dict.fromkeys(sections, 0.0)
    read: dict[str, tuple[dict[str, int], int]] = {}  # a neighbour's text is read once, not per candidate beside it
    counted = {cid: term_counts(section, weights, read) for cid, section in sections.items()}
    mean = max(1.0, sum(length for _, length in counted.values()) / len(counted))
    raw = {cid: bm25(counts, length / mean, weights) for cid, (counts, length) in counted.items()}
    best = max(raw.values())
    return {cid: value / best if best > 0 else 0.0 for cid, value in raw.items()}


def bm25(counts: Mapping[str, float], relative_length: float, weights: Mapping[str, float]) -> float:
    """BM25 of a section's term ``counts`` at ``relative_length`` (its length over the mean) with the terms' idf
    ``weights`` (:data:`K1`, :data:`B`)."""
    norm = K1 * (1 - B + B * relative_length)
    return sum(weights[word] * tf * (K1 + 1) / (tf + norm) for word, tf in counts.items())


_NEIGHBOURS = (
    # a chunk alone under its heading (section_size 1, written with it) is not walked from; a chunk written by an
    # earlier release has no size and is. A neighbour whose text the caller has comes back without it.
    "UNWIND $ids AS cid MATCH (c:Chunk {id: cid}) WHERE coalesce(c.section_size, 2) > 1 "
    f"OPTIONAL MATCH (c)-[:NEXT*1..{SECTION_REACH}]->(after:Chunk) WHERE after.heading = c.heading "
    "WITH cid, c, collect([after.id, CASE WHEN after.id IN $have THEN null ELSE after.text END]) AS later "
    f"OPTIONAL MATCH (before:Chunk)-[:NEXT*1..{SECTION_REACH}]->(c) WHERE before.heading = c.heading "
    "WITH cid, later, collect([before.id, CASE WHEN before.id IN $have THEN null ELSE before.text END]) AS earlier "
    "RETURN cid, later + earlier AS found"
)


ALONE_TTL_S = 60.0
"""How long a chunk's section, as a section query read it (its neighbours' texts, or none: the chunk alone under its
heading), is trusted to stay so when this process has not written the graph since (another process re-ingesting its
document could change it; until then its keyword feature reads the section as it was)."""
SECTIONS_KEPT = 4_096
"""Chunks whose neighbours' texts are remembered per store (the least recently asked for go first)."""


class _Sections:
    """Per store, the sections the section queries read, as of a write count and a time: the chunks found alone
    under their heading, and the neighbours' texts of the others."""

    def __init__(self) -> None:
        self.alone: set[str] = set()
        self.beside: OrderedDict[str, list[str]] = OrderedDict()
        self.writes = -1
        self.since = 0.0

    def current(self, store: GraphStore) -> _Sections:
        now = time.monotonic()
        if store.writes != self.writes or now - self.since > ALONE_TTL_S or len(self.alone) > _ALONE_LIMIT:
            self.alone, self.beside = set(), OrderedDict()
            self.writes, self.since = store.writes, now
        return self

    def remember(self, chunk_id: str, texts: list[str]) -> None:
        self.beside[chunk_id] = texts
        self.beside.move_to_end(chunk_id)
        while len(self.beside) > SECTIONS_KEPT:
            self.beside.popitem(last=False)


_ALONE_LIMIT = 200_000
_sections: weakref.WeakKeyDictionary[GraphStore, _Sections] = weakref.WeakKeyDictionary()


async def section_texts(store: GraphStore, chunk_ids: Sequence[str],
                        known: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """:func:`sections_and` without a query beside it."""
    return (await sections_and(store, chunk_ids, known))[0]


async def sections_and(store: GraphStore, chunk_ids: Sequence[str], known: Mapping[str, str] | None = None,
                       beside: tuple[str, dict[str, Any]] | None = None,
                       ) -> tuple[dict[str, list[str]], list[Any] | None]:
    """Per chunk id, the texts of the chunks beside it under the same heading (up to :data:`SECTION_REACH` on
    each side), in one query. Only the chunks whose section holds more than one chunk (``Chunk.section_size``,
    written at ingest) are walked from; a chunk alone under its heading is left out. What a query read is
    remembered a while (:data:`ALONE_TTL_S`, until this process writes the graph; the neighbours' texts of
    :data:`SECTIONS_KEPT` chunks): a later question's candidates are mostly chunks asked for before, so most
    questions ask for a few chunks or none (no query is sent when every candidate is known). ``known``: texts the
    caller has read already, by chunk id (a neighbour among them is not sent again).

    ``beside``: another read (a query returning ``null AS cid, ... AS found`` rows, and its parameters) sent in the
    same query as ``UNION ALL`` when the sections need one, else alone; its rows are returned with the texts (None
    when ``beside`` is None)."""
    cache = _sections.setdefault(store, _Sections()).current(store)
    asked = [cid for cid in chunk_ids if cid not in cache.alone and cid not in cache.beside]
    other: list[Any] | None = None
    if asked:
        known = known or {}
        query, params = _NEIGHBOURS, {"ids": asked, "have": list(known)}
        if beside is not None:
            query, params = f"{query}\nUNION ALL\n{beside[0]}", {**beside[1], **params}
        rows = await store.ro_query(query, params)
        other = [row for row in rows if row[0] is None] if beside is not None else None
        found = {str(cid): [str(text) if text is not None else known[str(nid)]
                            for nid, text in pairs if nid is not None and (text or str(nid) in known)]
                 for cid, pairs in rows if cid is not None}
        for cid in asked:
            if found.get(cid):
                cache.remember(cid, found[cid])
            else:
                cache.alone.add(cid)
    elif beside is not None:
        other = await store.ro_query(*beside)
    return {cid: cache.beside[cid] for cid in chunk_ids if cid in cache.beside}, other
