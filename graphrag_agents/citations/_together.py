"""Co-occurrence: the names and figures of one claim must be stated together in one sentence of the evidence (private).

Finding every name somewhere in the cited text is not enough: "The screenplay was written by Warner Bros [16]."
passes the literal rules when [16] names Warner Bros as the producer in another sentence. This module finds the
evidence sentence that supports a claim clause (it holds all the clause's names and figures, crediting a
sentence's pronoun or definite description with the names it refers to) and reports a clause that no sentence
supports: two names never stated together, or a name stated apart from the words the claim says about it.
With several cited items, each may state its own part of the clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..text.names import Name
from ._evidence import EvidenceIndex, EvidenceSentence

__all__ = ["Support", "find_support"]

# A name is reported as stated apart from the claim's words when at least this many of the claim's content
# words that the evidence holds are missing from every sentence stating the name, and they are the majority.
_MIN_DISPLACED = 2


@dataclass(frozen=True)
class Support:
    """The evidence sentence that supports one claim clause, or why none does."""

    sentence: EvidenceSentence | None
    """The supporting sentence; None when the clause has no sentence to compare with."""
    finding: str | None = None
    """Why no sentence supports the clause (a co-occurrence finding), or None."""


def _holds(sentence: EvidenceSentence, names: Sequence[Name], figures: Sequence[str]) -> int:
    """How many of the names and figures ``sentence`` states."""
    held = sum(all(w in sentence.words or w in sentence.context for w in name.words)
               # a pronoun stands for the person, however the claim names them ("Jimmy Fallon" for "James
               # Thomas Fallon"): the surname is enough
               or (len(name.words) > 1 and name.words[-1] in sentence.context) for name in names)
    return held + sum(f in sentence.figures for f in figures)


def find_support(names: Sequence[Name], figures: Sequence[str], terms: frozenset[str], stems: frozenset[str],
                 items: Sequence[EvidenceIndex]) -> Support:
    """The sentence of ``items`` that supports a claim clause, or the co-occurrence finding.

    Args:
        names: The clause's names (each word already found in the cited text by the literal rule).
        figures: The clause's figures that the cited text holds as numbers.
        terms: The clause's folded words and content stems, to rank sentences.
        stems: The clause's content stems outside its names.
        items: The cited evidence.
    """
    anchors = len(names) + len(figures)
    best: EvidenceSentence | None = None
    best_key = (-1, -1, -1)
    per_item_best: list[int] = []
    for item in items:
        item_best = 0
        for sentence in item.sentences:
            held = _holds(sentence, names, figures)
            item_best = max(item_best, held)
            key = (held, len(stems & sentence.stems), len(terms & (sentence.words | sentence.stems)))
            if key > best_key:
                best, best_key = sentence, key
        per_item_best.append(item_best)
    if best is None:
        return Support(None)
    if anchors == 0:
        return Support(best if best_key[2] >= 2 else None)
    if best_key[0] < anchors:
        split_name = anchors == 1 and len(names) == 1 and len(names[0].words) > 1
        if (anchors < 2 and not split_name) or (len(items) > 1 and sum(per_item_best) >= anchors):
            return Support(None)  # the literal rule found them; no one sentence to compare with
        together = ", ".join([*(n.text for n in names), *figures])
        return Support(None, f"names not stated together in one sentence of the evidence: {together}")
    said = stems & frozenset().union(*(item.stems for item in items))
    displaced = sorted(said - best.stems)
    if names and len(displaced) >= _MIN_DISPLACED and 2 * len(displaced) > len(said):
        words = ", ".join(f'"{w}"' for w in displaced[:4])
        apart = ", ".join(n.text for n in names)
        return Support(None, f"names not stated together: {apart} is stated apart from {words} in the evidence")
    return Support(best)
