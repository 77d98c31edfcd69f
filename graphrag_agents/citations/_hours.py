"""Opening hours: a claim whose days and times disagree with a record's ``hours`` (private).

A business record gives its hours per day (``"hours": {"Monday": "17:30-23:0", ...}``, as in the Yelp records of
RAGTruth's Data2txt task). An answer that says "open from 11:00 am to 9:00 pm from Tuesday to Sunday" may hold
every figure of the record and still be wrong for some of those days; "it operates daily" or "seven days a week"
is wrong when the record gives some day no hours, "open Monday and Thursday" when it gives one of them none,
"closed on Mondays" when it gives Monday hours, "extended hours on weekends" when those days are open no longer
than the others. This rule reads
a claim's day scopes ("Monday to Friday", "Mon-Fri", "weekdays", "weekends", "on Sundays", "daily") and time
ranges ("11:00 AM to 9:00 PM", "17:00-21:00", "from 7am until noon"), pairs each range with the scope right
before it or right after it, and reports a range that matches the record's hours for no such pairing. A time
written without am/pm may be either. A day the record gives as ``0:0-0:0`` (unknown) is not compared.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Hours", "hours_finding", "record_hours"]

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_FORMS = {form: i for i, day in enumerate(_DAYS) for form in (day, day[:3], day + "s")}
_DAY_FORMS.update({"tues": 1, "weds": 2, "thur": 3, "thurs": 3})
_GROUPS = {"weekday": range(5), "weekdays": range(5), "weeknight": range(5), "weeknights": range(5),
           "weekend": range(5, 7), "weekends": range(5, 7)}
_EVERY_DAY = re.compile(r"\b(?:daily|every\s+day|seven\s+days|7\s+days|all\s+week|each\s+day)\b", re.IGNORECASE)
_DAY = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|weds|wed|thurs|thur|thu|fri|sat|"
        r"sun)s?\.?")
_DAY_RANGE = re.compile(rf"\b({_DAY})\s*(?:-|–|—|to|through|thru|until|till)\s*({_DAY})(?![\w])", re.IGNORECASE)
_ONE_DAY = re.compile(rf"\b({_DAY}|weekdays?|weekends?|weeknights?)(?![\w])", re.IGNORECASE)
_TIME = r"(?:(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?|(\d{1,2})[:.](\d{2})(?!\d)|(noon|midnight))"
_TIME_RANGE = re.compile(
    rf"{_TIME}\s*(?:-|–|—|to|until|till|through)\s*{_TIME}", re.IGNORECASE)
# A sentence about opening hours; one about a happy hour or a meal's hours is about something else.
_ABOUT_HOURS = re.compile(r"\b(?:open|opens|operat\w*|hours|closes)\b", re.IGNORECASE)
_OTHER_HOURS = re.compile(r"\b(?:happy\s+hours?|brunch|breakfast|lunch|dinner|kitchen|delivery)\b", re.IGNORECASE)
# A day scope belongs to a time range written at most this many words before or after it.
_NEAR_WORDS = 5
_LIST_GAP = re.compile(r"[\s,&]*(?:(?:and|or)\b[\s,]*)?", re.IGNORECASE)
_EXTENDED = re.compile(r"\b(?:extended|longer|later)\s+(?:opening\s+)?hours\b", re.IGNORECASE)
_CLOSED = re.compile(rf"\bclosed\s+(?:on\s+)?({_DAY}|weekends?)(?![\w])", re.IGNORECASE)
_MINUTES_PER_DAY = 24 * 60
# "from 11am to 10pm, with extended hours on weekends": a scope after words of its own is no reading of the range
_OTHER_STATEMENT = re.compile(r"\b(?:hours|extended|longer|later|earlier|shorter|closes|closed|opens)\b", re.IGNORECASE)
# "The truck is open Monday and Thursday": the days right after "open" are days it opens
_OPEN_WORD = re.compile(r"\b(?:open|opens|operates|operating)\b(?:\s+on\b)?", re.IGNORECASE)


@dataclass(frozen=True)
class Hours:
    """A record's opening hours: per day index (0 = Monday), (opens, closes) in minutes after midnight."""

    days: dict[int, tuple[int, int]]
    """The days the record gives hours for."""
    unknown: frozenset[int]
    """Days given as ``0:0-0:0``: not compared."""


@lru_cache(maxsize=1024)
def record_hours(text: str) -> Hours | None:
    """The ``hours`` of ``text`` when it is a JSON object that has them; None otherwise."""
    if not text.lstrip().startswith("{") or '"hours"' not in text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    hours = data.get("hours") if isinstance(data, dict) else None
    if not isinstance(hours, dict):
        return None
    days: dict[int, tuple[int, int]] = {}
    unknown: set[int] = set()
    for key, value in hours.items():
        day = _DAY_FORMS.get(str(key).casefold())
        m = re.fullmatch(r"\s*(\d{1,2}):(\d{1,2})\s*-\s*(\d{1,2}):(\d{1,2})\s*", str(value))
        if day is None or m is None:
            continue
        opens, closes = int(m.group(1)) * 60 + int(m.group(2)), int(m.group(3)) * 60 + int(m.group(4))
        if opens == closes == 0:
            unknown.add(day)
        else:
            days[day] = (opens, closes)
    return Hours(days, frozenset(unknown)) if days or unknown else None


