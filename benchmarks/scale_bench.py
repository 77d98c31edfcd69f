"""How cost grows with graph size: retrieve latency and recall, server memory and write/ingest throughput at 1k,
10k and 100k chunks on the embedded FalkorDB, each figure next to its baseline measured in the same run.

    python benchmarks/scale_bench.py [--sizes 1000,10000,100000] [--questions 100] [--data-dir DIR] [--seed 7]
                                     [--reuse]

``--reuse`` keeps the grown graph in the data folder (a marker records its size) and starts from it next time:
growing to 100k chunks takes most of an hour on a shared 2-core machine, asking the questions a minute.

A script, not a test: pytest only collects ``tests/`` (``testpaths``), and nothing here is imported by the suite.

What it does, in order:

1. **Ingest throughput** of the product's pipeline (``KnowledgeGraph.ingest_documents``) on real paragraphs of
   the HotpotQA sample with the ``ner`` extractor, against the same paragraphs with extractor ``none`` (chunk and
   write only: the baseline), then ``finalize`` with the real ONNX embedder (texts embedded per second).
2. **A synthetic corpus** in the sample's style (``synthetic_corpus.py``: real sentences with real names
   recombined, deterministic), grown to each size in turn: written with the product's writer
   (``write_documents``, 100 documents a query like the pipeline), then ``finalize`` with a lookup embedder that
   serves vectors derived from real embeddings (embedding 100k texts for real would take hours on 2 cores; the
   agreement with real embeddings is measured and printed).
3. At each size: ``redis-server`` memory (``INFO memory`` used_memory) against the empty server, write and
   finalize throughput, and on ``--questions`` planted questions (answer paragraph known) recall@10 and latency
   p50/p95 of ``retrieve`` (all paths, top_k 10) against the dense-only baseline (chunk vector search alone).
   Question embeddings are real (ONNX) and included in both latencies. Per search, also the client's CPU, the
   round trips and FalkorDB's own execution time (each query replayed once after the timing), and where
   retrieve's server time goes by kind of query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_corpus import LookupEmbedder, Source, base_vectors, calibrate, synthetic_vectors

from graphrag_agents.evaluation.metrics import percentile, recall_at_k, unique
from graphrag_agents.ingest.embedding import CHUNK_EMBED_FORMAT
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.ingest.writer import write_documents
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder
from graphrag_agents.retrieval.passages import dense_passages

CORPUS = Path("/work/shared/eval/hotpotqa.corpus.jsonl")
GRAPH = "scale_bench"
_WRITE_GROUP = 100
_FINALIZE_EVERY = 5000


async def used_memory(kg: KnowledgeGraph) -> int:
    """``INFO memory`` used_memory of the server, bytes (the store has no public accessor for it)."""
    client: Any = kg.store._client
    info = await client.db().primary.info("memory")
    return int(info["used_memory"])


def _rate(count: float, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s" if seconds > 0 else "-"


async def ingest_throughput(data_dir: Path, embedder: OnnxMiniLMEmbedder, count: int) -> dict[str, Any]:
    """The product's ingest on ``count`` real paragraphs, ner vs none, then finalize (real embedding)."""
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()[:count]]
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows]
    found: dict[str, Any] = {}
    async with await KnowledgeGraph.open(graph=f"{GRAPH}_warmup", data_dir=str(data_dir), embedder=embedder) as kg:
        await kg.ingest_documents(sources[:5], IngestPlan(extractor="ner"), progress=False)  # loads spaCy
        await kg.store.delete()
    for extractor in ("none", "ner"):
        async with await KnowledgeGraph.open(graph=f"{GRAPH}_ingest_{extractor}", data_dir=str(data_dir),
                                             embedder=embedder) as kg:
            await kg.store.delete()
            started = time.perf_counter()
            plan = IngestPlan(extractor="ner" if extractor == "ner" else "none")
            report = await kg.ingest_documents(sources, plan, progress=False)
            ingest_s = time.perf_counter() - started
            final = await kg.finalize(progress=False)
            e = final.embedded
            found[extractor] = {"ingest_s": ingest_s, "docs": len(sources),
                                "chunks": sum(d.chunks for d in report.documents),
                                "finalize_s": final.seconds, "embedded": e.chunks + e.entities + e.facts,
                                "entities": final.status.entities, "relations": final.status.relations}
            await kg.store.delete()
    return found


