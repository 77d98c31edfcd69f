"""Text normalisation shared by every claim rule (private).

Both the answer and the evidence are read after NFKC normalisation (full-width ``２`` is ``2``); words are
compared case- and accent-insensitively (``Zürich`` = ``zurich``). Every pattern here runs in linear time.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .._keys import unaccented

__all__ = ["LETTERS", "claim_text", "fold", "stem"]

LETTERS = re.compile(r"[^\W\d_]+")
"""A run of letters: the unit every word comparison uses (``Sno*Drift`` is ``sno`` and ``drift``)."""
_LINK = re.compile(r"!?\[([^\[\]\n]{0,500})\]\([^()\s]{0,2000}\)")
_URL = re.compile(r"(?:https?://|www\.)\S+")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,200}>")
# Emphasis marks are Markdown syntax only at a word's edge (``**Acme**``); inside a word they are part of the
# name as the evidence writes it (``Sno*Drift``), so they stay and split the word like the evidence's does.
_EMPHASIS = re.compile(r"(?<![^\W_])[*_~`]+|[*_~`]+(?![^\W_])")
_SUFFIXES = ("ing", "ed", "es", "s")


@lru_cache(maxsize=65_536)
def fold(word: str) -> str:
    """Case- and accent-insensitive form of a word."""
    return unaccented(word.casefold())


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A folded word without a plural or tense ending (``written`` stays, ``directed`` -> ``direct``)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


def claim_text(sentence: str) -> str:
    """The sentence without Markdown syntax, link targets, URLs and HTML tags (the caller removes markers)."""
    text = unicodedata.normalize("NFKC", sentence)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _HTML_TAG.sub(" ", text)
    return _EMPHASIS.sub("", text)
