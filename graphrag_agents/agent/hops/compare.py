"""The comparison rule of a comparison plan (:mod:`.compare_plan`): the sides' checked values compared without the
model.

* **order**: each side's value is read as a date (``12 June 1967``, ``December 24, 1886``, ``March 1926``,
  ``1961``, ``300 BC``); the option with the earlier (``pick="min"``) or later date is the answer. Dates that do
  not read, or that are equal as far as both are written, decide nothing: the run is refused, never guessed.
* **same**: yes when the two values name the same thing once folded: case, accents, a leading "the", or an
  adjective for the noun it pertains to in WordNet 3.0 (:mod:`graphrag_agents.text.wordnet`: "Swedish" and
  "Sweden", "Roman" and "Rome"); otherwise no. A comparison by country, nationality or citizenship says no only
  when both values read as nationalities: an adjective WordNet relates to a noun ("Danish"), or a name a
  capitalised adjective of the sides' cited evidence pertains to ("Australia", when a cited passage writes
  "Australian"). Any other pair of different values decides nothing and the run is refused: a director "from the
  same country" answered "Chicago", against "Australia", and "no" was served (2Wiki mixed). Without the
  ``lexicon`` extra only folded equality reads, so such comparisons say yes or are refused, never no.

Case: the 1.5B model picks the wrong side of "Who was born first, A or B?" about as often as the right one even
with both dates cited; the dates themselves it copies well.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ...text import wordnet
from ...text.acronyms import alias_forms
from ..fit.figures import MONTHS
from .compare_plan import Comparison

__all__ = ["Decision", "decide", "is_country", "read_date", "same_value"]

_MONTHS = {name: i for i, name in enumerate(MONTHS, 1)}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_YEAR = re.compile(r"\b(?P<year>\d{1,4})\s*(?P<era>bc|bce|b\.c\.|ad|ce|a\.d\.)?(?!\d)", re.IGNORECASE)
_MONTH = re.compile(r"\b(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?\b", re.IGNORECASE)
_DAY_BEFORE = re.compile(r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?=[A-Za-z])")
_DAY_AFTER = re.compile(r"^\s*(?P<day>\d{1,2})(?:st|nd|rd|th)?\b(?!\s*\d{3})")
_COUNTRY_WORDS = frozenset({"country", "nationality", "citizenship"})
# A capitalised word of the evidence, read as a possible nationality adjective ("Australian", "Anglo-Saxon").
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b")
# How an English place adjective is commonly formed; WordNet confirms each form (:func:`_adjective_forms`).
_ADJECTIVE_ENDINGS = ("", "n", "an", "ian", "ese", "i", "ish")
_VOWELS = frozenset("aeiouy")
_LEADING = re.compile(r"^(?:the|republic of|kingdom of|state of)\s+")

Date = tuple[int, int | None, int | None]
"""(year, month, day); a negative year is BC."""


@dataclass(frozen=True)
class Decision:
    """What the comparison rule concluded: the answer, or (``answer`` None) why it could not decide."""

    answer: str | None
    reason: str = ""


def decide(comparison: Comparison, values: Sequence[str], evidence: Sequence[Sequence[str]] = ()) -> Decision:
    """The answer ``comparison`` gives for the sides' checked ``values`` (one per option, in order); ``evidence``
    holds, per option, the texts of the items its value cites, which a comparison by country reads."""
    options = comparison["options"]
    if comparison["kind"] == "same":
        if same_value(values[0], values[1]):
            return Decision("yes")
        if comparison.get("what") in _COUNTRY_WORDS:
            return _different_countries(values, evidence)
        return Decision("no")
    dates = [read_date(value) for value in values]
    if any(date is None for date in dates):
        unread = [repr(v) for v, d in zip(values, dates, strict=True) if d is None]
        return Decision(None, f"the values {', '.join(unread)} do not read as dates, so the sides cannot be "
                              "compared")
    first, second = dates[0], dates[1]
    assert first is not None and second is not None
    order = _compare(first, second)
    if order == 0:
        return Decision(None, f"{values[0]!r} and {values[1]!r} are the same date as far as both are written")
    earlier = options[0] if order < 0 else options[1]
    later = options[1] if order < 0 else options[0]
    return Decision(earlier if comparison["pick"] == "min" else later)


def read_date(text: str) -> Date | None:
    """``text`` read as a date: its year (required; BC negative), and its month and day when written."""
    years = [m for m in _YEAR.finditer(text) if not _is_day(m, text)]
    if not years:
        return None
    found = years[-1]
    year = int(found["year"])
    if found["era"] and found["era"].lower().startswith("b"):
        year = -year
    month_match = _MONTH.search(text)
    month = _MONTHS[month_match["month"].lower()] if month_match else None
    day: int | None = None
    if month_match is not None:
        before = _DAY_BEFORE.search(text[:month_match.start()] + " x")
        after = _DAY_AFTER.match(text[month_match.end():])
        chosen = before or after
        if chosen is not None and 1 <= int(chosen["day"]) <= 31:
            day = int(chosen["day"])
    return year, month, day


def _is_day(match: re.Match[str], text: str) -> bool:
    """Whether a number read as a year is a day of a month written next to it ("12 June 1967": 12)."""
    if match["era"] or len(match["year"]) >= 3:
        return False
    return bool(_MONTH.match(text[match.end():].lstrip()) or _MONTH.search(text[max(0, match.start() - 12):
                                                                                 match.start()]))


def _compare(a: Date, b: Date) -> int:
    """-1, 0 or 1 as ``a`` comes before, with (as far as both are written) or after ``b``."""
    for x, y in zip(a, b, strict=True):
        if x is None or y is None:
            return 0
        if x != y:
            return -1 if x < y else 1
    return 0


def same_value(a: str, b: str) -> bool:
    """Whether two values name the same thing (folded case and accents, an adjective for the noun it pertains to)."""
    return bool(_names(a) & _names(b))


def is_country(value: str, evidence: Sequence[str] = ()) -> bool:
    """Whether ``value`` reads as a nationality: an adjective WordNet relates to a noun ("Swedish"), a name one of
    its adjective forms pertains to in WordNet ("Iran": "Iranian", "Germany": "German"), or a name a capitalised
    adjective of ``evidence`` pertains to ("Sweden" in evidence writing "Swedish", "US" writing "American")."""
    names = _names(value)
    if any(_pertains_to(name) for name in names):
        return True
    if any(names & _pertains_to(form) for name in names for form in _adjective_forms(name)):
        return True
    return any(names & _with_aliases(_pertains_to(word))
               for text in evidence for word in set(_CAPITALISED.findall(text)))


def _adjective_forms(name: str) -> list[str]:
    """Forms an adjective of the place ``name`` may take ("iran" -> "iranian", "canada" -> "canadian",
    "germany" -> "german"): only proposed, each counts when WordNet says it pertains to ``name``."""
    stems = [name, name[:-1]] if name[-1:] in _VOWELS else [name]
    return [stem + ending for stem in stems for ending in _ADJECTIVE_ENDINGS if stem + ending != name]


def _different_countries(values: Sequence[str], evidence: Sequence[Sequence[str]]) -> Decision:
    """No when both values read as nationalities and neither side's evidence names the other's value; else why the
    rule cannot decide ("California" against "United States", cited from a passage saying "American")."""
    pooled = [text for texts in evidence for text in texts]
    unknown = [repr(v) for v in values if not is_country(v, pooled)]
    if unknown:
        lexicon = "" if wordnet.available() else " (the lexicon extra, which reads nationality adjectives, is missing)"
        return Decision(None, f"not read as a country or nationality: {', '.join(unknown)}, and the values differ; "
                              f"the sides cannot be compared by country{lexicon}")
    for i, texts in enumerate(evidence[:2]):
        other = values[1 - i]
        if _mentions(texts, _names(other)):
            return Decision(None, f"{values[i]!r} and {other!r} differ, but the evidence of {values[i]!r} also names "
                                  f"{other!r}; the sides may share a country")
    return Decision("no")


def _mentions(texts: Sequence[str], names: frozenset[str]) -> bool:
    """Whether a text writes one of the folded ``names``, or a capitalised adjective pertaining to one."""
    for text in texts:
        folded = f" {_folded(text)} "
        if any(f" {name} " in folded for name in names if len(name) > 2):
            return True
        if any(names & _with_aliases(_pertains_to(word)) for word in set(_CAPITALISED.findall(text))):
            return True
    return False


def _names(value: str) -> frozenset[str]:
    """The folded names ``value`` stands for: itself, the nouns it pertains to, and their other names in
    :data:`~graphrag_agents.text.acronyms.ALIASES` ("American" -> "america", "us", "united states", ...)."""
    folded = _folded(value)
    return _with_aliases(frozenset({folded} if folded else ()) | _pertains_to(value))


def _pertains_to(word: str) -> frozenset[str]:
    """The folded nouns ``word`` pertains to (empty when it is no adjective WordNet relates, or without the data)."""
    return frozenset(_folded(noun) for noun in wordnet.pertainyms(word.strip()))


def _with_aliases(names: frozenset[str]) -> frozenset[str]:
    return names.union(*(alias_forms(name) for name in names))


def _folded(value: str) -> str:
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower()
    folded = " ".join(re.sub(r"[^\w.\s-]", " ", folded).split()).strip(". ")
    return _LEADING.sub("", folded)
