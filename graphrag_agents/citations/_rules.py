"""The claim rules as an ordered list: what one cited sentence's evidence does not support (private).

Each rule reads a :class:`ClaimReading` (the sentence, its cited evidence, the options, and what earlier rules
found: its names, the words they checked) and returns a finding (:class:`Lacking`, which ends the check of the
sentence), :data:`SUPPORTED` (the sentence needs no further rule), or None (the next rule reads it). The order is
the rule book's: prose that is no claim, the literal rules (figures and names), the sentence rules (together,
negation, opposite), a negation added to or taken out of a sentence the claim repeats, an opposite put in a word's
place of a sentence the claim repeats (WordNet's antonyms, the affixes), relation direction, values bound to their
subject, a name moved in a sentence the claim repeats, records, counts in words, claim support.
A pack (:mod:`._packs`) adds its rules at named places of this list, so the default path runs only the general
rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..text.names import Name, extract_names
from ._antonyms import antonym_finding
from ._bound import bound_value_finding
from ._direction import direction_finding
from ._evidence import EvidenceIndex
from ._figures import missing_figures
from ._lack import is_lack_statement
from ._literal import common_opening, defined_acronym_spans, known_names, name_found
from ._meaning import meaning_findings
from ._moved import moved_name_finding
from ._negated_copy import negated_copy_finding
from ._negation import negation_clause_finding
from ._number_words import missing_count_words
from ._prose import blank_evidence_references, is_about_answer, is_title, strip_list_marker, to_24_hours
from ._record_values import record_value_finding
from ._support import unsupported_words
from ._tokens import repeated_sentences
from .result import ClaimConflict

__all__ = ["SUPPORTED", "ClaimReading", "Lacking", "Outcome", "Rule", "Slot", "claim_rules", "run_rules"]


@dataclass
class Lacking:
    """What a cited sentence's evidence does not support."""

    figures: list[str] = field(default_factory=list)
    """Its figures the evidence lacks."""
    names: list[str] = field(default_factory=list)
    """Its names the evidence lacks."""
    conflicts: list[ClaimConflict] = field(default_factory=list)
    """The meaning rules' findings (or the judge's)."""
    words: list[str] = field(default_factory=list)
    """Its content words no cited sentence says (the support rule)."""


class _Supported:
    """The verdict that ends a sentence's check with no finding."""


SUPPORTED = _Supported()
"""A rule's answer when the sentence needs no further rule (a title, a lack statement, ``support=False``)."""

Outcome = Lacking | _Supported | None
Slot = Literal["literal", "record", "support"]
"""Where a pack's rules go: after the literal rules, after the general record rule, before claim support."""


@dataclass
class ClaimReading:
    """One cited sentence as the rules read it."""

    text: str
    """The sentence without markers (list marker and references blanked by the first rule)."""
    evid: list[EvidenceIndex]
    """The indexes of the evidence it cites."""
    meaning: bool
    """Whether the meaning rules run (and the sentence is short enough for them)."""
    support: bool
    """The rules for real answers (``support=True``)."""
    raw: str = ""
    """The sentence with its code spans and quotes (markers removed): what the subject-bound values rule reads."""
    owned: Callable[[EvidenceIndex], bool] = lambda _: False
    """Records a pack reads with its own record rules: the general record rule leaves them alone."""
    figures_text: Callable[[str, Sequence[EvidenceIndex]], str] | None = None
    """A pack's reading of the sentence for the figure rule (a star rating's scale blanked)."""
    names: list[Name] = field(default_factory=list)
    """Its names, as the literal rules read them (then only those the sentence rules look for)."""
    checked_words: frozenset[str] = frozenset()
    """Folded words the literal rules checked (its names'): the support rule skips them."""


Rule = Callable[[ClaimReading], Outcome]


def run_rules(reading: ClaimReading, rules: Sequence[Rule]) -> Lacking | None:
    """The first finding of ``rules`` in order, or None when the sentence is supported."""
    for rule in rules:
        outcome = rule(reading)
        if isinstance(outcome, Lacking):
            return outcome
        if outcome is SUPPORTED:
            return None
    return None


def prose(reading: ClaimReading) -> Outcome:
    """A line introducing the answer or a title is no claim; a list marker and "passage 2" are no figures. A line
    holding code is no title: without its code it may read as one ("Default: Windows: , Posix:")."""
    if not reading.support:
        return None
    if is_about_answer(reading.text) or (is_title(reading.text) and "`" not in reading.raw):
        return SUPPORTED
    reading.text = blank_evidence_references(strip_list_marker(reading.text))
    return None


def literal(reading: ClaimReading) -> Outcome:
    """Figures and names the cited evidence lacks (:mod:`._figures`, :mod:`._names`, :mod:`._literal`)."""
    claims, evid, support = reading.text, reading.evid, reading.support
    names = extract_names(claims)
    if support:
        names = known_names(claims, names, evid)
    read = to_24_hours(claims) if support else claims
    if support and reading.figures_text is not None:
        read = reading.figures_text(read, evid)
    figures_missing = missing_figures(read, [e.figures for e in evid], [e.runs for e in evid])
    defined = defined_acronym_spans(claims, evid) if support else []
    names_missing = list(dict.fromkeys(nm.text for nm in names if not name_found(nm, evid, support)
                                       and not any(a <= nm.start < b for a, b in defined)))
    if support and not figures_missing and len(names_missing) == 1 and common_opening(claims, names_missing[0]):
        names, names_missing = [n for n in names if n.text != names_missing[0]], []
    reading.names = names
    if figures_missing or names_missing:
        return Lacking(figures=figures_missing, names=names_missing)
    return None


