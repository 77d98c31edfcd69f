"""The words and code spans of a claim or an evidence sentence, in order, as written and folded (private).

The rules that compare a claim with the sentence it repeats word for word (a name moved: :mod:`._moved`; an
opposite in a word's place: :mod:`._antonyms`) read the same tokens: a code span is one token (a command, a file,
an option), and a word keeps its inner dots, apostrophes, plus signs and hyphens ("node.js", "don't",
"repository-based"). Both read a claim and the sentences sharing most of its words (:func:`repeated_sentences`,
which the negation in a repeated sentence, :mod:`._negated_copy`, reads too), so the tokens are cached by text: a
session's checks read the same evidence sentences again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from ..text.words import LETTERS, fold
from ._evidence import EvidenceIndex, EvidenceSentence

__all__ = ["SHARED", "Token", "repeated_sentences", "tokens"]

Token = tuple[str, str]
"""(folded word or code span, as written)."""
_TOKEN = re.compile(r"`[^`\n]+`|[^\W_]+(?:[.'’+-][^\W_]+)*")
SHARED = 0.6
"""An evidence sentence is compared with a claim only when it holds this share of the claim's words."""


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of ``text``: each code span whole, each word folded (case and accents), with the text as written."""
    return tuple((m.group() if m.group().startswith("`") else fold(m.group()), m.group())
                 for m in _TOKEN.finditer(text))


@functools.lru_cache(maxsize=1024)
def _plain_words(raw: str) -> frozenset[str]:
    # a code span's words are read as words here: the evidence sentences' word sets hold no backticks
    return frozenset(fold(w) for w in LETTERS.findall(raw))


def repeated_sentences(raw: str, items: Sequence[EvidenceIndex]
                       ) -> Iterator[tuple[EvidenceIndex, int, int, EvidenceSentence]]:
    """The cited sentences that may repeat the claim ``raw``: those holding :data:`SHARED` of its words, each with
    its item and its bounds in the item's text, in the items' order."""
    plain = _plain_words(raw)
    for item in items:
        for (start, end), sentence in zip(item.bounds, item.sentences, strict=False):
            if len(plain & sentence.words) >= SHARED * len(plain):
                yield item, start, end, sentence
