"""Counts written in words that the evidence does not give: "raising two children" where the article gives no
number (private).

A figure written with digits is checked by the literal rule; a count written as a word ("four", "six",
"twenty") states a number just as much, and real answers get it wrong ("just six players remaining" where the
article has the final five). A cardinal from two to ninety is missing when the cited evidence writes it neither
as the word nor as its digits. "one" (a pronoun as often as a number) and vague words ("dozens", "hundreds") are
not read, nor a compound ("twenty-five", "four-year-old"), "seven days a week" (opening days, read by
:mod:`._hours`) or a count of the evidence itself ("three reviews", "two passages").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._evidence import EvidenceIndex
from ._lemmas import NUMBER_WORDS

__all__ = ["COUNT_WORDS", "missing_count_words"]

COUNT_WORDS = frozenset("""
two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen
nineteen twenty thirty forty fifty sixty seventy eighty ninety
""".split())
"""The count words read: cardinals two to twenty and the tens."""
# a count word on its own, not in a compound ("twenty-five", "four-year-old"), nor in "seven days a week" (the
# hours rule reads opening days), nor counting the evidence itself ("three reviews", "two passages")
_COUNT = re.compile(r"(?<![\w\-])(" + "|".join(sorted(COUNT_WORDS, key=len, reverse=True)) + r")(?![\w\-])"
                    r"(?!\s+days?\s+(?:a|per|each)\s+week)"
                    r"(?!\s+(?:[^\W\d_]+\s+)?(?:reviews?|passages?|documents?|sources?|articles?|items?)\b)",
                    re.IGNORECASE)


def missing_count_words(claim: str, items: Sequence[EvidenceIndex]) -> list[str]:
    """The count words of ``claim`` (as written) that no item of ``items`` writes as the word or its digits."""
    out: list[str] = []
    for m in _COUNT.finditer(claim):
        word = m.group(1).casefold()
        digits = NUMBER_WORDS[word]
        if not any(word in item.words or digits in item.figures for item in items):
            out.append(m.group(1))
    return list(dict.fromkeys(out))
