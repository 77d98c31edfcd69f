"""A long passage shown within a character limit: the lines that answer the question, not the passage's head.

A section of a manual runs to thousands of characters, and the answer to a question about one option often
stands past its first 1,200 (npm's docs: the config section copied onto each command page lists every option,
and the one asked about is one paragraph of many). :func:`excerpt` reads the passage as units (its lines, a long
line cut at its sentences), scores each by the question's content words it holds (folded and stemmed, as the
claim rules compare words; each weighted by how few of the passage's units hold it), and shows the best unit with
its neighbours, after it first, until the limit: the document's order is kept, and ``…`` marks what was left out
before and after. The passage's first unit stays in front (cut to a third of the limit): it says what the passage
is about (a Wikipedia paragraph names its subject there, "Timothy James McVeigh (April 23, 1968 – ...) was ...").
A passage that fits, or that holds none of the question's words, is shown from its head as before. What a passage
and a question give is kept (a few hundred of each), so rendering one result at several limits reads it once.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from .._keys import QUERY_WORD, query_terms
from ..evidence.render import shorten
from ..text.words import fold, stem

__all__ = ["excerpt", "question_terms"]

_LINE = re.compile(r"[^\n]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*])")
_GAP = "… "


def question_terms(question: str) -> frozenset[str]:
    """The question's content words, folded and stemmed (``"Which versions are installed?"`` -> version, install)."""
    return frozenset(stem(fold(w)) for w in query_terms(question))


def _units(text: str) -> list[str]:
    """The passage's lines, each long line cut at its sentence ends, whitespace collapsed; empty ones dropped."""
    units: list[str] = []
    for line in _LINE.findall(text):
        for piece in _SENTENCE_END.split(line):
            flat = " ".join(piece.split())
            if flat:
                units.append(flat)
    return units


def _scores(units: list[str], terms: frozenset[str]) -> list[float]:
    """Each unit's question words, each weighted by how few of the passage's units hold it (a word of every
    line, "npm" in npm's docs, says little about which line answers)."""
    held = [terms & {stem(fold(w)) for w in QUERY_WORD.findall(unit)} for unit in units]
    df = Counter(t for words in held for t in words)
    return [sum(math.log((len(units) + 1) / (df[t] + 0.5)) for t in words) for words in held]


@lru_cache(maxsize=1024)
def _flat(text: str) -> str:
    return " ".join(text.split())


@lru_cache(maxsize=1024)
def _best_unit(text: str, terms: frozenset[str]) -> tuple[list[str], int]:
    """The passage's units and the index of the best one (-1 when none holds a question word), kept for the
    same passage and question: ``to_llm_text`` tries several limits, and a tool renders a result more than once."""
    units = _units(text)
    if not units:
        return units, -1
    scores = _scores(units, terms)
    best = max(range(len(units)), key=lambda i: (scores[i], -i))
    return units, best if scores[best] > 0 else -1


def _window(units: list[str], best: int, limit: int) -> tuple[int, int]:
    """The widest run of units around ``best`` that fits ``limit`` characters, growing after it first."""
    lo = hi = best
    used = len(units[best])
    grown = True
    while grown:
        grown = False
        for side in (hi + 1, lo - 1):
            if 0 <= side < len(units) and used + 1 + len(units[side]) <= limit:
                used += 1 + len(units[side])
                lo, hi = min(lo, side), max(hi, side)
                grown = True
    return lo, hi


def excerpt(text: str, terms: Iterable[str], limit: int) -> str:
    """``text`` within ``limit`` characters: whole when it fits; else the run of lines and sentences around the
    one holding most of ``terms`` (:func:`question_terms`), ``…`` marking each cut; else its head."""
    flat = _flat(text)
    wanted = frozenset(terms)
    if len(flat) <= limit or not wanted:
        return shorten(flat, limit)
    units, best = _best_unit(text, wanted)
    if best < 0:
        return shorten(flat, limit)
    lead = shorten(units[0], limit // 3) if best > 0 else ""
    room = limit - 2 * len(_GAP) - len(lead)
    if len(units[best]) > room:
        return (lead + " " + _GAP if best else "") + shorten(units[best], room)
    lo, hi = _window(units, best, room)
    if lead and (lo == 0 or (lo == 1 and lead == units[0])):
        lead, lo = "", 0
    head = f"{lead} {_GAP}" if lead else (_GAP if lo else "")
    return head + " ".join(units[lo:hi + 1]) + (" …" if hi < len(units) - 1 else "")
