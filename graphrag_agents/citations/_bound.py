"""Values bound to their subject: a claim that pairs a subject with the value a cited passage gives for another
(private).

Technical text gives one setting several values, one per subject: per platform ("'/bin/sh' on POSIX systems,
'cmd.exe' on Windows"), per list item ("* Default: false" / "* Type: Boolean"), per label ("macOS: `"open"`,
Windows: `"start"`"). A claim that pairs one subject with another subject's value holds every word and value of the
passage, in the same sentence, so the literal rules, the sentence rules and claim support all pass it. This rule
reads which value belongs to which subject from the passage's structure, not from distance:

* a list of items ``* HEAD: VALUE`` binds each value to its item's head;
* a clause (a sentence cut at commas, semicolons and "or") that opens or ends with "on / for / in SUBJECT", or
  opens with "SUBJECT:", binds the quoted or code values it holds to that subject; a sentence that opens with
  "On SUBJECT," binds the values of its clauses that name no subject of their own.

A claim clause that names exactly one of a passage's subjects (a word of it, as a whole word; a clause naming none
reads the subject of a claim that opens with "On SUBJECT,") and holds a value the passage binds to another of
them, and never to this one, is a finding. A value is a code span, a quoted string
or a list item's short value, compared without its quotes and case; the longest value a clause holds is read, so
```{prefix}/bin``` is not ```{prefix}```. Subjects and values come from the passage only, so prose with no such
structure (and no code or quotes) gives the rule nothing to read.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..text.words import LETTERS, fold

__all__ = ["ENABLED", "Binding", "bindings", "bound_value_finding"]

ENABLED = True
"""Switch for ``benchmarks/citation_perturbations.py --without-bound-values``."""

_ITEM = re.compile(r"[ \t]*[*\-+][ \t]+`?([^:`\n]{1,40}?)`?:[ \t]+(\S[^\n]{0,200})")
_VALUE = re.compile(r"`([^`\n]{1,80})`|(?<![\w'])'([^'\n]{1,80})'(?![\w'])|\"([^\"\n]{1,80})\"")
_SUBJECT_WORDS = r"(?:a\s+|the\s+)?([A-Z][A-Za-z0-9]*)(?:-like)?(?:\s+systems?)?"
_LEADING = re.compile(r"\s*(?:\*\s+)?(?:[A-Z][a-z]+:\s+)?(?:on|for|in)\s+" + _SUBJECT_WORDS + r"\b", re.IGNORECASE)
_TRAILING = re.compile(r"\b(?:on|for|in)\s+" + _SUBJECT_WORDS + r"$")
_LABEL = re.compile(r"\s*(?:\*\s+)?(?:[A-Z][a-z]+:\s+)?([A-Z][A-Za-z0-9]*):\s+(?=[`'\"])")
_CLAUSES = re.compile(r"[,;]\s*(?:or\s+)?|\s+or\s+")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|\n")
_FRONTED = re.compile(r"(?:on|for|in)\s+" + _SUBJECT_WORDS + r",", re.IGNORECASE)
# A list item's value of more than this many words is prose, no value to compare.
_VALUE_WORDS = 6
_LOWER_OPENERS = frozenset({"on", "for", "in"})


@dataclass(frozen=True)
class Binding:
    """One value a passage gives for one subject."""

    subject: str
    """The subject's key: its first word, folded ("posix" for "POSIX systems")."""
    value: str
    """The value, without quotes, folded, spaces collapsed."""
    shown: str
    """The value as the passage writes it."""
    group: int
    """Bindings of one structure (one list, one passage's clauses) share a group."""


def _norm(value: str) -> str:
    return " ".join(fold(value).split())


def _values(clause: str) -> list[str]:
    return [next(g for g in m.groups() if g is not None) for m in _VALUE.finditer(clause)]


def _list_bindings(text: str, group: int) -> list[Binding]:
    """Each run of list items ``* HEAD: VALUE`` is one group."""
    out: list[Binding] = []
    for line in text.splitlines():
        m = _ITEM.fullmatch(line)
        if m is None:
            group += 1
            continue
        value = m.group(2).strip()
        quoted = _values(value)
        shown = quoted[0] if len(quoted) == 1 and len(value.strip("`'\". ")) == len(quoted[0]) else value.rstrip(".")
        if len(shown.split()) <= _VALUE_WORDS and not _LABEL.match(value) and " on " not in value:
            out.append(Binding(fold(m.group(1).split()[0]), _norm(shown), shown, group))
    return out


