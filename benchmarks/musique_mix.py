"""A MuSiQue mix of answerable and unanswerable questions, made with the recipe of the shared mixed sets.

    python benchmarks/musique_mix.py [benchmarks/data/musique/dev169.jsonl.gz] --out DIR

The shared mixed sets (``../shared/eval/README.md``: ``hotpotqa_mixed_derived``, ``2wikimultihopqa_mixed_derived``)
test abstention: the questions at odd positions (counting from 0) lose, from the shared corpus, the supporting
paragraph holding the answer (else their last supporting paragraph) and become ``answerable: false``; a question
stays answerable when that paragraph also supports another question still answerable. This script applies the same
recipe to the MuSiQue sample ``dev169`` (read by :mod:`musique_sample`: every supporting paragraph once, MuSiQue's
distractors as the rest of the corpus), so the agent is measured on 2- to 4-hop questions written in MuSiQue's free
wording, which no rule of the agent was written from.

It writes ``musique_mix.questions.jsonl`` and ``musique_mix.corpus.jsonl`` into ``--out``; each question keeps the
fields of :mod:`musique_sample` and, when made unanswerable, gets the shared sets' ``removed_paragraph_ids``,
``derived_note``, ``answer_string_still_in_corpus``, ``original_id`` and an id ending ``__unans``. MuSiQue's
license (CC BY 4.0) holds for the output: keep ``benchmarks/data/musique/README.md``'s note beside any copy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from musique_sample import convert

__all__ = ["mix"]

NOTE = "derived: a supporting paragraph was removed from the corpus; gold answer kept for reference only"


def _holds(text: str, answers: list[str]) -> bool:
    lowered = text.lower()
    return any(a and a.lower() in lowered for a in answers)


def mix(questions: list[dict[str, Any]], corpus: dict[str, dict[str, str]]) -> tuple[list[dict[str, Any]],
                                                                                      dict[str, dict[str, str]]]:
    """The mixed questions and the corpus left: the questions at odd positions made unanswerable by removing the
    supporting paragraph holding their answer (else their last), unless another answerable question needs it."""
    rows = [dict(q) for q in questions]
    kept_by = {i: set(q["supporting_paragraph_ids"]) for i, q in enumerate(rows) if i % 2 == 0}
    removed: set[str] = set()
    for i, row in enumerate(rows):
        if i % 2 == 0:
            continue
        answers = [row["answer"], *row.get("answer_aliases", [])]
        gold = row["supporting_paragraph_ids"]
        holding = [p for p in gold if _holds(corpus[p]["text"], answers)]
        target = holding[-1] if holding else gold[-1]
        if any(target in ids for ids in kept_by.values()):
            kept_by[i] = set(gold)
            continue
        removed.add(target)
        row.update({"id": f"{row['id']}__unans", "original_id": row["id"], "answerable": False,
                    "supporting_paragraph_ids": [p for p in gold if p != target],
                    "removed_paragraph_ids": [target], "derived_note": NOTE})
    left = {pid: para for pid, para in corpus.items() if pid not in removed}
    for row in rows:
        if not row["answerable"]:
            answers = [row["answer"], *row.get("answer_aliases", [])]
            row["answer_string_still_in_corpus"] = any(_holds(p["text"], answers) for p in left.values())
    return rows, left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", type=Path, nargs="?",
                        default=Path(__file__).resolve().parent / "data" / "musique" / "dev169.jsonl.gz",
                        help="MuSiQue records (default: the dev169 sample)")
    parser.add_argument("--out", type=Path, required=True, help="folder for musique_mix.{questions,corpus}.jsonl")
    args = parser.parse_args()
    built = convert([args.records], [])
    corpus = {pid: {"id": pid, "title": title, "text": text} for (title, text), pid in built.corpus.items()}
    rows, left = mix(built.questions, corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "musique_mix.questions.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (args.out / "musique_mix.corpus.jsonl").open("w", encoding="utf-8") as handle:
        for para in left.values():
            handle.write(json.dumps(para, ensure_ascii=False) + "\n")
    unanswerable = [r for r in rows if not r["answerable"]]
    still = sum(r["answer_string_still_in_corpus"] for r in unanswerable)
    print(f"{len(rows)} questions: {len(rows) - len(unanswerable)} answerable, {len(unanswerable)} unanswerable "
          f"({still} of them with the answer string still in the corpus); {len(left)} paragraphs "
          f"({len(corpus) - len(left)} removed) -> {args.out}")


if __name__ == "__main__":
    main()