def _day(word: str) -> int | None:
    return _DAY_FORMS.get(word.casefold().rstrip("."))


_Scope = tuple[int, int, frozenset[int], bool]
"""(start, end, days, loose group) of one day scope of a claim."""


def _scopes(claim: str) -> list[_Scope]:
    """Each day scope of ``claim``: ranges, groups, single days and "daily"."""
    out: list[_Scope] = []
    taken: list[tuple[int, int]] = []
    for m in _DAY_RANGE.finditer(claim):
        first, last = _day(m.group(1)), _day(m.group(2))
        if first is None or last is None:
            continue
        span = range(first, last + 1) if first <= last else [*range(first, 7), *range(0, last + 1)]
        out.append((m.start(), m.end(), frozenset(span), False))
        taken.append((m.start(), m.end()))
    for m in _ONE_DAY.finditer(claim):
        if any(a <= m.start() < b for a, b in taken):
            continue
        word = m.group(1).casefold().rstrip(".")
        days = _GROUPS.get(word)
        day = _day(word)
        if days is not None:
            out.append((m.start(), m.end(), frozenset(days), True))
        elif day is not None:
            out.append((m.start(), m.end(), frozenset({day}), False))
    for m in _EVERY_DAY.finditer(claim):
        out.append((m.start(), m.end(), frozenset(range(7)), True))
    return sorted(out)


def _time(groups: tuple[str | None, ...]) -> frozenset[int]:
    """The minutes after midnight one written time may mean (both halves of the day without am/pm)."""
    hour, minute, half, hour24, minute24, word = groups
    if word is not None:
        return frozenset({12 * 60 if word.casefold() == "noon" else 0})
    if hour is not None and half is not None:
        value = int(hour) % 12 * 60 + int(minute or 0) + (12 * 60 if half.casefold() == "p" else 0)
        return frozenset({value})
    assert hour24 is not None and minute24 is not None
    value = int(hour24) * 60 + int(minute24)
    if int(hour24) <= 12:
        return frozenset({value % (12 * 60), value % (12 * 60) + 12 * 60})
    return frozenset({value % _MINUTES_PER_DAY})


def _fits(opens: frozenset[int], closes: frozenset[int], days: frozenset[int], group: bool, hours: Hours) -> bool:
    """Whether the range fits the record on ``days`` (a day the record leaves out is closed): on every one of them,
    or for a loose group ("weekdays", "weekends", "daily") on at least half of them."""
    compared = days - hours.unknown
    fit = sum(1 for day in compared if (given := hours.days.get(day)) is not None and given[0] in opens
              and given[1] % _MINUTES_PER_DAY in closes)
    return fit == len(compared) or (group and 2 * fit >= len(compared))


def _run(scopes: list[_Scope], claim: str, nearest: int, step: int) -> list[_Scope]:
    """The scope at ``nearest`` and the scopes listed with it ("Tuesdays, Wednesdays, and Thursdays")."""
    out = [scopes[nearest]]
    i = nearest + step
    while 0 <= i < len(scopes):
        a, b = (scopes[i], out[-1]) if step < 0 else (out[-1], scopes[i])
        if _LIST_GAP.fullmatch(claim, a[1], b[0]) is None:
            break
        out.append(scopes[i])
        i += step
    return out


def _words_between(claim: str, start: int, end: int) -> int:
    return len(re.findall(r"\w+", claim[start:end])) if end > start else 0


def _open_minutes(day: int, hours: Hours) -> int | None:
    given = hours.days.get(day)
    if given is None:
        return None
    opens, closes = given
    return (closes if closes > opens else closes + _MINUTES_PER_DAY) - opens


