"""A query that fails, or a retrieve that is cancelled, leaves no other query of the retrieve running."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, EntityRecord, chunk_id, entity_id
from graphrag_agents.ingest.writer import write_document
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.names import Anchor
from graphrag_agents.retrieval.passages import passages
from graphrag_agents.retrieval.retriever import retrieve


def _doc(doc_id: str, title: str, texts: list[str], names: Sequence[str] = ()) -> DocumentBatch:
    chunks = [ChunkRecord(id=chunk_id(doc_id, i), index=i, text=t) for i, t in enumerate(texts)]
    ents = [EntityRecord(id=entity_id("Person", n), label="Person", name=n,
                         chunk_ids=[c.id for c in chunks if n in c.text] or [chunks[0].id]) for n in names]
    return DocumentBatch(DocumentRecord(id=doc_id, title=title, content_hash=doc_id), chunks, ents, [])


DOCS = [
    _doc("album", "Live at the Manne-Hole", [
        "Live at the Manne-Hole is a 1966 live album recorded by the pianist Les McCann at a club in Hollywood."],
        ["Les McCann"]),
    _doc("pianist", "Les McCann", [
        "Les McCann (born September 23, 1935) is an American soul jazz pianist and vocalist.",
        "He toured widely in the 1970s with his own trio."], ["Les McCann"]),
    *[_doc(f"club{i}", f"Jazz club {i}", [f"Jazz club {i} hosted pianists and live albums in the 1960s."])
      for i in range(5)],
]
QUESTION = "When was the pianist Les McCann, who recorded Live at the Manne-Hole, born?"
KEYWORD_SEARCH = "db.idx.fulltext.queryNodes('Chunk'"
TITLED_HOP = "d.title >= name"
VECTOR_SEARCH = "db.idx.vector.queryNodes('Chunk'"


async def _build(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    for batch in DOCS:
        await write_document(kg.store, batch)
    await kg.finalize()


def _failing(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch, fail_on: str, slow: str = "") -> None:
    """Make the query containing ``fail_on`` fail at once, and the one containing ``slow`` answer only later."""
    ro_query = kg.store.ro_query

    async def flaky(query: str, params: dict[str, Any] | None = None, **kw: Any) -> list[list[Any]]:
        if fail_on in query:
            raise ConnectionError("the database went away")
        if slow and slow in query:
            await asyncio.sleep(0.5)
        return await ro_query(query, params, **kw)

    monkeypatch.setattr(kg.store, "ro_query", flaky)


async def _never() -> list[Anchor]:
    await asyncio.Event().wait()
    return []


def _running() -> set[asyncio.Task[Any]]:
    return {t for t in asyncio.all_tasks() if not t.done() and t is not asyncio.current_task()}


async def test_a_query_that_fails_cancels_the_other_searches_of_its_round(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    # asyncio.gather alone let the vector search and the anchors' wait run on after the keyword search failed
    await _build(kg)
    before = _running()
    _failing(kg, monkeypatch, KEYWORD_SEARCH)
    with pytest.raises(ConnectionError, match="went away"):
        await passages(kg.store, QUESTION, kg.embedder.embed([QUESTION])[0].tolist(), 10, anchors=_never())
    assert _running() == before


@pytest.mark.parametrize(("fail_on", "slow"), [(KEYWORD_SEARCH, VECTOR_SEARCH), (TITLED_HOP, "")])
async def test_a_retrieve_whose_query_fails_leaves_no_query_running(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch, fail_on: str, slow: str) -> None:
    await _build(kg)
    assert (await retrieve(kg.store, kg.embedder, QUESTION)).passages  # the titled hop does run for it
    before = _running()
    _failing(kg, monkeypatch, fail_on, slow)
    with pytest.raises(ConnectionError, match="went away"):
        await retrieve(kg.store, kg.embedder, QUESTION)
    assert _running() == before


async def test_a_cancelled_retrieve_cancels_every_query(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    await _build(kg)
    before = _running()
    _failing(kg, monkeypatch, "no query holds this", slow=VECTOR_SEARCH)
    task = asyncio.ensure_future(retrieve(kg.store, kg.embedder, QUESTION))
    await asyncio.sleep(0.2)  # the vector search is under way
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _running() == before
