"""What a retrieve sends the server, on rows of the shared ``techdocs_a`` corpus copied to ``tests/data/`` (license in
``tests/data/NOTICE.md``): ``npm_pkg_sections.jsonl`` holds ``commands/npm-pkg.md › Description`` (one section of six
chunks, row ``techdocs_a-de14859ae787``) and the other sections of that page, ``npm_ci_install_sections.jsonl`` the
configuration entries of ``commands/npm-ci.md``.

Each test checks that a cheaper way of asking gives the very answer of the plain one: the keyword search run while
the question is embedded, the feedback search and the seed cosines in one query, a section remembered until a write.
"""

from __future__ import annotations

import asyncio

import numpy as np
import numpy.typing as npt
import pytest
from query_spy import read_queries
from section_rows import ingest_sections, read_rows

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.retrieval.candidates import keyword_search, vector_and_cosines, vector_candidates
from graphrag_agents.retrieval.feedback import feedback_and_cosines, feedback_search, seed_cosines
from graphrag_agents.retrieval.passages import keywords_first, passages
from graphrag_agents.retrieval.retriever import retrieve
from graphrag_agents.retrieval.term_frequency import section_texts

PKG = read_rows("npm_pkg_sections.jsonl")
CI = read_rows("npm_ci_install_sections.jsonl")
DESCRIPTION = "techdocs_a-de14859ae787"  # commands/npm-pkg.md › Description, six chunks
QUESTION = "How do I read a nested field of package.json with npm pkg get?"  # written for these tests


def _vector(kg: KnowledgeGraph) -> VectorParam:
    return VectorParam(kg.embedder.embed([QUESTION])[0].tolist())


@pytest.mark.usefixtures("no_warm_up")
async def test_a_section_read_once_is_not_asked_for_again_until_the_graph_is_written(kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, PKG, "none")
    rows = await kg.store.ro_query("MATCH (c:Chunk {document_id: $doc}) RETURN c.id ORDER BY c.index",
                                   {"doc": DESCRIPTION})
    first, third = str(rows[0][0]), str(rows[2][0])
    sent = read_queries(kg)
    read = await section_texts(kg.store, [first, third])
    assert len(read[first]) == 3 and len(read[third]) == 5  # its neighbours under the Description heading
    assert await section_texts(kg.store, [third, first]) == {third: read[third], first: read[first]}
    assert len(sent) == 1  # the second question's candidates were all read before: no query
    await kg.store.query("MATCH (c:Chunk {id: $id}) SET c.section_size = 6", {"id": first})  # a write
    assert await section_texts(kg.store, [first]) == {first: read[first]}
    assert len(sent) == 2  # asked again once this process wrote the graph


async def test_the_keyword_search_run_before_the_vector_gives_the_same_passages(kg: KnowledgeGraph) -> None:
    """``retrieve`` starts the keyword search while the question is embedded and reads its candidates' cosines with
    the vector search: the passages, their scores and similarities are those of the searches run together."""
    await ingest_sections(kg, PKG + CI, "none")
    vector = _vector(kg)
    inline, _ = await keyword_search(kg.store, QUESTION, vector, 30)
    early, weighted = await keyword_search(kg.store, QUESTION, None, 30)
    assert [c.chunk_id for c in early] == [c.chunk_id for c in inline] and weighted[0]
    assert all(c.cosine == 0.0 for c in early)  # no vector yet
    by_vector, cosines = await vector_and_cosines(kg.store, vector, 30, None, [c.chunk_id for c in early])
    assert cosines == {c.chunk_id: c.cosine for c in inline}
    plain = await vector_candidates(kg.store, vector, 30)
    assert [(c.chunk_id, c.cosine) for c in by_vector] == [(c.chunk_id, c.cosine) for c in plain]
    assert any(not c.loaded for c in by_vector)  # a text the keyword search brought is not sent twice
    together = await passages(kg.store, QUESTION, vector, 8)
    first = await passages(kg.store, QUESTION, vector, 8, keywords=keywords_first(kg.store, QUESTION, 8))
    assert [(h.chunk_id, h.score, h.similarity, h.text) for h in first] == \
        [(h.chunk_id, h.score, h.similarity, h.text) for h in together]


async def test_retrieve_asks_the_keyword_search_and_the_names_while_the_question_is_embedded(
        kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, PKG, "none")
    sent = read_queries(kg)
    real = kg.embedder

    class Slow:
        """The real embedder, answering once the store has seen the queries that need no vector (or after 5 s)."""

        dimension = real.dimension

        def __init__(self) -> None:
            self.seen: list[str] = []

        async def aembed(self, texts: list[str]) -> npt.NDArray[np.float32]:
            for _ in range(200):
                if any("fulltext.queryNodes('Chunk'" in s for s in sent) and any("name_key" in s for s in sent):
                    break
                await asyncio.sleep(0.01)
            self.seen = list(sent)
            return await real.aembed(texts)

    slow = Slow()
    hits = await retrieve(kg.store, slow, QUESTION, top_k=5)  # type: ignore[arg-type]
    assert hits.passages
    # the keyword search and the names were asked before the vector was known (and the chunk count the idf needs)
    assert any("fulltext.queryNodes('Chunk'" in s for s in slow.seen) and any("name_key" in s for s in slow.seen)
    assert all("vecf32($v)" not in s for s in slow.seen)


