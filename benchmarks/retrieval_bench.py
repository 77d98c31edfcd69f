"""Retrieval quality and latency on the shared sets: ``retrieve`` (all paths) against dense-only search, BM25 and
RRF(BM25, dense), in the same run.

    python benchmarks/retrieval_bench.py [--sets hotpotqa,2wikimultihopqa,techdocs_a] [--data-dir .graphrag-bench]
                                         [--questions N] [--top-k 10] [--eval-dir DIR]

For each set, builds its graph from ``<set>.corpus.jsonl`` in ``--eval-dir`` (default ``../shared/eval``; each row
one document: id = row id, title = row title) with the product's ingest and its offline ``ner`` extractor,
exactly as ``graphrag-agents eval`` does (:func:`graphrag_agents.evaluation.build.ensure_built`: the graph is named
after the corpus digest and reused from the data folder, so the benchmark and the eval share one build). Then
ranks every question's documents four ways in the same run:

* dense-only: ``passages.dense_passages`` (chunk vector search alone);
* ``retrieve``: every path, ``top_k`` 10;
* BM25: bm25s over every row's title + text (:mod:`retrieval_baselines`; the ``dev`` extra);
* RRF: reciprocal rank fusion (k = 60) of BM25's and dense-only's top 100 documents

and prints nDCG@10, recall@2/5/10 and all-gold@5/10 per question type, with binary relevance from the gold
passages: a gold passage and its exact copies (``duplicate_paragraph_ids``, techdocs_a) count as one, the first
of them found counts and a later copy (or a second chunk of the same passage) is a miss; a ``retrieve`` passage
folded from several copies names each of them. Latency p50/p95 of dense-only and ``retrieve``, each including
the question's embedding.

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

from retrieval_baselines import Bm25, Gold, gold_of, read_rows, rrf, score

from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
from graphrag_agents.evaluation.dataset import Question, load_dataset
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.retrieval._experiments import OFF, Experiments, measuring
from graphrag_agents.retrieval.chain import CHAINS, ChainSettings
from graphrag_agents.retrieval.hits import PassageHit
from graphrag_agents.retrieval.names import Anchor, anchors_from, exact_names, fuzzy_names
from graphrag_agents.retrieval.passages import (
    LINKED_WEIGHTS,
    PER_DOCUMENT,
    POOL_WEIGHTS,
    WEIGHTS,
    PassageWeights,
    dense_passages,
    passages,
)
from graphrag_agents.retrieval.retriever import retrieve

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
KS = (2, 5, 10)
ALL_GOLD_KS = (5, 10)


@dataclass
class _Run:
    """One method's results over the questions."""

    items: list[list[list[str]]] = field(default_factory=list)
    """Per question, its ranked items, best first, each the document ids it names (a passage folded from copies
    names each; repeats kept)."""
    latency_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    """This process's CPU time per call (all its threads: the embedder's and the client's)."""


COLUMNS = (("nDCG@10", "ndcg", 10), ("recall@2", "recall", 2), ("recall@5", "recall", 5),
           ("recall@10", "recall", 10), ("all-gold@5", "all", 5), ("all-gold@10", "all", 10))


def _scores(run: _Run, gold: list[Gold], subset: Sequence[int]) -> list[float]:
    """Every :data:`COLUMNS` metric over ``subset`` (:func:`retrieval_baselines.score`)."""
    return [statistics.fmean(score(run.items[i], gold[i], k, metric) for i in subset) for _, metric, k in COLUMNS]


def _item(hit: PassageHit) -> list[str]:
    """The documents a passage names: its own, then those of the copies folded into it."""
    return [hit.document_id, *(c.document_id for c in getattr(hit, "copies", ()))]


SWITCHED = {"default", "pool-statistics", "graph-statistics-cosine-1.5", "lifted-links", "statement-coverage",
            "title-each"}
