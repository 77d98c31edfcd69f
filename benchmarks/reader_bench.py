"""How much evidence the structured drafting turn should show: the answer's reach against the prompt's size.

    python benchmarks/reader_bench.py QUESTIONS CORPUS --data-dir DIR [--url unix:///...sock] [--tune-from 60]

Opens the graph ``graphrag-agents eval`` built for the set (``--data-dir`` of that run; ``--url`` to share a
running server), runs the agent's own ``retrieve(question)`` (default options) for every answerable question, and
renders the drafting view (:func:`graphrag_agents.agent.reader_evidence`) with 1 to 8 passages (2 facts after
them, as the default). For each size it prints, per half of the set:

* answer shown: the share of questions whose gold answer (normalised, as EM compares) is in the text shown, the
  most the model can get right;
* all gold shown: the share whose every supporting paragraph is among the passages shown (a multi-hop question
  needs them all);
* chars / q: the characters shown (the prompt's size, which sets the local model's time per question).

It also prints what the pre-generation gate (``min_score``) would do: for thresholds on ``best_evidence_score``,
the share of unanswerable questions refused and of answerable ones refused wrongly.

No model runs. The default is chosen on the questions from ``--tune-from`` on (those the LLM runs of
``docs/agent.md`` do not ask), and the first ones are printed as the held-out half.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from graphrag_agents.agent import ReaderView, reader_evidence
from graphrag_agents.evaluation.build import graph_name
from graphrag_agents.evaluation.dataset import corpus_digest, load_dataset
from graphrag_agents.evaluation.metrics import mean, normalize_answer
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SIZES = range(1, 9)
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)


async def _measure(args: argparse.Namespace) -> dict[str, Any]:
    questions, corpus = load_dataset(args.questions, args.corpus)
    name = graph_name(corpus_digest(corpus), "ner")
    kg = await KnowledgeGraph.open(url=args.url, graph=name, data_dir=str(args.data_dir))
    rows: list[dict[str, Any]] = []
    scores: list[tuple[int, bool, float]] = []
    try:
        toolkit = GraphRAGToolkit(kg, read_only=True)
        for index, question in enumerate(questions):
            result = await toolkit.new_session().retrieve(question=question.question)
            scores.append((index, question.answerable, result.best_evidence_score))
            if not question.answerable:
                continue
            gold = set(question.supporting_paragraph_ids)
            row: dict[str, Any] = {"index": index, "sizes": {}}
            for size in SIZES:
                text, shown = reader_evidence(result, ReaderView(passages=size))
                docs = {p.document_id for p in result.passages if p.n in shown}
                answers = [normalize_answer(a) for a in question.answers]
                row["sizes"][size] = {
                    "answer": any(a and f" {a} " in f" {normalize_answer(text)} " for a in answers),
                    "all_gold": gold <= docs, "chars": len(text)}
            rows.append(row)
    finally:
        await kg.close()
    halves = {"held-out (first questions)": [r for r in rows if r["index"] < args.tune_from],
              "tuning (the rest)": [r for r in rows if r["index"] >= args.tune_from]}
    gate = {name: {t: {"unanswerable_refused": round(mean(float(s < t) for i, a, s in part if not a), 4),
                       "answerable_refused": round(mean(float(s < t) for i, a, s in part if a), 4)}
                   for t in THRESHOLDS}
            for name, part in (("held-out (first questions)", [x for x in scores if x[0] < args.tune_from]),
                               ("tuning (the rest)", [x for x in scores if x[0] >= args.tune_from]))}
    halves_table: dict[str, Any] = {
        name: {size: {"answer_shown": round(mean(float(r["sizes"][size]["answer"]) for r in part), 4),
                      "all_gold_shown": round(mean(float(r["sizes"][size]["all_gold"]) for r in part), 4),
                      "chars": round(mean(float(r["sizes"][size]["chars"]) for r in part))}
               for size in SIZES} | {"questions": len(part)}
        for name, part in halves.items()}
    return {"gate": gate, **halves_table}


def main() -> None:
    """Parse the flags, measure, print the table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", type=Path)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--url", default=None)
    parser.add_argument("--tune-from", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    table = asyncio.run(_measure(args))
    if args.json:
        print(json.dumps(table, indent=2))
    for half, rates in table.pop("gate").items():
        print(f"\nmin_score gate, {half}:\n| min_score | unanswerable refused | answerable refused |\n| - | - | - |")
        for t, m in rates.items():
            print(f"| {t} | {100 * m['unanswerable_refused']:.1f} | {100 * m['answerable_refused']:.1f} |")
    for half, sizes in table.items():
        print(f"\n{half}: {sizes['questions']} answerable questions")
        print("| passages | answer shown | all gold shown | chars / q |\n| - | - | - | - |")
        for size in SIZES:
            m = sizes[size]
            print(f"| {size} | {100 * m['answer_shown']:.1f} | {100 * m['all_gold_shown']:.1f} | {m['chars']:,} |")


if __name__ == "__main__":
    main()
