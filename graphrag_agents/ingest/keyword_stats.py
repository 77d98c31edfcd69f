"""The keyword index's statistics, kept in the graph at write time so a question reads them in one query.

What BM25 needs beyond the texts it scores: how many sections hold each term (document frequency), how many
sections there are, and their mean length. A section is a document's chunks under one heading (the unit
``Chunk.section_size`` counts); its terms (:mod:`graphrag_agents.text.keyword_terms`) are those of its chunks'
texts and of its heading trail (document title and heading), its length the plain words of its texts.

The data model:

* ``(:__Meta__ {key: 'keyword_stats'})``: ``rule`` (``TERM_RULE``, the term rule the counts were taken under),
  ``sections``, ``words`` (the sections' summed length);
* ``(:__Term__ {term, df})``: one node per term held by some section, ``df`` the sections holding it (range index
  on ``term``); a term whose count falls to 0 is removed;
* on the first chunk of each counted section, ``section_terms`` (its distinct terms) and ``section_words`` (its
  length): what a delete subtracts, so the counts stay those of the sections stored.

Each document write adds its sections in the same query (:data:`COUNT_SECTIONS`, only once the statistics exist:
a chunk already carrying ``section_terms`` is not counted again, so a retried write counts once), and each delete
or replacement subtracts the document's counted sections first (:data:`UNCOUNT_DOCUMENT`). A graph written by the
previous release has no statistics: ``finalize`` builds them from the stored chunks (:func:`upgrade_keyword_stats`),
as it does for a new graph's first batch, and until then ``retrieve`` scores with its candidates' own statistics
(``retrieval/term_frequency.py``). A graph whose counts were taken under another term rule is rebuilt the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store.graph import GraphStore
from ..store.schema import create_range_index
from ..text.keyword_terms import TERM_RULE, text_terms
from .records import DocumentBatch

__all__ = ["COUNT_SECTIONS", "STATS_KEY", "UNCOUNT_DOCUMENT", "StatsBuild", "rebuild_keyword_stats",
           "section_row", "section_rows", "upgrade_keyword_stats"]

STATS_KEY = "keyword_stats"
COUNT_SECTIONS = (
    "UNWIND $sections AS s MATCH (m:__Meta__ {key: 'keyword_stats', rule: $term_rule})\n"
    "MATCH (ch:Chunk {id: s.first}) WHERE ch.section_terms IS NULL\n"
    "SET ch.section_terms = s.terms, ch.section_words = s.words\n"
    "WITH m, collect(s) AS new\n"
    "SET m.sections = m.sections + size(new), m.words = m.words + reduce(n = 0, s IN new | n + s.words)\n"
    "WITH new UNWIND new AS s UNWIND s.terms AS term\n"
    "WITH term, count(*) AS n\n"
    "MERGE (t:__Term__ {term: term}) ON CREATE SET t.df = 0\n"
    "SET t.df = t.df + n"
)
"""Write step: count ``$sections`` (:func:`section_rows`) into the statistics, when they exist under ``$term_rule``."""
UNCOUNT_DOCUMENT = (
    "MATCH (m:__Meta__ {key: 'keyword_stats'})\n"
    "OPTIONAL MATCH (:Document {id: $doc_id})-[:HAS_CHUNK]->(c:Chunk) WHERE c.section_terms IS NOT NULL\n"
    "WITH m, collect(c.section_terms) AS lists, count(c) AS counted, "
    "toInteger(sum(coalesce(c.section_words, 0))) AS length\n"
    "SET m.sections = m.sections - counted, m.words = m.words - length\n"
    "WITH lists UNWIND lists AS terms UNWIND terms AS term\n"
    "WITH term, count(*) AS k\n"
    "MATCH (t:__Term__ {term: term}) SET t.df = t.df - k\n"
    # a DELETE after WITH ... WHERE here undid the whole step in FalkorDB 4.x; inside FOREACH it holds
    "FOREACH (_ IN CASE WHEN t.df <= 0 THEN [1] ELSE [] END | DELETE t)"
)
"""Delete step, before the document's chunks go: subtract its counted sections (``$doc_id``)."""
_BATCH = 500


