"""Retrieval quality and latency on the shared multi-hop sets: ``retrieve`` (all paths) against dense-only search.

    python benchmarks/retrieval_bench.py [--sets hotpotqa,2wikimultihopqa] [--data-dir .graphrag-bench]
                                         [--questions N] [--top-k 10] [--eval-dir DIR]

For each set, builds its graph from ``<set>.corpus.jsonl`` in ``--eval-dir`` (default ``../shared/eval``; each row
one document: id = row id, title = row title) with the product's ingest and its offline ``ner`` extractor,
exactly as ``graphrag-agents eval`` does (:func:`graphrag_agents.evaluation.build.ensure_built`: the graph is named
after the corpus digest and reused from the data folder, so the benchmark and the eval share one build). Then
asks every question twice in the same run:

* dense-only: ``passages.dense_passages`` (chunk vector search alone), the baseline;
* ``retrieve``: every path, ``top_k`` 10.

and prints supporting-paragraph recall@2/5/10 (the share of a question's supporting paragraphs whose document is
among the documents of the top-k passages), all-gold@5/10 (questions with every supporting paragraph in the top
k), per question type, and latency p50/p95 of both, each including the question's embedding.

The scoring constants of ``passages`` were picked by two-fold cross-validation over both sets together: fold A =
the even-numbered questions of each set, fold B = the odd-numbered ones (``docs/retrieval.md``). The halves are
printed apart.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
from graphrag_agents.evaluation.dataset import Question, load_dataset
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.retrieval.chain import CHAINS, ChainSettings
from graphrag_agents.retrieval.names import Anchor, anchors_from, exact_names, fuzzy_names
from graphrag_agents.retrieval.passages import PER_DOCUMENT, WEIGHTS, PassageWeights, dense_passages, passages
from graphrag_agents.retrieval.retriever import retrieve

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
KS = (2, 5, 10)
ALL_GOLD_KS = (5, 10)


@dataclass
class _Run:
    """One method's results over the questions."""

    docs: list[list[str]] = field(default_factory=list)
    """Per question, the document ids of the top passages, best first (duplicates kept)."""
    latency_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    """This process's CPU time per call (all its threads: the embedder's and the client's)."""


def _scores(run: _Run, gold: list[Sequence[str]], subset: Sequence[int]) -> list[float]:
    """recall@2/5/10 and all-gold@5/10 over ``subset``."""
    out = []
    for k in KS:
        out.append(statistics.fmean(sum(1 for g in gold[i] if g in set(run.docs[i][:k])) / len(gold[i])
                                    for i in subset))
    for k in ALL_GOLD_KS:
        out.append(statistics.fmean(float(all(g in set(run.docs[i][:k]) for g in gold[i])) for i in subset))
    return out


SPREAD = {"per-document-0": 0, "per-document-1": 1, "per-document-2": 2}
"""Variants that cap a document's chunks ranked before the others' (``passages(per_document=...)``)."""
NO_TEXT_NAMES = {"no-text-names"}
"""Variants whose titled hops follow the entities only, not the names the text writes (``text_names=False``)."""
VARIANTS: dict[str, tuple[PassageWeights, ChainSettings]] = {
    "default": (WEIGHTS, CHAINS),  # rounds extend the chains' ends by titled hops, chains scored by coverage
    "one-hop": (replace(WEIGHTS, feedback=0.0), ChainSettings(rounds=0, weight=0.0, novelty=0.0)),  # before chains
    "score-only": (WEIGHTS, ChainSettings(rounds=0)),  # chains of one hop scored, no further rounds
    "no-chain-score": (WEIGHTS, ChainSettings(weight=0.0)),  # rounds run, chains not scored
    "rounds-2": (WEIGHTS, ChainSettings(rounds=2)),  # the default until the MuSiQue sample (docs/retrieval.md)
    "rounds-3": (WEIGHTS, ChainSettings(rounds=3)),
    "any-frontier": (WEIGHTS, ChainSettings(ends_only=False)),  # rounds follow any best passage, not chain ends
    "ends-both": (WEIGHTS, ChainSettings(bridge=True)),  # rounds follow shared entities too
    "any-both": (WEIGHTS, ChainSettings(bridge=True, ends_only=False)),
    "chain-w0.5": (WEIGHTS, ChainSettings(weight=0.5)),
    "chain-w1.5": (WEIGHTS, ChainSettings(weight=1.5)),
    "chain-w2": (WEIGHTS, ChainSettings(weight=2.0)),
    "chain-w3": (WEIGHTS, ChainSettings(weight=3.0)),
    "frontier-5": (WEIGHTS, ChainSettings(frontier=5)),
    "covered-1": (WEIGHTS, ChainSettings(covered=1.0)),  # rounds until a chain covers the whole question (before)
    "covered-0.9": (WEIGHTS, ChainSettings(covered=0.9)),  # no round once the best chain covers 90% of the question
    "covered-0.8": (WEIGHTS, ChainSettings(covered=0.8)),
    "covered-0.7": (WEIGHTS, ChainSettings(covered=0.7)),
    "covered-0.5": (WEIGHTS, ChainSettings(covered=0.5)),
    "covered-0.4": (WEIGHTS, ChainSettings(covered=0.4)),
    "covered-0.3": (WEIGHTS, ChainSettings(covered=0.3)),
    "no-novelty": (WEIGHTS, ChainSettings(novelty=0.0)),  # the final order by score alone (novelty.py)
    "novelty-0.1": (WEIGHTS, ChainSettings(novelty=0.1)),
    "novelty-0.25": (WEIGHTS, ChainSettings(novelty=0.25)),
    "novelty-0.5": (WEIGHTS, ChainSettings(novelty=0.5)),
    "novelty-1": (WEIGHTS, ChainSettings(novelty=1.0)),
    "no-bridge": (PassageWeights(bridge=0.0), CHAINS),
    "no-titled": (PassageWeights(hop=0.0), CHAINS),
    "no-title": (PassageWeights(title=0.0), CHAINS),
    "no-lexical": (PassageWeights(lexical=0.0), CHAINS),
    "per-document-0": (WEIGHTS, CHAINS),
    "per-document-1": (WEIGHTS, CHAINS),
    "per-document-2": (WEIGHTS, CHAINS),
    "no-text-names": (WEIGHTS, CHAINS),  # the previous release's titled hop: entity names only
    "ppr-0.5": (WEIGHTS, ChainSettings(ppr=0.5)),  # + personalized PageRank over the candidates' entities
    "ppr-1": (WEIGHTS, ChainSettings(ppr=1.0)),
    "ppr-2": (WEIGHTS, ChainSettings(ppr=2.0)),
    "no-feedback": (replace(WEIGHTS, feedback=0.0), CHAINS),  # no vector feedback: the default before feedback.py
    "feedback-0.5": (replace(WEIGHTS, feedback=0.5), CHAINS),
    "feedback-2": (replace(WEIGHTS, feedback=2.0), CHAINS),
    "feedback-3": (replace(WEIGHTS, feedback=3.0), CHAINS),
    "feedback-shift-0.5": (replace(WEIGHTS, feedback_shift=0.5), CHAINS),  # the vector moved half as far
    "feedback-shift-2": (replace(WEIGHTS, feedback_shift=2.0), CHAINS),
}
"""``--variants``: the passages path with one part changed (an ablation), each over every question."""


