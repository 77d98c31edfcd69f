"""What an answer says a business is like that neither its record nor a cited review says (private).

An answer over a business record and its reviews often describes the place in words of its own: "a casual,
rustic atmosphere", "the service can be slow", "generous portions", "a menu of burgers, sandwiches and salads",
"vegetarian and gluten-free options". Each is one or two ordinary words in a long sentence, so the support rule,
which counts a sentence's missing words, does not see it. When a cited item is a business record, a claim word of
:data:`DESCRIPTIONS` (the atmosphere, prices, service, portions, staff, food and diets) needs one of its words in
the cited evidence, in a plain inflection (a record's keys say nothing but its attributes given as true:
``"casual": true`` says casual): a review's "cute and quaint" says charming, "pricey" says expensive, "took
forever" says slow. A line about what the data leaves out describes nothing. The word classes were chosen on the
tuning half of the shared RAGTruth Data2txt file (see ``docs/citations-figures.md``): those that flagged clean answers
about as often as they caught hallucinated ones ("cozy", "relaxed", "reasonable prices", "attentive") are left out.
The end of a compound ("group-friendly") describes something else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ..text.words import LETTERS, fold
from ._evidence import EvidenceIndex
from ._lack import is_lack_statement
from ._lemmas import split_compound
from ._records import record_attributes
from ._reviews import is_business_record, key_words_of

__all__ = ["DESCRIPTIONS", "unstated_descriptions"]

_CLASSES = {
    # the atmosphere
    "rustic": "rustic",
    # the record's own ambience words: said where the record gives them (true or false) or a review says them
    "casual": "casual",
    "divey": "divey dive",
    "classy": "classy",
    "trendy": "trendy",
    "hipster": "hipster",
    "touristy touristic": "touristy touristic",
    "romantic": "romantic",
    "upscale": "upscale",
    # more of the atmosphere
    "intimate": "intimate cozy romantic quiet",
    "modern contemporary sleek": "modern contemporary sleek new remodeled updated",
    "lively vibrant bustling energetic": "lively vibrant bustling energetic busy fun packed crowded loud",
    "charming quaint": "charming charm quaint cute adorable",
    "festive": "festive fun party",
    "elegant chic": "elegant chic classy fancy upscale",
    "beautiful scenic": "beautiful gorgeous stunning pretty lovely view views scenic",
    "clean": "clean spotless tidy",
    # prices
    "pricey expensive overpriced costly": "pricey pricy expensive overpriced costly steep splurge",
    # service
    "slow": "slow wait waited waiting forever delay delayed long",
    # portions
    "generous hearty": "generous huge big large filling hearty plenty",
    "friendly": "friendly nice kind welcoming warm polite sweet helpful pleasant",
    "rude": "rude",
    # the menu and the food
    "authentic": "authentic traditional",
    "loyal": "loyal regular regulars",
    "vegetarian": "vegetarian veggie vegan",
    "vegan": "vegan",
    "gluten": "gluten",
    "burger burgers": "burger burgers",
    "sandwich sandwiches": "sandwich sandwiches sub subs panini",
    "salad salads": "salad salads",
    "entree entrees": "entree entrees entrée entrées",
    "taco tacos": "taco tacos",
    "burrito burritos": "burrito burritos",
    "enchilada enchiladas": "enchilada enchiladas",
    "pasta": "pasta spaghetti linguine ravioli",
    "seafood": "seafood fish shrimp oysters crab lobster",
    "steak steaks ribeye": "steak steaks ribeye",
    "cake cakes": "cake cakes cheesecake",
    "cookie cookies": "cookie cookies",
    "smoothie smoothies": "smoothie smoothies",
    "soup soups": "soup soups chowder",
}
DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    said: tuple(means.split()) for saids, means in _CLASSES.items() for said in saids.split()}
"""A word an answer may describe a business with (folded, as written), and the evidence words that say it."""

# A line about what the data leaves out ("no information on its prices") describes nothing.
_ABOUT_DATA = re.compile(r"\b(?:information|info|details?|unknown|unclear)\b", re.IGNORECASE)


def _forms(word: str) -> tuple[str, ...]:
    stem = word[:-1] if word.endswith("y") else word
    return (word, word + "s", word + "es", word + "ed", word + "d", word + "ing", word + "ly", stem + "ies",
            stem + "ier", stem + "iest", word + "er", word + "est")


@lru_cache(maxsize=1024)
def _record_mentions(text: str, words: frozenset[str], true_keys: frozenset[str]) -> frozenset[str]:
    return (words - key_words_of(text)) | true_keys


def _mentions(item: EvidenceIndex) -> frozenset[str]:
    """The folded words ``item`` says: a record's values and its attributes given as true, not its other keys."""
    if not is_business_record(item):
        return item.words
    true_keys = frozenset(w.casefold() for a in record_attributes(item.text) if a.value
                          for w in (a.name, *split_compound(a.name)))
    return _record_mentions(item.text, item.words, true_keys)


def unstated_descriptions(claim: str, items: Sequence[EvidenceIndex]) -> list[str]:
    """The words of ``claim`` describing the business that no cited item says, when one is a business record
    (see the module docstring), folded, in the claim's order; an empty list when there are none."""
    if not any(is_business_record(item) for item in items) or _ABOUT_DATA.search(claim) or is_lack_statement(claim):
        return []
    mentioned = [_mentions(item) for item in items]
    # the record's own yes/no words ("trendy": false) are said either way; the record rule reads their value
    given = frozenset(a.name.casefold() for item in items if is_business_record(item)
                      for a in record_attributes(item.text))
    out: list[str] = []
    for m in LETTERS.finditer(claim):
        folded = fold(m.group())
        means = DESCRIPTIONS.get(folded)
        if means is None or folded in out or folded in given or claim[m.start() - 1:m.start()] == "-":
            continue  # the end of a compound ("group-friendly") describes something else
        if not any(form in words for w in means for form in _forms(w) for words in mentioned):
            out.append(folded)
    return out
