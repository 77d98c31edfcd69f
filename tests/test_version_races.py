"""Two writers of the same documents without the folder lock (a FalkorDB reached by URL) never mix versions: a
document's content hash always belongs to the chunk text stored with it, and "unchanged" only says so when the
stored chunks are that version's. Before, the document's properties were overwritten by every write while a
chunk's text was set only when the chunk was created, so a race could keep one version's hash with the other's
text, and re-ingesting that version then reported "unchanged" forever (3 of 240 racing writes)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.ingest.records import content_hash
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.embedded import acquire_server, release_server

_PLAN = IngestPlan(extractor="none", chunker="fixed", chunk_params={"size": 60, "overlap": 0})
_DOCS = 40
_ROUNDS = 2


def version_text(doc: int, version: str, round_: int) -> str:
    """The text writer ``version`` stores for a document: a different length per version (so a different
    number of chunks), every sentence tagged with the version."""
    sentences = 3 if version == "A" else 5
    return " ".join(f"[{version}{round_}] Sensor {doc} line {k} reads {doc * 7 + k} units." for k in range(sentences))


_WRITER = textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    sys.path.insert(0, sys.argv[5])
    from test_version_races import _PLAN, _DOCS, _ROUNDS, version_text
    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    url, prefix, go, version = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]

    async def main():
        embedder = OnnxMiniLMEmbedder()
        for round_ in range(_ROUNDS):
            kg = await KnowledgeGraph.open(url=url, graph=f"{prefix}{round_}", embedder=embedder)
            print("ready", flush=True)
            while not os.path.exists(f"{go}{round_}"):
                time.sleep(0.001)
            reports = await asyncio.gather(*(kg.ingest(text=version_text(i, version, round_), document_id=f"d{i}",
                                                       plan=_PLAN) for i in range(_DOCS)))
            print(json.dumps({r.documents[0].document_id: r.documents[0].status for r in reports}), flush=True)
            await kg.close()

    asyncio.run(main())
    """
)


async def _stored(kg: KnowledgeGraph) -> dict[str, tuple[str, list[str]]]:
    rows = await kg.store.ro_query("MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) "
                                   "WITH d, c ORDER BY c.index RETURN d.id, d.content_hash, collect(c.text)")
    return {str(i): (str(h), [str(t) for t in texts]) for i, h, texts in rows}


def test_two_writers_without_the_lock_never_mix_versions(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    server = acquire_server(tmp_path / "db")  # reached by URL below: no folder lock between the writers
    url, prefix, go = f"unix://{server.socket_path}", f"race_{uuid.uuid4().hex[:8]}_", tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, url, prefix, str(go), version,
                               str(Path(__file__).parent)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) for version in "AB"]
    try:
        for round_ in range(_ROUNDS):
            for proc in procs:
                assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            Path(f"{go}{round_}").touch()
            statuses = [json.loads(proc.stdout.readline()) for proc in procs]  # type: ignore[union-attr]
            asyncio.run(_check(url, f"{prefix}{round_}", round_, statuses, embedder))
        for proc in procs:
            assert proc.wait(timeout=60) == 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        release_server(server)


async def _check(url: str, graph: str, round_: int, statuses: list[dict[str, str]], embedder) -> None:  # type: ignore[no-untyped-def]
    async with await KnowledgeGraph.open(url=url, graph=graph, embedder=embedder) as kg:
        texts = {v: {i: version_text(i, v, round_) for i in range(_DOCS)} for v in "AB"}
        stored = await _stored(kg)
        assert sorted(stored) == sorted(f"d{i}" for i in range(_DOCS))
        kept: dict[str, str] = {}
        for doc, (digest, chunks) in stored.items():
            i = int(doc[1:])
            kept[doc] = version = next(v for v in "AB" if content_hash(texts[v][i]) == digest)
            # the chunks stored are the whole text of the version whose hash is stored, nothing else
            assert "".join(chunks).replace(" ", "") == texts[version][i].replace(" ", ""), (doc, chunks)
            assert [s[doc] for s in statuses].count("ingested") == 1, (doc, statuses)  # one writer stored it
        again = await asyncio.gather(*(kg.ingest(text=texts[v][int(d[1:])], document_id=d, plan=_PLAN)
                                       for d, v in kept.items()))
        assert {r.documents[0].status for r in again} == {"unchanged"}
        other = await asyncio.gather(*(kg.ingest(text=texts["B" if v == "A" else "A"][int(d[1:])], document_id=d,
                                                 plan=_PLAN) for d, v in kept.items()))
        assert {r.documents[0].status for r in other} == {"updated"}
        await kg.store.delete()


async def test_unchanged_compares_the_chunks_stored_not_only_the_hash(kg) -> None:  # type: ignore[no-untyped-def]
    one, two = version_text(1, "A", 0), version_text(1, "B", 0)
    await kg.ingest(text=one, document_id="d1", plan=_PLAN)
    # What a race without the lock left before: the other version's hash over this version's chunks.
    await kg.store.query("MATCH (d:Document {id: 'd1'}) SET d.content_hash = $h", {"h": content_hash(two)})
    healed = await kg.ingest(text=two, document_id="d1", plan=_PLAN)
    assert healed.documents[0].status == "updated"
    (digest, chunks), = (await _stored(kg)).values()
    assert digest == content_hash(two) and "".join(chunks).replace(" ", "") == two.replace(" ", "")
    assert (await kg.ingest(text=two, document_id="d1", plan=_PLAN)).documents[0].status == "unchanged"


async def test_a_mixed_document_an_earlier_version_left_heals_on_the_next_ingest(kg) -> None:  # type: ignore[no-untyped-def]
    one, two = version_text(2, "A", 0), version_text(2, "B", 0)
    await kg.ingest(text=one, document_id="mixed", plan=_PLAN)
    await kg.ingest(text=one, document_id="intact", plan=_PLAN)
    # What the previous version stored: no chunk versions, no chunk count; "mixed" has the other version's hash
    # over these chunks (the race), "intact" is whole.
    await kg.store.query("MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) REMOVE c.version, d.chunk_count")
    await kg.store.query("MATCH (d:Document {id: 'mixed'}) SET d.content_hash = $h", {"h": content_hash(two)})
    healed = await kg.ingest(text=two, document_id="mixed", plan=_PLAN)
    assert healed.documents[0].status == "updated"
    intact = await kg.ingest(text=one, document_id="intact", plan=_PLAN)
    assert intact.documents[0].status == "unchanged"
    stored = await _stored(kg)
    assert "".join(stored["mixed"][1]).replace(" ", "") == two.replace(" ", "")
    (stamped,), = await kg.store.ro_query("MATCH (:Document {id: 'intact'})-[:HAS_CHUNK]->(c:Chunk) "
                                          "WHERE c.version = $h RETURN count(c)", {"h": content_hash(one)})
    assert stamped == len(stored["intact"][1]) > 0  # checked once, then compared by version
