"""What a model reads of ``retrieve`` at each ``to_llm_text`` budget, and what it still finds there.

    python benchmarks/evidence_budget_bench.py [--sets hotpotqa,2wikimultihopqa] [--data-dir DIR]
                                               [--budgets 8000:0.7,4400:1.0,...] [--eval-dir DIR]

A budget is ``CHARS`` or ``CHARS:SHARE`` (``passages_share``: how much of it passages are served first; the
default 1.0, the previous release's 0.7). ``--data-dir`` may hold ``{set}`` for one folder per set.

For each set the graph is built (or reused) exactly as ``graphrag-agents eval`` builds it, and every question is
retrieved once (all paths, ``top_k`` 10) and numbered as the tool numbers it. For each budget the rendered text
is measured:

* characters per question (what the model reads);
* *read recall*: the share of a question's supporting paragraphs whose passage is in the text (a passage cut
  from the text by the budget is not read, though retrieve ranked it);
* *answer read*: the share of answerable questions whose gold answer (or an alias) occurs in the text.

``retrieve``'s ranking does not depend on the budget, so its recall@k is unchanged; what changes is what the model
sees of it. The budget of ``RetrieveResult.to_llm_text`` was chosen on fold A (even-numbered questions of both
sets, the folds of ``retrieval_bench.py``): among the budgets (and passage shares) rendering under 0.6x of the
previous release's 7,472 characters per HotpotQA question, the one with the best read recall on fold A (ties: the
best answer read on fold A). Fold B is printed apart.
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
from graphrag_agents.tools.results import PASSAGES_FIRST, RetrieveResult

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_NUMBER = re.compile(r"^\[(\d+)\]", re.MULTILINE)


def read_numbers(text: str) -> set[int]:
    """The evidence numbers that open a line of the rendered text (the items the model reads)."""
    return {int(m.group(1)) for m in _NUMBER.finditer(text)}


def measure(result: RetrieveResult, question: Question, budget: int, share: float) -> dict[str, float]:
    """Characters, read recall and answer read of ``result`` rendered under ``budget``, passages first up to
    ``share`` of it."""
    text = result.to_llm_text(budget, passages_share=share)
    shown = read_numbers(text)
    docs = {p.document_id for p in result.passages if p.n in shown}
    gold = list(question.supporting_paragraph_ids)
    row = {"chars": float(len(text)), "read_recall": sum(g in docs for g in gold) / len(gold) if gold else 0.0}
    if question.answerable and question.answers:
        haystack = f" {normalize_answer(text)} "
        row["answer_read"] = float(any(f" {normalize_answer(a)} " in haystack for a in question.answers
                                       if normalize_answer(a)))
    return row


async def run_set(name: str, eval_dir: Path, data_dir: Path, budgets: list[tuple[int, float]]) -> None:
    questions, corpus = load_dataset(eval_dir / f"{name}.questions.jsonl", eval_dir / f"{name}.corpus.jsonl")
    rows: dict[tuple[int, float], list[tuple[int, dict[str, float]]]] = {b: [] for b in budgets}
    async with await open_eval_graph(corpus, extractor="ner", data_dir=data_dir) as kg:
        await ensure_built(kg, corpus, extractor="ner", data_dir=data_dir, progress=False)
        for i, question in enumerate(questions):
            result = number_retrieval(EvidenceLedger(), await kg.retrieve(question.question, top_k=10))
            for budget in budgets:
                rows[budget].append((i, measure(result, question, *budget)))
    print(f"\n{name} ({len(questions)} questions)")
    print("| budget | passages share | chars / q | read recall (A / B) | answer read (A / B) |")
    print("| - | - | - | - | - |")
    for budget in budgets:
        def mean(key: str, fold: int | None = None, b: tuple[int, float] = budget) -> float:
            values = [r[key] for i, r in rows[b] if key in r and (fold is None or i % 2 == fold)]
            return statistics.fmean(values) if values else float("nan")

        read = f"{mean('read_recall'):.3f} ({mean('read_recall', 0):.3f} / {mean('read_recall', 1):.3f})"
        answer = f"{mean('answer_read'):.3f} ({mean('answer_read', 0):.3f} / {mean('answer_read', 1):.3f})"
        print(f"| {budget[0]:,} | {budget[1]} | {mean('chars'):,.0f} | {read} | {answer} |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (shared with eval)")
    parser.add_argument("--budgets", default="8000:0.7,6000,5000,4400:0.7,4400:0.9,4400,4000",
                        help="budgets, each optionally with its passages share: 4400:0.85")
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    budgets = [(int(b.split(":")[0]), float(b.split(":")[1]) if ":" in b else PASSAGES_FIRST)
               for b in args.budgets.split(",")]
    for name in args.sets.split(","):
        data_dir = Path(args.data_dir.replace("{set}", name)).resolve()
        await run_set(name, args.eval_dir, data_dir, budgets)


if __name__ == "__main__":
    asyncio.run(main())
