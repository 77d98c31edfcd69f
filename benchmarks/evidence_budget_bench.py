"""What a model reads of ``retrieve`` at each ``to_llm_text`` budget, and what it still finds there.

    python benchmarks/evidence_budget_bench.py [--sets hotpotqa,2wikimultihopqa] [--data-dir DIR]
                                               [--budgets 8000,6000,5000,4400,4000] [--eval-dir DIR]

For each set the graph is built (or reused) exactly as ``graphrag-agents eval`` builds it, and every question is
retrieved once (all paths, ``top_k`` 10) and numbered as the tool numbers it. For each budget the rendered text
is measured:

* characters per question (what the model reads);
* *read recall*: the share of a question's supporting paragraphs whose passage is in the text (a passage cut
  from the text by the budget is not read, though retrieve ranked it);
* *answer read*: the share of answerable questions whose gold answer (or an alias) occurs in the text.

``retrieve``'s ranking does not depend on the budget, so its recall@k is unchanged; what changes is what the model
sees of it. The budget of ``RetrieveResult.to_llm_text`` was chosen on fold A (even-numbered questions of both
sets, the folds of ``retrieval_bench.py``): the smallest budget under 0.6x of the previous release's rendered
size (7,472 characters per HotpotQA question) whose read recall on fold A stays within 2 points of the
8,000-character budget. Fold B is printed apart.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
from pathlib import Path

from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
from graphrag_agents.evaluation.dataset import Question, load_dataset
from graphrag_agents.evaluation.metrics import normalize_answer
from graphrag_agents.tools.evidence import EvidenceLedger
from graphrag_agents.tools.read_tools import number_retrieval
from graphrag_agents.tools.results import RetrieveResult

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_NUMBER = re.compile(r"^\[(\d+)\]", re.MULTILINE)


def read_numbers(text: str) -> set[int]:
    """The evidence numbers that open a line of the rendered text (the items the model reads)."""
    return {int(m.group(1)) for m in _NUMBER.finditer(text)}


def measure(result: RetrieveResult, question: Question, budget: int) -> dict[str, float]:
    """Characters, read recall and answer read of ``result`` rendered under ``budget``."""
    text = result.to_llm_text(budget)
    shown = read_numbers(text)
    docs = {p.document_id for p in result.passages if p.n in shown}
    gold = list(question.supporting_paragraph_ids)
    row = {"chars": float(len(text)), "read_recall": sum(g in docs for g in gold) / len(gold) if gold else 0.0}
    if question.answerable and question.answers:
        haystack = f" {normalize_answer(text)} "
        row["answer_read"] = float(any(f" {normalize_answer(a)} " in haystack for a in question.answers
                                       if normalize_answer(a)))
    return row


async def run_set(name: str, eval_dir: Path, data_dir: Path, budgets: list[int]) -> None:
    questions, corpus = load_dataset(eval_dir / f"{name}.questions.jsonl", eval_dir / f"{name}.corpus.jsonl")
    rows: dict[int, list[tuple[int, dict[str, float]]]] = {b: [] for b in budgets}
    async with await open_eval_graph(corpus, extractor="ner", data_dir=data_dir) as kg:
        await ensure_built(kg, corpus, extractor="ner", data_dir=data_dir, progress=False)
        for i, question in enumerate(questions):
            result = number_retrieval(EvidenceLedger(), await kg.retrieve(question.question, top_k=10))
            for budget in budgets:
                rows[budget].append((i, measure(result, question, budget)))
    print(f"\n{name} ({len(questions)} questions)")
    print("| budget | chars / q | read recall (A / B) | answer read (A / B) |")
    print("| - | - | - | - |")
    for budget in budgets:
        def mean(key: str, fold: int | None = None, b: int = budget) -> float:
            values = [r[key] for i, r in rows[b] if key in r and (fold is None or i % 2 == fold)]
            return statistics.fmean(values) if values else float("nan")

        print(f"| {budget:,} | {mean('chars'):,.0f} | {mean('read_recall'):.3f} ({mean('read_recall', 0):.3f} / "
              f"{mean('read_recall', 1):.3f}) | {mean('answer_read'):.3f} ({mean('answer_read', 0):.3f} / "
              f"{mean('answer_read', 1):.3f}) |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (shared with eval)")
    parser.add_argument("--budgets", default="8000,6000,5000,4400,4000")
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    for name in args.sets.split(","):
        data_dir = Path(args.data_dir.replace("{set}", name)).resolve()
        await run_set(name, args.eval_dir, data_dir, budgets)


if __name__ == "__main__":
    asyncio.run(main())