"""Variants scored as ``retrieve`` does: ``LINKED_WEIGHTS`` when the first hop finds a graph link, else theirs. The
others score with their weights alone."""
SPREAD = {"per-document-0": 0, "per-document-1": 1, "per-document-2": 2}
"""Variants of ``passages(per_document=...)``: the chunks of a section that take places before a further one must add
coverage of the question (0: the score's order)."""
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
    "ppr-0.5": (WEIGHTS, CHAINS),  # + personalized PageRank over the candidates' entities (EXPERIMENTS)
    "ppr-1": (WEIGHTS, CHAINS),
    "ppr-2": (WEIGHTS, CHAINS),
    "entity-0.15": (WEIGHTS, CHAINS),  # + the entity-mention feature at its weight before the titled hop
    "linked-always": (LINKED_WEIGHTS, CHAINS),  # the weights and keyword feature before the switch
    "text-always": (WEIGHTS, CHAINS),  # the section keyword feature and its weights, whatever the graph links
    "keywords-linked-weights": (replace(LINKED_WEIGHTS, section_keywords=True), CHAINS),
    "no-feedback": (replace(WEIGHTS, feedback=0.0), CHAINS),  # no vector feedback: the default before feedback.py
    "feedback-0.5": (replace(WEIGHTS, feedback=0.5), CHAINS),
    "feedback-2": (replace(WEIGHTS, feedback=2.0), CHAINS),
    "feedback-3": (replace(WEIGHTS, feedback=3.0), CHAINS),
    "feedback-shift-0.5": (replace(WEIGHTS, feedback_shift=0.5), CHAINS),  # the vector moved half as far
    "feedback-shift-2": (replace(WEIGHTS, feedback_shift=2.0), CHAINS),
    # the keyword feature's statistics (retrieval/corpus_stats.py): the candidates' own, as before the graph's
    "pool-statistics": (POOL_WEIGHTS, CHAINS),
    "graph-statistics-cosine-1.5": (replace(WEIGHTS, cosine=1.5), CHAINS),
    "lifted-links": (WEIGHTS, CHAINS),  # the linked weights only when a link lifts a passage into the top_k
    "title-each": (WEIGHTS, CHAINS),  # a named title's feature 1 for each document it titles (before shared_titles)
    "statement-coverage": (WEIGHTS, replace(CHAINS, statements=True)),  # a claim scored by coverage, as a question
}
"""``--variants``: the passages path with one part changed (an ablation), each over every question."""
EXPERIMENTS = {"ppr-0.5": Experiments(ppr=0.5), "ppr-1": Experiments(ppr=1.0), "ppr-2": Experiments(ppr=2.0),
               "entity-0.15": Experiments(entity=0.15)}
"""Variants that turn on a feature measured as no gain, which the package keeps off (``retrieval/_experiments.py``)."""


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
            with measuring(EXPERIMENTS.get(name, OFF)):
                hits = await passages(kg.store, q.question, vector, top_k, anchors=_ready(found), weights=weights,
                                      chains=chains, per_document=SPREAD.get(name, PER_DOCUMENT),
                                      text_names=name not in NO_TEXT_NAMES,
                                      linked_weights=LINKED_WEIGHTS if name in SWITCHED else None,
                                      lifted_links=name == "lifted-links", shared_titles=name != "title-each")
            runs[name].latency_s.append(time.perf_counter() - start)
            runs[name].items.append([_item(h) for h in hits])
    return runs


async def _ready(anchors: list[Anchor]) -> list[Anchor]:
    return anchors


def _variant_report(name: str, runs: dict[str, _Run], questions: list[Question], hops: dict[str, int],
                    gold: list[Gold]) -> None:
    n = len(questions)
    groups: dict[str, Sequence[int]] = {"all": range(n), "A": range(0, n, 2), "B": range(1, n, 2)}
    for kind in sorted({q.type for q in questions if q.type}):
        groups[kind] = [i for i, q in enumerate(questions) if q.type == kind]
    for h in sorted({hops.get(q.id, 0) for q in questions}):
        groups[f"{h} hops"] = [i for i, q in enumerate(questions) if hops.get(q.id, 0) == h]
    groups = {g: sub for g, sub in groups.items() if sub}
    print(f"\n{name}: recall@5 / nDCG@10 of the passages path per variant ({n} questions)")
    print("| variant | " + " | ".join(f"{g} ({len(sub)})" for g, sub in groups.items()) + " | p50 ms |")
    print("| - " * (len(groups) + 2) + "|")
    for variant, run in runs.items():
        cells = [f"{_scores(run, gold, sub)[2]:.3f} / {_scores(run, gold, sub)[0]:.3f}" for sub in groups.values()]
        print(f"| {variant} | " + " | ".join(cells) + f" | {_pct(run.latency_s, .5):.1f} |")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _run(kg: KnowledgeGraph, questions: list[Question], top_k: int,
               bm25: Bm25) -> dict[str, _Run]:
    """dense-only, ``retrieve``, BM25 and RRF(BM25, dense top 100) for every question, in that order."""
    runs = {name: _Run() for name in METHODS}
    for q in questions[:5]:  # warm the embedder and the server's caches
        await retrieve(kg.store, kg.embedder, q.question, top_k=top_k)
    for q in questions:
        start, cpu = time.perf_counter(), time.process_time()
        vector = (await kg.embedder.aembed([q.question]))[0]
        base = await dense_passages(kg.store, vector, top_k)
        runs["dense-only"].latency_s.append(time.perf_counter() - start)
        runs["dense-only"].cpu_s.append(time.process_time() - cpu)
        runs["dense-only"].items.append([_item(h) for h in base])
        start, cpu = time.perf_counter(), time.process_time()
        hits = await retrieve(kg.store, kg.embedder, q.question, top_k=top_k)
        runs["retrieve"].latency_s.append(time.perf_counter() - start)
        runs["retrieve"].cpu_s.append(time.process_time() - cpu)
        runs["retrieve"].items.append([_item(h) for h in hits.passages])
        start = time.perf_counter()
        lexical = bm25.search(q.question, FUSED)
        runs["BM25"].latency_s.append(time.perf_counter() - start)
        runs["BM25"].items.append([[d] for d in lexical[:top_k]])
        dense_100 = [h.document_id for h in await dense_passages(kg.store, vector, FUSED)]
        runs["RRF"].items.append([[d] for d in rrf(lexical, dense_100)[:top_k]])
    return runs