async def grow(kg: KnowledgeGraph, source: Source, lookup: LookupEmbedder, vectors: tuple[Any, Any],
               seed: int, start: int, stop: int, alpha: float, grouped: bool = True) -> tuple[float, float, int]:
    """Write paragraphs ``start``..``stop`` and finalize them; returns write seconds, finalize seconds and the
    number of vectors finalize set. ``grouped=False`` writes one relation per entity pair (the old shape)."""
    sentences, names = vectors
    write_s = finalize_s = 0.0
    embedded = 0
    for lo in range(start, stop, _FINALIZE_EVERY):
        hi = min(stop, lo + _FINALIZE_EVERY)
        paras = list(source.paragraphs_range(seed, lo, hi))
        started = time.perf_counter()
        for g in range(0, len(paras), _WRITE_GROUP):
            await write_documents(kg.store, [p.batch(grouped) for p in paras[g:g + _WRITE_GROUP]])
        write_s += time.perf_counter() - started
        lookup.table = {}
        for p in paras:
            lookup.table.update(synthetic_vectors(p, sentences, names, alpha))
        started = time.perf_counter()
        report = await kg.finalize(progress=False)
        finalize_s += time.perf_counter() - started
        embedded += report.embedded.chunks + report.embedded.entities + report.embedded.facts
        print(f"  {hi:,} paragraphs: written in {write_s:.0f} s, finalized in {finalize_s:.0f} s so far", flush=True)
    lookup.table = {}
    return write_s, finalize_s, embedded


_KINDS = (("queryNodes('Chunk', t) YIELD node RETURN count", "keyword search (counting its new words)"),
          ("queryNodes('Chunk', w[0])", "keyword search"), ("queryNodes('Chunk', w[2])", "keyword search"),
          ("vector.queryNodes('Chunk'", "chunk vector search"),
          ("__Term__", "sections and keyword statistics"), ("queryNodes('__Entity__'", "entity names"),
          ("MENTIONED_IN", "entity mentions, bridges, titled hop"), ("RELATES", "facts and links"))


def _kind(query: str) -> str:
    """What a retrieve query does, for the table of where the server time goes."""
    return next((name for key, name in _KINDS if key in query), "other")


