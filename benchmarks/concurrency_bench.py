"""Throughput and latency of ``retrieve`` with 1 session against N concurrent sessions, in the same process and run.

    python benchmarks/concurrency_bench.py [--sessions 8] [--calls 200] [--rounds 3] [--paragraphs 500] [--rebuild]

Builds (once, cached in ``--data-dir``) a graph of the first ``--paragraphs`` HotpotQA paragraphs from
``--eval-dir`` with the product's ingest and its offline ``ner`` extractor, then, on one toolkit:

* baseline: one session calls ``retrieve`` ``--calls`` times, one call after the other;
* concurrent: ``--sessions`` sessions (``toolkit.new_session()``) each call it ``--calls`` times, all at once;
* the same, with each question embedded by its own ``asyncio.to_thread(embed)`` call (the path before query
  embeddings were batched on one worker thread, see ``graphrag_agents/models/_batching.py``).

Each configuration runs ``--rounds`` times, interleaved in a rotating order, and its rounds are pooled.

Questions cycle through ``hotpotqa.questions.jsonl``. It prints for each the aggregate throughput (retrieves/s),
latency p50/p95 per call, the event loop's worst stall (a 10 ms ticker runs beside the calls: its largest delay
past its deadline) and the CPU time a retrieve costs in this process and in the embedded FalkorDB. The target
(issue #12): concurrent throughput at least the baseline's on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag_agents import GraphRAGToolkit
from graphrag_agents.ingest import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
_TICK = 0.01


def _rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


async def _ensure_graph(kg: KnowledgeGraph, corpus: list[dict[str, Any]], marker: Path, rebuild: bool) -> None:
    wanted = {"paragraphs": len(corpus), "first": corpus[0]["id"], "embed_model": kg.embedder.model_name}
    if not rebuild and marker.exists() and json.loads(marker.read_text()) == wanted and await kg.store.exists():
        return
    print(f"building a graph of {len(corpus)} paragraphs with the ner extractor ...", flush=True)
    start = time.perf_counter()
    await kg.store.delete()
    for first in range(0, len(corpus), 100):
        rows = corpus[first:first + 100]
        await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows],
                                  IngestPlan(extractor="ner"), progress=False)
    await kg.finalize(progress=False)
    print(f"built in {time.perf_counter() - start:.0f} s", flush=True)
    marker.write_text(json.dumps(wanted))


def _server_cpu_s(pid: int | None) -> float:
    """CPU seconds the embedded FalkorDB process has used (user + system), 0 where /proc cannot tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class _Run:
    latency_s: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    worst_stall_ms: float = 0.0
    client_cpu_s: float = 0.0
    """This process's CPU time (every thread: the event loop, the embedder)."""
    server_cpu_s: float = 0.0

    def cpu_ms(self) -> tuple[float, float]:
        """Client and server CPU milliseconds per retrieve."""
        n = len(self.latency_s)
        return self.client_cpu_s / n * 1000, self.server_cpu_s / n * 1000

    @property
    def throughput(self) -> float:
        return len(self.latency_s) / self.wall_s

    def pct(self, q: float) -> float:
        ordered = sorted(self.latency_s)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _session(session: GraphRAGToolkit, questions: list[str], offset: int, calls: int, run: _Run) -> None:
    for i in range(calls):
        start = time.perf_counter()
        await session.retrieve(questions[(offset + i) % len(questions)])
        run.latency_s.append(time.perf_counter() - start)


async def _ticker(run: _Run, stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        deadline = loop.time() + _TICK
        await asyncio.sleep(_TICK)
        run.worst_stall_ms = max(run.worst_stall_ms, (loop.time() - deadline) * 1000)


async def _measure(toolkit: GraphRAGToolkit, questions: list[str], sessions: int, calls: int) -> _Run:
    run = _Run()
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(run, stop))
    server = toolkit.kg.store._client.server
    pid = server.pid if server is not None else None
    start, cpu, server_cpu = time.perf_counter(), time.process_time(), _server_cpu_s(pid)
    await asyncio.gather(*(_session(toolkit.new_session(), questions, s * 37, calls, run) for s in range(sessions)))
    run.wall_s = time.perf_counter() - start
    run.client_cpu_s = time.process_time() - cpu
    run.server_cpu_s = _server_cpu_s(pid) - server_cpu
    stop.set()
    await ticker
    return run


