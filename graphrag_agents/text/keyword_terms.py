"""The terms of the keyword index: how the write-time statistics and the query-time scorer read a text's words.

A word is a run of letters and digits (``_keys.QUERY_WORD``: ``GIT_SSH_COMMAND`` is ``git``, ``ssh`` and
``command``), lower-cased and reduced by the Snowball English stemmer (``installing`` and ``installs`` are
``instal``), keeping words of two characters or more. An identifier is matched whole and by its parts: a word
joined to the next by ``-``, ``_``, ``.`` or ``/`` with no space (``--dry-run``, ``npm-shrinkwrap.json``,
``GIT_SSH_COMMAND``) adds the whole joined form as one more term, unstemmed (``dry-run``); a word written in
camel case (``optionalDependencies``) adds its parts (``option``, ``depend``) beside the whole word.
On npm's docs (``techdocs_a``) a question that names ``npm-shrinkwrap.json`` is about the section that writes it
whole, not about every section that says "npm" and "shrinkwrap"; and a configuration key written in camel case is
written whole in its own section and by its parts in prose elsewhere.

A text's length is its plain words; a whole identifier or a camel-case part is an extra term that does not lengthen
it. Stop words (``_keys.STOPWORDS``) count toward the length but are never terms.

:data:`TERM_RULE` names this rule: statistics written under another rule are rebuilt, not mixed.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import Stemmer

from .._keys import QUERY_WORD, STOPWORDS

__all__ = ["TERM_RULE", "question_terms", "stem", "text_terms"]

TERM_RULE = 1
"""The version of the term rule above; stored with the statistics (``ingest/keyword_stats.py``)."""
_JOINED = re.compile(r"(?<![^\W_])[^\W_]+(?:[-_./][^\W_]+)+")
"""A run of words joined by ``-``, ``_``, ``.`` or ``/`` without a space: an identifier written whole."""
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_STEMMER = Stemmer.Stemmer("english")
_MAX_JOINED = 64


@lru_cache(maxsize=131_072)
def stem(word: str) -> str:
    """A lower-cased word reduced by the Snowball English stemmer (``caches`` -> ``cach``, ``cached`` -> ``cach``)."""
    return str(_STEMMER.stemWord(word.lower()))


def _camel_parts(word: str) -> list[str]:
    """The parts of a camel-case word (``bundleDependencies`` -> bundle, Dependencies), none for a plain
    one (``npm``, ``NPM``, ``Install``)."""
    if word.islower() or word.isupper() or not any(c.isupper() for c in word[1:]):
        return []
    parts = _CAMEL.findall(word)
    return parts if len(parts) > 1 else []


@lru_cache(maxsize=131_072)
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms one word of a text gives: its stem and its camel-case parts' (none for a stop word)."""
    low = word.lower()
    terms = [stem(low)] if len(low) > 1 and low not in STOPWORDS else []
    return (*terms, *(stem(p) for p in _camel_parts(word) if len(p) > 1 and p.lower() not in STOPWORDS))


@lru_cache(maxsize=4_096)
def text_terms(text: str) -> tuple[dict[str, int], int]:
    """Every term of ``text`` with its count (stop words left out), and the text's length in plain words.

    Remembered per text: a query reads the same chunks question after question."""
    counts: dict[str, int] = {}
    words = Counter(QUERY_WORD.findall(text))  # each distinct word read once
    for word, n in words.items():
        for term in _word_terms(word):
            counts[term] = counts.get(term, 0) + n
    for joined in _JOINED.findall(text):
        if len(joined) <= _MAX_JOINED:
            key = joined.lower()
            counts[key] = counts.get(key, 0) + 1
    return counts, words.total()


def question_terms(question: str) -> list[str]:
    """The distinct terms of a question, in order (as :func:`text_terms` reads a text)."""
    return list(text_terms(question)[0])
