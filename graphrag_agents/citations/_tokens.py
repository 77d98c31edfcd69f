"""The words and code spans of a claim or an evidence sentence, in order, as written and folded (private).

The rules that compare a claim with the sentence it repeats word for word (a name moved: :mod:`._moved`; an
opposite in a word's place: :mod:`._antonyms`) read the same tokens: a code span is one token (a command, a file,
an option), and a word keeps its inner dots, apostrophes, plus signs and hyphens ("node.js", "don't",
"repository-based"). Both read a claim and the sentences sharing most of its words, so the tokens are cached by
text: a session's checks read the same evidence sentences again.
"""

from __future__ import annotations

import functools
import re

from ..text.words import fold

__all__ = ["Token", "tokens"]

Token = tuple[str, str]
"""(folded word or code span, as written)."""
_TOKEN = re.compile(r"`[^`\n]+`|[^\W_]+(?:[.'’+-][^\W_]+)*")


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of ``text``: each code span whole, each word folded (case and accents), with the text as written."""
    return tuple((m.group() if m.group().startswith("`") else fold(m.group()), m.group())
                 for m in _TOKEN.finditer(text))
