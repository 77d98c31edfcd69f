"""What a model reads of ``retrieve`` at each ``to_llm_text`` budget, and what it still finds there.

    python benchmarks/evidence_budget_bench.py [--sets hotpotqa,2wikimultihopqa] [--data-dir DIR]
                                               [--budgets 8000:0.7,4400:1.0:0.1,...] [--eval-dir DIR]
                                               [--compare-all-evidence] [--compare-head]

A budget is ``CHARS``, ``CHARS:SHARE``, ``CHARS:SHARE:FLOOR`` or ``CHARS:SHARE:FLOOR:head`` (``head``: each
passage shown from its head, ``to_llm_text(focus=False)``, not around the question's words; ``passages_share``:
how much of it passages are served first, default 1.0; ``section_floor``: the share kept for each other section
holding something no passage shows, default ``SECTION_FLOOR``; 0 is the previous release's rendering).
``--data-dir`` may hold ``{set}`` for one folder per set.

For each set the graph is built (or reused) exactly as ``graphrag-agents eval`` builds it, and every question is
retrieved once (all paths, ``top_k`` 10) and numbered as the tool numbers it. For each budget the rendered text
is measured:

* characters per question (what the model reads);
* *read recall*: the share of a question's supporting paragraphs whose passage is in the text (a passage cut
  from the text by the budget is not read, though retrieve ranked it);
* *answer read*: the share of answerable questions whose gold answer (or an alias) occurs in the text;
* *sections*: the share of questions whose text shows (or names as left out) every section that holds
  something no passage shows, and *passages only*: the share whose text shows passages and nothing else.

Then, at the default budget, the *gold-word items*: how many evidence items (passages, facts, related facts,
entity cards) hold a word of the question's gold answer (or an alias; normalised, as whole words), among the
items the rendered text shows and among all the items returned, summed over the answerable questions, by kind.
They are counted a second time with only the answer's content words (those in under 5% of the corpus's
paragraphs): on npm's docs "npm" is a gold word of most answers and stands in 77% of the paragraphs, so an item
holding it holds no answer. ``--compare-all-evidence`` prints both a second time from the same retrieve calls
with every fact line and entity card kept (``number_retrieval(earned_only=False)``: what ``tools/earned.py``
leaves out, put back).

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
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
from graphrag_agents.evaluation.dataset import Question, load_dataset
from graphrag_agents.evaluation.metrics import normalize_answer
from graphrag_agents.evidence import EvidenceLedger
from graphrag_agents.tools.read_tools import number_retrieval
from graphrag_agents.tools.results import PASSAGES_FIRST, SECTION_FLOOR, RetrieveResult

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_NUMBER = re.compile(r"^\[(\d+)\]", re.MULTILINE)


def read_numbers(text: str) -> set[int]:
    """The evidence numbers that open a line of the rendered text (the items the model reads)."""
    return {int(m.group(1)) for m in _NUMBER.finditer(text)}


Budget = tuple[int, float, float, bool]
"""(characters, passages share, section floor)."""


def _unseen_sections(result: RetrieveResult) -> list[str]:
    """The titles of the sections holding something no passage of ``result`` shows (as ``to_llm_text`` decides)."""
    shown = " ".join(p.text.lower() for p in result.passages)
    titles = []
    if any(f.in_passage is None for f in result.facts):
        titles.append("Facts")
    if any(r.in_passage is None for r in result.relations):
        titles.append("Related facts")
    if any(e.name.lower() not in shown for e in result.entities):
        titles.append("Entities")
    return titles


def _item_texts(result: RetrieveResult) -> list[tuple[str, int, str]]:
    """(kind, evidence number, text) of every item of ``result``: a fact is its entities and sentence."""
    items = [("passage", p.n, p.text) for p in result.passages]
    items += [("fact", f.n, f"{f.ends()} {f.fact}") for f in result.facts]
    items += [("related", r.n, f"{r.ends()} {r.fact}") for r in result.relations]
    return items + [("entity", e.n, e.line()) for e in result.entities]


def gold_items(result: RetrieveResult, question: Question, rare: Callable[[str], bool] | None = None,
               focus: bool = True) -> dict[str, int]:
    """Per kind, the items holding a gold answer word: ``read:<kind>`` among those the default rendering shows
    (``focus=False``: with each passage's head shown), ``all:<kind>`` among all returned. ``rare``: count only
    the answer's words it accepts (content words)."""
    words = {w for a in question.answers for w in normalize_answer(a).split() if rare is None or rare(w)}
    if not words:
        return {}
    shown = read_numbers(result.to_llm_text(focus=focus))
    counts: dict[str, int] = {}
    for kind, n, text in _item_texts(result):
        if words & set(normalize_answer(text).split()):
            counts[f"all:{kind}"] = counts.get(f"all:{kind}", 0) + 1
            if n in shown:
                counts[f"read:{kind}"] = counts.get(f"read:{kind}", 0) + 1
    return counts


def rare_words(texts: list[str], share: float = 0.05) -> Callable[[str], bool]:
    """Whether a (normalised) word stands in fewer than ``share`` of ``texts``: a content word of the corpus
    ("npm" in npm's docs, "the" anywhere are not)."""
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(normalize_answer(text).split()))
    limit = share * len(texts)
    return lambda w: df[w] < limit