def meaning_gate(reading: ClaimReading) -> Outcome:
    """The meaning rules read only a short sentence that says no lack; they look for names word by word. A
    sentence that words a lack ("search does not allow ...") but repeats a sentence of its cited evidence is a
    claim about what that sentence says, not a report on the evidence, and is read like any other."""
    if not reading.meaning or (is_lack_statement(reading.text) and
                               next(repeated_sentences(reading.raw or reading.text, reading.evid), None) is None):
        return SUPPORTED
    # the support rule skips every name's words: the literal rule found each name (as an alias too)
    reading.checked_words = frozenset(w for n in reading.names for w in n.words)
    if reading.support:
        # a name found as an acronym or a plural is checked; the sentence rules look for names word by word
        reading.names = [n for n in reading.names if all(any(w in e.words for e in reading.evid) for w in n.words)]
    return None


def sentences(reading: ClaimReading) -> Outcome:
    """Together, negation and opposite (:mod:`._meaning`), then the clause-scoped negation (:mod:`._negation`);
    ``support=False`` ends here."""
    claims, evid = reading.text, reading.evid
    conflicts = [ClaimConflict(rule=rule, detail=detail)  # type: ignore[arg-type]
                 for rule, detail in meaning_findings(claims, reading.names, evid, anchored=reading.support)]
    if reading.support and not conflicts:
        # the sentence rules compare a clause only with a sentence holding most of its stems; a negation is read
        # clause by clause with lemma keys, so "never lived" meets "lives"
        negated = negation_clause_finding(claims, evid)
        if negated is not None:
            conflicts.append(ClaimConflict(rule="negation", detail=negated))
    if conflicts:
        return Lacking(conflicts=conflicts)
    return None if reading.support else SUPPORTED


def negated_copy(reading: ClaimReading) -> Outcome:
    """An evidence sentence repeated with a negation added or taken out (:mod:`._negated_copy`)."""
    found = negated_copy_finding(reading.raw or reading.text, reading.evid)
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="negation", detail=found)])


def antonyms(reading: ClaimReading) -> Outcome:
    """An evidence sentence repeated with one word replaced by its WordNet antonym (:mod:`._antonyms`)."""
    found = antonym_finding(reading.raw or reading.text, reading.evid)
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="opposite", detail=found)])


def moved_names(reading: ClaimReading) -> Outcome:
    """An evidence sentence repeated with a name put in another's place or two names exchanged (:mod:`._moved`)."""
    found = moved_name_finding(reading.raw or reading.text, reading.evid)
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="together", detail=found)])


def direction(reading: ClaimReading) -> Outcome:
    """Roles reversed between two names an evidence sentence states together (:mod:`._direction`)."""
    names = reading.names
    if len(names) < 2:
        return None
    name_words = frozenset(w for n in names for w in n.words)
    together = [s.text for e in reading.evid for s in e.sentences if len(s.words & name_words) >= 2]
    reversed_roles = direction_finding(reading.text, [n.words for n in names], together) if together else None
    if reversed_roles is None:
        return None
    return Lacking(conflicts=[ClaimConflict(rule="direction", detail=reversed_roles)])


def bound_values(reading: ClaimReading) -> Outcome:
    """A subject paired with the value a cited passage gives for another subject (:mod:`._bound`)."""
    found = bound_value_finding(reading.raw or reading.text, [e.text for e in reading.evid])
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="subject", detail=found)])


def record_values(reading: ClaimReading) -> Outcome:
    """An attribute of a cited record given another value (:mod:`._record_values`)."""
    found = record_value_finding(reading.text, reading.evid, reading.owned)
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="record", detail=found)])


def counts(reading: ClaimReading) -> Outcome:
    """A count in words the cited evidence does not give (:mod:`._number_words`)."""
    found = missing_count_words(reading.text, reading.evid)
    if not found:
        return None
    shown = ", ".join(f'"{w}"' for w in found)
    return Lacking(conflicts=[ClaimConflict(rule="support", detail=f"no cited sentence gives {shown} (as a word "
                                            "or in digits)")], words=found)


def support_words(reading: ClaimReading) -> Outcome:
    """Content words no cited sentence says in any form (:mod:`._support`)."""
    words = unsupported_words(reading.text, reading.checked_words, reading.evid)
    return support_finding(words)


def support_finding(words: list[str]) -> Outcome:
    """The support rule's finding for ``words`` (none when the list is empty)."""
    if not words:
        return None
    shown = ", ".join(f'"{w}"' for w in words[:8])
    return Lacking(conflicts=[ClaimConflict(rule="support", detail=f"no cited sentence says {shown}")], words=words)


def claim_rules(added: dict[Slot, Sequence[Rule]] | None = None) -> tuple[Rule, ...]:
    """The ordered rules, with a pack's rules (``added``, by slot) in their places."""
    extra = added or {}
    # the moved-name rule reads what direction and the subject rule read too, and says it less precisely: after them
    return (prose, literal, *extra.get("literal", ()), meaning_gate, sentences, negated_copy, antonyms, direction,
            bound_values, moved_names, record_values, *extra.get("record", ()), counts, *extra.get("support", ()),
            support_words)