def _longer(days: frozenset[int], group: bool, hours: Hours) -> bool:
    """Whether the record keeps ``days`` open longer than the median of its other days (half of a loose group)."""
    others = sorted(m for d in set(hours.days) - days if (m := _open_minutes(d, hours)) is not None)
    compared = [_open_minutes(d, hours) for d in days - hours.unknown]
    if not others or not compared:
        return True
    median = others[len(others) // 2]
    longer = sum(1 for m in compared if m is not None and m > median)
    return longer == len(compared) or (group and 2 * longer >= len(compared))


def _say(days: frozenset[int]) -> str:
    return ", ".join(_DAYS[d].capitalize() for d in sorted(days))


def hours_finding(claim: str, hours: Hours | None) -> str | None:
    """What ``claim`` says against the record's opening hours, or None (see the module docstring)."""
    if hours is None:
        return None
    closed = _closed_finding(claim, hours)
    if closed is not None or _ABOUT_HOURS.search(claim) is None or _OTHER_HOURS.search(claim) is not None:
        return closed
    scopes = _scopes(claim)
    if not scopes:
        return None
    ranges = list(_TIME_RANGE.finditer(claim))
    for i in range(len(ranges)):
        found = _range_finding(claim, ranges, i, scopes, hours)
        if found is not None:
            return found
    return (_extended_finding(claim, scopes, hours) or _open_days_finding(claim, scopes, bool(ranges), hours)
            or _every_day_finding(claim, hours))


def _closed_finding(claim: str, hours: Hours) -> str | None:
    """"closed on Mondays" where the record gives Monday hours."""
    for m in _CLOSED.finditer(claim):
        word = m.group(1).casefold().rstrip(".")
        days = frozenset(_GROUPS[word]) if word in _GROUPS else frozenset({d for d in [_day(word)] if d is not None})
        open_days = days & set(hours.days)
        if open_days:
            return f"the claim says closed on {_say(open_days)}; the record gives hours for it"
    return None


def _readings(claim: str, ranges: list[re.Match[str]], i: int, scopes: list[_Scope]) -> list[list[_Scope]]:
    """The day scopes range ``i`` may be read with: the run right before it and the run right after it."""
    m = ranges[i]
    previous_end = ranges[i - 1].end() if i else 0
    next_start = ranges[i + 1].start() if i + 1 < len(ranges) else len(claim)
    before = [j for j, s in enumerate(scopes) if previous_end <= s[0] and s[1] <= m.start()
              and _words_between(claim, s[1], m.start()) <= _NEAR_WORDS]
    after = [j for j, s in enumerate(scopes) if m.end() <= s[0] and s[1] <= next_start
             and _words_between(claim, m.end(), s[0]) <= _NEAR_WORDS
             and _OTHER_STATEMENT.search(claim, m.end(), s[0]) is None]
    return ([_run(scopes, claim, before[-1], -1)] if before else []) + (
        [_run(scopes, claim, after[0], 1)] if after else [])


def _range_finding(claim: str, ranges: list[re.Match[str]], i: int, scopes: list[_Scope],
                   hours: Hours) -> str | None:
    """A time range that fits the record on none of its readings' days."""
    groups = _readings(claim, ranges, i, scopes)
    if not groups:
        return None
    m = ranges[i]
    opens, closes = _time(m.groups()[:6]), _time(m.groups()[6:])
    for group in groups:
        days = frozenset().union(*(s[2] for s in group))
        # days the sentence gives other hours for ("5 pm - 9 pm Monday through Sunday, until 10 pm on Fridays")
        others = frozenset().union(*(s[2] for s in scopes if s not in group and not s[2] >= days))
        if _fits(opens, closes, days - others or days, any(s[3] for s in group), hours):
            return None
    days = frozenset().union(*(s[2] for s in groups[0]))
    return f"the claim gives {m.group().strip()} for {_say(days)}; the record's hours differ on some of those days"


def _extended_finding(claim: str, scopes: list[_Scope], hours: Hours) -> str | None:
    """"extended hours on weekends" where those days are open no longer than the others."""
    for m in _EXTENDED.finditer(claim):
        after = [j for j, s in enumerate(scopes) if m.end() <= s[0] and _words_between(claim, m.end(), s[0]) <= 3]
        if after:
            group = _run(scopes, claim, after[0], 1)
            days = frozenset().union(*(s[2] for s in group))
            if not _longer(days, any(s[3] for s in group), hours):
                return f"the claim says extended hours on {_say(days)}; the record's hours are no longer then"
    return None


def _open_days_finding(claim: str, scopes: list[_Scope], ranged: bool, hours: Hours) -> str | None:
    """"open Monday and Thursday" (no time range) where the record gives one of them no hours."""
    if ranged:
        return None
    for m in _OPEN_WORD.finditer(claim):
        after = [j for j, s in enumerate(scopes) if m.end() <= s[0] and _words_between(claim, m.end(), s[0]) <= 1]
        if after:
            group = _run(scopes, claim, after[0], 1)
            days = frozenset().union(*(s[2] for s in group if not s[3]))
            closed = days - set(hours.days) - hours.unknown
            if closed:
                return f"the claim says open on {_say(closed)}; the record gives no hours for it"
    return None


def _every_day_finding(claim: str, hours: Hours) -> str | None:
    """"daily" / "seven days a week" where the record gives some day no hours."""
    if _EVERY_DAY.search(claim):
        missing = frozenset(range(7)) - set(hours.days) - hours.unknown
        if missing:
            return f"the claim says open every day; the record gives no hours for {_say(missing)}"
    return None
