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

from ..text.names import Name
from ..text.words import LETTERS, fold, stem
from ._evidence import FUNCTION_WORDS, EvidenceIndex, EvidenceSentence, content_stems
from ._figures import extract_figures
from ._lack import is_lack_statement
from ._opposites import OPPOSITE_WORDS, ORDINAL_WORDS, opposite_findings
from ._polarity import is_negated, polarity_finding
from ._prose import is_instruction
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
KEPT = 0.6
"""With ``anchored``, a clause whose names are not stated together is a moved name only when the sentence keeps at
least this share of its words as the start and end of one evidence sentence; else it merges sentences' facts."""
SHORT_CLAUSE = 12
"""With ``anchored``, a clause of more words than this that adds a name to the sentence it restates, keeping no
start and end of that sentence, joins several sentences' facts (a summary's synthesis); a shorter one that does
so ("Judd Winick produced the film with Warner Bros" for "The film was produced by Warner Bros") moves a name."""
_TOKEN = re.compile(r"\w+")
_SKIPS = [(a, b) for a in range(6) for b in range(3)]
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
                # a synthesis is told from a moved name on the whole clause; the parts are read for their facts
                split = [f for a, b in parts
                         for f in _part(text, a, b, names, items, held, anchored, synthesis=False)]
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
          held_figures: frozenset[str], anchored: bool = False, synthesis: bool = True) -> list[Finding]:
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
        kept = _kept_apart(text, items, restated, names, own, words, synthesis and anchored)
        return [("together", support.finding)] if kept else []
    if support.sentence is None:
        return []
    said = frozenset(fold(w) for w in LETTERS.findall(text))
    return _meaning_findings(clause, words, terms, stems, support.sentence, items, anchored, said)


def _kept_apart(text: str, items: Sequence[EvidenceIndex], restated: EvidenceSentence | None,
                names: Sequence[Name], own: Sequence[Name], words: Sequence[str], synthesis: bool) -> bool:
    """Whether a clause whose names no one sentence holds together moved a name (a finding): not when it restates a
    sentence, its subject and every name kept, adding one from elsewhere; nor, with ``synthesis``, when it joins
    names of several sentences and keeps no one sentence's frame."""
    claimed = frozenset(w for n in names for w in n.words)
    subject = own[0].words if own else ()
    if (restated is not None and not restated.name_words - claimed
            and all(w in restated.words or w in restated.context for w in subject)):
        return False
    dropped = restated is not None and bool(restated.name_words - claimed)
    return not (synthesis and (dropped or len(words) > SHORT_CLAUSE) and not _substituted(text, items))


def _meaning_findings(clause: str, words: Sequence[str], terms: frozenset[str], stems: frozenset[str],
                      sentence: EvidenceSentence, items: Sequence[EvidenceIndex], anchored: bool,
                      said: frozenset[str] = frozenset()) -> list[Finding]:
    """The polarity and opposite-word findings of a clause against its supporting sentence."""
    out: list[Finding] = []
    negated = sentence.negated or (anchored and _negated_nearby(stems, items))
    polarity = polarity_finding(clause, terms, sentence, negated, scoped=anchored)
    if polarity is not None:
        out.append(("negation", polarity))
    # "unable" says "not able": a negation on either side lets a negating prefix say the same
    out += [("opposite", f) for f in opposite_findings(list(words), sentence.words, said=said,
                                                       negated=sentence.negated or is_negated(clause))]
    return out


def _substituted(text: str, items: Sequence[EvidenceIndex]) -> bool:
    """Whether the claim is an evidence sentence with a name put in place of another: it keeps a long common
    start and end with one sentence (:data:`KEPT` of its words) around what it changed ("Simone Bolelli (born 8
    October 1985) ..." with "October" replaced). A summary that merges sentences shares no such frame with any
    one of them, so its names are not moved. Either may open with a few words of its own."""
    words = _TOKEN.findall(fold(text))
    for item in items:
        for sentence in item.sentences:
            other = _TOKEN.findall(fold(sentence.text))
            # either may open with words of its own ("According to the passages, ...", "He" for "Lewis")
            for skip, other_skip in _SKIPS:
                claim, other_part = words[skip:], other[other_skip:]
                if (skip or other_skip) and claim[:1] != other_part[:1]:
                    continue
                limit = min(len(claim), len(other_part))
                head = 0
                while head < limit and claim[head] == other_part[head]:
                    head += 1
                tail = 0
                while tail < limit - head and claim[-1 - tail] == other_part[-1 - tail]:
                    tail += 1
                if head + tail < len(claim) and head + tail >= KEPT * len(claim):
                    return True
    return False


def _negated_nearby(stems: frozenset[str], items: Sequence[EvidenceIndex]) -> bool:
    """Whether an evidence sentence sharing two content stems with the clause is negated: real prose moves a
    negation between sentences ("was not in any danger" for "was never in danger" two sentences on)."""
    return any(sentence.negated and len(stems & sentence.stems) >= 2 for item in items for sentence in item.sentences)
