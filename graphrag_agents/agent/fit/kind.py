"""The answer kind rule: the kind of thing a question asks for, against the kind the answer is.

Case (issue 22, the hidden multi-hop set with the 1.5B model): "What recognition did the actor who played V
receive?" answered with the actor; "Who was the employer of the physicist Y is named after?" answered with the
physicist. The question's wh-word and head noun say what it asks for (:func:`expected_kind`: a person, a place,
an organisation, a work or an award; dates and numbers are :mod:`.figures`' rule), and the answer's kind comes
from its own figures or from the graph's entity card of the same name (the extractor's NER label, and the labels
it was outvoted for). The rule is a yes / no: only a kind that cannot be the one asked for is a finding (a person
for "what award", a place or a year for "who"); an answer whose kind is unknown, or which a label gives both
ways, passes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from .bridge import ASKED
from .figures import MONTHS
from .names import words
from .shown import FitProblem

__all__ = ["Kind", "answer_kind", "expected_kind", "kind_mismatch", "label_index", "label_kind"]

Kind = Literal["person", "place", "organisation", "date", "number", "work", "award"]

_HEADS: tuple[tuple[Kind, str], ...] = (
    ("place", r"city|country|town|county|state|place|location|province|region|village|island|continent|"
              r"birthplace|hometown|capital|seat"),
    ("work", r"film|movie|song|album|book|novel|play|opera|series|show|poem|single|painting"),
    ("award", r"award|prize|honou?r|medal|recognition|title"),
    ("organisation", r"company|band|team|club|organi[sz]ation|university|college|school|party|label|employer|"
                     r"network|newspaper|magazine|airline|brand|firm"),
)
# The wh-phrase ends at its auxiliary: in "In which season did University of X play?" the head is "season", and
# "University", after "did", is the subject, not the kind asked for.
_AUXILIARY = r"(?:do|does|did|is|was|are|were|has|have|had|can|could|will|would|shall|should|may|might|must)"
_ASKS = [(kind, re.compile(rf"^\s*(?:in |at |for |from |of |by )?(?:what|which)\s+(?:(?!{_AUXILIARY}\b)\w+\s+){{0,2}}"
                           rf"(?:{heads})\b", re.IGNORECASE)) for kind, heads in _HEADS]
_HEAD_KINDS = [(kind, re.compile(rf"^(?:{heads})$")) for kind, heads in _HEADS]
_WHO = re.compile(r"^\s*(?:who|whom)\b", re.IGNORECASE)
_WHERE = re.compile(r"^\s*where\b", re.IGNORECASE)
_MONTHS = "|".join(MONTHS)
# a run of digits is one item (a number of any length is a date here too): split into 1-4 digit items, a long
# run could be read in exponentially many ways before the match failed
_DATE_ONLY = re.compile(rf"^(?:(?:\d+(?!\d)|{_MONTHS}|bc|ad|bce|ce|c|circa|th|st|nd|rd|s)\W*)+$", re.IGNORECASE)
_NUMBER_ONLY = re.compile(r"^[\d.,\s%]+$")
# NER / ontology labels, by the kind they are.
_LABELS: dict[str, Kind] = {
    **dict.fromkeys(("person", "people", "human", "individual", "character"), "person"),
    **dict.fromkeys(("location", "place", "country", "city", "gpe", "region", "loc", "facility", "building", "fac"),
                    "place"),
    **dict.fromkeys(("organization", "organisation", "company", "institution", "org"), "organisation"),
    **dict.fromkeys(("work", "creative work", "work of art", "work_of_art"), "work"),
}
# The kinds an answer cannot be when the question asks for a kind.
_CANNOT: dict[Kind, frozenset[Kind]] = {
    "person": frozenset({"place", "date", "number", "work"}),
    "place": frozenset({"person", "date", "number", "work"}),
    "organisation": frozenset({"date", "number", "work"}),
    "work": frozenset({"date", "number"}),
    "award": frozenset({"person", "place", "date", "number"}),
}


def expected_kind(question: str) -> Kind | None:
    """The kind ``question`` asks for, from its wh-word and head noun ("Who ..." a person, "Where ..." or "Which
    city ..." a place), or None when it does not say."""
    asked = ASKED.match(question)
    if asked is not None:
        for kind, head in _HEAD_KINDS:
            if head.match(asked["noun"].lower()):
                return kind
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    if _WHO.search(question):
        return "person"
    if _WHERE.search(question):
        return "place"
    return None


def label_kind(label: str) -> Kind | None:
    """The kind an entity label names (``Person`` -> person, ``GPE`` / ``Location`` -> place), or None."""
    return _LABELS.get(label.strip().lower())


def answer_kind(answer: str, labels: Mapping[str, Sequence[str]]) -> frozenset[Kind]:
    """The kinds ``answer`` may be: a date or a number by its figures, else the kinds of the entity labels the
    graph gives its name (``labels``: folded name -> labels); empty when unknown."""
    text = answer.strip()
    if _NUMBER_ONLY.match(text):
        return frozenset({"number", "date"}) if re.fullmatch(r"\d{3,4}", text) else frozenset({"number"})
    if _DATE_ONLY.match(text):
        return frozenset({"date"})
    found = labels.get(" ".join(sorted(words(text)))) or ()
    return frozenset(kind for label in found if (kind := label_kind(label)) is not None)


def kind_mismatch(question: str, answer: str, labels: Mapping[str, Sequence[str]]) -> FitProblem | None:
    """The kind finding when ``answer`` can only be a kind ``question`` does not ask for, else None."""
    wanted = expected_kind(question)
    kinds = answer_kind(answer, labels)
    if wanted is None or not kinds or wanted in kinds or not kinds <= _CANNOT[wanted]:
        return None
    return FitProblem("kind", f"the question asks for a {wanted}, and {answer!r} is a "
                              f"{' or '.join(sorted(kinds))}")


def label_index(entities: Sequence[tuple[str, Sequence[str]]]) -> dict[str, list[str]]:
    """``answer_kind``'s ``labels`` from (name, labels) pairs: the key is the name's folded words, sorted."""
    index: dict[str, list[str]] = {}
    for name, labels in entities:
        index.setdefault(" ".join(sorted(words(name))), []).extend(labels)
    return index
