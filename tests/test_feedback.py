"""Vector feedback (retrieval/feedback.py) on a hand-made graph in the real embedded FalkorDB, real MiniLM vectors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, chunk_id
from graphrag_agents.ingest.writer import write_document
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.retrieval.candidates import Candidate, vector_candidates
from graphrag_agents.retrieval.feedback import feedback_cosines, feedback_search
from graphrag_agents.retrieval.passages import POOL_WEIGHTS, WEIGHTS, dense_passages, passages

QUESTION = "Who is the spouse of the producer of Quiet Harbour?"
FILM = "Quiet Harbour is a 1998 drama film produced by Maren Lindqvist for a small studio in Bergen."
# the next link: no entity is stored in this graph, so neither bridge expansion nor a titled hop can reach it
SPOUSE = ("Maren Lindqvist, a film producer, made 1998 drama films for a small studio in Bergen; her spouse is the "
          "painter Ole Brun.")
DISTRACTORS = [  # close to the question's words, far from the film's paragraph
    "The spouse of a film producer often works on the production of the film.",
    "A spouse is a partner in a marriage; the producer of a record may be its singer's spouse.",
    "Salt Wind is a drama film about a harbour town, produced in 1999 by its director's spouse.",
]


def _doc(doc_id: str, title: str, text: str) -> DocumentBatch:
    return DocumentBatch(DocumentRecord(id=doc_id, title=title, content_hash=doc_id),
                         [ChunkRecord(id=chunk_id(doc_id, 0), index=0, text=text)], [], [])


async def _build(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    for batch in [_doc("film", "Quiet Harbour", FILM), _doc("spouse", "Coastal painters", SPOUSE)] + [
            _doc(f"d{i}", f"Distractor {i}", text) for i, text in enumerate(DISTRACTORS)]:
        await write_document(kg.store, batch)
    await kg.finalize()


def _floats(kg: KnowledgeGraph) -> list[float]:
    return [float(x) for x in kg.embedder.embed([QUESTION])[0]]


def _question(kg: KnowledgeGraph) -> VectorParam:
    return VectorParam(_floats(kg))


async def test_feedback_reaches_the_next_link_the_question_alone_misses(kg: KnowledgeGraph) -> None:
    await _build(kg)
    vector = _question(kg)
    dense = [h.document_id for h in await dense_passages(kg.store, _floats(kg), 3)]
    assert "spouse" not in dense  # the question's vector is nearer the distractors

    # The pool statistics' weights (cosine 1.5): at the default's cosine 3.0 the question's own cosine outweighs the
    # feedback on five paragraphs, and "spouse" ranks 5th (the default is checked on the feedback's rank below).
    without = await passages(kg.store, QUESTION, vector, 4, weights=replace(POOL_WEIGHTS, feedback=0.0))
    assert [h.document_id for h in without] == ["film", "d2", "d0", "d1"]
    hits = await passages(kg.store, QUESTION, vector, 4, weights=POOL_WEIGHTS)  # moved toward the film, it reaches her
    assert [h.document_id for h in hits] == ["film", "d2", "d0", "spouse"]
    ranked = [h.document_id for h in await passages(kg.store, QUESTION, vector, 5)]
    alone = [h.document_id for h in await passages(kg.store, QUESTION, vector, 5,
                                                  weights=replace(WEIGHTS, feedback=0.0))]
    assert ranked.index("spouse") <= alone.index("spouse")  # with the default weights, feedback never pushes her down


async def _film(kg: KnowledgeGraph, vector: VectorParam) -> Candidate:
    return next(c for c in await vector_candidates(kg.store, vector, 10) if c.document_id == "film")


async def _stored(kg: KnowledgeGraph) -> dict[str, np.ndarray]:
    rows = await kg.store.ro_query("MATCH (c:Chunk) RETURN c.id, c.embedding")
    return {cid: np.asarray(vec, dtype=np.float64) for cid, vec in rows}


async def test_the_feedback_cosine_is_the_cosine_to_the_summed_vectors(kg: KnowledgeGraph) -> None:
    await _build(kg)
    vector = _question(kg)
    film = await _film(kg, vector)
    feedback, found = await feedback_search(kg.store, vector, film, 4, shift=0.5)
    assert feedback is not None and len(found) == 4 and all("feedback" in c.found_by for c in found)
    stored = await _stored(kg)
    q = np.asarray(_floats(kg), dtype=np.float64)
    moved = q / np.linalg.norm(q) + 0.5 * stored[film.chunk_id] / np.linalg.norm(stored[film.chunk_id])

    def expected(cid: str) -> float:
        c = stored[cid]
        return float(moved @ c / (np.linalg.norm(moved) * np.linalg.norm(c)))

    assert {cid: round(x, 4) for cid, x in feedback.near.items()} == {
        cid: round(expected(cid), 4) for cid in feedback.near}
    others = [c for c in await vector_candidates(kg.store, vector, 10) if c.chunk_id not in feedback.near]
    assert others
    await feedback_cosines(kg.store, feedback, [*others, Candidate("no-such-chunk", "x", "", 0.0)])
    assert set(feedback.near) == {c.chunk_id for c in found} | {c.chunk_id for c in others}
    assert all(feedback.near[c.chunk_id] == pytest.approx(expected(c.chunk_id), abs=1e-4) for c in others)
    nearest = sorted(stored, key=lambda cid: -expected(cid))[:4]  # the four nearest of all, exactly
    assert {c.chunk_id for c in found} == set(nearest)


async def test_feedback_search_keeps_the_document_filter(kg: KnowledgeGraph) -> None:
    await _build(kg)
    vector = _question(kg)
    feedback, found = await feedback_search(kg.store, vector, await _film(kg, vector), 5,
                                            document_ids=["d1", "spouse"])
    assert feedback is not None
    assert {c.document_id for c in found} == {"d1", "spouse"} and set(feedback.near) == {c.chunk_id for c in found}


async def test_no_feedback_before_finalize(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    for batch in [_doc("film", "Quiet Harbour", FILM), _doc("spouse", "Coastal painters", SPOUSE)]:
        await write_document(kg.store, batch)  # no finalize: no chunk has a vector yet
    seed = Candidate(chunk_id("film", 0), "film", "Quiet Harbour", 0.0)
    assert await feedback_search(kg.store, _question(kg), seed, 3) == (None, [])
    hits = await passages(kg.store, QUESTION, _question(kg), 3)
    assert hits and hits[0].document_id == "film"  # the keyword search still finds it
    assert all("feedback" not in h.found_by for h in hits)


async def test_a_chunk_written_since_finalize_has_no_feedback_cosine(kg: KnowledgeGraph) -> None:
    """Found by the tool fuzzer: a chunk without a vector yet (ingested after finalize) beside embedded ones."""
    await _build(kg)
    await write_document(kg.store, _doc("late", "Late addition", "Maren Lindqvist produced a second harbour film."))
    vector = _question(kg)
    film = await _film(kg, vector)
    feedback, found = await feedback_search(kg.store, vector, film, 20, document_ids=["late", "spouse"])
    assert feedback is not None and {c.document_id for c in found} == {"late", "spouse"}
    late = next(c for c in found if c.document_id == "late")
    assert late.cosine == 0.0 and feedback.near[late.chunk_id] == pytest.approx(0.0)
    feedback.near.clear()
    await feedback_cosines(kg.store, feedback, [late, film])
    assert feedback.near[late.chunk_id] == pytest.approx(0.0) and feedback.near[film.chunk_id] > 0.5
    hits = await passages(kg.store, "Who produced the second harbour film of Maren Lindqvist?", vector, 5)
    assert "late" in {h.document_id for h in hits}


async def test_the_feature_comes_from_the_cosines_the_first_hop_read_without_another_query(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    # The hop queries return each row's cosine to the seed (to_chunk); the feature computed from it is the one the
    # separate query reads, and feedback_cosines then sends no query for those candidates.
    from graphrag_agents.retrieval.bridge import titled_candidates
    from graphrag_agents.retrieval.feedback import seed_cosines

    await _build(kg)
    vector = _question(kg)
    film = await _film(kg, vector)
    others = [c for c in await vector_candidates(kg.store, vector, 10) if c.chunk_id != film.chunk_id]
    read = await seed_cosines(kg.store, film.chunk_id, [c.chunk_id for c in others])
    assert set(read) == {c.chunk_id for c in others}
    titled = await titled_candidates(kg.store, [(film.chunk_id, 1.0)], vector, 10,
                                     written={film.chunk_id: ["Coastal painters"]}, to_chunk=film.chunk_id)
    compared = [c for c in titled if c.chunk_id in read]
    assert compared and all(c.seed_cosine == pytest.approx(read[c.chunk_id]) for c in compared)
    assert all(c.seed_cosine is not None for c in titled)
    assert all(c.seed_cosine is None for c in await titled_candidates(
        kg.store, [(film.chunk_id, 1.0)], vector, 10, written={film.chunk_id: ["Coastal painters"]}))
    feedback, _ = await feedback_search(kg.store, vector, film, 1)
    assert feedback is not None
    expected = dict(feedback.near)
    await feedback_cosines(kg.store, feedback, others)  # by query
    expected, feedback.near = dict(feedback.near), expected
    for c in others:
        c.seed_cosine = read[c.chunk_id]
    sent: list[str] = []
    real = kg.store.ro_query

    async def spy(query, params=None, timeout_ms=None):  # type: ignore[no-untyped-def]
        sent.append(query)
        return await real(query, params, timeout_ms)

    monkeypatch.setattr(kg.store, "ro_query", spy)
    await feedback_cosines(kg.store, feedback, others)  # from the cosines read
    assert sent == [] and feedback.near == pytest.approx(expected)
