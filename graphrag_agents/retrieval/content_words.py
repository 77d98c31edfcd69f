"""A question's content words: its words that fewer than ``CONTENT_SHARE`` of the graph's chunks hold.

What ``retrieve`` judges a fact line by (``tools/earned.py``): a fact that holds none of them and names no entity
of the question is about something else. The corpus's own frequent words are not content: on npm's docs "npm",
"package" and "install" stand in most chunks, so a fact holding "npm" is not on the question for it. The counts
are the keyword search's document frequencies (:func:`~.fulltext.term_weights`, cached per store), so a question
whose passages were searched costs no further query as a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fulltext import cached_counts, query_terms, term_weights

if TYPE_CHECKING:
    from ..store.graph import GraphStore

__all__ = ["CONTENT_SHARE", "content_words"]

CONTENT_SHARE = 0.05
"""A word in fewer than this share of the chunks is a content word (the ``entity_junk_bench.py`` rule)."""


async def content_words(store: GraphStore, question: str) -> frozenset[str]:
    """The question's words (lower-cased, as the keyword search splits them) held by at least one chunk and by
    fewer than ``CONTENT_SHARE`` of them."""
    terms = query_terms(question)
    if not terms:
        return frozenset()
    await term_weights(store, "Chunk", terms)  # counts the terms not counted yet, and remembers them
    n, dfs = await cached_counts(store, "Chunk", terms)
    return frozenset(t for t, df in zip(terms, dfs, strict=True) if 0 < df < CONTENT_SHARE * n)