def hop_counts(path: Path) -> dict[str, int]:
    """Per question id, its hop count: its evidence triples (2Wiki), else its supporting paragraphs."""
    counts = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            evidence = row.get("evidence")
            counts[str(row["id"])] = len(evidence) if evidence else len(row.get("supporting_paragraph_ids", []))
    return counts


async def _variant_runs(kg: KnowledgeGraph, questions: list[Question], top_k: int,
                        names: Sequence[str]) -> dict[str, _Run]:
    runs = {name: _Run() for name in names}
    for q in questions:
        vector = VectorParam((await kg.embedder.aembed([q.question]))[0].tolist())
        exact, fuzzy = await asyncio.gather(exact_names(kg.store, q.question, top_k),
                                            fuzzy_names(kg.store, q.question, vector, top_k + 5))
        found = anchors_from(exact, fuzzy)

        for name in names:
            weights, chains = VARIANTS[name]
            start = time.perf_counter()
            hits = await passages(kg.store, q.question, vector, top_k, anchors=_ready(found), weights=weights,
                                  chains=chains, per_document=SPREAD.get(name, PER_DOCUMENT),
                                  text_names=name not in NO_TEXT_NAMES)
            runs[name].latency_s.append(time.perf_counter() - start)
            runs[name].docs.append([h.document_id for h in hits])
    return runs


async def _ready(anchors: list[Anchor]) -> list[Anchor]:
    return anchors


def _variant_report(name: str, runs: dict[str, _Run], questions: list[Question], hops: dict[str, int]) -> None:
    gold = [list(q.supporting_paragraph_ids) for q in questions]
    n = len(questions)
    groups: dict[str, Sequence[int]] = {"all": range(n), "A": range(0, n, 2), "B": range(1, n, 2)}
    for kind in sorted({q.type for q in questions if q.type}):
        groups[kind] = [i for i, q in enumerate(questions) if q.type == kind]
    for h in sorted({hops.get(q.id, 0) for q in questions}):
        groups[f"{h} hops"] = [i for i, q in enumerate(questions) if hops.get(q.id, 0) == h]
    groups = {g: sub for g, sub in groups.items() if sub}
    print(f"\n{name}: recall@5 of the passages path per variant ({n} questions)")
    print("| variant | " + " | ".join(f"{g} ({len(sub)})" for g, sub in groups.items()) + " | p50 ms |")
    print("| - " * (len(groups) + 2) + "|")
    for variant, run in runs.items():
        cells = [f"{_scores(run, gold, sub)[1]:.3f}" for sub in groups.values()]
        print(f"| {variant} | " + " | ".join(cells) + f" | {_pct(run.latency_s, .5):.1f} |")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _run(kg: KnowledgeGraph, questions: list[Question], top_k: int) -> tuple[_Run, _Run]:
    dense = _Run()
    ours = _Run()
    for q in questions[:5]:  # warm the embedder and the server's caches
        await retrieve(kg.store, kg.embedder, q.question, top_k=top_k)
    for q in questions:
        start, cpu = time.perf_counter(), time.process_time()
        vector = (await kg.embedder.aembed([q.question]))[0]
        base = await dense_passages(kg.store, vector, top_k)
        dense.latency_s.append(time.perf_counter() - start)
        dense.cpu_s.append(time.process_time() - cpu)
        dense.docs.append([h.document_id for h in base])
        start, cpu = time.perf_counter(), time.process_time()
        hits = await retrieve(kg.store, kg.embedder, q.question, top_k=top_k)
        ours.latency_s.append(time.perf_counter() - start)
        ours.cpu_s.append(time.process_time() - cpu)
        ours.docs.append([h.document_id for h in hits.passages])
    return dense, ours


