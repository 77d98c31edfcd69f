"""The meaning rules of a cited sentence: co-occurrence, polarity and opposites, clause by clause (private).

A sentence that passed the literal rules (every figure and name is in its evidence) is cut into clauses at
``;`` and at ``, and`` / ``, but`` / ``, while`` ... (each clause may state its own fact, from its own sentence of the
evidence). For each clause :func:`~._together.find_support` finds the evidence sentence that states its names
and figures together; the polarity and opposite rules then compare the clause with that sentence. For real
answers (``anchored``, the default of ``check_citations``) a clause is compared only when one evidence sentence
holds most of its content (:data:`RESTATES`): a clause that merges several sentences' facts is left to the
support rule, and an instruction or a statement about the evidence is no claim to compare.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._evidence import FUNCTION_WORDS, EvidenceIndex, EvidenceSentence, content_stems
from ._figures import extract_figures
from ._lack import is_lack_statement
from ._names import Name, extract_names
from ._opposites import OPPOSITE_WORDS, ORDINAL_WORDS, opposite_findings
from ._polarity import polarity_finding
from ._prose import is_instruction
from ._text import LETTERS, fold, stem
from ._together import find_support

__all__ = ["RESTATES", "Finding", "meaning_findings", "restates"]

Finding = tuple[str, str]
"""(rule, what was found): rule is ``together``, ``negation`` or ``opposite``."""

_CLAUSE_BREAK = re.compile(
    r";|,\s+(?=(?:and|but|while|whereas|although|though|yet)\s)"
    r"|\s(?=and\s+(?:he|she|it|they|his|her|its|their)\s)",
    re.IGNORECASE,
)


RESTATES = 0.75
"""With ``anchored``, the meaning rules compare a clause with the evidence only when one evidence sentence holds
at least this share of the clause's content stems (its names aside, and the words the polarity and opposite rules
read): a wrong claim that changes a name, a negation or one word of a sentence still restates it."""

_READ_BY_RULES = frozenset(stem(w) for w in OPPOSITE_WORDS | {
    "doesn", "didn", "isn", "wasn", "weren", "aren", "hasn", "haven", "hadn", "couldn", "wouldn", "shouldn",
    "never", "none", "nothing", "nobody", "nowhere", "neither", "cannot"})
_COMMA = re.compile(r",\s+|\s+[—–]\s+|\s*\(|\)\s*")


def _clauses(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _CLAUSE_BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if any(ch.isalnum() for ch in text[a:b])]


def meaning_findings(text: str, names: Sequence[Name], items: Sequence[EvidenceIndex], *,
                     anchored: bool = False) -> list[Finding]:
    """The co-occurrence, polarity and opposite findings of one cited sentence against its evidence.

    A clause that no one sentence supports may still join two facts around commas ("Dune, directed by Denis
    Villeneuve, was produced by Warner Bros"): its comma-separated parts are then checked one by one, and the
    co-occurrence finding stands only if one of them is unsupported too.

    Args:
        text: The claim (NFKC-normalised, markers removed), which passed the literal rules.
        names: Its names, with their offsets in ``text``.
        items: The evidence it cites.
        anchored: Compare a clause only with an evidence sentence it restates (:data:`RESTATES`), and leave
            instructions alone: the rules for real prose, which joins several sentences' facts in one clause.
    """
    out: list[Finding] = []
    held = frozenset().union(*(item.figures for item in items))
    for start, end in _clauses(text):
        findings = _part(text, start, end, names, items, held, anchored)
        if findings and findings[0][0] == "together":
            parts = [(a, b) for a, b in _commas(text, start, end)]
            if len(parts) > 1:
                split = [f for a, b in parts for f in _part(text, a, b, names, items, held, anchored)]
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


def restates(stems: frozenset[str], items: Sequence[EvidenceIndex]) -> tuple[float, EvidenceSentence | None]:
    """The largest share of ``stems`` that one evidence sentence of ``items`` holds (1.0 for no stems), and that
    sentence; a sentence holds the names its pronoun stands for ("It won" holds "Dune")."""
    best: EvidenceSentence | None = None
    held = -1
    for item in items:
        for sentence in item.sentences:
            shared = len(stems & (sentence.stems | sentence.context))
            if shared > held:
                best, held = sentence, shared
    return (1.0 if not stems else max(0, held) / len(stems)), best


def _part(text: str, start: int, end: int, names: Sequence[Name], items: Sequence[EvidenceIndex],
          held_figures: frozenset[str], anchored: bool = False) -> list[Finding]:
    """The findings of one clause (or comma-separated part of one) ``text[start:end]``."""
    clause = text[start:end]
    if anchored and (is_instruction(clause) or is_lack_statement(clause)):
        return []
    own = [n for n in names if start <= n.start < end]
    figures = [f for f in extract_figures(clause) if f in held_figures]
    name_words = frozenset(w for n in own for w in n.words)
    words = [fold(w) for w in LETTERS.findall(clause)]
    stems = content_stems(clause, skip=name_words)
    terms = frozenset(words) | stems
    support = find_support(own, figures, terms, stems, items)
    # the words the polarity and opposite rules read are the ones a wrong claim changes: not counted
    share, restated = restates(stems - _READ_BY_RULES, items) if anchored else (1.0, None)
    if share < RESTATES:
        return []  # the clause joins facts of several sentences: no one sentence to compare it with
    if support.finding is not None:
        claimed = frozenset(w for n in names for w in n.words)
        subject = own[0].words if own else ()
        if (restated is not None and not restated.name_words - claimed
                and all(w in restated.words or w in restated.context for w in subject)):
            return []  # it restates a sentence, its subject and every name kept, adding one from elsewhere
        if anchored and restated is not None and not _substituted(text, own, restated):
            return []  # a synthesis: it drops some of the sentence's names and adds others, none in its place
        return [("together", support.finding)]
    sentence = support.sentence
    if sentence is None:
        return []
    out: list[Finding] = []
    negated = sentence.negated or (anchored and _negated_nearby(stems, items))
    polarity = polarity_finding(clause, terms, sentence, negated, scoped=anchored)
    if polarity is not None:
        out.append(("negation", polarity))
    out += [("opposite", f) for f in opposite_findings(words, sentence.words)]
    return out


def _substituted(text: str, names: Sequence[Name], restated: EvidenceSentence) -> bool:
    """Whether a name of the claim stands where the restated sentence has a name the claim lacks: the word
    before it or after it is the same ("directed by Denis Villeneuve" for "directed by Ridley Scott"). A summary
    that merges sentences drops names and adds others, but not in one another's place."""
    claimed = frozenset(w for n in names for w in n.words)
    added = [n for n in names if n.words and not all(w in restated.words for w in n.words)]
    if not added:
        return True  # no name of its own to have moved in: keep the finding
    dropped = [n for n in extract_names(restated.text, lone_first=True) if n.words and not set(n.words) & claimed]
    if not dropped:
        return True  # a name added to a sentence with all its names kept: the subject test above decides
    held = {_neighbours(restated.text, n) for n in dropped}
    before = {b for b, _ in held if b}
    after = {a for _, a in held if a}
    return any(b in before or a in after for b, a in (_neighbours(text, n) for n in added))


def _neighbours(text: str, name: Name) -> tuple[str, str]:
    """The folded words right before and right after a name in ``text`` ("" at an edge)."""
    before = LETTERS.findall(text[max(0, name.start - 40):name.start])
    after = LETTERS.findall(text[name.start + len(name.text):name.start + len(name.text) + 40])
    return (fold(before[-1]) if before else "", fold(after[0]) if after else "")


def _negated_nearby(stems: frozenset[str], items: Sequence[EvidenceIndex]) -> bool:
    """Whether an evidence sentence sharing two content stems with the clause is negated: real prose moves a
    negation between sentences ("was not in any danger" for "was never in danger" two sentences on)."""
    return any(sentence.negated and len(stems & sentence.stems) >= 2 for item in items for sentence in item.sentences)