def measure(result: RetrieveResult, question: Question, budget: Budget) -> dict[str, float]:
    """Characters, read recall, answer read and sections shown of ``result`` rendered under ``budget``."""
    chars, share, floor, focus = budget
    text = result.to_llm_text(chars, passages_share=share, section_floor=floor, focus=focus)
    shown = read_numbers(text)
    docs = {p.document_id for p in result.passages if p.n in shown}
    gold = list(question.supporting_paragraph_ids)
    row = {"chars": float(len(text)), "read_recall": sum(g in docs for g in gold) / len(gold) if gold else 0.0}
    unseen = _unseen_sections(result)
    nouns = {"Facts": " fact", "Related facts": " related fact", "Entities": " entity card"}
    note = next((line for line in text.splitlines() if " left out; retrieve" in line), "")
    row["sections"] = float(all(f"\n{t}:\n" in text or nouns[t] in note for t in unseen))
    row["passages_only"] = float("Passages:" in text and not any(f"\n{t}:\n" in text
                                                                 for t in ("Facts", "Related facts", "Entities")))
    if question.answerable and question.answers:
        haystack = f" {normalize_answer(text)} "
        row["answer_read"] = float(any(f" {normalize_answer(a)} " in haystack for a in question.answers
                                       if normalize_answer(a)))
    return row


def print_gold(gold: dict[str, int], note: str = "") -> None:
    """The gold-word item counts, shown and returned, by kind."""
    for scope in ("read", "all"):
        kinds = ", ".join(f"{k} {gold.get(f'{scope}:{k}', 0)}" for k in ("passage", "fact", "related", "entity"))
        total = sum(v for k, v in gold.items() if k.startswith(scope + ":"))
        print(f"gold-word items{note} ({'shown at the default budget' if scope == 'read' else 'returned'}): "
              f"{total} ({kinds})")


def add(total: dict[str, int], counts: dict[str, int]) -> None:
    """Add ``counts`` into ``total``, key by key."""
    for key, count in counts.items():
        total[key] = total.get(key, 0) + count


