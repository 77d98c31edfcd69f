"""``check_citations`` as a detector of hallucinated answers on RAGTruth's real model answers, against a naive
rule in the same run.

    python benchmarks/ragtruth_bench.py [--eval-dir ../shared/eval] [--files summary,data2txt] [--limit N]
        [--half all|tune|held-out] [--variants default,records,literal,previous,naive] [--show N]

Each row's ``answer`` is the model's response with " [1]..[k]" after every sentence (see the eval folder's
README). An answer counts as flagged when the check does not verify it (``not verified``); the naive rule flags it
when it holds a number or a capitalised word that no passage holds. Reported per file, per half and per
hallucination type: balanced accuracy, precision, recall and F1 of "hallucinated", and ms per answer.

The halves split each file by source (a hash of ``source_id``): every rule of the support check and its
thresholds were chosen looking only at the ``tune`` half of ``ragtruth_summary.jsonl`` and
``ragtruth_data2txt.jsonl``; the ``held-out`` half of each is reported, never tuned on.
Data: RAGTruth (MIT, Copyright (c) 2023 Particle Media), see the eval folder's README.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import check_citations

_DEFAULT_EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_MARKER = re.compile(r"\s*\[\d+\]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")

Detector = Callable[[dict[str, Any], dict[int, Evidence]], bool]


def half(row: dict[str, Any]) -> str:
    """``tune`` or ``held-out``: a fixed split by source, so one source's six answers share a half."""
    return "tune" if hashlib.sha1(row["source_id"].encode()).digest()[0] % 2 == 0 else "held-out"


def naive(row: dict[str, Any], _: dict[int, Evidence]) -> bool:
    """The baseline: a number or a capitalised word of the answer that no passage holds (case-insensitive)."""
    passages = " ".join(row["passages"])
    numbers = {n.replace(",", "") for n in _NUMBER.findall(passages)}
    words = {w.casefold() for w in _WORD.findall(passages)}
    answer = _MARKER.sub(" ", row["answer"])
    if any(n.replace(",", "") not in numbers for n in _NUMBER.findall(answer)):
        return True
    return any(w[0].isupper() and w.casefold() not in words for w in _WORD.findall(answer))


def checker(**options: Any) -> Detector:
    """``check_citations`` with ``options``: flagged when the answer is not verified."""
    return lambda row, evidence: not check_citations(row["answer"], evidence, **options).verified


VARIANTS: dict[str, Detector] = {
    "default": checker(),
    "records": checker(packs=["records"]),
    "literal": checker(meaning=False),
    "previous": checker(support=False),
    "naive": naive,
}
"""``default``: check_citations as shipped; ``records``: with the ``records`` pack (``packs=["records"]``);
``literal``: ``meaning=False``; ``previous``: the rules before claim
support (``support=False``); ``naive``: the baseline rule."""


def evidence_of(row: dict[str, Any]) -> dict[int, Evidence]:
    return {i: Evidence(n=i, tool="retrieve", kind="passage", content=text)
            for i, text in enumerate(row["passages"], 1)}


def scores(flags: list[tuple[bool, bool]]) -> str:
    """Balanced accuracy, precision, recall and F1 of (flagged, hallucinated) pairs."""
    tp = sum(f and h for f, h in flags)
    fp = sum(f and not h for f, h in flags)
    fn = sum(h and not f for f, h in flags)
    tn = sum(not f and not h for f, h in flags)
    tpr = tp / max(1, tp + fn)
    tnr = tn / max(1, tn + fp)
    precision = tp / max(1, tp + fp)
    f1 = 2 * precision * tpr / max(1e-9, precision + tpr)
    return (f"bal.acc {(tpr + tnr) / 2:.3f}  precision {precision:.3f}  recall {tpr:.3f}  F1 {f1:.3f}  "
            f"(flagged {tp + fp}/{len(flags)}; TP {tp} FP {fp} FN {fn} TN {tn})")


def run(rows: list[dict[str, Any]], variants: list[str], show: int) -> None:
    evidence = [evidence_of(row) for row in rows]
    for name in variants:
        detect = VARIANTS[name]
        flags: list[bool] = []
        start = time.perf_counter()
        for row, items in zip(rows, evidence, strict=True):
            flags.append(detect(row, items))
        millis = (time.perf_counter() - start) * 1000 / max(1, len(rows))
        labels = [bool(row["label"]) for row in rows]
        print(f"  {name:<9} {scores(list(zip(flags, labels, strict=True)))}  {millis:.2f} ms/answer")
        types = Counter(t for row in rows for t in row["hallucination_types"])
        clean = [(f, False) for f, row in zip(flags, rows, strict=True) if not row["label"]]
        for kind in sorted(types):
            sub = [(f, True) for f, row in zip(flags, rows, strict=True) if kind in row["hallucination_types"]]
            caught = sum(f for f, _ in sub)
            print(f"      {kind:<22} recall {caught / len(sub):.3f} ({caught}/{len(sub)}); with the clean answers: "
                  f"{scores(sub + clean).split('  (')[0]}")
        if show and name in ("default", "records"):
            shown = 0
            for f, row in zip(flags, rows, strict=True):
                if f != bool(row["label"]) and shown < show:
                    shown += 1
                    print(f"    {'FP' if f else 'FN'} {row['id']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=_DEFAULT_EVAL)
    parser.add_argument("--files", default="summary,data2txt")
    parser.add_argument("--limit", type=int, default=0, help="the first N rows of each file (0: all)")
    parser.add_argument("--half", default="all", choices=["all", "tune", "held-out"])
    parser.add_argument("--variants", default="default,records,literal,previous,naive")
    parser.add_argument("--show", type=int, default=0,
                        help="list this many misclassified row ids (default and records only)")
    args = parser.parse_args()
    variants = args.variants.split(",")
    for name in args.files.split(","):
        rows = [json.loads(line) for line in (args.eval_dir / f"ragtruth_{name}.jsonl").open()]
        if args.limit:
            rows = rows[:args.limit]
        halves = ["tune", "held-out", "all"] if args.half == "all" else [args.half]
        for part in halves:
            subset = rows if part == "all" else [row for row in rows if half(row) == part]
            print(f"== ragtruth_{name} ({part}: {len(subset)} answers, "
                  f"{sum(row['label'] for row in subset)} hallucinated)")
            run(subset, variants, args.show)


if __name__ == "__main__":
    main()
