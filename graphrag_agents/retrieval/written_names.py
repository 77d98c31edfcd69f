"""The names a passage writes, read from its text: the spans the titled hop looks up as document titles.

The titled hop (:mod:`.bridge`) follows the entities the extractor found in a passage, and an extractor often
cuts a long name: "the daughter of Hugh IV, Duke of Burgundy" gives "Hugh IV" and "Burgundy", "his wife Marie
of Artois" gives "Marie" and "Artois", and neither is the title "Hugh IV, Duke of Burgundy" or "Marie of
Artois" of the paragraph the question needs next. So the titled hop also looks up the spans the text itself
writes as a name: from a capitalised word, through capitalised words, numbers and the small words inside names
("of", "de", "von", ...), commas included ("Louis, Count of Évreux"), ending on a capitalised word where a name
can end (before a comma, a small word or a word that is not capitalised: "George Grey, 2nd Earl of Kent" gives
"George Grey" and "George Grey, 2nd Earl of Kent" but not "George"), never past the end of a sentence or into a
parenthesis. Every such span of up to ``MAX_WORDS`` words is a candidate (most title nothing; the lookup is one
index seek each).

No model: a word's case and punctuation only. Bounds: ``MAX_WORDS`` words a span, ``MAX_NAMES`` spans a
passage (the earliest first).
"""

from __future__ import annotations

import functools
import re

from .fulltext import STOPWORDS

__all__ = ["MAX_NAMES", "MAX_WORDS", "written_names"]

MAX_WORDS = 8
"""Longest span looked up, in words ("Christian August of Holstein-Gottorp, Prince of Eutin" is 7)."""
MAX_NAMES = 150
"""Spans looked up per passage, the earliest first."""
_INSIDE = frozenset("of the de del della des di da do du dos von van der den zu zur und y e la le las los al bin "
                    "ibn and".split())
"""Lower-case words a name can hold between capitalised ones."""
_OPEN = "(\"'“‘[«"
_CLOSE = ")\"'”’]».,;:!?"
_STOP = re.compile(r"[.;:!?)\]\"”»]$")
"""A word ending like this ends the sentence or the phrase: no span goes past it."""
_INITIAL = re.compile(r"^(?:[^\W\d_]{1,2}|St|Mr|Mrs|Dr|Jr|Sr)\.$")
"""An initial or an abbreviation ("J.", "St.") does not end a sentence."""


def _clean(word: str) -> str:
    word = word.lstrip(_OPEN).rstrip(_CLOSE)
    for suffix in ("'s", "’s"):
        if word.endswith(suffix):
            word = word[: -len(suffix)]
    return word


@functools.lru_cache(maxsize=16384)
def _shape(word: str) -> tuple[str, bool, bool, bool, bool, bool, bool]:
    """What the span rule reads of a word, computed once per distinct word (most words recur across passages):
    its clean form, whether it is capitalised, can stand inside a name, opens a phrase, ends a sentence or
    phrase, ends with a comma, and is a capitalised stopword ("He", "The": no name starts with one alone)."""
    clean = _clean(word)
    capital = clean[:1].isupper()
    inner = bool(clean) and (capital or clean[:1].isdigit() or clean.lower() in _INSIDE)
    stops = bool(_STOP.search(word.rstrip(","))) and not _INITIAL.match(word.lstrip(_OPEN))
    return (clean, capital, inner, word[:1] in _OPEN, stops, word.endswith(","),
            capital and clean.lower() in STOPWORDS)


@functools.lru_cache(maxsize=2048)
def written_names(text: str) -> tuple[str, ...]:
    """The spans of ``text`` written like a name (module docstring), in order of their first word, at most
    ``MAX_NAMES``; each starts and ends on a capitalised word and is not a lone stopword ("He", "The")."""
    words = text.split()
    shapes = [_shape(w) for w in words]
    # whether a name goes on with the next word's capital (then it cannot end here)
    goes_on = [i + 1 < len(words) and not shapes[i + 1][3] and shapes[i + 1][1] for i in range(len(words))]
    names: dict[str, None] = {}
    for start in range(len(words)):
        if not shapes[start][1]:
            continue
        first = words[start].lstrip(_OPEN)
        for i in range(start, min(len(words), start + MAX_WORDS)):
            clean, capital, inner, opens, stops, comma, stopword = shapes[i]
            if (i > start and opens) or not inner:
                break  # a parenthesis or a quote opens another phrase; a lower-case word ends the name
            if capital and not (i == start and stopword) and (stops or comma or not goes_on[i]):
                names.setdefault(clean if i == start else " ".join([first, *words[start + 1:i], clean]), None)
                if len(names) >= MAX_NAMES:
                    return tuple(names)
            if stops:
                break
    return tuple(names)
