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

import re
from collections.abc import Sequence
from functools import lru_cache

from ._evidence import EvidenceIndex
from ._lack import is_lack_statement
from ._lemmas import evidence_keys, key_found, word_key
from ._text import LETTERS

__all__ = ["ABOUT_DATA", "AMENITIES", "mentioned_keys", "unstated_amenity"]

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
ABOUT_DATA = re.compile(r"\b(?:information|info|details?|mention\w*|specif\w*|listed|indicated|unknown|unclear)\b",
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


def _is_record(item: EvidenceIndex) -> bool:
    return item.text.lstrip().startswith("{") and '"attributes"' in item.text


def mentioned_keys(item: EvidenceIndex) -> tuple[frozenset[str], frozenset[str]]:
    """The word keys ``item`` mentions: a record's without its keys given as ``null``, a review's all."""
    return _stated_keys(item.text) if _is_record(item) else item.keys


def unstated_amenity(claim: str, items: Sequence[EvidenceIndex]) -> str | None:
    """The first amenity ``claim`` names that no cited item mentions, when one of them is a business record."""
    if not any(_is_record(item) for item in items) or ABOUT_DATA.search(claim) or is_lack_statement(claim):
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