async def test_the_feedback_search_and_the_seed_cosines_are_one_query(kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, PKG + CI, "none")
    vector = _vector(kg)
    found = await vector_candidates(kg.store, vector, 10)
    seed, others = found[0], [c.chunk_id for c in found[1:]]
    feedback, near = await feedback_search(kg.store, vector, seed, 5)
    to_seed = await seed_cosines(kg.store, seed.chunk_id, others)
    sent = read_queries(kg)
    fused, fused_near, fused_to_seed = await feedback_and_cosines(kg.store, vector, seed, 5, others)
    assert len(sent) == 1
    assert fused == feedback and fused_to_seed == to_seed and len(to_seed) == len(others)
    assert [(c.chunk_id, c.cosine, c.text) for c in fused_near] == [(c.chunk_id, c.cosine, c.text) for c in near]


async def test_the_sections_are_read_beside_the_first_hop_and_only_for_chunks_not_alone(kg: KnowledgeGraph) -> None:
    """The vector and keyword searches bring each chunk's ``section_size``: the chunks alone under their heading
    are not asked for, and the sections the keyword feature scores were read beside the first hop, so scoring
    them sends no query of its own."""
    await ingest_sections(kg, PKG + CI, "none")
    vector = _vector(kg)
    sizes = {str(cid): int(n) for cid, n in await kg.store.ro_query("MATCH (c:Chunk) RETURN c.id, c.section_size")}
    found, _ = await keyword_search(kg.store, QUESTION, vector, 30)
    near = await vector_candidates(kg.store, vector, 30)
    assert {c.chunk_id: c.section_size for c in found + near} == {c.chunk_id: sizes[c.chunk_id] for c in found + near}
    assert any(c.alone for c in found + near) and any(not c.alone for c in found + near)
    sent = read_queries(kg)
    hits = await passages(kg.store, QUESTION, vector, 8)
    assert hits
    reads = [s for s in sent if "NEXT*" in s]
    assert len(reads) == 1  # with the first hop; none once the best candidates are known


async def test_bridge_expansion_and_the_titled_hop_are_one_query(kg: KnowledgeGraph) -> None:
    """The first hop's two expansions, asked together, find what each finds alone (candidates, weights, the
    entities a bridge went through, cosines to the feedback's seed)."""
    from graphrag_agents.retrieval.bridge import bridge_candidates, first_hop_candidates, titled_candidates

    await ingest_sections(kg, PKG + CI, "ner")
    vector = _vector(kg)
    near = await vector_candidates(kg.store, vector, 10)
    shared = await kg.store.ro_query(  # chunks naming an entity that another chunk names too: bridges lead on
        "MATCH (e:__Entity__)-[:MENTIONED_IN]->(c:Chunk) WITH e, collect(c.id) AS chunks "
        "WHERE size(chunks) >= 2 AND size(chunks) <= 30 RETURN chunks[0] ORDER BY chunks[0] LIMIT 2")
    seeds = [(str(row[0]), 1.0 / (i + 1)) for i, row in enumerate(shared)] + [(near[0].chunk_id, 1 / 3)]
    title = next(r["title"] for r in CI)  # a name the seed's text writes, as the titled hop reads it
    written = {near[0].chunk_id: [title]}
    bridged = await bridge_candidates(kg.store, seeds[:2], vector, 30, to_chunk=near[0].chunk_id)
    titled = await titled_candidates(kg.store, seeds, vector, 30, written=written, to_chunk=near[0].chunk_id)
    sent = read_queries(kg)
    both = await first_hop_candidates(kg.store, seeds[:2], seeds, vector, 30, written=written,
                                      to_chunk=near[0].chunk_id)
    assert len(sent) == 1
    assert both == (bridged, titled) and bridged and titled


async def test_where_the_sections_are_read_changes_no_passage(kg: KnowledgeGraph, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """On a graph of few entities the sections are read beside the first hop; on one of many (encyclopedic text,
    whose questions mostly reach a link) after it, only when needed. The same sections score either way."""
    import graphrag_agents.retrieval.passages as passages_module

    await ingest_sections(kg, PKG + CI, "none")
    assert await passages_module.few_entities(kg.store)  # no entity at all
    vector = _vector(kg)
    sent = read_queries(kg)
    beside = await passages(kg.store, QUESTION, vector, 8)
    early = len(sent)

    async def many(store: object) -> bool:
        return False

    from graphrag_agents.retrieval.term_frequency import _sections

    _sections.clear()  # forget the sections read, so the late read asks for them
    monkeypatch.setattr(passages_module, "few_entities", many)
    after = await passages(kg.store, QUESTION, vector, 8)
    assert [(h.chunk_id, h.score) for h in after] == [(h.chunk_id, h.score) for h in beside]
    assert len([s for s in sent[early:] if "NEXT*" in s]) == 1  # read once, after the first hop


ROUND_TRIPS = 10
"""Read queries one retrieve sends, every path on, once the graph's sizes and indexes are known (9.3 a question on
the HotpotQA sample, 9.6 on ``techdocs_a``: the latency section of ``docs/retrieval-passages.md``)."""


async def test_a_retrieve_sends_at_most_its_round_trips(kg: KnowledgeGraph, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every path, on a graph with entities: the queries a question sends, within :data:`ROUND_TRIPS`. A step that
    starts reading on its own (a label size or the statistics read twice, a count before the search) fails here."""
    from graphrag_agents.retrieval import corpus_stats, fulltext

    for module, ttl in ((fulltext, "LABEL_SIZE_TTL_S"), (corpus_stats, "STATS_TTL_S")):
        monkeypatch.setattr(module, ttl, 3600.0)  # a slow machine between the two questions asks no size again
    await ingest_sections(kg, PKG + CI, "ner")
    await retrieve(kg.store, kg.embedder, QUESTION, top_k=10)  # the graph's sizes, meta and indexes, asked once
    sent = read_queries(kg)
    hits = await retrieve(kg.store, kg.embedder, "Which npm ci option leaves out the devDependencies?", top_k=10)
    assert hits.passages and hits.entities
    assert len(sent) <= ROUND_TRIPS
