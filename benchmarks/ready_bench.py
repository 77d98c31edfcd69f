"""Is a graph ready when built? The first ``retrieve`` after ``finalize`` against the next questions, same run.

    python benchmarks/ready_bench.py [--set techdocs_a] [--docs 200] [--questions 10] [--trials 3]

Each trial builds a fresh embedded graph of the set's first ``--docs`` rows (``ner`` extractor, every default) and
finalizes it; question 0 is asked first, then questions 1..N once each. Printed per trial and as the median over
the trials: the first retrieve, the p50 of the N after it (wall ms), and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"


async def _trial(rows: list[dict[str, str]], questions: list[str]) -> tuple[float, float]:
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r.get("title") or "") for r in rows]
    with tempfile.TemporaryDirectory(prefix="ready-bench-") as data_dir:
        async with await KnowledgeGraph.open(graph="ready", data_dir=data_dir) as kg:
            await kg.embedder.aembed(["warm up"])
            await kg.ingest_documents(sources, IngestPlan(extractor="ner"))
            await kg.finalize(progress=False)
            times = []
            for question in questions:
                start = time.perf_counter()
                await kg.retrieve(question)
                times.append((time.perf_counter() - start) * 1000)
    return times[0], statistics.median(times[1:])


async def run(name: str, docs: int, n: int, trials: int, eval_dir: Path) -> None:
    rows = [json.loads(line) for line in (eval_dir / f"{name}.corpus.jsonl").read_text().splitlines() if line.strip()]
    questions = [json.loads(line)["question"] for line in
                 (eval_dir / f"{name}.questions.jsonl").read_text().splitlines() if line.strip()][:n + 1]
    found: list[tuple[float, float]] = []
    for trial in range(trials):
        first, p50 = await _trial(rows[:docs], questions)
        found.append((first, p50))
        print(f"trial {trial}: first {first:.1f} ms, next {n} p50 {p50:.1f} ms, {first / p50:.2f}x", flush=True)
    print(f"{name}, first {docs} documents, {trials} trials, medians: first retrieve "
          f"{statistics.median(f for f, _ in found):.1f} ms, p50 of the next questions "
          f"{statistics.median(p for _, p in found):.1f} ms, "
          f"first / p50 {statistics.median(f / p for f, p in found):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="techdocs_a")
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    asyncio.run(run(args.set, args.docs, args.questions, args.trials, args.eval_dir))


if __name__ == "__main__":
    main()
