"""Polarity: a claim negated where its evidence sentence is not, or the reverse (private).

"The screenplay was not written by Judd Winick [16]." cites a sentence saying it was: every name is there, but
the claim denies it. The rule compares negation cues (not, n't, never, no, none, neither, nor, nobody, nothing,
nowhere, cannot): a negated claim clause whose supporting evidence sentence has no cue is reported, and so is a
claim clause without one whose best-matching evidence clause has one ("Alice worked at Acme" where the evidence
says "Alice never worked at Acme"). "not only", "No." and "no longer" ... are read as the words they are.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._evidence import EvidenceSentence

__all__ = ["is_negated", "negation_at", "negation_cue", "negation_scope", "polarity_finding"]

_CUE = re.compile(
    r"\b(?:not(?!\s+only\b)|never|none|neither|nor|nobody|nothing|nowhere|cannot)\b|\b\w*n['’]t\b"
    r"|\bno\b(?![.\-]|\s*\d)",
    re.IGNORECASE,
)


_SCOPE_END = re.compile(r"\b(?:and|as|but|while|which|who|because|so|until|when|since|though|although)\b",
                        re.IGNORECASE)
_SCOPE_WORD = re.compile(r"[^\W\d_]{3,}")


def negation_cue(text: str) -> str | None:
    """The first negation cue of ``text`` ("not", "never", "n't", ...), or None."""
    m = _CUE.search(text)
    return None if m is None else m.group().lower()


def negation_at(text: str) -> int | None:
    """The offset of the first negation cue of ``text``, or None."""
    m = _CUE.search(text)
    return None if m is None else m.start()


def negation_scope(text: str) -> frozenset[str]:
    """The folded words of 3+ letters that the first negation cue of ``text`` covers: those after it, up to the
    next "and", "as", "but", "while", "which", "because", "so", "until" or "when" (at most eight)."""
    m = _CUE.search(text)
    if m is None:
        return frozenset()
    rest = _SCOPE_END.split(text[m.end():], maxsplit=1)[0]
    return frozenset(w.casefold() for w in _SCOPE_WORD.findall(rest)[:8])


def is_negated(text: str) -> bool:
    """Whether ``text`` holds a negation cue."""
    return _CUE.search(text) is not None


def polarity_finding(clause: str, terms: frozenset[str], sentence: EvidenceSentence, unit_negated: bool,
                     scoped: bool = False) -> str | None:
    """What is wrong with the polarity of one claim clause against its supporting evidence sentence, or None.

    Args:
        clause: The claim clause (NFKC-normalised, no markers).
        terms: Its folded words and content stems, to find the evidence clauses it restates.
        sentence: The evidence sentence that supports it.
        unit_negated: Whether any sentence the support was read from holds a negation cue.
        scoped: A negation the claim drops must be of what it restates: the claim shares two of the words the
            evidence's cue covers (one when it covers one), not only words of the clause around it ("Prosecutors
            aren't swayed and will seek the death penalty" is no negated seeking).
    """
    cue = negation_cue(clause)
    if cue is not None:
        return None if unit_negated else f'negation not in evidence: the claim says "{cue}", the evidence does not'
    for i, (about, evidence_cue) in enumerate(sentence.clauses):
        shared = len(about & terms)
        # the claim restates the evidence's negated clause (most of what it is about) without the negation
        if evidence_cue is not None and shared >= 2 and 2 * shared >= len(about):
            if scoped and i < len(sentence.scopes):
                covered = sentence.scopes[i]
                if not covered or len(covered & _folded(clause)) < min(2, len(covered)):
                    continue
            return f'negation missing: the evidence says "{evidence_cue}", the claim does not'
    return None


def _folded(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _SCOPE_WORD.findall(text))
