"""An acknowledged write is stored exactly once, or the caller is told it was not: lost replies, server crashes,
and two processes writing one data folder, all against real embedded FalkorDB servers."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from lossy_proxy import LossyProxy

from graphrag_agents.errors import StoreUnavailable
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.embedded import acquire_server, release_server

_NONE = IngestPlan(extractor="none")
_TEXT = "\n\n".join(f"Paragraph {i} says that item {i} weighs {i * 3} grams." for i in range(40))


async def _chunk_counts(kg: KnowledgeGraph) -> tuple[int, int, int]:
    """(chunks, distinct chunk ids, HAS_CHUNK edges), read without index lookups."""
    (chunks, ids), = await kg.store.ro_query("MATCH (c:Chunk) RETURN count(c), count(DISTINCT c.id)")
    (edges,), = await kg.store.ro_query("MATCH (:Document)-[r:HAS_CHUNK]->(:Chunk) RETURN count(r)")
    return int(chunks), int(ids), int(edges)


@pytest.fixture
def proxied(tmp_path: Path, embedder):  # type: ignore[no-untyped-def]
    """An embedded server of its own whose socket is a :class:`LossyProxy` in front of the real one."""
    folder = tmp_path / "db"
    server = acquire_server(folder)
    real = folder / "real.sock"
    os.rename(server.socket_path, real)  # the server keeps listening on it under the new name
    proxy = LossyProxy(server.socket_path, real)
    try:
        yield folder, proxy
    finally:
        proxy.close()
        release_server(server)


async def test_lost_reply_to_a_committed_ingest_stores_chunks_once(proxied, embedder,  # type: ignore[no-untyped-def]
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    folder, proxy = proxied
    async with await KnowledgeGraph.open(graph="lossy", data_dir=str(folder), embedder=embedder) as kg:
        await kg.ensure_schema()
        proxy.lose_reply_to(b"HAS_CHUNK")
        with caplog.at_level(logging.WARNING, logger="graphrag_agents.store.graph"):
            report = await kg.ingest(text=_TEXT, document_id="doc", plan=_NONE)
        assert proxy.lost == 1
        assert report.documents[0].status == "ingested"
        n = report.documents[0].chunks
        assert n > 1 and await _chunk_counts(kg) == (n, n, n)
        assert any("stopped answering" in r.getMessage() and "Retrying once" in r.getMessage()
                   for r in caplog.records if r.levelno == logging.WARNING)


async def test_lost_reply_to_a_plain_write_is_reported_not_retried(proxied, embedder) -> None:  # type: ignore[no-untyped-def]
    folder, proxy = proxied
    async with await KnowledgeGraph.open(graph="lossy", data_dir=str(folder), embedder=embedder) as kg:
        proxy.lose_reply_to(b"Probe")
        with pytest.raises(StoreUnavailable, match="whether that write was stored is unknown"):
            await kg.store.query("CREATE (:Probe {n: 1})")
        assert await kg.store.ro_query("MATCH (p:Probe) RETURN count(p)") == [[1]]


async def test_a_server_crash_between_calls_is_logged_and_recovered(tmp_path: Path, embedder,  # type: ignore[no-untyped-def]
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "db"
    async with await KnowledgeGraph.open(graph="crash", data_dir=str(folder), embedder=embedder) as kg:
        report = await kg.ingest(text=_TEXT, document_id="doc", plan=_NONE)
        n = report.documents[0].chunks
        server = kg.store._client.server
        assert server is not None and server.pid is not None
        old = server.pid
        os.kill(old, signal.SIGKILL)
        while server.process is not None and server.process.poll() is None:
            time.sleep(0.01)
        with caplog.at_level(logging.WARNING, logger="graphrag_agents.store.graph"):
            status = await kg.status()  # a read: retried once the server is back
        assert status.chunks == n
        assert server.pid != old
        assert any(f"restarted (pid {old}" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


_WRITER = textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    from graphrag_agents.ingest.plan import IngestPlan
    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    folder, graph, go, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

    async def main():
        kg = await KnowledgeGraph.open(graph=graph, data_dir=folder, embedder=OnnxMiniLMEmbedder())
        texts = [f"Document {i} reports that sensor {i} read {i * 7} units. It was calibrated." for i in range(count)]
        print("ready", flush=True)
        while not os.path.exists(go):
            time.sleep(0.001)
        reports = await asyncio.gather(*(kg.ingest(text=t, document_id=f"d{i}", plan=IngestPlan(extractor="none"))
                                         for i, t in enumerate(texts)))
        print(json.dumps({r.documents[0].document_id: r.documents[0].status for r in reports}), flush=True)
        await kg.close()

    asyncio.run(main())
    """
)


async def _create_schema(data_dir: Path, graph: str) -> None:
    async with await KnowledgeGraph.open(graph=graph, data_dir=str(data_dir)) as kg:
        await kg.ensure_schema()


@pytest.mark.parametrize("new_graph", [True, False], ids=["schema-race", "schema-exists"])
def test_two_processes_ingesting_the_same_new_documents_store_each_once(data_dir: Path, tmp_path: Path,
                                                                       new_graph: bool) -> None:
    import asyncio

    graph, go, count = f"t_{uuid.uuid4().hex[:12]}", tmp_path / "go", 60
    if not new_graph:
        asyncio.run(_create_schema(data_dir, graph))
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(data_dir), graph, str(go), str(count)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    outputs = [proc.communicate(timeout=240) for proc in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err[-3000:]
    statuses = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]

    async def check() -> None:
        async with await KnowledgeGraph.open(graph=graph, data_dir=str(data_dir)) as kg:
            try:
                chunks, ids, edges = await _chunk_counts(kg)
                (docs,), = await kg.store.ro_query("MATCH (d:Document) RETURN count(d)")
            finally:
                await kg.store.delete()
        assert docs == count and chunks == ids == edges and chunks >= count

    asyncio.run(check())
    for i in range(count):  # each document acknowledged as written by exactly one process
        assert sorted(s[f"d{i}"] for s in statuses) == ["ingested", "unchanged"]


_HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()
    """
)


async def test_a_cancelled_wait_for_the_write_lock_does_not_keep_it(tmp_path: Path) -> None:
    import asyncio

    from graphrag_agents.store.write_lock import FolderWriteLock

    lock = FolderWriteLock.for_graph(tmp_path, "g")
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock.path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    entered: list[str] = []

    async def writer(name: str) -> None:
        async with lock.hold():
            entered.append(name)

    waiting = asyncio.create_task(writer("cancelled"))
    await asyncio.sleep(0.2)  # it is now blocked on the other process's lock, in a worker thread
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=30)
    await asyncio.wait_for(writer("next"), timeout=30)  # would hang if the cancelled wait had kept the lock
    assert entered == ["next"]