def _merge(runs: list[_Run]) -> _Run:
    """Rounds of one configuration as one run: latencies pooled, wall and CPU times summed, worst stall kept."""
    merged = _Run()
    for run in runs:
        merged.latency_s += run.latency_s
        merged.wall_s += run.wall_s
        merged.client_cpu_s += run.client_cpu_s
        merged.server_cpu_s += run.server_cpu_s
        merged.worst_stall_ms = max(merged.worst_stall_ms, run.worst_stall_ms)
    return merged


async def _rounds(kg: KnowledgeGraph, questions: list[str], sessions: int, calls: int,
                  rounds: int) -> dict[str, _Run]:
    """Each configuration once per round, in an order rotated every round, so a change in the machine's load
    does not favour the configuration that happened to run while it was quiet."""
    toolkit = GraphRAGToolkit(kg, read_only=True)
    embedder = kg.embedder
    batched = embedder.aembed

    async def one_thread_per_call(texts: Any) -> Any:
        return await asyncio.to_thread(embedder.embed, list(texts))

    configs = [("1 session", 1, batched), (f"{sessions} sessions", sessions, batched),
               (f"{sessions}, unbatched", sessions, one_thread_per_call)]
    runs: dict[str, list[_Run]] = {label: [] for label, _, _ in configs}
    await _measure(toolkit, questions, 1, 20)  # warm the embedder, the connections and the server's caches
    for r in range(rounds):
        for label, count, aembed in configs[r % 3:] + configs[:r % 3]:
            embedder.aembed = aembed  # type: ignore[method-assign]
            runs[label].append(await _measure(toolkit, questions, count, calls))
    embedder.aembed = batched  # type: ignore[method-assign]
    return {label: _merge(found) for label, found in runs.items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200, help="retrieves per session")
    parser.add_argument("--rounds", type=int, default=3, help="times each configuration runs (interleaved)")
    parser.add_argument("--paragraphs", type=int, default=500)
    parser.add_argument("--rebuild", action="store_true", help="build the graph again even if cached")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (cache)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of hotpotqa.{corpus,questions}.jsonl")
    args = parser.parse_args()
    data_dir = Path(args.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    corpus = _rows(args.eval_dir / "hotpotqa.corpus.jsonl")[:args.paragraphs]
    questions = [q["question"] for q in _rows(args.eval_dir / "hotpotqa.questions.jsonl")]
    graph = f"concurrency_bench_{len(corpus)}"
    load_before = os.getloadavg()[0]
    async with await KnowledgeGraph.open(graph=graph, data_dir=str(data_dir)) as kg:
        await _ensure_graph(kg, corpus, data_dir / f"{graph}.built.json", args.rebuild)
        results = await _rounds(kg, questions, args.sessions, args.calls, args.rounds)
    single, many, unbatched = results.values()
    print(f"graph of {len(corpus)} paragraphs; {args.calls} retrieves per session; {args.rounds} rounds; "
          f"{os.cpu_count()} CPUs, load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"  {'':16} {'retrieves/s':>12} {'p50 ms':>8} {'p95 ms':>8} {'loop stall ms':>14} "
          f"{'CPU ms/retrieve: client':>24} {'server':>7}")
    for label, run in results.items():
        client, server = run.cpu_ms()
        print(f"  {label:16} {run.throughput:12.1f} {run.pct(.5):8.1f} {run.pct(.95):8.1f} "
              f"{run.worst_stall_ms:14.1f} {client:24.1f} {server:7.1f}")
    print(f"throughput {args.sessions} sessions / 1 session: {many.throughput / single.throughput:.2f}x "
          f"(target >= 1.00x); unbatched embeddings: {unbatched.throughput / single.throughput:.2f}x; "
          f"mean latency {statistics.fmean(many.latency_s) * 1000:.1f} ms vs "
          f"{statistics.fmean(single.latency_s) * 1000:.1f} ms")
    client, server = many.cpu_ms()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    print(f"CPU bound with {args.sessions} sessions: {cores} cores / {client + server:.1f} CPU ms per retrieve = "
          f"{cores * 1000 / (client + server):.0f} retrieves/s at most (on an otherwise idle machine)")


if __name__ == "__main__":
    asyncio.run(main())
