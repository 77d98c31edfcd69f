"""An evidence item's sentences as spans of its content: where each one starts and ends, and its word keys (private).

The check reads an item's text after NFKC normalisation (:class:`~._evidence.EvidenceIndex`), but a span a caller
highlights must point into the item's ``content`` as it was given. :func:`content_offsets` maps the one to the
other (the identity for the usual text NFKC leaves alone), and :func:`evidence_spans` gives each sentence's span
in ``content``, trimmed of surrounding spaces, with the keys a claim's words are looked up by (:mod:`._lemmas`'
word keys and the figures, :mod:`._figures`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..text.words import LETTERS
from ._figures import extract_figures
from ._lemmas import split_compound, word_key

__all__ = ["SpanSentence", "content_offsets", "evidence_spans", "sentence_keys"]

_PREFIX = 6
"""Keys of this many letters or more also match by their first six (as :func:`~._lemmas.key_found` does)."""
_PRONOUNS = frozenset("he she it they his her its their him them".split())


@dataclass(frozen=True)
class SpanSentence:
    """One sentence of an evidence item, as a span of its ``content``."""

    start: int
    """Offset of its first character in the item's content."""
    end: int
    """Offset just past its last character."""
    keys: frozenset[str]
    """The word keys of its words (compounds split) and its figures."""
    prefixes: frozenset[str]
    """The six-letter prefixes of its long keys."""
    context: frozenset[str] = frozenset()
    """For a sentence opening with a personal pronoun, the keys of the capitalised words of the item's first
    sentence and of the sentence before: whom "He" may stand for."""


@lru_cache(maxsize=65_536)
def _word_keys(word: str) -> tuple[str, ...]:
    """The key of a word and of each part of a compound ("OutdoorSeating")."""
    if len(word) < 3:
        return (word_key(word),)
    return (word_key(word), *(word_key(part) for part in split_compound(word) if len(part) >= 3))


def sentence_keys(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(keys, six-letter prefixes of long keys) of ``text``'s words (compounds split) and its figures."""
    keys: set[str] = set(extract_figures(text))
    for word in set(LETTERS.findall(text)):
        keys.update(_word_keys(word))
    return frozenset(keys), frozenset(k[:_PREFIX] for k in keys if len(k) >= _PREFIX)


def content_offsets(content: str, text: str) -> list[int] | None:
    """For each offset of ``text`` (``content`` NFKC-normalised) and its end, the offset in ``content``; None when
    the two are the same text. A character NFKC expands ("ﬁ" -> "fi") maps each of its parts to itself; a base
    character and the combining marks NFKC composes with it map to the base."""
    if text == content:
        return None
    out: list[int] = []
    i = 0
    while i < len(content):
        j = i + 1
        while j < len(content) and unicodedata.combining(content[j]):
            j += 1
        out += [i] * len(unicodedata.normalize("NFKC", content[i:j]))
        i = j
    out.append(len(content))
    if len(out) != len(text) + 1:
        # composition across clusters (Hangul jamo): spread the offsets evenly, still inside the content
        scale = len(content) / max(1, len(text))
        return [min(len(content), round(k * scale)) for k in range(len(text) + 1)]
    return out


def _capitalised_keys(text: str) -> frozenset[str]:
    return frozenset(word_key(w) for w in LETTERS.findall(text) if len(w) >= 3 and w[0].isupper())


def evidence_spans(content: str, text: str, bounds: Sequence[tuple[int, int]]) -> tuple[SpanSentence, ...]:
    """Each sentence ``text[start:end]`` of ``bounds`` as a span of ``content``, trimmed, with its keys."""
    offsets = content_offsets(content, text)
    out: list[SpanSentence] = []
    first: str | None = None
    topic: frozenset[str] | None = None
    before = ""
    for start, end in bounds:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start == end:
            continue
        sentence = text[start:end]
        keys, prefixes = sentence_keys(sentence)
        opening = LETTERS.search(sentence)
        context: frozenset[str] = frozenset()
        if first is not None and opening is not None and opening.group().casefold() in _PRONOUNS:
            # whom "He" may stand for, read only for a sentence that opens with a pronoun
            topic = _capitalised_keys(first) if topic is None else topic
            context = (topic | _capitalised_keys(before)) - keys
        first = sentence if first is None else first
        before = sentence
        if offsets is not None:
            start, end = offsets[start], max(offsets[end], offsets[end - 1] + 1)
        out.append(SpanSentence(start=start, end=end, keys=keys, prefixes=prefixes, context=context))
    return tuple(out)
