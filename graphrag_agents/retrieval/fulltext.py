"""Turn free text into a safe full-text (RediSearch) query: words only, stopwords out, OR-ed."""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "fulltext_query", "query_terms"]

STOPWORDS = frozenset(
    "a an and are as at be been but by did do does for from had has have how i in into is it its of on "
    "or that the their them there these they this those to was were what when where which who whom whose "
    "why will with would you your he she his her him we our us not no can could than then also about "
    "after before during while one both same other such only own so too very s t just over under again "
    "further once more most some any each few all name named called known ".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_MAX_TERMS = 32


def query_terms(text: str) -> list[str]:
    """Distinct lower-cased content words of ``text``, in order (at most 32)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)[:_MAX_TERMS]


def fulltext_query(text: str) -> str | None:
    """An OR query over the content words; None when nothing is left to search.

    Only word characters reach the query, so no RediSearch operator (``@``, ``-``, ``|``, quotes, braces) can
    come from user text.
    """
    terms = query_terms(text)
    return " | ".join(terms) if terms else None