async def run_set(name: str, eval_dir: Path, data_dir: Path, budgets: list[Budget],
                  paths: list[str] | None = None, compare_all: bool = False, compare_head: bool = False) -> None:
    questions, corpus = load_dataset(eval_dir / f"{name}.questions.jsonl", eval_dir / f"{name}.corpus.jsonl")
    rows: dict[Budget, list[tuple[int, dict[str, float]]]] = {b: [] for b in budgets}
    gold: dict[str, int] = {}
    gold_all: dict[str, int] = {}
    content: dict[str, int] = {}
    content_all: dict[str, int] = {}
    gold_head: dict[str, int] = {}
    content_head: dict[str, int] = {}
    rare = rare_words([p.text for p in corpus])
    async with await open_eval_graph(corpus, extractor="ner", data_dir=data_dir) as kg:
        await ensure_built(kg, corpus, extractor="ner", data_dir=data_dir, progress=False)
        for i, question in enumerate(questions):
            hits = await kg.retrieve(question.question, top_k=10, paths=paths)
            result = number_retrieval(EvidenceLedger(), hits)
            for budget in budgets:
                rows[budget].append((i, measure(result, question, budget)))
            if question.answerable and question.answers:
                add(gold, gold_items(result, question))
                add(content, gold_items(result, question, rare))
                if compare_head:
                    add(gold_head, gold_items(result, question, focus=False))
                    add(content_head, gold_items(result, question, rare, focus=False))
                if compare_all:
                    every = number_retrieval(EvidenceLedger(), hits, earned_only=False)
                    add(gold_all, gold_items(every, question))
                    add(content_all, gold_items(every, question, rare))
    print(f"\n{name} ({len(questions)} questions)")
    print_gold(gold)
    print_gold(content, " (content words of the answer only: in under 5% of the corpus's paragraphs)")
    if compare_head:
        print_gold(gold_head, ", each passage's head shown (to_llm_text(focus=False))")
        print_gold(content_head, ", each passage's head shown, content words only")
    if compare_all:
        print_gold(gold_all, ", every fact line and card kept (earned_only=False)")
        print_gold(content_all, ", every fact line and card kept, content words only")
    print("| budget | passages share | section floor | chars / q | read recall (A / B) | answer read (A / B) "
          "| sections | passages only |")
    print("| - | - | - | - | - | - | - | - |")
    for budget in budgets:
        def mean(key: str, fold: int | None = None, b: Budget = budget) -> float:
            values = [r[key] for i, r in rows[b] if key in r and (fold is None or i % 2 == fold)]
            return statistics.fmean(values) if values else float("nan")

        read = f"{mean('read_recall'):.3f} ({mean('read_recall', 0):.3f} / {mean('read_recall', 1):.3f})"
        answer = f"{mean('answer_read'):.3f} ({mean('answer_read', 0):.3f} / {mean('answer_read', 1):.3f})"
        heads = "" if budget[3] else " (heads)"
        print(f"| {budget[0]:,}{heads} | {budget[1]} | {budget[2]} | {mean('chars'):,.0f} | {read} | {answer} "
              f"| {mean('sections'):.3f} | {mean('passages_only'):.3f} |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (shared with eval)")
    parser.add_argument("--budgets", default="4400:1:0,4400,4400:1:0.1,4400:1:0.15,4400:1:0.2,5000,8000",
                        help="budgets, each optionally with its passages share and section floor: 4400:0.85:0.1")
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--paths", default="", help="retrieve only these paths (comma-separated; default all): "
                        "e.g. exact_names,links,passages to see what the reader loses without the facts path")
    parser.add_argument("--compare-all-evidence", action="store_true",
                        help="also count gold-word items with every fact line and entity card kept "
                        "(number_retrieval(earned_only=False)), from the same retrieve calls")
    parser.add_argument("--compare-head", action="store_true",
                        help="also count gold-word items with each passage's head shown instead of the lines around "
                        "the question's words (to_llm_text(focus=False)), from the same retrieve calls")
    args = parser.parse_args()
    budgets: list[Budget] = []
    for spec in args.budgets.split(","):
        parts = spec.split(":")
        budgets.append((int(parts[0]), float(parts[1]) if len(parts) > 1 else PASSAGES_FIRST,
                        float(parts[2]) if len(parts) > 2 else SECTION_FLOOR,
                        not (len(parts) > 3 and parts[3] == "head")))
    for name in args.sets.split(","):
        data_dir = Path(args.data_dir.replace("{set}", name)).resolve()
        await run_set(name, args.eval_dir, data_dir, budgets, args.paths.split(",") if args.paths else None,
                      args.compare_all_evidence, args.compare_head)


if __name__ == "__main__":
    asyncio.run(main())
