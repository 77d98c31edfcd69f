"""The words an answer over a business record uses to sum up its reviews (private).

An answer that describes a business from its record and customer reviews sums the reviews up in words no review
writes: "received mixed reviews, with some customers praising the food and others expressing disappointment",
"a popular choice for locals and visitors alike". These words state no fact of their own about the business (the
facts are in what follows them), so when a cited item is a business record the support rule does not count them
(:data:`REVIEW_WORDS`, matched in any form by :func:`~._lemmas.word_key`); a sentence citing a record also needs
more missing words to be unsupported (:data:`RECORD_MIN_UNSUPPORTED`), since such answers paraphrase reviews
rather than restate them. Both were chosen on the tuning half of the shared RAGTruth Data2txt file
(see ``docs/citations-figures.md``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ..text.words import LETTERS, fold
from ._evidence import EvidenceIndex
from ._lemmas import split_compound, word_key

__all__ = ["RECORD_MAX_SHARE", "RECORD_MIN_UNSUPPORTED", "REVIEW_WORDS", "is_business_record", "key_words",
           "key_words_of", "review_words", "without_rating_scale"]

RECORD_MIN_UNSUPPORTED = 8
"""A sentence citing a business record is unsupported only when at least this many content words are missing."""
RECORD_MAX_SHARE = 0.6
"""... and when they are more than this share of its content words."""

REVIEW_WORDS = frozenset("""
positive negative mixed praise praising praised rave raved glowing favorable favourable unfavorable complaint
complaints complain complained complaining concern concerns criticism criticize criticized criticise criticised
disappointment disappointed disappointing dissatisfaction dissatisfied satisfaction satisfied unsatisfied pleased
impressed appreciate appreciated appreciation enjoy enjoyed enjoying enjoyable recommend recommended
recommendation rating ratings rated star stars feedback opinion opinions consensus majority minority mostly
generally largely consistently frequently commonly typically sentiment impression impressions perception
perceived reputation regarded popular popularity favorite favourite loved love liked dislike disliked
expressed expressing express voiced noted noting stating reported reporting described describing claimed cited
citing highlighted highlighting shared sharing felt found finding consider considered
food foods dish dishes menu item items meal meals cuisine dining dine eatery service staff employee employees
atmosphere ambiance ambience vibe setting environment quality value experience experienced visit visits visited
visiting return returning locals visitors tourists spot destination venue choice establishment
great excellent good nice decent solid worth worthwhile overall issue issues aspect aspects
looking seeking those anyone alike whether
""".split())
"""Words that sum up reviews: opinions and their verbs, a review's topics (food, service, atmosphere), praise."""

# "a rating of 3.5 stars out of 5": the scale of a star rating is no figure of the record
_RATING_SCALE = re.compile(r"\b(?:out\s+of|of)\s+(?:5|five)(?=\s+stars?\b|\s*[.,;)]|\s*$)", re.IGNORECASE)
_KEY = re.compile(r'"([A-Za-z]+)"\s*:')
_OBJECT_START = re.compile(r"\s*\{")

_REVIEW_KEYS = frozenset(word_key(w) for w in REVIEW_WORDS)


def is_business_record(item: EvidenceIndex) -> bool:
    """Whether ``item`` is a business record: a JSON object with ``attributes`` (as in RAGTruth's Data2txt)."""
    return _OBJECT_START.match(item.text) is not None and '"attributes"' in item.text


def review_words(claim: str, items: Sequence[EvidenceIndex]) -> frozenset[str]:
    """The folded words of ``claim`` that sum up reviews, when an item of ``items`` is a business record."""
    if not any(is_business_record(item) for item in items):
        return frozenset()
    return frozenset(fold(w) for w in LETTERS.findall(claim) if word_key(w) in _REVIEW_KEYS)


@lru_cache(maxsize=1024)
def key_words_of(text: str) -> frozenset[str]:
    """The folded words of a JSON text's keys, whole and with compounds split."""
    return frozenset(part.casefold() for key in _KEY.findall(text) for part in (key, *split_compound(key)))


def key_words(item: EvidenceIndex) -> frozenset[str]:
    """The folded words of a business record's keys, compounds split (``OutdoorSeating`` -> outdoor, seating):
    ordinary words, though the record writes them capitalised."""
    return key_words_of(item.text) if is_business_record(item) else frozenset()


def without_rating_scale(claim: str, items: Sequence[EvidenceIndex]) -> str:
    """``claim`` with the scale of a star rating ("out of 5") blanked, when an item is a business record."""
    if not any(is_business_record(item) for item in items):
        return claim
    return _RATING_SCALE.sub(lambda m: " " * len(m.group()), claim)
