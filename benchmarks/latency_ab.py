"""Retrieve latency of two checkouts of the code, question by question in turn, on the same graphs.

    python benchmarks/latency_ab.py --baseline ../other-checkout [--sets hotpotqa,2wikimultihopqa]
                                    [--data-dir .graphrag-bench] [--questions 200] [--eval-dir DIR]
    python benchmarks/latency_ab.py --baseline ../other-checkout --scale-dir DIR [--questions 100]

``--scale-dir``: instead of the shared sets, the graph ``scale_bench.py --reuse`` grew in that folder (100k chunks,
say) and its planted questions (the picks of ``scale_bench.py``; the answer paragraph is the gold one).

On a shared machine the load changes from one minute to the next, so two benchmark runs one after the other
compare the load as much as the code. Here two worker processes, one importing ``graphrag_agents`` from the
baseline checkout and one from this one, keep the same graph open (the graph of ``retrieval_bench.py`` and
``graphrag-agents eval``, reused from ``--data-dir``) and answer each question in turn, which one goes first
alternating, so both see the same load; they start once the server has built every graph's indexes
(:func:`indexes_built`). Each worker times, per question, dense-only search (the question's
embedding and one chunk vector query) and ``retrieve`` with every path (``top_k`` 10, embedding included).
Printed per set: p50 / p95 of each, the p50 ratio to dense-only per checkout, the ratio of the two checkouts'
retrieve p50, the queries per retrieve, and recall@5 of both (and how many questions' top 10 differ), so a
change that moves a ranking shows.

Wall time on a loaded machine measures the queue for the cores as much as the work, so each worker also measures
the CPU each search costs: its own process's (the embedder's threads included) plus the embedded FalkorDB server's
(``/proc/<pid>/stat``, Linux only). Only one worker answers at a time and the server serves only them, so the
server's CPU over a search is that search's. The CPU table prints the mean per search, in milliseconds of CPU, and
the ratio of retrieve's to dense-only's (a mean, since ``/proc`` counts in clock ticks, 10 ms on most kernels: one
question's server CPU reads 0 or 10 ms, the sum over all of them is exact to a tick).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
TOP_K = 10
SCALE = "scale_bench"
"""The set name of ``--scale-dir``'s graph."""
_WARM = 5


