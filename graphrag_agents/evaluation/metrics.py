"""Evaluation metrics: supporting-paragraph recall@k, all-gold@k, answer EM / token F1, percentiles.

One module for every script that scores retrieval or answers (``graphrag-agents eval``, ``benchmarks/``), so
the numbers they print mean the same thing.

Recall is measured on a *ranked list of paragraph (document) ids*, best first. How a retrieve path's items
become such a list is the caller's choice; :func:`unique` collapses repeats (several chunks of one paragraph)
so that ``k`` counts distinct paragraphs. Answers are compared after the usual SQuAD / HotpotQA normalisation:
lower case, punctuation removed, the articles "a", "an", "the" removed, whitespace collapsed.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import TypeVar

from ..text.sentences import MARKER_RE

__all__ = [
    "all_gold_at_k",
    "answer_in_prediction",
    "exact_match",
    "mean",
    "normalize_answer",
    "percentile",
    "recall_at_k",
    "strip_markers",
    "token_f1",
    "unique",
]

_T = TypeVar("_T")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
# The citation check's own marker rule (with the space before a marker), so every marker it reads is removed.
_MARKER = re.compile(r"\s*(?:" + MARKER_RE.pattern + ")")


def unique(items: Iterable[_T]) -> list[_T]:
    """``items`` with repeats removed, each kept at its first (best) position."""
    return list(dict.fromkeys(items))


def recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Share of the ``gold`` ids found among the first ``k`` of ``ranked`` (1.0 when there is no gold).

    Example:
        >>> recall_at_k(["p3", "p1", "p9"], {"p1", "p2"}, k=2)
        0.5
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not gold:
        return 1.0
    top = set(ranked[:k])
    return sum(1 for g in set(gold) if g in top) / len(set(gold))


def all_gold_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> bool:
    """Whether every ``gold`` id is among the first ``k`` of ``ranked`` (a multi-hop question needs them all)."""
    return recall_at_k(ranked, gold, k) == 1.0


def strip_markers(answer: str) -> str:
    """The answer without its ``[n]`` citation markers, which are not part of the answer's words.

    Example:
        >>> strip_markers("Rush [1, 3] played it [2-4].")
        'Rush played it.'
    """
    return _MARKER.sub("", answer).strip()


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the SQuAD / HotpotQA normalisation).

    Example:
        >>> normalize_answer("The  Eiffel-Tower!")
        'eiffeltower'
    """
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, answers: Iterable[str]) -> float:
    """1.0 when the normalised prediction equals one of the normalised ``answers``, else 0.0."""
    norm = normalize_answer(prediction)
    return float(any(norm == normalize_answer(a) for a in answers))


def answer_in_prediction(prediction: str, answers: Iterable[str]) -> float:
    """1.0 when a normalised answer occurs, as whole words, in the normalised prediction (lenient match for
    agents that answer in a sentence: "The band was Rush." contains "Rush").

    Example:
        >>> answer_in_prediction("The band was Rush.", ["Rush"]), answer_in_prediction("Rushmore", ["Rush"])
        (1.0, 0.0)
    """
    padded = f" {normalize_answer(prediction)} "
    return float(any((norm := normalize_answer(a)) and f" {norm} " in padded for a in answers))


def _f1(prediction: str, answer: str) -> float:
    pred, gold = normalize_answer(prediction), normalize_answer(answer)
    # yes / no / noanswer only count when matched exactly (as in the HotpotQA scorer).
    if (pred in ("yes", "no", "noanswer") or gold in ("yes", "no", "noanswer")) and pred != gold:
        return 0.0
    pred_tokens, gold_tokens = pred.split(), gold.split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, answers: Iterable[str]) -> float:
    """Best token-level F1 of the normalised prediction against any of ``answers``.

    Example:
        >>> round(token_f1("the city of Paris", ["Paris"]), 2)
        0.67
    """
    return max((_f1(prediction, a) for a in answers), default=0.0)


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; 0.0 for no values (an empty group reports 0, not an error)."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q``-quantile (0 < q <= 1) by the nearest-rank method: the smallest value with at least
    ``q`` of the values at or below it. 0.0 for no values.

    Example:
        >>> percentile([10, 20, 30, 40], 0.5), percentile([10, 20, 30, 40], 0.95)
        (20, 40)
    """
    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1], got {q}")
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]
