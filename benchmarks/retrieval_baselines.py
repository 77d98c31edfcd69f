"""What a user would pick instead of ``retrieve``, and the scoring every method of ``retrieval_bench.py`` shares.

* :class:`Bm25`: bm25s (Lucene variant, English stop words, Snowball stemmer from PyStemmer) over each corpus
  row's title + text, one row = one document of the eval graph.
* :func:`rrf`: reciprocal rank fusion (k = 60) of ranked document lists (BM25's and dense-only's top 100).
* :class:`Gold` and :func:`score`: binary relevance from a question's gold passages, where a gold passage and
  its exact copies (the set's ``duplicate_paragraph_ids``) are one gold group: the first item holding any of
  them counts, a later one (another copy, or another chunk of the same passage) is a miss. An item is the set
  of documents it names (a ``retrieve`` passage folded from several copies names each of them).

bm25s and PyStemmer are in the ``dev`` extra only (``pip install -e '.[dev]'``), never the product's dependencies.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RRF_K", "Bm25", "Gold", "gold_of", "read_rows", "rrf", "score"]

RRF_K = 60


class Bm25:
    """bm25s over ``(id, title, text)`` rows: Lucene BM25, English stop words, Snowball English stemmer."""

    def __init__(self, rows: Sequence[tuple[str, str, str]]) -> None:
        import bm25s  # dev extra only
        import Stemmer

        self._bm25s = bm25s
        self.ids = [r[0] for r in rows]
        self.stemmer = Stemmer.Stemmer("english")
        tokens = bm25s.tokenize([f"{title}\n{text}" for _, title, text in rows], stopwords="en",
                                stemmer=self.stemmer, show_progress=False)
        self.index = bm25s.BM25(method="lucene")
        self.index.index(tokens, show_progress=False)

    def search(self, question: str, k: int = 100) -> list[str]:
        """The ids of the ``k`` best rows, best first (rows scoring 0 left out)."""
        tokens = self._bm25s.tokenize([question], stopwords="en", stemmer=self.stemmer, show_progress=False)
        k = min(k, len(self.ids))
        docs, scores = self.index.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [self.ids[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


def rrf(*ranked: Sequence[str], k: int = RRF_K) -> list[str]:
    """Reciprocal rank fusion of ranked id lists (repeats in a list count at their first rank)."""
    fused: dict[str, float] = {}
    for ids in ranked:
        for rank, doc in enumerate(dict.fromkeys(ids), start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(fused, key=lambda d: (-fused[d], d))


@dataclass(frozen=True)
class Gold:
    """A question's gold groups: each a gold passage id with the ids of its exact copies."""

    groups: tuple[frozenset[str], ...]

    def group_of(self, doc: str) -> int | None:
        """The index of the group holding ``doc``, if any."""
        return next((i for i, g in enumerate(self.groups) if doc in g), None)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def gold_of(row: dict[str, object], texts: dict[str, str]) -> Gold:
    """The gold groups of a question row: each supporting paragraph with the ``duplicate_paragraph_ids`` whose
    text (whitespace and case normalised) equals its own."""
    gold = [str(g) for g in row.get("supporting_paragraph_ids", []) or []]  # type: ignore[union-attr]
    copies = [str(d) for d in row.get("duplicate_paragraph_ids", []) or []]  # type: ignore[union-attr]
    groups = []
    for g in gold:
        own = _norm(texts.get(g, ""))
        groups.append(frozenset([g, *(d for d in copies if own and _norm(texts.get(d, "")) == own)]))
    return Gold(tuple(groups))


def read_rows(path: Path) -> list[dict[str, object]]:
    """The JSON rows of a ``.jsonl`` file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _gains(items: Sequence[Sequence[str]], gold: Gold, k: int) -> list[int]:
    """Per item of the first ``k``, 1 when it is the first to hold a document of a gold group not yet found."""
    found: set[int] = set()
    gains = []
    for docs in items[:k]:
        hit = 0
        for doc in docs:
            group = gold.group_of(doc)
            if group is not None and group not in found:
                found.add(group)
                hit = 1
        gains.append(hit)
    return gains


def score(items: Sequence[Sequence[str]], gold: Gold, k: int, metric: str) -> float:
    """``ndcg``, ``recall`` or ``all`` (every group found) at ``k`` of ranked ``items`` (each the documents it
    names), with the duplicate rule of the module docstring."""
    n = len(gold.groups)
    if not n:
        return 1.0
    gains = _gains(items, gold, k)
    if metric == "recall":
        return sum(gains) / n
    if metric == "all":
        return float(sum(gains) == n)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(n, k)))
    return dcg / ideal