def _scale_questions(data_dir: Path, count: int) -> tuple[list[str], list[tuple[str, ...]]]:
    """The planted questions of ``scale_bench.py``'s graph in ``data_dir`` and each one's answer paragraph."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import random

    from scale_bench import CORPUS, GRAPH
    from synthetic_corpus import Source

    size = int(json.loads((data_dir / f"{GRAPH}.built.json").read_text())["paragraphs"])
    source = Source(CORPUS)
    paras = [source.paragraph(7, i) for i in random.Random(f"7:questions:{size}").sample(range(size), min(count, size))]
    return [p.question() for p in paras], [(p.doc_id,) for p in paras]


async def _open(set_name: str, data_dir: Path, eval_dir: Path) -> tuple[Any, list[str]]:
    """The graph a worker asks (entered) and its questions."""
    if set_name == SCALE:
        from scale_bench import GRAPH

        from graphrag_agents.kg import KnowledgeGraph
        from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

        kg = await KnowledgeGraph.open(graph=GRAPH, data_dir=str(data_dir), embedder=OnnxMiniLMEmbedder())
        return await kg.__aenter__(), _scale_questions(data_dir, 100 + _WARM)[0]
    from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
    from graphrag_agents.evaluation.dataset import load_dataset

    questions, corpus = load_dataset(eval_dir / f"{set_name}.questions.jsonl", eval_dir / f"{set_name}.corpus.jsonl")
    kg = await (await open_eval_graph(corpus, extractor="ner", data_dir=data_dir)).__aenter__()
    await ensure_built(kg, corpus, extractor="ner", data_dir=data_dir, progress=False)
    return kg, [q.question for q in questions]


async def _worker(set_name: str, data_dir: Path, eval_dir: Path) -> None:
    """Answer question numbers read from stdin with one JSON line each (run with the checkout on PYTHONPATH)."""
    from graphrag_agents.retrieval.passages import dense_passages
    from graphrag_agents.retrieval.retriever import retrieve
    from graphrag_agents.store.graph import GraphStore

    sent = [0]
    ro_query = GraphStore.ro_query

    async def counted(self: GraphStore, query: str, params: dict[str, Any] | None = None,
                      timeout_ms: int | None = None) -> list[list[Any]]:
        sent[0] += 1
        return await ro_query(self, query, params, timeout_ms)

    GraphStore.ro_query = counted  # type: ignore[method-assign]
    kg, asked = await _open(set_name, data_dir, eval_dir)
    try:
        await indexes_built(kg.store)
        cpu = _cpu_clock(kg)
        # warm the embedder and the server's caches (on the scale graph with questions not measured: a question's
        # words are counted the first time they are seen, which is what it measures)
        for question in asked[-_WARM:] if set_name == SCALE else asked[:_WARM]:
            await retrieve(kg.store, kg.embedder, question, top_k=TOP_K)
        print(json.dumps({"ready": len(asked)}), flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            question = asked[int(line)]
            start, spent = time.perf_counter(), cpu()
            vector = (await kg.embedder.aembed([question]))[0]
            await dense_passages(kg.store, vector, TOP_K)
            dense, dense_cpu = time.perf_counter() - start, cpu() - spent
            sent[0] = 0
            start, spent = time.perf_counter(), cpu()
            hits = await retrieve(kg.store, kg.embedder, question, top_k=TOP_K)
            took, took_cpu = time.perf_counter() - start, cpu() - spent
            print(json.dumps({"dense": dense, "retrieve": took, "queries": sent[0], "dense_cpu": dense_cpu,
                              "retrieve_cpu": took_cpu, "docs": [h.document_id for h in hits.passages]}), flush=True)
    finally:
        await kg.__aexit__(None, None, None)


async def indexes_built(store: Any) -> None:
    """Wait until the server has built the indexes of every graph it holds, not only the one measured.

    Why: a server that loads a folder builds every graph's indexes again in the background, on one core, for
    seconds (13 eval graphs: about 5 s at rest). Questions asked meanwhile measure that contention, and retrieve
    (10-12 queries) pays it more than dense-only (one query): on 2 cores the p50 ratio read higher by it."""
    for name in await store.graph_names():
        other = store if name == store.name else store.sibling(name)
        try:
            await other.wait_for_indexes(600.0)
        finally:
            if other is not store:
                await other.close()


def _cpu_clock(kg: Any) -> Callable[[], float]:
    """Seconds of CPU this process and the embedded server have used so far (this process alone without a server
    pid, e.g. a remote store)."""
    server = getattr(kg.store._client, "server", None)
    pid = getattr(server, "pid", None)
    stat = Path(f"/proc/{pid}/stat") if pid else None
    ticks = os.sysconf("SC_CLK_TCK")

    def clock() -> float:
        own = time.process_time()
        if stat is None or not stat.exists():
            return own
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return own + (int(fields[11]) + int(fields[12])) / ticks

    return clock


class _Checkout:
    """One worker process and what it measured."""

    def __init__(self, label: str, root: Path, set_name: str, args: argparse.Namespace) -> None:
        self.label = label
        env = {**os.environ, "PYTHONPATH": str(root)}
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", set_name,
                   "--data-dir", str(args.data_dir.resolve()), "--eval-dir", str(args.eval_dir.resolve())]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                     cwd=root)
        self.rows: list[dict[str, Any]] = []

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.label} worker stopped (see its error above)")
        return dict(json.loads(line))

    def ask(self, i: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{i}\n")
        self.proc.stdin.flush()
        self.rows.append(self.read())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _recall5(rows: list[dict[str, Any]], gold: list[tuple[str, ...]]) -> float:
    """Over the questions with gold passages (techdocs_a's unanswerable ones have none)."""
    return statistics.fmean(sum(1 for g in want if g in set(row["docs"][:5])) / len(want)
                            for row, want in zip(rows, gold, strict=True) if want)


def _compare(set_name: str, args: argparse.Namespace) -> None:
    from graphrag_agents.evaluation.dataset import load_dataset

    if set_name == SCALE:
        planted, answers = _scale_questions(args.data_dir, 100)
        n = min(len(planted), args.questions) if args.questions else len(planted)
        gold = answers[:n]
    else:
        questions, _ = load_dataset(args.eval_dir / f"{set_name}.questions.jsonl",
                                    args.eval_dir / f"{set_name}.corpus.jsonl")
        n = min(len(questions), args.questions) if args.questions else len(questions)
        gold = [q.supporting_paragraph_ids for q in questions[:n]]
    base = _Checkout("baseline", args.baseline.resolve(), set_name, args)
    ours = _Checkout("this checkout", Path(__file__).resolve().parents[1], set_name, args)
    try:
        base.read(), ours.read()
        for i in range(n):
            for checkout in ((base, ours) if i % 2 == 0 else (ours, base)):
                checkout.ask(i)
    finally:
        base.close()
        ours.close()
    print(f"\n{set_name}: {n} questions, each asked of both checkouts in turn")
    print("| checkout | retrieve p50 / p95 ms | dense-only p50 ms | p50 ratio | queries per retrieve | recall@5 |")
    print("| - | - | - | - | - | - |")
    p50 = {}
    for checkout in (base, ours):
        took = [r["retrieve"] for r in checkout.rows]
        dense = [r["dense"] for r in checkout.rows]
        p50[checkout.label] = _pct(took, .5)
        print(f"| {checkout.label} | {_pct(took, .5):.1f} / {_pct(took, .95):.1f} | {_pct(dense, .5):.1f} | "
              f"{_pct(took, .5) / _pct(dense, .5):.2f}x | {statistics.fmean(r['queries'] for r in checkout.rows):.1f} "
              f"| {_recall5(checkout.rows, gold):.3f} |")
    print("\n| checkout | retrieve CPU ms (client + server, mean) | dense-only CPU ms | CPU ratio |")
    print("| - | - | - | - |")
    cpu = {}
    for checkout in (base, ours):
        took = statistics.fmean(r["retrieve_cpu"] for r in checkout.rows)
        dense = statistics.fmean(r["dense_cpu"] for r in checkout.rows)
        cpu[checkout.label] = took
        print(f"| {checkout.label} | {took * 1000:.1f} | {dense * 1000:.1f} | {took / max(1e-9, dense):.2f}x |")
    print(f"this checkout / baseline, retrieve CPU: {cpu['this checkout'] / max(1e-9, cpu['baseline']):.3f}")
    differ = sum(1 for a, b in zip(base.rows, ours.rows, strict=True) if a["docs"] != b["docs"])
    print(f"this checkout / baseline, retrieve p50: {p50['this checkout'] / p50['baseline']:.3f}; "
          f"questions whose top {TOP_K} documents differ: {differ}; load average "
          + ", ".join(f"{x:.1f}" for x in os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="the other checkout's root (its graphrag_agents is imported)")
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa", help="comma-separated set names")
    parser.add_argument("--data-dir", type=Path, default=Path(".graphrag-bench"), help="embedded FalkorDB folder")
    parser.add_argument("--questions", type=int, default=200, help="the first N questions of each set (0: all)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of <set>.{corpus,questions}.jsonl")
    parser.add_argument("--scale-dir", type=Path, help="scale_bench.py's reused graph folder instead of the sets")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale_dir and not args.worker:
        args.data_dir, args.sets = args.scale_dir, SCALE
    if args.worker:
        asyncio.run(_worker(args.worker, args.data_dir, args.eval_dir))
        return
    if args.baseline is None:
        parser.error("--baseline is required: the checkout to compare with (e.g. a git worktree of main)")
    for set_name in args.sets.split(","):
        _compare(set_name.strip(), args)


if __name__ == "__main__":
    main()
