"""Chunk vectors carry their document's header; graphs embedded the old way keep answering and upgrade on finalize."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from graphrag_agents.ingest.embedding import CHUNK_EMBED_FORMAT, chunk_embed_text
from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, chunk_id
from graphrag_agents.ingest.writer import write_document, write_documents
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.passages import dense_passages

BAND = "The band was formed in Toronto in 1968 and released nineteen studio albums."
TEA = "Green tea is made from Camellia sinensis leaves and originated in China."


def _doc(doc_id: str, title: str, text: str, heading: str = "") -> DocumentBatch:
    chunk = ChunkRecord(id=chunk_id(doc_id, 0), index=0, text=text, heading=heading)
    return DocumentBatch(DocumentRecord(id=doc_id, title=title, content_hash=doc_id), [chunk], [], [])


async def _stored(kg: KnowledgeGraph, cid: str) -> tuple[str, list[float], object]:
    rows = await kg.store.ro_query("MATCH (c:Chunk {id: $id}) RETURN c.text, c.embedding, c.embed_format",
                                   {"id": cid})
    text, vector, fmt = rows[0]
    return str(text), [float(x) for x in vector], fmt


def test_the_header_is_the_title_then_a_distinct_heading() -> None:
    assert chunk_embed_text("Rush (band)", "", BAND) == "Rush (band)\n" + BAND
    assert chunk_embed_text("Q1 report", "Sales", "Up 4%.") == "Q1 report\nSales\nUp 4%."
    assert chunk_embed_text("Sales", "Sales", "Up 4%.") == "Sales\nUp 4%."  # not twice
    assert chunk_embed_text(None, None, "Up 4%.") == "Up 4%."
    assert chunk_embed_text("  two\n lines ", None, "x") == "two lines\nx"  # a header line stays one line


async def test_finalize_embeds_the_title_with_the_text_and_stores_the_text_alone(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    await write_document(kg.store, _doc("rush", "Rush (band)", BAND))
    await write_document(kg.store, _doc("report", "Q1 report", "Revenue was up four percent.", heading="Sales"))
    await kg.finalize()
    text, vector, fmt = await _stored(kg, "rush#0")
    assert text == BAND and fmt == CHUNK_EMBED_FORMAT
    titled, plain = kg.embedder.embed(["Rush (band)\n" + BAND, BAND])
    assert np.allclose(vector, titled, atol=1e-5) and not np.allclose(vector, plain, atol=1e-3)
    _, vector, _ = await _stored(kg, "report#0")
    assert np.allclose(vector, kg.embedder.embed(["Q1 report\nSales\nRevenue was up four percent."])[0], atol=1e-5)


async def test_a_graph_embedded_from_text_alone_still_answers_and_finalize_upgrades_it(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    await write_document(kg.store, _doc("rush", "Rush (band)", BAND))
    await write_document(kg.store, _doc("tea", "Green tea", TEA))
    # What the previous version wrote: vectors of the text alone, no embed_format.
    for cid, text in (("rush#0", BAND), ("tea#0", TEA)):
        await kg.store.query("MATCH (c:Chunk {id: $id}) SET c.embedding = vecf32($v)",
                             {"id": cid, "v": kg.embedder.embed([text])[0].tolist()})
    hits = await kg.retrieve("When was the band Rush formed in Toronto?", paths=["passages"], top_k=2)
    assert hits.passages[0].document_id == "rush"  # old vectors, no finalize yet: it still answers
    tea = kg.embedder.embed(["Which tea comes from Camellia sinensis leaves?"])[0]
    assert (await dense_passages(kg.store, tea, 1))[0].document_id == "tea"
    assert (await kg.status()).unembedded == 0

    await kg.finalize()  # the upgrade: finalize re-embeds the old vectors with the header
    for cid, header, text in (("rush#0", "Rush (band)", BAND), ("tea#0", "Green tea", TEA)):
        _, vector, fmt = await _stored(kg, cid)
        assert fmt == CHUNK_EMBED_FORMAT
        assert np.allclose(vector, kg.embedder.embed([f"{header}\n{text}"])[0], atol=1e-5)
    assert (await kg.finalize()).embedded.chunks == 0  # and only once
    assert (await dense_passages(kg.store, tea, 2))[0].document_id == "tea"  # the rebuilt index serves both
    assert {h.document_id for h in await dense_passages(kg.store, tea, 2)} == {"rush", "tea"}


async def test_finalize_embeds_texts_of_like_length_together(kg: KnowledgeGraph, no_warm_up: None) -> None:
    """Each model call of ``finalize`` holds texts of like length (shortest first), so the model pads less: texts
    written in an order that mixes short and long ones are not embedded in that order."""
    await kg.ensure_schema()
    for i in range(70):  # longer and shorter texts, alternating in id order
        words = " ".join(["tea"] * (3 if i % 2 else 60))
        await write_document(kg.store, _doc(f"d{i:02d}", f"T{i}", f"{words} {i}."))
    calls: list[list[int]] = []
    embed = kg.embedder.aembed

    async def recording(texts):  # type: ignore[no-untyped-def]
        calls.append([len(t) for t in texts])
        return await embed(texts)

    kg.embedder.aembed = recording  # type: ignore[method-assign]
    await kg.finalize(progress=False)
    sizes = [c for c in calls if c]
    assert sum(len(c) for c in sizes) == 70 and len(sizes) >= 3
    for before, after in pairwise(sizes):
        assert max(before) <= min(after), sizes


async def _alternating_chunks(kg: KnowledgeGraph, n: int) -> None:
    await kg.ensure_schema()
    batches = [_doc(f"d{i:03d}", f"T{i}", " ".join(["tea"] * (3 if i % 2 else 60)) + f" {i}.") for i in range(n)]
    for start in range(0, n, 100):
        assert await write_documents(kg.store, batches[start:start + 100])


async def test_finalize_sorts_and_writes_across_more_than_a_few_hundred_rows(kg: KnowledgeGraph,
                                                                            no_warm_up: None) -> None:
    """300 chunks of alternating length: one length order across all of them (before, the order restarted every
    256 rows, so a long text's slice came before short ones), and their vectors set in one write query (before:
    one per 256 rows)."""
    await _alternating_chunks(kg, 300)
    calls: list[list[int]] = []
    writes: list[int] = []
    embed, query = kg.embedder.aembed, kg.store.query

    async def recording(texts):  # type: ignore[no-untyped-def]
        calls.append([len(t) for t in texts])
        return await embed(texts)

    async def counting(statement, params=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "SET c.embedding = vecf32" in statement:
            writes.append(len(params["rows"]))
        return await query(statement, params, *args, **kwargs)

    kg.embedder.aembed = recording  # type: ignore[method-assign]
    kg.store.query = counting  # type: ignore[method-assign]
    assert (await kg.finalize(progress=False)).embedded.chunks == 300
    sizes = [c for c in calls if c]
    for before, after in pairwise(sizes):
        assert max(before) <= min(after), sizes
    assert writes == [300]
    assert (await kg.status()).unembedded == 0


async def test_a_failed_vector_write_fails_finalize_and_a_later_finalize_completes(kg: KnowledgeGraph) -> None:
    """The vector writes run while the next rows are embedded: a write that fails still fails ``finalize`` (it is
    not lost in a background task), and the next ``finalize`` embeds what was left."""
    await _alternating_chunks(kg, 40)
    query = kg.store.query

    async def failing(statement, params=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "SET c.embedding = vecf32" in statement:
            raise RuntimeError("write refused")
        return await query(statement, params, *args, **kwargs)

    kg.store.query = failing  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="write refused"):
        await kg.finalize(progress=False)
    kg.store.query = query  # type: ignore[method-assign]
    assert (await kg.finalize(progress=False)).embedded.chunks == 40
    assert (await kg.status()).unembedded == 0
