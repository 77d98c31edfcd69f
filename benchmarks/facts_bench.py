"""Facts stored and shown once: vectors, finalize time and evidence size against a baseline, in one run.

    python benchmarks/facts_bench.py --baseline-src DIR [--sets hotpotqa,2wikimultihopqa] [--questions N]

``DIR`` holds the package as it was before (``git archive <commit> | tar -x -C DIR``). For each set in
``--eval-dir`` (default ``/work/shared/eval``) the script builds the graph twice, once with the baseline's code and
once with this checkout's, each in its own process and its own embedded FalkorDB (the product's ingest, the
offline ``ner`` extractor, MiniLM int8), one after the other so they do not share the CPU. Each side reports:

* vectors stored (chunks, entities, facts: typed ``RELATES`` edges plus ``__Fact__`` nodes) and the seconds
  ``ingest`` and ``finalize`` took;
* for every question, ``retrieve`` (all paths, ``top_k`` 10) numbered as a tool result: items, characters of the
  items' texts as the result shows them, characters of ``to_llm_text()`` (what a model reads, 8,000 at most)
  and of the JSON result, and supporting-paragraph recall@5/@10 of its passages.

The parent prints each measure with the ratio current / baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_BATCH = 100


def _rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _shown_chars(result: Any) -> int:
    """Characters of the items' texts as the result shows them (both versions' item shapes)."""
    total = sum(len(p.text) for p in result.passages)
    total += sum(len(e.name) + 1 + len(e.description) for e in result.entities)
    for r in (*result.relations, *result.facts):
        ends = getattr(r, "ends", None)
        head = ends() if callable(ends) else f"{r.source} -[{r.type}]-> {r.target}"
        total += len(head) + (0 if getattr(r, "in_passage", None) is not None else 1 + len(r.fact))
    return total


async def _count(kg: Any, query: str) -> int:
    try:
        rows = await kg.store.ro_query(query)
    except Exception:  # a label or index the baseline's graph never had
        return 0
    return int(rows[0][0]) if rows and rows[0][0] is not None else 0


async def _worker(eval_dir: Path, name: str, questions: int, top_k: int, data_dir: str) -> dict[str, Any]:
    from graphrag_agents.evidence import EvidenceLedger
    from graphrag_agents.ingest import IngestPlan, SourceDocument
    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.tools.read_tools import number_retrieval

    corpus = _rows(eval_dir / f"{name}.corpus.jsonl")
    asked = _rows(eval_dir / f"{name}.questions.jsonl")[:questions]
    out: dict[str, Any] = {"set": name, "paragraphs": len(corpus), "questions": len(asked)}
    kg = await KnowledgeGraph.open(graph="facts_bench", data_dir=data_dir)
    try:
        started = time.perf_counter()
        for start in range(0, len(corpus), _BATCH):
            rows = corpus[start:start + _BATCH]
            await kg.ingest_documents(
                [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows],
                IngestPlan(extractor="ner"), progress=False)
        out["ingest_s"] = time.perf_counter() - started
        started = time.perf_counter()
        report = await kg.finalize(progress=False)
        out["finalize_s"] = time.perf_counter() - started
        out["entities"] = report.status.entities
        out["vectors"] = {
            "chunks": await _count(kg, "MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN count(c)"),
            "entities": await _count(kg, "MATCH (e:__Entity__) WHERE e.embedding IS NOT NULL RETURN count(e)"),
            "facts": await _count(kg, "MATCH ()-[r:RELATES]->() WHERE r.embedding IS NOT NULL RETURN count(r)")
            + await _count(kg, "MATCH (f:__Fact__) WHERE f.embedding IS NOT NULL RETURN count(f)"),
        }
        per_q: list[dict[str, Any]] = []
        for q in asked:
            hits = await kg.retrieve(q["question"], top_k=top_k)
            result = number_retrieval(EvidenceLedger(), hits)
            docs = list(dict.fromkeys(p.document_id for p in hits.passages))
            gold = q["supporting_paragraph_ids"]
            per_q.append({
                "items": len(result.evidence_numbers()), "shown": _shown_chars(result),
                "llm": len(result.to_llm_text()), "json": len(result.model_dump_json(exclude_none=True)),
                **{f"r{k}": sum(1 for g in gold if g in docs[:k]) / len(gold) for k in (5, 10)},
            })
        out["per_question"] = {key: statistics.fmean(p[key] for p in per_q) for key in per_q[0]}
    finally:
        await kg.close()
    return out


def _side(src: Path, eval_dir: Path, name: str, questions: int, top_k: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="facts_bench_") as data_dir:
        env = {**os.environ, "PYTHONPATH": str(src)}
        cmd = [sys.executable, __file__, "--worker", "--eval-dir", str(eval_dir), "--sets", name,
               "--questions", str(questions), "--top-k", str(top_k), "--data-dir", data_dir]
        done = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True)
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _print(name: str, base: dict[str, Any], ours: dict[str, Any]) -> None:
    print(f"\n{name}: {ours['paragraphs']} paragraphs, {ours['questions']} questions "
          f"(entities {base['entities']} -> {ours['entities']})")
    print(f"  {'measure':28} {'baseline':>10} {'current':>10} {'ratio':>7}")
    rows = [(f"vectors: {k}", base["vectors"][k], ours["vectors"][k]) for k in ("chunks", "entities", "facts")]
    rows += [("vectors: total", sum(base["vectors"].values()), sum(ours["vectors"].values())),
             ("ingest s", base["ingest_s"], ours["ingest_s"]), ("finalize s", base["finalize_s"], ours["finalize_s"])]
    labels = {"items": "retrieve items/q", "shown": "retrieve item chars/q", "llm": "to_llm_text chars/q",
              "json": "JSON result chars/q", "r5": "recall@5", "r10": "recall@10"}
    rows += [(labels[k], base["per_question"][k], ours["per_question"][k]) for k in labels]
    for label, b, o in rows:
        ratio = o / b if b else float("nan")
        fmt = ".3f" if label.startswith("recall") else ".1f"
        print(f"  {label:28} {b:>10{fmt}} {o:>10{fmt}} {ratio:>6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline-src", type=Path, help="folder holding the baseline's graphrag_agents package")
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa")
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(_worker(args.eval_dir, args.sets, args.questions, args.top_k, args.data_dir))))
        return
    if args.baseline_src is None:
        parser.error("--baseline-src is required (git archive <commit> | tar -x -C DIR)")
    here = Path(__file__).resolve().parents[1]
    results: dict[str, Any] = {}
    for name in args.sets.split(","):
        print(f"{name}: building with the baseline ...", flush=True)
        base = _side(args.baseline_src.resolve(), args.eval_dir, name, args.questions, args.top_k)
        print(f"{name}: building with the current code ...", flush=True)
        ours = _side(here, args.eval_dir, name, args.questions, args.top_k)
        _print(name, base, ours)
        results[name] = {"baseline": base, "current": ours}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