def _report(name: str, dense: _Run, ours: _Run, questions: list[Question], top_k: int) -> None:
    gold = [list(q.supporting_paragraph_ids) for q in questions]
    n = len(questions)
    groups: dict[str, Sequence[int]] = {"all": range(n), "fold A (even)": range(0, n, 2),
                                        "fold B (odd)": range(1, n, 2)}
    for kind in sorted({q.type for q in questions if q.type}):
        groups[f"type {kind}"] = [i for i, q in enumerate(questions) if q.type == kind]
    header = " ".join(f"{f'recall@{k}':>9}" for k in KS) + " " + " ".join(f"{f'all-gold@{k}':>11}"
                                                                         for k in ALL_GOLD_KS)
    print(f"\n{name}: {n} questions")
    print(f"  {'':32} {'':10} {header}")
    for group, subset in groups.items():
        for label, run in (("dense-only", dense), ("retrieve", ours)):
            values = _scores(run, gold, subset)
            print(f"  {f'{group} ({len(subset)})':32} {label:10} "
                  + " ".join(f"{v:9.3f}" for v in values[:len(KS)]) + " "
                  + " ".join(f"{v:11.3f}" for v in values[len(KS):]))
    print(f"  latency  retrieve (all paths, top_k {top_k}): p50 {_pct(ours.latency_s, .5):.1f} ms, "
          f"p95 {_pct(ours.latency_s, .95):.1f} ms (target p50 <= 20 ms); "
          f"client CPU p50 {_pct(ours.cpu_s, .5):.1f} ms")
    print(f"           dense-only:{' ' * (19 + len(str(top_k)))}p50 {_pct(dense.latency_s, .5):.1f} ms, "
          f"p95 {_pct(dense.latency_s, .95):.1f} ms; client CPU p50 {_pct(dense.cpu_s, .5):.1f} ms")
    ratio = _pct(ours.latency_s, .5) / _pct(dense.latency_s, .5)
    cpu_ratio = _pct(ours.cpu_s, .5) / _pct(dense.cpu_s, .5)
    print(f"           retrieve / dense-only in this run: p50 {ratio:.2f}x, client CPU p50 {cpu_ratio:.2f}x "
          "(target p50 at most 1.85x at 2k paragraphs)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa", help="comma-separated set names")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (cache)")
    parser.add_argument("--questions", type=int, default=0, help="ask only the first N questions of each set")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of <set>.{corpus,questions}.jsonl")
    parser.add_argument("--variants", default="", help="comma-separated VARIANTS names (or 'all'): an ablation "
                        "of the passages path instead of the dense-only comparison")
    args = parser.parse_args()
    variants = list(VARIANTS) if args.variants == "all" else [v for v in args.variants.split(",") if v]
    data_dir = Path(args.data_dir).resolve()
    for name in args.sets.split(","):
        questions, corpus = load_dataset(args.eval_dir / f"{name}.questions.jsonl",
                                         args.eval_dir / f"{name}.corpus.jsonl")
        questions = [q for q in questions if q.supporting_paragraph_ids]  # a derived set's may have none left
        if args.questions:
            questions = questions[:args.questions]
        async with await open_eval_graph(corpus, extractor="ner", data_dir=data_dir) as kg:
            started = time.perf_counter()
            info = await ensure_built(kg, corpus, extractor="ner", data_dir=data_dir, progress=False)
            built = "reused" if info.reused else f"built in {time.perf_counter() - started:.0f} s"
            print(f"{name}: graph {kg.name!r} ({built}; ner extractor): {info.documents} documents, "
                  f"{info.chunks} chunks, {info.entities} entities, {info.relations} relations", flush=True)
            if variants:
                _variant_report(name, await _variant_runs(kg, questions, args.top_k, variants), questions,
                                hop_counts(args.eval_dir / f"{name}.questions.jsonl"))
                continue
            dense, ours = await _run(kg, questions, args.top_k)
        _report(name, dense, ours, questions, args.top_k)
    reply = "hiredis" if importlib.util.find_spec("hiredis") else "pure-Python (install hiredis to halve client CPU)"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nlatencies include the question's embedding; redis reply parser: {reply}; "
          f"load average {load} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    asyncio.run(main())
