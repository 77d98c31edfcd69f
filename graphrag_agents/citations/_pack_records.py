"""The ``records`` pack: the rules for answers over a business record and its reviews (private).

RAGTruth's Data2txt task gives a model a Yelp business record (a JSON object with ``attributes``, ``hours``,
``categories``) and its reviews, and asks for a description. Such answers fail in ways tied to that schema: an
ambience or parking kind said otherwise (:mod:`._records`), opening hours that differ on some day
(:mod:`._hours`), an amenity no record or review mentions or one the data is said to leave out
(:mod:`._amenities`), a description of the place no review gives (:mod:`._descriptions`), and reviews summed up
in words no review writes (:mod:`._reviews`). These rules read one data set's schema, so they are no default: a
caller enables them with ``check_citations(..., packs=["records"])``. With the pack on, the business records are
read by these rules and not by the general record rule (:mod:`._record_values`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._amenities import unstated_amenity, withheld_amenity
from ._descriptions import unstated_descriptions
from ._evidence import EvidenceIndex
from ._hours import hours_finding, record_hours
from ._records import record_attributes, record_finding
from ._reviews import (
    RECORD_MAX_SHARE,
    RECORD_MIN_UNSUPPORTED,
    is_business_record,
    review_words,
    without_rating_scale,
)
from ._rules import SUPPORTED, ClaimReading, Lacking, Outcome, Rule, Slot, support_finding
from ._support import HOURS_WORDS, unsupported_words
from .result import ClaimConflict

__all__ = ["RULES", "figures_text", "owns"]


def owns(item: EvidenceIndex) -> bool:
    """The records this pack reads with its own record rules: business records."""
    return is_business_record(item)


def figures_text(claim: str, evid: Sequence[EvidenceIndex]) -> str:
    """The claim as the figure rule reads it over a business record: a star rating's scale blanked."""
    return without_rating_scale(claim, evid)


def withheld(reading: ClaimReading) -> Outcome:
    """A line saying the data leaves out what a cited business record gives."""
    if not (reading.meaning and reading.support):
        return None
    found = withheld_amenity(reading.text, reading.evid)
    if found is None:
        return None
    return Lacking(conflicts=[ClaimConflict(
        rule="record", detail=f"the claim says the data leaves out {found}; the record gives it")])


def yes_no(reading: ClaimReading) -> Outcome:
    """A business record's yes/no attribute said otherwise, unless a cited review says it."""
    evid = reading.evid
    attributes = tuple(a for e in evid if is_business_record(e) for a in record_attributes(e.text))
    if not attributes:
        return None
    reviewed = frozenset().union(*(e.words for e in evid if not is_business_record(e)))
    found = record_finding(reading.text, attributes, reviewed)
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="record", detail=found)])


def amenity(reading: ClaimReading) -> Outcome:
    """An amenity neither the record nor a cited review mentions."""
    found = unstated_amenity(reading.text, reading.evid)
    if found is None:
        return None
    return Lacking(conflicts=[ClaimConflict(
        rule="record", detail=f"the claim names {found}; neither the record nor a cited review mentions it")],
        words=[found])


def descriptions(reading: ClaimReading) -> Outcome:
    """Words describing the business that neither the record nor a cited review says."""
    found = unstated_descriptions(reading.text, reading.evid)
    if not found:
        return None
    shown = ", ".join(f'"{w}"' for w in found)
    return Lacking(conflicts=[ClaimConflict(
        rule="record", detail=f"the claim says {shown}; neither the record nor a cited review says so")],
        words=found)


def hours(reading: ClaimReading) -> Outcome:
    """Days and times the record's opening hours do not give."""
    found = next((f for e in reading.evid if (f := hours_finding(reading.text, record_hours(e.text))) is not None),
                 None)
    return None if found is None else Lacking(conflicts=[ClaimConflict(rule="hours", detail=found)])


def support_over_records(reading: ClaimReading) -> Outcome:
    """Claim support over a business record: review words and the words about opening hours skipped, and more
    missing words needed; the default support rule reads every other sentence."""
    evid = reading.evid
    business = any(is_business_record(e) for e in evid)
    timed = any(record_hours(e.text) is not None for e in evid)
    if not business and not timed:
        return None
    skip = reading.checked_words | (HOURS_WORDS if timed else frozenset())
    if business:
        words = unsupported_words(reading.text, skip | review_words(reading.text, evid), evid,
                                  least=RECORD_MIN_UNSUPPORTED, share=RECORD_MAX_SHARE)
    else:
        words = unsupported_words(reading.text, skip, evid)
    found = support_finding(words)
    return found if found is not None else SUPPORTED


RULES: dict[Slot, Sequence[Rule]] = {
    "literal": (withheld,),
    "record": (yes_no, amenity, descriptions, hours),
    "support": (support_over_records,),
}
"""The pack's rules by the place they take in :func:`~._rules.claim_rules`."""