METHODS = ("retrieve", "BM25", "RRF", "dense-only")
"""The methods of one run, in the order printed."""
FUSED = 100
"""RRF fuses BM25's and dense-only's top this many documents."""


def _report(name: str, runs: dict[str, _Run], questions: list[Question], gold: list[Gold], top_k: int) -> None:
    n = len(questions)
    groups: dict[str, Sequence[int]] = {"all": range(n), "fold A (even)": range(0, n, 2),
                                        "fold B (odd)": range(1, n, 2)}
    for kind in sorted({q.type for q in questions if q.type}):
        groups[f"type {kind}"] = [i for i, q in enumerate(questions) if q.type == kind]
    print(f"\n{name}: {n} questions (a gold passage and its exact copies count once)")
    print("| questions | method | " + " | ".join(label for label, _, _ in COLUMNS) + " |")
    print("| - " * (len(COLUMNS) + 2) + "|")
    for group, subset in groups.items():
        for label in METHODS:
            values = _scores(runs[label], gold, subset)
            print(f"| {group} ({len(subset)}) | {label} | " + " | ".join(f"{v:.3f}" for v in values) + " |")
    ours, dense = runs["retrieve"], runs["dense-only"]
    print(f"  latency  retrieve (all paths, top_k {top_k}): p50 {_pct(ours.latency_s, .5):.1f} ms, "
          f"p95 {_pct(ours.latency_s, .95):.1f} ms (target p50 <= 20 ms); "
          f"client CPU p50 {_pct(ours.cpu_s, .5):.1f} ms")
    print(f"           dense-only:{' ' * (19 + len(str(top_k)))}p50 {_pct(dense.latency_s, .5):.1f} ms, "
          f"p95 {_pct(dense.latency_s, .95):.1f} ms; client CPU p50 {_pct(dense.cpu_s, .5):.1f} ms")
    print(f"           BM25 (bm25s, in process, top {FUSED}): p50 {_pct(runs['BM25'].latency_s, .5):.1f} ms")
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
        texts = {p.id: p.text for p in corpus}
        rows = {str(r["id"]): r for r in read_rows(args.eval_dir / f"{name}.questions.jsonl")}
        gold = [gold_of(rows[q.id], texts) for q in questions]
        async with await open_eval_graph(corpus, extractor="ner", data_dir=data_dir) as kg:
            started = time.perf_counter()
            info = await ensure_built(kg, corpus, extractor="ner", data_dir=data_dir, progress=False)
            built = "reused" if info.reused else f"built in {time.perf_counter() - started:.0f} s"
            print(f"{name}: graph {kg.name!r} ({built}; ner extractor): {info.documents} documents, "
                  f"{info.chunks} chunks, {info.entities} entities, {info.relations} relations", flush=True)
            if variants:
                _variant_report(name, await _variant_runs(kg, questions, args.top_k, variants), questions,
                                hop_counts(args.eval_dir / f"{name}.questions.jsonl"), gold)
                continue
            bm25 = Bm25([(p.id, p.title or "", p.text) for p in corpus])
            runs = await _run(kg, questions, args.top_k, bm25)
        _report(name, runs, questions, gold, args.top_k)
    reply = "hiredis" if importlib.util.find_spec("hiredis") else "pure-Python (install hiredis to halve client CPU)"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nlatencies include the question's embedding; redis reply parser: {reply}; "
          f"load average {load} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    asyncio.run(main())
