"""Amenities a business record and its reviews never mention (private).

A business record lists what the place offers (``"WiFi": "free"``, ``"OutdoorSeating": false``,
``"RestaurantsReservations": true``, ``"Music": {...}``); an answer over it often adds an amenity that neither the
record nor any cited review mentions ("WiFi is available", "they offer catering services", "no live music").
Every word of such a claim may be ordinary, and it is one or two words in a long sentence, so the support rule
does not see it. When a cited item is a record with attributes, a claim that names an amenity of
:data:`AMENITIES` (said or denied) needs one of that amenity's words in the cited evidence, in any form (a record's
keys split: ``RestaurantsTakeOut`` says "take out"; a key whose value is ``null`` says nothing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..text.words import LETTERS
from ._evidence import EvidenceIndex
from ._lack import is_lack_statement
from ._lemmas import evidence_keys, key_found, word_key
from ._reviews import is_business_record

__all__ = ["AMENITIES", "mentioned_keys", "unstated_amenity", "withheld_amenity"]

AMENITIES: dict[str, tuple[str, ...]] = {
    "wifi": ("wifi", "internet"),
    "outdoor seating": ("outdoor", "patio"),
    "reservations": ("reservation", "reservations", "reserve"),
    "live music": ("music", "band", "bands"),
    "music": ("music", "band", "bands"),
    "takeout": ("takeout", "take", "togo"),
    "delivery": ("delivery", "deliver", "delivers"),
    "catering": ("catering", "caters", "cater"),
    "parking": ("parking", "park", "garage", "valet", "lot"),
    "happy hour": ("happy",),
    "credit cards": ("credit", "card", "cards"),
    "wheelchair": ("wheelchair", "accessible"),
}
"""What an answer may say a business offers, and the words of the evidence that mention it."""

_NAMED = re.compile(
    r"\b(wi[\s\-]?fi|outdoor\s+seating|reservations?|live\s+music|music|take[\s\-]?out|delivery|catering|parking|"
    r"happy\s+hours?|credit\s+cards?|wheelchair)\b",
    re.IGNORECASE,
)


# A line about what the data leaves out ("no information on WiFi", "no specific music genre mentioned") states no
# amenity; nor does the verb "catering to" ("catering to vegetarians").
_ABOUT_DATA = re.compile(r"\b(?:information|info|details?|mention\w*|specif\w*|listed|indicated|unknown|unclear)\b",
                         re.IGNORECASE)
_VERB_USE = re.compile(r"catering\s+to\b", re.IGNORECASE)


def _amenity(said: str) -> str:
    folded = re.sub(r"[\s\-]+", " ", said.casefold())
    folded = {"wi fi": "wifi", "take out": "takeout", "reservation": "reservations", "happy hours": "happy hour",
              "credit card": "credit cards"}.get(folded, folded)
    return folded.replace(" ", "") if folded in ("wifi", "takeout") else folded


_NULL_KEY = re.compile(r'"[^"\\]{1,80}"\s*:\s*null')


@lru_cache(maxsize=1024)
def _stated_keys(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The word keys of a record without its keys given as ``null`` (unknown, so not mentioned)."""
    return evidence_keys(frozenset(LETTERS.findall(_NULL_KEY.sub(" ", text))))




def mentioned_keys(item: EvidenceIndex) -> tuple[frozenset[str], frozenset[str]]:
    """The word keys ``item`` mentions: a record's without its keys given as ``null``, a review's all."""
    return _stated_keys(item.text) if is_business_record(item) else item.keys


def unstated_amenity(claim: str, items: Sequence[EvidenceIndex]) -> str | None:
    """The first amenity ``claim`` names that no cited item mentions, when one of them is a business record."""
    if not any(is_business_record(item) for item in items) or _ABOUT_DATA.search(claim) or is_lack_statement(claim):
        return None
    for m in _NAMED.finditer(claim):
        if _VERB_USE.match(claim, m.start()):
            continue
        amenity = _amenity(m.group())
        words = AMENITIES.get(amenity)
        if words is None:
            continue
        if not any(key_found(word_key(w), *mentioned_keys(item)) for w in words for item in items):
            return amenity
    return None


# "the structured data does not mention any information about parking", "the ambience is not specified": a line
# saying the data leaves something out
_LEFT_OUT = re.compile(
    r"(?:\b(?:no|not)|n['’]t)(?:\s+[\w'’-]+){0,2}?\s+(?:information|info|details?|mention\w*|specif\w*|provid\w*|"
    r"list\w*|indicat\w*|includ\w*)\b|\b(?:unknown|unclear)\b", re.IGNORECASE)
_ABOUT_RECORD = re.compile(r"\b(?:data|record|information|info|details?|specified|mentioned|listed|indicated|"
                           r"unknown|unclear)\b", re.IGNORECASE)
# what a line may say the data leaves out, and the record's key that gives it
_WITHHELD = {
    "wifi": "WiFi", "wi-fi": "WiFi", "music": "Music", "ambience": "Ambience", "ambiance": "Ambience",
    "parking": "BusinessParking", "reservations": "RestaurantsReservations", "takeout": "RestaurantsTakeOut",
    "take-out": "RestaurantsTakeOut", "outdoor seating": "OutdoorSeating", "hours": "hours",
}
_WITHHELD_NAMED = re.compile(r"\b(wi-?fi|music|ambi[ea]nce|parking|reservations|take-?out|outdoor\s+seating|hours)\b",
                             re.IGNORECASE)


@lru_cache(maxsize=1024)
def _given(text: str) -> frozenset[str]:
    """The keys of a record (top level or in its attributes) that it gives a value other than null."""
    try:
        data = json.loads(text)
    except ValueError:
        return frozenset()
    if not isinstance(data, dict):
        return frozenset()
    attributes = data.get("attributes")
    fields = {**data, **attributes} if isinstance(attributes, dict) else data

    def given(value: Any) -> bool:
        if isinstance(value, dict):  # a group most of whose values are null leaves it out
            return 2 * sum(given(v) for v in value.values()) > len(value)
        return value is not None

    return frozenset(key for key, value in fields.items() if given(value))


def withheld_amenity(claim: str, items: Sequence[EvidenceIndex]) -> str | None:
    """What ``claim`` says the data leaves out though a cited business record gives it ("the structured data
    does not mention any information about parking" where the record gives ``BusinessParking``), or None."""
    cue = _LEFT_OUT.search(claim)
    if cue is None or _ABOUT_RECORD.search(claim) is None:
        return None
    records = [item for item in items if is_business_record(item)]
    for m in _WITHHELD_NAMED.finditer(claim, cue.start()):
        if re.search(r"\bother\s+$", claim[:m.start()], re.IGNORECASE):
            continue  # "no information about other parking options": the record gave some
        key = _WITHHELD[re.sub(r"\s+", " ", m.group().casefold())]
        if any(key in _given(item.text) for item in records):
            return m.group()
    return None
