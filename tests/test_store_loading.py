"""A graph whose vector index FalkorDB is still building: open waits for it, reads wait or say when to retry.

After a restart whose append-only file replays an index creation on a populated graph (an index rebuilt by
``finalize``, or added by an upgrade), FalkorDB answers PING while it is still building that index in the
background, and refuses vector queries on it until it is done ("Invalid arguments for procedure
'db.idx.vector.queryNodes'"), which MCP clients saw as "the graph database could not be reached".
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from earlier_release import without_log_rewrite
from falkordb import FalkorDB

from graphrag_agents import GraphLoading, KnowledgeGraph
from graphrag_agents import kg as kg_module
from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder
from graphrag_agents.store import graph as graph_module
from graphrag_agents.store.embedded import EmbeddedServer, acquire_server, release_server
from graphrag_agents.store.graph import GraphStore

# Enough vectors that FalkorDB takes seconds (on 2 cores) to build their HNSW index after the restart.
_FILLER = 5000
_GRAPH = "loading"
_INDEXES = "CALL db.indexes() YIELD label, status RETURN label, status"
_QUESTION = "Where does Alice Smith work?"


async def _settle(store: GraphStore) -> None:
    deadline = time.monotonic() + 120
    while any(s != "OPERATIONAL" for _, s in await store.ro_query(_INDEXES)) and time.monotonic() < deadline:
        time.sleep(0.05)


async def _build(data_dir: Path, embedder: OnnxMiniLMEmbedder) -> None:
    """A folder whose file ends with an index's creation on a populated graph, replayed at each start. Without the
    rewrite ensure_schema now makes (see store/log_rewrite.py), as a folder written before it, or a remote server's
    file: with the creation in the snapshot, a start serves the index's searches from the start."""
    with without_log_rewrite():
        await _build_without_rewrites(data_dir, embedder)


async def _build_without_rewrites(data_dir: Path, embedder: OnnxMiniLMEmbedder) -> None:
    async with await KnowledgeGraph.open(graph=_GRAPH, data_dir=str(data_dir), embedder=embedder) as kg:
        await kg.ingest(text="Alice Smith works at Acme Corp in Berlin.", document_id="memo", progress=False)
        await kg.finalize(progress=False)
        for start in range(0, _FILLER, 1000):
            await kg.store.query(
                "UNWIND range($lo, $hi) AS i CREATE (:Chunk {id: 'filler-' + toString(i), document_id: 'filler', "
                "text: 'filler ' + toString(i), embedding: vecf32([j IN range(1, 384) | rand() - 0.5])})",
                {"lo": start, "hi": start + 999})
        await _settle(kg.store)
        # What finalize does for a dropped index, or an upgrade for a new one: the AOF now ends with it.
        await kg.store.query("DROP VECTOR INDEX FOR (n:Chunk) ON (n.embedding)")
        await kg.store.query("CREATE VECTOR INDEX FOR (n:Chunk) ON (n.embedding) "
                             "OPTIONS {dimension: 384, similarityFunction: 'cosine'}")
        await _settle(kg.store)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, embedder: OnnxMiniLMEmbedder) -> Path:
    """A stopped data folder holding the graph, built once for the module."""
    import asyncio

    folder = tmp_path_factory.mktemp("loading")
    asyncio.run(_build(folder, embedder))
    return folder


@pytest.fixture
def restarted(built: Path, tmp_path: Path) -> Iterator[tuple[Path, EmbeddedServer]]:
    """A copy of the folder with its server just started: it answers PING while the index is still building."""
    folder = tmp_path / "data"
    shutil.copytree(built, folder)
    server = acquire_server(folder)
    try:
        client = FalkorDB(unix_socket_path=str(server.socket_path))
        states = [s for _, s in client.select_graph(_GRAPH).ro_query(_INDEXES).result_set]
        client.close()
        assert any(s != "OPERATIONAL" for s in states), f"precondition: index still building at PONG ({states})"
        yield folder, server
    finally:
        release_server(server)


async def test_first_retrieve_after_a_restart_waits_for_the_index(
        restarted: tuple[Path, EmbeddedServer], embedder: OnnxMiniLMEmbedder) -> None:
    """Regression: the first retrieve after the restart failed while the index was being built."""
    folder, _ = restarted
    async with await KnowledgeGraph.open(graph=_GRAPH, data_dir=str(folder), embedder=embedder) as kg:
        assert await kg.store.pending_indexes() == [], "open reports ready only once every index is built"
        hits = await kg.retrieve(_QUESTION)
    assert "memo" in [h.document_id for h in hits.passages]


async def test_a_read_waits_for_a_build_longer_than_open_waits(
        restarted: tuple[Path, EmbeddedServer], embedder: OnnxMiniLMEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kg_module, "_OPEN_INDEX_WAIT_S", 0.0)
    folder, _ = restarted
    async with await KnowledgeGraph.open(graph=_GRAPH, data_dir=str(folder), embedder=embedder) as kg:
        hits = await kg.retrieve(_QUESTION)
    assert "memo" in [h.document_id for h in hits.passages]


async def test_a_long_build_answers_retry_in_n_seconds_with_a_hint(
        restarted: tuple[Path, EmbeddedServer], embedder: OnnxMiniLMEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kg_module, "_OPEN_INDEX_WAIT_S", 0.0)
    monkeypatch.setattr(graph_module, "_INDEX_WAIT_S", 0.0)
    folder, _ = restarted
    async with await KnowledgeGraph.open(graph=_GRAPH, data_dir=str(folder), embedder=embedder) as kg:
        with pytest.raises(GraphLoading) as caught:
            await kg.retrieve(_QUESTION)
    assert caught.value.retry_after >= 1
    assert "Retry this call in about" in caught.value.hint
    assert "Chunk" in caught.value.message and "could not reach" not in str(caught.value).lower()


async def test_a_build_that_ends_before_the_pending_check_is_retried_not_raised(
        restarted: tuple[Path, EmbeddedServer], embedder: OnnxMiniLMEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (1 read in 10 during a build): the query was refused while the index was building, the build
    ended before the pending-index check, and the raw refusal was raised as a database failure."""
    monkeypatch.setattr(kg_module, "_OPEN_INDEX_WAIT_S", 0.0)
    folder, _ = restarted
    async with await KnowledgeGraph.open(graph=_GRAPH, data_dir=str(folder), embedder=embedder) as kg:
        real, calls = GraphStore.pending_indexes, []

        async def finished_at_first_look(store: GraphStore) -> list[str]:
            calls.append(1)
            return [] if len(calls) == 1 else await real(store)  # the race: the first check sees it built

        monkeypatch.setattr(GraphStore, "pending_indexes", finished_at_first_look)
        hits = await kg.retrieve(_QUESTION)
    assert calls and "memo" in [h.document_id for h in hits.passages]
