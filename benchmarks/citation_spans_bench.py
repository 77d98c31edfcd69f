"""The evidence spans behind ``check_citations``'s verdicts (``CitationCheck.claims``), on correct drafts: does every
verified sentence carry a span, and does each span hold the sentence's words?

    python benchmarks/citation_spans_bench.py [--seed 0] [--eval-dir ../shared/eval] [--show N]

Tuned on: the correct drafts of the labelled sets of ``citations_bench.py`` (HotpotQA and 2WikiMultihopQA: a
supporting sentence citing its paragraph, in Markdown, in pairs, merged with ";", the short answer, the meaning
rules' controls). Reported on, held out: the controls of the techdocs_a perturbation sets of
``citation_perturbations.py`` (npm's docs; a sentence or a list line as written, contractions changed, a clause
moved), each cited [1] against its whole section.

For each verified sentence: whether it has at least one span; for each span, whether it holds at least half of the
sentence's content words. The words are this script's own reading, not the checker's: lowercase tokens of 3+
letters and numbers, less a short stop list, a word held when the span has it, or shares its first five letters
with a word of the span (``founded`` / ``founder``). Unsupported sentences (the flagged drafts of the same sets):
the share with a closest sentence and with a non-empty ``missing``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import unicodedata
from collections import Counter
from pathlib import Path

from citation_perturbations import _OUT as PERTURBATIONS
from citation_perturbations import _SWAPS_OUT as SWAPS
from citation_sets import Draft
from citations_bench import _DEFAULT_EVAL, _drafts, _load

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, check_citations

_TOKEN = re.compile(r"[^\W_]+")
_MARKER = re.compile(r"\[[\d,;\s\-–]+\]")
_STOP = frozenset("""
the and for are was were has had have with from that this these those its his her their they them which who whom
whose what when where how than then also not but any all can may will would could should into onto upon about
after before during over under between among one two its our your you she him been being such other some more
most very only just use used using via per each both either neither nor yet too own same here there answer
according passages evidence based notably short
""".split())


def content_words(text: str) -> list[str]:
    """The bench's content words of ``text``: lowercase tokens of 3+ characters, numbers without separators."""
    words = [w.casefold() for w in _TOKEN.findall(text.replace(",", ""))]
    return list(dict.fromkeys(w for w in words if (len(w) >= 3 or w.isdigit()) and w not in _STOP))


def holds(span: str, words: list[str]) -> float:
    """The share of ``words`` the span holds (a word, or its first five letters for words of five or more)."""
    if not words:
        return 1.0
    have = set(content_words(span)) | set(_TOKEN.findall(span.casefold()))
    prefixes = {w[:5] for w in have if len(w) >= 5}
    found = sum(1 for w in words if w in have or (len(w) >= 5 and w[:5] in prefixes))
    return found / len(words)


class Tally:
    """Span figures over one set of checks."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.misses: list[str] = []

    def add(self, check: CitationCheck, evidence: dict[int, Evidence], show: int) -> None:
        for claim in check.claims:
            if claim.verdict == "unsupported":
                self.counts["unsupported"] += 1
                self.counts["with closest"] += claim.closest is not None
                self.counts["with missing"] += bool(claim.missing)
                continue
            if claim.verdict != "verified":
                continue
            words = content_words(_MARKER.sub(" ", unicodedata.normalize("NFKC", claim.text)))
            self.counts["verified"] += 1
            self.counts["with a span"] += bool(claim.support)
            self.counts["one span"] += len(claim.support) == 1
            for span in claim.support:
                text = evidence[span.n].content[span.start:span.end]
                share = holds(text, words)
                self.counts["spans"] += 1
                self.counts["spans holding half"] += share >= 0.5
                if share < 0.5 and len(self.misses) < show:
                    self.misses.append(f"  {share:.2f} {claim.text[:150]}\n       span: {text[:150]}")
            if not claim.support and len(self.misses) < show:
                self.misses.append(f"  no span: {claim.text[:150]}")

    def report(self, label: str) -> None:
        c = self.counts
        print(f"== {label}")
        print(f"   verified sentences {c['verified']}: with at least one span {c['with a span']} "
              f"({c['with a span'] / max(1, c['verified']):.3f}); one span {c['one span'] / max(1, c['verified']):.3f}"
              f"; spans {c['spans']} ({c['spans'] / max(1, c['verified']):.2f} per sentence)")
        print(f"   spans holding at least half of the sentence's content words: {c['spans holding half']}/{c['spans']} "
              f"({c['spans holding half'] / max(1, c['spans']):.3f})")
        print(f"   unsupported sentences {c['unsupported']}: with a closest sentence "
              f"{c['with closest'] / max(1, c['unsupported']):.3f}, with missing words or values "
              f"{c['with missing'] / max(1, c['unsupported']):.3f}")
        for miss in self.misses:
            print(miss)


def labelled(eval_dir: Path, seed: int, show: int) -> None:
    for name in ("hotpotqa", "2wikimultihopqa"):
        questions, corpus = _load(eval_dir, name, seed)
        drafts: list[Draft] = [d for q in questions for d in _drafts(q, corpus, random.Random(f"{seed}:{q['id']}"))]
        correct, flagged = Tally(), Tally()
        for draft in drafts:
            target = correct if all(label.flag is False for label in draft.sentences) else flagged
            check = check_citations(draft.answer, draft.evidence)
            target.add(check, draft.evidence, show if target is correct else 0)
        correct.report(f"{name}: correct drafts ({sum(1 for d in drafts if all(s.flag is False for s in d.sentences))}"
                       " drafts; tuning set)")
        print(f"   (flagged drafts) unsupported sentences {flagged.counts['unsupported']}: with a closest sentence "
              f"{flagged.counts['with closest'] / max(1, flagged.counts['unsupported']):.3f}, with missing "
              f"{flagged.counts['with missing'] / max(1, flagged.counts['unsupported']):.3f}")


def held_out(show: int) -> None:
    for path in (PERTURBATIONS, SWAPS):
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        sections = {row["section"]: row["text"] for row in rows if "text" in row}
        controls, errors = Tally(), Tally()
        for row in (r for r in rows if "claim" in r):
            evidence = {1: Evidence(n=1, tool="retrieve", kind="passage", content=sections[row["section"]])}
            claim = row["claim"]
            answer = claim[:-1] + " [1]." if claim.endswith(".") else claim + " [1]"
            target = errors if row["flag"] else controls
            target.add(check_citations(answer, evidence), evidence, 0 if row["flag"] else show)
        controls.report(f"{path.name}: controls (held out)")
        print(f"   (perturbed drafts) unsupported sentences {errors.counts['unsupported']}: with a closest sentence "
              f"{errors.counts['with closest'] / max(1, errors.counts['unsupported']):.3f}, with missing "
              f"{errors.counts['with missing'] / max(1, errors.counts['unsupported']):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-dir", type=Path, default=_DEFAULT_EVAL)
    parser.add_argument("--show", type=int, default=0, help="print this many spans under half, per set")
    parser.add_argument("--held-out-only", action="store_true")
    args = parser.parse_args()
    if not args.held_out_only:
        labelled(args.eval_dir, args.seed, args.show)
    held_out(args.show)


if __name__ == "__main__":
    main()
