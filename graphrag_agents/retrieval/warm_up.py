"""One ``retrieve`` at the end of ``finalize``, so the graph's first question does not pay first-time costs.

The first retrieve a process sends after a build costs more than the next ones: FalkorDB parses and plans each of
retrieve's query shapes the first time it sees it (it caches plans by query text), and this process reads again
what ``finalize``'s writes made stale (the graph's label sizes, its fact-vector rule, its index list). ``finalize``
ends by asking one question itself, so those costs are paid inside the build. The question is a document title
of the graph, so the keyword, name and graph paths all find something and send their queries. Measured by
``benchmarks/ready_bench.py`` (``docs/scale-building.md``, "A graph is ready when built"): the first retrieve
after ``finalize`` is 1.30x and 1.37x the p50 of the questions after it, against 1.75x and 1.74x without this.
"""

from __future__ import annotations

from ..models.embedder import Embedder
from ..store.graph import GraphStore
from .retriever import retrieve

__all__ = ["WARM_UP_FALLBACK", "warm_up"]

WARM_UP_FALLBACK = "What does the first document say?"
"""The question asked when the graph has no titled document."""


async def warm_up(store: GraphStore, embedder: Embedder) -> str:
    """Ask the graph one question (a document's title) and drop the answer; returns the question asked."""
    rows = await store.ro_query("MATCH (d:Document) WHERE d.title IS NOT NULL AND d.title <> '' "
                                "RETURN d.title LIMIT 1")
    question = str(rows[0][0]) if rows else WARM_UP_FALLBACK
    await retrieve(store, embedder, question)
    return question
