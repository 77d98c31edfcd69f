"""The meaning rules of a cited sentence: co-occurrence, polarity and opposites, clause by clause (private).

A sentence that passed the literal rules (every figure and name is in its evidence) is cut into clauses at
``;`` and at ``, and`` / ``, but`` / ``, while`` ... (each clause may state its own fact, from its own sentence of the
evidence). For each clause :func:`~._together.find_support` finds the evidence sentence that states its names
and figures together; the polarity and opposite rules then compare the clause with that sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._evidence import FUNCTION_WORDS, EvidenceIndex, content_stems
from ._figures import extract_figures
from ._names import Name
from ._opposites import ORDINAL_WORDS, opposite_findings
from ._polarity import polarity_finding
from ._text import LETTERS, fold
from ._together import find_support

__all__ = ["Finding", "meaning_findings"]

Finding = tuple[str, str]
"""(rule, what was found): rule is ``together``, ``negation`` or ``opposite``."""

_CLAUSE_BREAK = re.compile(
    r";|,\s+(?=(?:and|but|while|whereas|although|though|yet)\s)"
    r"|\s(?=and\s+(?:he|she|it|they|his|her|its|their)\s)",
    re.IGNORECASE,
)


_COMMA = re.compile(r",\s+|\s+[—–]\s+|\s*\(|\)\s*")


def _clauses(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _CLAUSE_BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if any(ch.isalnum() for ch in text[a:b])]


def meaning_findings(text: str, names: Sequence[Name], items: Sequence[EvidenceIndex]) -> list[Finding]:
    """The co-occurrence, polarity and opposite findings of one cited sentence against its evidence.

    A clause that no one sentence supports may still join two facts around commas ("Dune, directed by Denis
    Villeneuve, was produced by Warner Bros"): its comma-separated parts are then checked one by one, and the
    co-occurrence finding stands only if one of them is unsupported too.

    Args:
        text: The claim (NFKC-normalised, markers removed), which passed the literal rules.
        names: Its names, with their offsets in ``text``.
        items: The evidence it cites.
    """
    out: list[Finding] = []
    held = frozenset().union(*(item.figures for item in items))
    for start, end in _clauses(text):
        findings = _part(text, start, end, names, items, held)
        if findings and findings[0][0] == "together":
            parts = [(a, b) for a, b in _commas(text, start, end)]
            if len(parts) > 1:
                split = [f for a, b in parts for f in _part(text, a, b, names, items, held)]
                if not any(rule == "together" for rule, _ in split):
                    findings = split
        out += findings
    return out


def _commas(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated parts of a clause; a part that says nothing but names or figures ("Atlanta, Georgia")
    stays with the part before it, or the one after when it comes first."""
    spans: list[tuple[int, int]] = []
    for m in _COMMA.finditer(text, start, end):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, end))
    merged: list[tuple[int, int]] = []
    pending: int | None = None
    for a, b in spans:
        if not any(ch.isalnum() for ch in text[a:b]):
            continue
        if pending is not None:
            a, pending = pending, None
        if not _says_something(text[a:b]):
            if merged:
                merged[-1] = (merged[-1][0], b)
            else:
                pending = a
            continue
        merged.append((a, b))
    if pending is not None:
        merged = [(pending, merged[0][1]), *merged[1:]] if merged else [(pending, end)]
    return merged


def _says_something(part: str) -> bool:
    """Whether a part has a word of its own besides names and figures ("the second son of X" has, "Georgia" not)."""
    return any(len(w) >= 3 and w[0].islower() and (w in ORDINAL_WORDS or w not in FUNCTION_WORDS)
               for w in LETTERS.findall(part))


def _part(text: str, start: int, end: int, names: Sequence[Name], items: Sequence[EvidenceIndex],
          held_figures: frozenset[str]) -> list[Finding]:
    """The findings of one clause (or comma-separated part of one) ``text[start:end]``."""
    clause = text[start:end]
    own = [n for n in names if start <= n.start < end]
    figures = [f for f in extract_figures(clause) if f in held_figures]
    name_words = frozenset(w for n in own for w in n.words)
    words = [fold(w) for w in LETTERS.findall(clause)]
    stems = content_stems(clause, skip=name_words)
    terms = frozenset(words) | stems
    support = find_support(own, figures, terms, stems, items)
    if support.finding is not None:
        return [("together", support.finding)]
    sentence = support.sentence
    if sentence is None:
        return []
    out: list[Finding] = []
    polarity = polarity_finding(clause, terms, sentence, sentence.negated)
    if polarity is not None:
        out.append(("negation", polarity))
    out += [("opposite", f) for f in opposite_findings(words, sentence.words)]
    return out
