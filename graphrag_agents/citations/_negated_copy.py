"""A negation put into, or taken out of, a sentence the claim repeats word for word (private).

The clause-scoped negation rule (:mod:`._negation`) compares a claim clause with the evidence clause holding most
of its words, and stays silent where the passage negates those words elsewhere ("not being a fan" beside "wasn't a
huge fan"): real answers move a negation between sentences. A claim that is one cited sentence word for word but
for its negation says the opposite of that sentence, whatever else the passage negates: "npm will not ignore
workspaces" for "npm will ignore workspaces", or a second negation added to a sentence that has one already ("is
not to use tags that do not begin with" for "is to use tags that do not begin with").

Both sides are read as English marks negation: the cues "not", "never", "n't" and "cannot" are counted and taken
out, a contraction gives back its auxiliary ("won't" is "will not", "isn't" is "is not"), do-support is dropped
("does not allow" reads as "allow", as "allows" does), and the words left are compared by the support rule's
lemma keys (:func:`._lemmas.word_key`: "allow" meets "allows"). Same words and another count of cues is a finding;
the same count ("doesn't" for "does not") or any other change of wording is none.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._evidence import EvidenceIndex
from ._lemmas import word_key
from ._polarity import is_negated
from ._tokens import repeated_sentences, tokens

__all__ = ["ENABLED", "negated_copy_finding"]

ENABLED = True
"""The rule's switch (the perturbation benchmark scores the check with it off, in the same run)."""

_CUES = frozenset({"not", "never"})
_CONTRACTED = {"won't": "will", "can't": "can", "cannot": "can", "shan't": "shall", "ain't": "be"}
"""Negated forms whose auxiliary is not the word before "n't"."""
_DO = frozenset({"do", "does", "did"})
"""Do-support: "does not allow" says "allow" negated, as "allows" says it plainly."""


def _read(text: str) -> tuple[tuple[str, ...], int, str]:
    """(the lemma keys of ``text``'s words without negation and do-support, its count of cues, its first cue)."""
    keys: list[str] = []
    cues, first = 0, ""
    for key, _ in tokens(text):
        key = key.replace("’", "'")
        if key in _CUES or key in _CONTRACTED or key.endswith("n't"):
            cues += 1
            first = first or key
            if key in _CUES:
                continue
            key = _CONTRACTED.get(key, key[:-3])
        if key not in _DO:
            keys.append(word_key(key) if not key.startswith("`") else key)
    return tuple(keys), cues, first


def negated_copy_finding(raw: str, items: Sequence[EvidenceIndex]) -> str | None:
    """The finding for a claim that is a cited sentence with a negation added or taken out, or None.

    Args:
        raw: The claim with its code spans (NFKC-normalised, markers removed).
        items: The cited evidence.
    """
    if not ENABLED:
        return None
    negated = is_negated(raw)
    claim: tuple[tuple[str, ...], int, str] | None = None
    for item, start, end, sentence in repeated_sentences(raw, items):
        if not (negated or sentence.negated):  # neither side negated: nothing to read
            continue
        claim = claim or _read(raw)
        keys, cues, cue = _read(item.text[start:end])
        if keys != claim[0] or cues == claim[1]:
            continue
        if claim[1] > cues:
            return f'negation not in evidence: the claim says "{claim[2]}" where the evidence sentence, ' \
                   "otherwise the same, does not"
        return f'negation missing: the evidence says "{cue}", the claim, otherwise the same, does not'
    return None
