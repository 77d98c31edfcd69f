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


def _capital(word: str) -> bool:
    return word[:1].isupper()


def _inner(word: str) -> bool:
    return _capital(word) or word[:1].isdigit() or word.lower() in _INSIDE


@functools.lru_cache(maxsize=2048)
def written_names(text: str) -> tuple[str, ...]:
    """The spans of ``text`` written like a name (module docstring), in order of their first word, at most
    ``MAX_NAMES``; each starts and ends on a capitalised word and is not a lone stopword ("He", "The")."""
    words = text.split()
    names: dict[str, None] = {}
    for start, first in enumerate(words):
        head = _clean(first)
        if not _capital(head):
            continue
        parts: list[str] = []
        for i in range(start, min(len(words), start + MAX_WORDS)):
            raw = words[i]
            if i > start and raw[:1] in _OPEN:
                break  # a parenthesis or a quote opens another phrase
            word = _clean(raw)
            if not word or not _inner(word):
                break
            parts.append(raw if i > start else raw.lstrip(_OPEN))
            stop = bool(_STOP.search(raw.rstrip(","))) and not _INITIAL.match(raw.lstrip(_OPEN))
            if (_capital(word) and not (i == start and word.lower() in STOPWORDS)
                    and (stop or raw.endswith(",") or not _capital(_next(words, i)))):
                names.setdefault(" ".join([*parts[:-1], word]), None)
                if len(names) >= MAX_NAMES:
                    return tuple(names)
            if stop:
                break
    return tuple(names)


def _next(words: list[str], i: int) -> str:
    """The word after ``i`` as a name would continue with it ("" when none would)."""
    if i + 1 >= len(words) or words[i + 1][:1] in _OPEN:
        return ""
    return _clean(words[i + 1])