class _Recorder:
    """The read queries sent while on, replayed afterwards for FalkorDB's own execution time."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        from falkordb import FalkorDB

        self.sent: list[tuple[str, Any]] = []
        self.on = False
        server = kg.store._client.server
        self.raw = (FalkorDB(unix_socket_path=str(server.socket_path)).select_graph(kg.store.name)
                    if server is not None else None)
        ro_query = kg.store.ro_query

        async def recorded(query: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.sent.append((query, params))
            return await ro_query(query, params, *args, **kwargs)

        kg.store.ro_query = recorded  # type: ignore[method-assign]

    def replay(self, per_kind: dict[str, list[float]]) -> float:
        """Server milliseconds of the queries recorded (each run once more), added to ``per_kind``; then forgets."""
        total = 0.0
        for query, params in self.sent if self.raw is not None else []:
            ms = float(self.raw.ro_query(query, params).run_time_ms)
            per_kind.setdefault(_kind(query), []).append(ms)
            total += ms
        self.sent = []
        return total


async def ask(kg: KnowledgeGraph, real: OnnxMiniLMEmbedder, source: Source, seed: int, size: int,
              count: int) -> dict[str, Any]:
    """Planted questions on paragraphs 0..size-1: recall@10 and latency of retrieve vs dense-only; per search, the
    client's CPU (this process, the embedder's threads included), the round trips and the server's own execution
    time (each query replayed once after the timing)."""
    picks = random.Random(f"{seed}:questions:{size}").sample(range(size), min(count, size))
    paras = [source.paragraph(seed, i) for i in picks]
    await kg.retrieve(paras[0].question(), top_k=10)  # warm-up
    out: dict[str, list[float]] = {"ours_ms": [], "dense_ms": [], "ours_r": [], "dense_r": [], "ours_cpu": [],
                                   "dense_cpu": [], "ours_trips": [], "ours_server": [], "dense_server": []}
    recorder, per_kind = _Recorder(kg), {}
    for p in paras:
        question = p.question()
        recorder.on = True
        started, cpu = time.perf_counter(), time.process_time()
        vector = (await real.aembed([question]))[0]
        dense = await dense_passages(kg.store, vector, 10)
        out["dense_ms"].append((time.perf_counter() - started) * 1000)
        out["dense_cpu"].append((time.process_time() - cpu) * 1000)
        out["dense_server"].append(recorder.replay({}))
        recorder.on = True
        started, cpu = time.perf_counter(), time.process_time()
        hits = await kg.retrieve(question, top_k=10)
        out["ours_ms"].append((time.perf_counter() - started) * 1000)
        out["ours_cpu"].append((time.process_time() - cpu) * 1000)
        recorder.on = False
        out["ours_trips"].append(len(recorder.sent))
        out["ours_server"].append(recorder.replay(per_kind))
        out["dense_r"].append(recall_at_k(unique(h.document_id for h in dense), [p.doc_id], 10))
        out["ours_r"].append(recall_at_k(unique(h.document_id for h in hits.passages), [p.doc_id], 10))
    mean = statistics.fmean
    return {
        "recall_ours": sum(out["ours_r"]) / len(paras), "recall_dense": sum(out["dense_r"]) / len(paras),
        "p50_ours": percentile(out["ours_ms"], .5), "p95_ours": percentile(out["ours_ms"], .95),
        "p50_dense": percentile(out["dense_ms"], .5), "p95_dense": percentile(out["dense_ms"], .95),
        "p50_ratio": percentile(out["ours_ms"], .5) / percentile(out["dense_ms"], .5),
        "cpu_ours": mean(out["ours_cpu"]), "cpu_dense": mean(out["dense_cpu"]), "trips": mean(out["ours_trips"]),
        "server_ours": mean(out["ours_server"]), "server_dense": mean(out["dense_server"]),
        "server_by_kind": {k: [round(sum(v) / len(paras), 2), round(len(v) / len(paras), 2)]
                           for k, v in sorted(per_kind.items(), key=lambda kv: -sum(kv[1]))},
    }


def _print_ingest(found: dict[str, Any]) -> None:
    none, ner = found["none"], found["ner"]
    print(f"\ningest ({ner['docs']} real paragraphs, {ner['chunks']} chunks; baseline = extractor none):")
    print(f"  ner:   {_rate(ner['docs'], ner['ingest_s'])} documents, {_rate(ner['chunks'], ner['ingest_s'])} chunks "
          f"({ner['entities']} entities, {ner['relations']} relations)")
    print(f"  none:  {_rate(none['docs'], none['ingest_s'])} documents, {_rate(none['chunks'], none['ingest_s'])} "
          f"chunks  -> ner costs {ner['ingest_s'] / none['ingest_s']:.1f}x")
    print(f"  finalize (real ONNX embedding): ner graph {_rate(ner['embedded'], ner['finalize_s'])} texts "
          f"({ner['embedded']} texts), none graph {_rate(none['embedded'], none['finalize_s'])} texts "
          f"({none['embedded']} chunks)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--questions", type=int, default=100, help="planted questions per size")
    parser.add_argument("--data-dir", default=".graphrag-bench/scale")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--ingest-docs", type=int, default=300, help="real paragraphs for the ingest figure")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the grown graph in --data-dir and start from it next time (sizes below it skipped)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    data_dir = Path(args.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    real = OnnxMiniLMEmbedder()
    source = Source(CORPUS)
    started = time.perf_counter()
    vectors = base_vectors(source, real, data_dir)
    print(f"base vectors: {len(source.sentences)} sentences + {len(source.names)} names "
          f"({time.perf_counter() - started:.0f} s, cached in {data_dir})")
    check = calibrate(source, real, *vectors, seed=args.seed, cache=data_dir)
    alpha = check["alpha"]
    print(f"synthetic chunk vectors vs real embeddings of the same 1,000 texts: mean cosine {check['agreement']:.3f} "
          f"(alpha {alpha}); dense-only recall@10 on 100 planted questions over them (brute force): real vectors "
          f"{check['dense_recall_real']:.2f}, synthetic {check['dense_recall_synthetic']:.2f}")
    if args.ingest_docs:
        _print_ingest(await ingest_throughput(data_dir, real, args.ingest_docs))
    lookup = LookupEmbedder(real, {})
    rows: list[dict[str, Any]] = []
    marker = data_dir / f"{GRAPH}.built.json"
    wanted = {"corpus": source.digest, "seed": args.seed, "alpha": alpha, "embed_format": CHUNK_EMBED_FORMAT}
    async with await KnowledgeGraph.open(graph=GRAPH, data_dir=str(data_dir), embedder=lookup) as kg:
        done, empty = 0, 0
        if args.reuse and marker.exists() and await kg.store.exists():
            kept = json.loads(marker.read_text())
            if {k: kept.get(k) for k in wanted} == wanted:
                done, empty = int(kept["paragraphs"]), int(kept["empty_memory"])
                print(f"reusing the graph of {done:,} paragraphs in {data_dir}", flush=True)
        if not done:
            await kg.store.delete()
            marker.unlink(missing_ok=True)
            empty = await used_memory(kg)
        await kg.ensure_schema()  # on a reused graph: the indexes a newer version adds
        for size in sizes:
            if size < done:
                print(f"size {size:,}: skipped (the reused graph holds {done:,} paragraphs)")
                continue
            write_s, finalize_s, embedded = await grow(kg, source, lookup, vectors, args.seed, done, size, alpha)
            if size > done:
                marker.write_text(json.dumps({**wanted, "paragraphs": size, "empty_memory": empty}))
            status = await kg.status()
            memory = await used_memory(kg)
            row = {"size": size, "added": size - done, "write_s": write_s, "finalize_s": finalize_s,
                   "embedded": embedded,
                   "memory": memory, "chunks": status.chunks, "entities": status.entities,
                   "relations": status.relations, **await ask(kg, real, source, args.seed, size, args.questions)}
            rows.append(row)
            done = size
            shown = {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}
            print(f"size {size:,}: {json.dumps(shown)}", flush=True)
        if not args.reuse:
            await kg.store.delete()
    print(f"\nempty server: used_memory {empty / 2**20:.1f} MiB (baseline); question embedding misses served for "
          f"real: {lookup.misses}")
    print("| chunks | entities | relations | write docs/s | finalize vectors/s | used_memory MiB (Δ vs empty) "
          "| KiB per chunk | retrieve p50 / p95 ms | dense p50 / p95 ms | recall@10 retrieve | recall@10 dense |")
    print("|" + " - |" * 11)
    for r in rows:
        grown = r["memory"] - empty
        print(f"| {r['chunks']:,} | {r['entities']:,} | {r['relations']:,} | {_rate(r['added'], r['write_s'])} "
              f"| {_rate(r['embedded'], r['finalize_s'])} | {r['memory'] / 2**20:,.0f} ({grown / 2**20:+,.0f}) "
              f"| {grown / r['chunks'] / 1024:.1f} | {r['p50_ours']:.0f} / {r['p95_ours']:.0f} "
              f"| {r['p50_dense']:.0f} / {r['p95_dense']:.0f} | {r['recall_ours']:.2f} | {r['recall_dense']:.2f} |")
    print("\nPer search, means: the client's CPU (this process, the question's embedding included), the round trips "
          "and FalkorDB's own execution time (each query replayed once after the timing)")
    print("| chunks | retrieve client CPU ms | dense client CPU ms | retrieve round trips | retrieve server ms "
          "| dense server ms |")
    print("|" + " - |" * 6)
    for r in rows:
        print(f"| {r['chunks']:,} | {r['cpu_ours']:.1f} | {r['cpu_dense']:.1f} | {r['trips']:.1f} "
              f"| {r['server_ours']:.1f} | {r['server_dense']:.1f} |")
    for r in rows:
        print(f"\nwhere retrieve's server time goes at {r['chunks']:,} chunks (ms per retrieve, queries per retrieve)")
        for kind, (ms, queries) in r["server_by_kind"].items():
            print(f"  {kind}: {ms:.2f} ms, {queries:.2f} queries")


if __name__ == "__main__":
    asyncio.run(main())