def section_row(first: str, title: str, heading: str, texts: Sequence[str]) -> dict[str, Any]:
    """The row of one section: its first chunk's id, its distinct terms (texts and heading trail), its length."""
    terms: dict[str, None] = {}
    words = 0
    for text in texts:
        counts, length = text_terms(text)
        terms.update(dict.fromkeys(counts))
        words += length
    terms.update(dict.fromkeys(text_terms(f"{title} {heading}")[0]))
    return {"first": first, "terms": list(terms), "words": words}


def section_rows(batches: Sequence[DocumentBatch]) -> list[dict[str, Any]]:
    """One row per section of the batches' documents (:func:`section_row`), in chunk order."""
    rows: list[dict[str, Any]] = []
    for b in batches:
        by_heading: dict[str, list[Any]] = {}
        for c in b.chunks:
            by_heading.setdefault(c.heading, []).append(c)
        rows += [section_row(cs[0].id, b.document.title, heading, [c.text for c in cs])
                 for heading, cs in by_heading.items()]
    return rows


@dataclass(frozen=True)
class StatsBuild:
    """What a build of the statistics counted."""

    sections: int
    terms: int
    words: int


async def rebuild_keyword_stats(store: GraphStore) -> StatsBuild:
    """Count every stored section anew (the statistics node is removed first and written last, so a build cut
    short leaves none, and ``retrieve`` falls back until the next ``finalize``). Run under the write lock."""
    await create_range_index(store, "__Term__", "term")  # the writes' MERGE and the questions' reads seek by term
    await store.query("MATCH (m:__Meta__ {key: 'keyword_stats'}) DELETE m", idempotent=True)
    await store.query("MATCH (t:__Term__) DELETE t", idempotent=True)
    await store.query("MATCH (c:Chunk) WHERE c.section_terms IS NOT NULL "
                      "SET c.section_terms = NULL, c.section_words = NULL", idempotent=True)
    df: Counter[str] = Counter()
    sections = words = 0
    count = await store.ro_query("MATCH (d:Document) RETURN count(d)")
    for offset in range(0, int(count[0][0]) if count else 0, _BATCH):
        rows = await store.ro_query(
            "MATCH (d:Document) WITH d ORDER BY d.id SKIP $skip LIMIT $n\n"
            "MATCH (d)-[:HAS_CHUNK]->(c:Chunk) WITH d, c ORDER BY c.index\n"
            "RETURN d.title, c.heading, collect([c.id, c.text])", {"skip": offset, "n": _BATCH})
        found = [section_row(str(chunks[0][0]), str(title or ""), str(heading or ""),
                             [str(text or "") for _, text in chunks]) for title, heading, chunks in rows]
        for row in found:
            df.update(row["terms"])
            words += row["words"]
        sections += len(found)
        await store.query("UNWIND $rows AS s MATCH (c:Chunk {id: s.first}) "
                          "SET c.section_terms = s.terms, c.section_words = s.words", {"rows": found},
                          idempotent=True)
    items = sorted(df.items())
    for start in range(0, len(items), 5 * _BATCH):
        await store.query("UNWIND $rows AS r CREATE (:__Term__ {term: r[0], df: r[1]})",
                          {"rows": [list(item) for item in items[start:start + 5 * _BATCH]]})
    await store.query("MERGE (m:__Meta__ {key: 'keyword_stats'}) SET m.rule = $rule, m.sections = $sections, "
                      "m.words = $words", {"rule": TERM_RULE, "sections": sections, "words": words},
                      idempotent=True)
    return StatsBuild(sections=sections, terms=len(items), words=words)


async def upgrade_keyword_stats(store: GraphStore) -> StatsBuild | None:
    """Build the statistics when the graph has none or has them under another term rule (a graph written by the
    previous release, or a new graph's first ``finalize``); None when they are current. Run under the write lock."""
    rows = await store.ro_query("MATCH (m:__Meta__ {key: 'keyword_stats'}) RETURN m.rule")
    if rows and rows[0][0] == TERM_RULE:
        return None
    return await rebuild_keyword_stats(store)
