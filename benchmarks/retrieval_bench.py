"""Retrieval quality and latency on the HotpotQA sample: ``retrieve`` (all paths) against dense-only search.

    python benchmarks/retrieval_bench.py [--rebuild] [--data-dir .graphrag-bench] [--questions N] [--top-k 10]

Builds one graph from ``hotpotqa.corpus.jsonl`` in ``--eval-dir`` (default ``/work/shared/eval``; each row one
document: id = row id, title = row title) with the product's ingest and its offline ``ner`` extractor, embeds it
with the bundled MiniLM (int8), and caches it in the data folder (graph ``hotpotqa_bench``); ``--rebuild``
starts over. Then asks every question twice in the same run:

* dense-only: ``passages.dense_passages`` (chunk vector search alone), the baseline;
* ``retrieve``: every path, ``top_k`` 10.

and prints supporting-paragraph recall@5/@10 (the share of a question's supporting paragraphs whose document is
among the documents of the top-k passages), all-gold@5/@10 (questions with every supporting paragraph in the
top k) and latency p50/p95 of both, each including the question's embedding. Targets: recall@10 at least 5
points above dense-only, retrieve p50 under 50 ms.

The scoring constants of ``passages`` were tuned on the even-numbered questions only; the odd-numbered ones are
printed apart as the held-out half.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import json
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag_agents.ingest import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.passages import dense_passages
from graphrag_agents.retrieval.retriever import retrieve

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
GRAPH = "hotpotqa_bench"

_BATCH = 100


def _rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


async def _build(kg: KnowledgeGraph, corpus: list[dict[str, Any]]) -> None:
    """The product's own ingest: sentence chunks, the offline ``ner`` extractor."""
    plan = IngestPlan(extractor="ner")
    for start in range(0, len(corpus), _BATCH):
        rows = corpus[start:start + _BATCH]
        report = await kg.ingest_documents(
            [SourceDocument(row["id"], row["id"], text=row["text"], title=row["title"]) for row in rows], plan,
            progress=False)
        failed = [d for d in report.documents if d.status == "failed"]
        if failed:
            raise RuntimeError(f"{len(failed)} documents failed to ingest, e.g. {failed[0]}")
        print(f"  ingested {start + len(rows)}/{len(corpus)} documents", flush=True)


async def _ensure_graph(kg: KnowledgeGraph, corpus_path: Path, data_dir: Path, rebuild: bool) -> None:
    corpus = _rows(corpus_path)
    digest = hashlib.sha256(corpus_path.read_bytes()).hexdigest()[:16]
    marker = data_dir / f"{GRAPH}.built.json"
    wanted = {"builder": "product-ner", "corpus": digest, "embed_model": kg.embedder.model_name}
    if not rebuild and marker.exists() and json.loads(marker.read_text()) == wanted and await kg.store.exists():
        return
    print(f"building graph {GRAPH!r} from {len(corpus)} documents with the ner extractor ...", flush=True)
    start = time.perf_counter()
    await kg.store.delete()
    marker.unlink(missing_ok=True)
    await _build(kg, corpus)
    report = await kg.finalize(progress=False)
    s = report.status
    print(f"built in {time.perf_counter() - start:.0f} s: {s.documents} documents, {s.chunks} chunks, "
          f"{s.entities} entities, {s.relations} relations", flush=True)
    marker.write_text(json.dumps(wanted))


@dataclass
class _Run:
    """One method's results over the questions."""

    docs: list[list[str]] = field(default_factory=list)
    """Per question, the document ids of the top passages, best first (duplicates kept)."""
    latency_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    """This process's CPU time per call (all its threads: the embedder's and the client's)."""


