"""The embedded folder always reopens: writes logged so that they replay across an append-only rewrite, and a
start that cannot replay its file recovers the last state that does, keeping the original files."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
import redis

from graphrag_agents.errors import StoreUnavailable
from graphrag_agents.ingest import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store._aof import AOF_DIR, SNAPSHOT_DIR, AppendOnlyFile, command_ends

_PLAN = IngestPlan(extractor="none", chunker="fixed", chunk_params={"size": 120, "overlap": 0})
_CONTENT = ("MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) WITH d, c ORDER BY c.index "
            "RETURN d.id, d.content_hash, collect(c.text) ORDER BY d.id")


def _server_client(kg: KnowledgeGraph) -> Any:
    server = kg.store._client.server
    assert server is not None
    return redis.Redis(unix_socket_path=str(server.socket_path))


async def _writer(kg: KnowledgeGraph, seed: int, ops: int) -> None:
    rng = random.Random(seed)
    for k in range(ops):
        doc = f"r{rng.randrange(12)}"
        if rng.random() < 0.3:
            await kg.delete_document(doc)
        else:
            text = " ".join(f"Report {doc} by {seed}-{k} line {n} reads {rng.randint(0, 10**6)} units."
                            for n in range(rng.randint(1, 5)))
            await kg.ingest(text=text, document_id=doc, plan=_PLAN)


def _verbatim_writes(folder: Path) -> list[bytes]:
    """The data-changing commands the append-only file logs as a verbatim query rather than as its effects."""
    aof = AppendOnlyFile.read(folder / AOF_DIR)
    assert aof is not None
    found = []
    for part in aof.incr:
        data = (aof.folder / part.name).read_bytes()
        start = 0
        for end in command_ends(data):
            command = data[start:end]
            start = end
            if b"GRAPH.QUERY" in command and b" INDEX " not in command:
                found.append(command[:160])
    return found


async def test_concurrent_writes_across_a_forced_rewrite_reopen_with_the_same_content(tmp_path: Path) -> None:
    """8 concurrent writers of one process, an append-only rewrite forced while they write, more writes after
    it, a clean close: the folder reopens with exactly the content the live server had, and the log holds every
    write as its effects (a verbatim write query is what failed to replay after such a rewrite)."""
    kg = await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path))
    await kg.ensure_schema()
    client = _server_client(kg)

    async def rewrite_halfway() -> None:
        await asyncio.sleep(0.05)
        client.bgrewriteaof()

    await asyncio.gather(rewrite_halfway(), *(_writer(kg, seed, 25) for seed in range(8)))
    while client.info("persistence")["aof_rewrite_in_progress"]:
        await asyncio.sleep(0.02)
    assert client.info("persistence")["aof_rewrites"] >= 1
    await asyncio.gather(*(_writer(kg, 100 + seed, 15) for seed in range(8)))
    live = await kg.store.ro_query(_CONTENT)
    client.close()
    await kg.close()

    assert _verbatim_writes(tmp_path) == []
    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as again:
        assert again.store._client.server is not None and again.store._client.server.recovery is None
        assert await again.store.ro_query(_CONTENT) == live
    assert live  # the writers left documents to compare


async def _three_documents(folder: Path) -> None:
    async with await KnowledgeGraph.open(graph="g", data_dir=str(folder)) as kg:
        for i in range(3):
            await kg.ingest(text=f"Report {i} reads {i} units.", document_id=f"r{i}", plan=_PLAN)


def _append_unreplayable_write(folder: Path) -> None:
    """Append a write the server crashes on when it replays it (a cut effects record), then a good write."""
    aof = AppendOnlyFile.read(folder / AOF_DIR)
    assert aof is not None
    incr = aof.folder / aof.incr[-1].name
    data = incr.read_bytes()
    ends = command_ends(data)
    last_good = data[ends[-2]:ends[-1]]
    blob = b"\x01\x03\x00\x00\x00"
    with open(incr, "ab") as handle:
        handle.write(b"*3\r\n$12\r\nGRAPH.EFFECT\r\n$1\r\ng\r\n$%d\r\n%s\r\n" % (len(blob), blob))
        handle.write(last_good)


async def test_a_file_that_does_not_replay_is_recovered_to_the_last_write_that_does(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    await _three_documents(tmp_path)
    _append_unreplayable_write(tmp_path)
    original = {p.name: p.read_bytes() for p in (tmp_path / AOF_DIR).iterdir()}
    logged = len(AppendOnlyFile.read(tmp_path / AOF_DIR).commands())  # type: ignore[union-attr]

    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as kg:
        recovery = kg.store._client.server.recovery  # type: ignore[union-attr]
        assert await kg.store.ro_query("MATCH (d:Document) RETURN d.id ORDER BY d.id") == [["r0"], ["r1"], ["r2"]]
    assert recovery is not None and not recovery.from_snapshot
    assert (recovery.logged, recovery.replayed) == (logged, logged - 2)  # the crashing write and the one after it
    kept = {p.name: p.read_bytes() for p in (recovery.kept / AOF_DIR).iterdir()}
    assert kept == original  # nothing deleted: the unreplayable files are kept as they were
    note = (recovery.kept / "RECOVERY.txt").read_text()
    assert f"write {logged - 2} of the {logged}" in note and str(recovery.kept) in note
    assert any("could not replay its append-only file" in r.getMessage() for r in caplog.records)

    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as kg:  # and it stays recovered
        assert kg.store._client.server.recovery is None  # type: ignore[union-attr]
        assert len(await kg.store.ro_query("MATCH (d:Document) RETURN d.id")) == 3


async def test_a_base_that_does_not_load_falls_back_to_the_known_good_snapshot(tmp_path: Path) -> None:
    await _three_documents(tmp_path)
    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as kg:  # this start's files: good
        assert (tmp_path / SNAPSHOT_DIR).is_dir()
        await kg.ingest(text="Report 3 reads 3 units.", document_id="r3", plan=_PLAN)
        client = _server_client(kg)
        client.bgrewriteaof()
        while client.info("persistence")["aof_rewrite_in_progress"] or client.info("persistence")[
                "aof_rewrite_scheduled"]:
            await asyncio.sleep(0.02)
        client.close()
    aof = AppendOnlyFile.read(tmp_path / AOF_DIR)
    assert aof is not None and aof.base is not None
    base = aof.folder / aof.base.name
    data = base.read_bytes()
    base.unlink()  # a new file, as a rewrite writes one: the snapshot's link keeps the base it loaded
    base.write_bytes(data[: len(data) // 2])

    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as kg:
        recovery = kg.store._client.server.recovery  # type: ignore[union-attr]
        ids = await kg.store.ro_query("MATCH (d:Document) RETURN d.id ORDER BY d.id")
    assert recovery is not None and recovery.from_snapshot
    assert ids == [["r0"], ["r1"], ["r2"]]  # what the last start loaded; r3 came after it
    assert "known-good snapshot" in recovery.describe()


async def test_when_nothing_loads_the_start_fails_and_changes_nothing(tmp_path: Path) -> None:
    await _three_documents(tmp_path)
    aof = AppendOnlyFile.read(tmp_path / AOF_DIR)
    assert aof is not None and aof.base is not None
    assert not (tmp_path / SNAPSHOT_DIR).exists()  # the folder's only start had no file to keep yet
    base = aof.folder / aof.base.name
    base.write_bytes(base.read_bytes()[:5] + b"\xff" * 20)  # the base itself cannot be read
    before = {p.name: p.read_bytes() for p in (tmp_path / AOF_DIR).iterdir()}

    with pytest.raises(StoreUnavailable, match="nothing was changed"):
        await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path))
    assert {p.name: p.read_bytes() for p in (tmp_path / AOF_DIR).iterdir()} == before
    assert not list(tmp_path.glob("falkordb.unreplayable-*"))


def test_command_boundaries_keep_transactions_whole_and_skip_a_cut_tail() -> None:
    def command(*args: bytes) -> bytes:
        return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)

    one = command(b"SELECT", b"0")
    block = command(b"MULTI") + command(b"GRAPH.EFFECT", b"g", b"\r\n\x00") + command(b"exec")
    two = command(b"GRAPH.QUERY", b"g", b"RETURN 1")
    data = one + block + two + command(b"GRAPH.QUERY", b"g", b"RETURN 2")[:-3]
    assert command_ends(data) == [len(one), len(one + block), len(one + block + two)]
    assert command_ends(b"#TS:1\r\n" + one) == [7, 7 + len(one)]
    assert command_ends(b"*x\r\n") == [] and command_ends(b"") == []


async def test_a_kept_server_recovers_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``GRAPHRAG_SERVER_IDLE`` the server runs under its keeper (an MCP client's warm server): a file that
    does not replay is recovered there too, instead of the keeper reporting a server that never started."""
    await _three_documents(tmp_path)
    _append_unreplayable_write(tmp_path)
    monkeypatch.setenv("GRAPHRAG_SERVER_IDLE", "1")
    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as kg:
        server = kg.store._client.server
        assert server is not None and server.process is None  # started by the keeper, not by this process
        assert server.recovery is not None and server.recovery.replayed == server.recovery.logged - 2
        assert len(await kg.store.ro_query("MATCH (d:Document) RETURN d.id")) == 3
