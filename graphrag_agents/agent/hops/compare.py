"""The comparison rule of a comparison plan (:mod:`.compare_plan`): the sides' checked values compared without the
model.

* **order**: each side's value is read as a date (``12 June 1967``, ``December 24, 1886``, ``March 1926``,
  ``1961``, ``300 BC``); the option with the earlier (``pick="min"``) or later date is the answer. Dates that do
  not read, or that are equal as far as both are written, decide nothing: the run is refused, never guessed.
* **same**: yes when the two values name the same thing once folded: case, accents, a leading "the", a demonym
  for its country ("American" and "United States", "Roman" and "Rome"); otherwise no. A comparison by country,
  nationality or citizenship decides only when both values are countries of the rule's table, their demonyms or
  their states and provinces ("Ontario" is in Canada): a director "from the same country" answered "Chicago",
  against "Australia", and "no" was served (2Wiki mixed).

Case: the 1.5B model picks the wrong side of "Who was born first, A or B?" about as often as the right one even
with both dates cited; the dates themselves it copies well.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ...text.acronyms import US_STATES
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
# Country names and the demonyms that stand for them (a value written either way is the same country).
_DEMONYMS = {
    "united states": ("american", "us", "usa", "u.s.", "u.s.a.", "united states of america", "america"),
    "united kingdom": ("british", "uk", "u.k.", "great britain", "britain", "english", "england", "scottish",
                       "scotland", "welsh", "wales"),
    "france": ("french",), "germany": ("german", "west german", "east german", "west germany", "east germany"),
    "italy": ("italian",), "spain": ("spanish",), "portugal": ("portuguese",), "netherlands": ("dutch", "holland"),
    "belgium": ("belgian",), "switzerland": ("swiss",), "sweden": ("swedish",), "norway": ("norwegian",),
    "denmark": ("danish",), "finland": ("finnish",), "poland": ("polish",), "russia": ("russian", "soviet union",
                                                                                     "soviet", "ussr"),
    "ukraine": ("ukrainian",), "greece": ("greek",), "turkey": ("turkish",), "ireland": ("irish",),
    "china": ("chinese",), "japan": ("japanese",), "korea": ("korean", "south korea", "south korean"),
    "india": ("indian",), "pakistan": ("pakistani",), "bangladesh": ("bangladeshi",), "iran": ("iranian",
                                                                                             "persian"),
    "iraq": ("iraqi",), "israel": ("israeli",), "egypt": ("egyptian",), "canada": ("canadian",),
    "mexico": ("mexican",), "brazil": ("brazilian",), "argentina": ("argentine", "argentinian"),
    "australia": ("australian",), "new zealand": ("new zealander", "kiwi"), "philippines": ("filipino",
                                                                                           "philippine"),
    "czech republic": ("czech", "czechia", "czechoslovakia", "czechoslovak"), "hungary": ("hungarian",),
    "austria": ("austrian",), "romania": ("romanian",), "bulgaria": ("bulgarian",), "serbia": ("serbian",),
    "croatia": ("croatian",), "georgia": ("georgian",), "armenia": ("armenian",), "peru": ("peruvian",),
    "chile": ("chilean",), "colombia": ("colombian",), "cuba": ("cuban",), "thailand": ("thai",),
    "vietnam": ("vietnamese",), "indonesia": ("indonesian",), "nigeria": ("nigerian",), "kenya": ("kenyan",),
    "south africa": ("south african",), "rome": ("roman",), "estonia": ("estonian",), "latvia": ("latvian",),
    "lithuania": ("lithuanian",), "iceland": ("icelandic",), "slovenia": ("slovenian", "slovene"),
    "slovakia": ("slovak",), "malaysia": ("malaysian",), "singapore": ("singaporean",), "taiwan": ("taiwanese",),
}
# A state or province names its country in a comparison by country ("Ontario" and "United States": no).
_REGIONS = {
    "united states": tuple(US_STATES),
    "canada": ("ontario", "quebec", "british columbia", "alberta", "manitoba", "saskatchewan", "nova scotia",
               "new brunswick", "newfoundland and labrador", "prince edward island", "yukon", "nunavut",
               "northwest territories"),
    "australia": ("new south wales", "victoria", "queensland", "western australia", "south australia", "tasmania"),
    "united kingdom": ("northern ireland",),
}
_COUNTRY_WORDS = frozenset({"country", "nationality", "citizenship"})
_CANONICAL = {alias: country for country, aliases in _DEMONYMS.items() for alias in (country, *aliases)}
_IN_COUNTRY = {**_CANONICAL, **{region: country for country, regions in _REGIONS.items() for region in regions}}
_LEADING = re.compile(r"^(?:the|republic of|kingdom of|state of)\s+")

Date = tuple[int, int | None, int | None]
"""(year, month, day); a negative year is BC."""


@dataclass(frozen=True)
class Decision:
    """What the comparison rule concluded: the answer, or (``answer`` None) why it could not decide."""

    answer: str | None
    reason: str = ""


def decide(comparison: Comparison, values: Sequence[str]) -> Decision:
    """The answer ``comparison`` gives for the sides' checked ``values`` (one per option, in order)."""
    options = comparison["options"]
    if comparison["kind"] == "same":
        if comparison.get("what") in _COUNTRY_WORDS:
            unknown = [repr(v) for v in values if not is_country(v)]
            if unknown:
                # 2Wiki mixed: a director "from the same country" answered "Chicago", then "no" was served.
                return Decision(None, f"not a country the rule knows: {', '.join(unknown)}; the sides cannot be "
                                      "compared by country")
            countries = [_IN_COUNTRY[_folded(v)] for v in values]
            return Decision("yes" if countries[0] == countries[1] else "no")
        return Decision("yes" if same_value(values[0], values[1]) else "no")
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
    """Whether two values name the same thing (folded case and accents, a demonym for its country)."""
    fa, fb = _canonical(a), _canonical(b)
    return bool(fa) and (fa == fb)


def is_country(value: str) -> bool:
    """Whether ``value`` names a country of the rule's table, its demonym ("Swedish", "the United States"), or
    one of its states or provinces ("Ontario")."""
    return _folded(value) in _IN_COUNTRY


def _folded(value: str) -> str:
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower()
    folded = " ".join(re.sub(r"[^\w.\s-]", " ", folded).split()).strip(". ")
    return _LEADING.sub("", folded)


def _canonical(value: str) -> str:
    folded = _folded(value)
    return _CANONICAL.get(folded, folded)