def _recall(run: _Run, gold: list[list[str]], k: int, subset: Sequence[int]) -> tuple[float, float]:
    recall: list[float] = []
    all_gold: list[float] = []
    for i in subset:
        top = set(run.docs[i][:k])
        found = sum(1 for g in gold[i] if g in top)
        recall.append(found / len(gold[i]))
        all_gold.append(float(found == len(gold[i])))
    return statistics.fmean(recall), statistics.fmean(all_gold)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _run(kg: KnowledgeGraph, questions: list[dict[str, Any]], top_k: int) -> tuple[_Run, _Run]:
    dense = _Run()
    ours = _Run()
    for q in questions[:5]:  # warm the embedder and the server's caches
        await retrieve(kg.store, kg.embedder, q["question"], top_k=top_k)
    for q in questions:
        start, cpu = time.perf_counter(), time.process_time()
        vector = (await kg.embedder.aembed([q["question"]]))[0]
        base = await dense_passages(kg.store, vector, top_k)
        dense.latency_s.append(time.perf_counter() - start)
        dense.cpu_s.append(time.process_time() - cpu)
        dense.docs.append([h.document_id for h in base])
        start, cpu = time.perf_counter(), time.process_time()
        hits = await retrieve(kg.store, kg.embedder, q["question"], top_k=top_k)
        ours.latency_s.append(time.perf_counter() - start)
        ours.cpu_s.append(time.process_time() - cpu)
        ours.docs.append([h.document_id for h in hits.passages])
    return dense, ours


def _report(dense: _Run, ours: _Run, gold: list[list[str]], top_k: int) -> None:
    halves = {"all": range(len(gold)), "tuning half (even)": range(0, len(gold), 2),
              "held-out half (odd)": range(1, len(gold), 2)}
    for name, subset in halves.items():
        print(f"\n{name}: {len(subset)} questions")
        print(f"  {'':12} {'recall@5':>9} {'recall@10':>10} {'all-gold@5':>11} {'all-gold@10':>12}")
        for label, run in (("dense-only", dense), ("retrieve", ours)):
            r5, g5 = _recall(run, gold, 5, subset)
            r10, g10 = _recall(run, gold, 10, subset)
            print(f"  {label:12} {r5:9.3f} {r10:10.3f} {g5:11.3f} {g10:12.3f}")
    d10, _ = _recall(dense, gold, 10, range(len(gold)))
    o10, _ = _recall(ours, gold, 10, range(len(gold)))
    print(f"\nrecall@10 gain over dense-only: {100 * (o10 - d10):+.1f} points (target >= +5)")
    print(f"latency  retrieve (all paths, top_k {top_k}): p50 {_pct(ours.latency_s, .5):.1f} ms, "
          f"p95 {_pct(ours.latency_s, .95):.1f} ms (target p50 < 50 ms); "
          f"client CPU p50 {_pct(ours.cpu_s, .5):.1f} ms")
    print(f"         dense-only:{' ' * (19 + len(str(top_k)))}p50 {_pct(dense.latency_s, .5):.1f} ms, "
          f"p95 {_pct(dense.latency_s, .95):.1f} ms; client CPU p50 {_pct(dense.cpu_s, .5):.1f} ms")
    parser = "hiredis" if importlib.util.find_spec("hiredis") else "pure-Python (install hiredis to halve client CPU)"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"         both include the question's embedding; redis reply parser: {parser}; "
          f"load average {load} on {os.cpu_count()} CPUs")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rebuild", action="store_true", help="build the graph again even if cached")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (cache)")
    parser.add_argument("--questions", type=int, default=0, help="ask only the first N questions")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of hotpotqa.{corpus,questions}.jsonl")
    args = parser.parse_args()
    data_dir = Path(args.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    questions = _rows(args.eval_dir / "hotpotqa.questions.jsonl")
    if args.questions:
        questions = questions[:args.questions]
    async with await KnowledgeGraph.open(graph=GRAPH, data_dir=str(data_dir)) as kg:
        await _ensure_graph(kg, args.eval_dir / "hotpotqa.corpus.jsonl", data_dir, args.rebuild)
        status = await kg.status()
        print(f"graph {GRAPH!r} (ner extractor): {status.documents} documents, {status.chunks} chunks, "
              f"{status.entities} entities, {status.relations} relations; {len(questions)} questions")
        dense, ours = await _run(kg, questions, args.top_k)
    _report(dense, ours, [q["supporting_paragraph_ids"] for q in questions], args.top_k)


if __name__ == "__main__":
    asyncio.run(main())