def _clause_subject(clause: str) -> str | None:
    for pattern in (_LEADING, _TRAILING, _LABEL):
        m = pattern.match(clause) if pattern is not _TRAILING else pattern.search(clause.rstrip(" \t.)"))
        if m is not None and not (pattern is _LEADING and m.group(1).casefold() in _LOWER_OPENERS):
            return fold(m.group(1))
    return None


def _clause_bindings(text: str, group: int) -> list[Binding]:
    """Values in clauses with a subject of their own, or in a sentence fronted by "On SUBJECT,"."""
    out: list[Binding] = []
    for sentence in _SENTENCES.split(text):
        fronted = _FRONTED.match(sentence.strip())
        own = fold(fronted.group(1)) if fronted else None
        for clause in _CLAUSES.split(sentence):
            subject = _clause_subject(clause) or own
            if subject is None:
                continue
            out += [Binding(subject, _norm(v), v, group) for v in _values(clause)]
    return out


@lru_cache(maxsize=1024)
def bindings(text: str) -> tuple[Binding, ...]:
    """The values ``text`` binds to subjects, in groups where two or more subjects have values of their own."""
    found = _list_bindings(text, 0) + _clause_bindings(text, 1_000_000)
    out: list[Binding] = []
    for group in {b.group for b in found}:
        members = [b for b in found if b.group == group]
        if len({b.subject for b in members}) >= 2 and len({b.value for b in members}) >= 2:
            out += [b for b in members if len(b.value) >= 2]
    return tuple(out)


def _clean(text: str) -> str:
    """``text`` without quotes and backticks, folded, spaces collapsed: where values are looked for."""
    return _norm(text.replace("`", " ").replace('"', " ").replace("'", " "))


def _held(folded: str, values: set[str]) -> list[tuple[int, str]]:
    """(offset, value) of each value ``folded`` holds whole, a value inside a longer one it holds left out."""
    spans: list[tuple[int, int, str]] = []
    for value in values:
        plain = _clean(value)
        start = folded.find(plain) if plain else -1
        while start >= 0:
            end = start + len(plain)
            if _whole(folded, start, end):
                spans.append((start, end, value))
            start = folded.find(plain, start + 1)
    return [(s, v) for s, e, v in spans if not any(a <= s and e <= b and (a, b) != (s, e) for a, b, _ in spans)]


def _whole(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a whole value: not part of a word or of a longer path."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    further = text[end + 1] if end + 1 < len(text) else " "
    if before.isalnum() or before in "/\\" or after.isalnum():
        return False
    return not (after in "/\\." and not further.isspace())


def bound_value_finding(claim: str, texts: Sequence[str]) -> str | None:
    """What ``claim`` pairs with another subject's value in a cited passage (see the module docstring), or None.

    Args:
        claim: The cited sentence with its code spans and quotes (markers removed).
        texts: The cited evidence texts.
    """
    if not ENABLED:
        return None
    for text in texts:
        found = bindings(text)
        for group in {b.group for b in found}:
            finding = _group_finding(claim, [b for b in found if b.group == group])
            if finding is not None:
                return finding
    return None


def _group_finding(claim: str, group: list[Binding]) -> str | None:
    """The first value of ``group`` a claim clause pairs with a subject it is not given for. Values are found in
    the whole claim (a value may hold a comma or "or": ``null or String``), each read in the clause it starts in."""
    subjects = {b.subject for b in group}
    fronted = _FRONTED.match(claim.strip())
    opening = fold(fronted.group(1)) if fronted and fold(fronted.group(1)) in subjects else None
    folded = _clean(claim)
    cuts = [0] + [m.end() for m in _CLAUSES.finditer(folded)]
    ends = [m.start() for m in _CLAUSES.finditer(folded)] + [len(folded)]
    for start, value in sorted(_held(folded, {b.value for b in group})):
        i = bisect_right(cuts, start) - 1
        named = subjects & {w for w in LETTERS.findall(folded[cuts[i]:ends[i]])}
        if not named and opening is not None:
            named = {opening}  # "On Windows, the default is ...": the sentence's fronted subject
        if len(named) != 1:
            continue
        subject = next(iter(named))
        if any(b.subject == subject and b.value == value for b in group):
            continue
        other = next(b for b in group if b.value == value)
        mine = next((b.shown for b in group if b.subject == subject), "")
        return (f"the claim pairs {subject} with {other.shown}; the passage gives that for {other.subject}"
                + (f" and {mine} for {subject}" if mine else ""))
    return None
