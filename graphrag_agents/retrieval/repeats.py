"""Repeated text: whether two passages say the same thing word for word (or nearly), so it is shown once.

Documentation repeats itself: npm's docs copy each config option's section onto every command page that reads
the option ("commands/npm-install.md › Configuration › `save`" is the text of "commands/npm-ci.md ›
Configuration › `save`" and four more pages), and a question about the option found six copies that filled six of
eight passages. Two texts are the same when they are equal once case and whitespace are normalised, and nearly
the same when their word 3-shingles overlap by a Jaccard index of at least :data:`NEAR` (a copy that differs by a
link target or a word). Texts too short to hold a shingle are compared whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["NEAR", "SHINGLE", "Repeats", "text_key"]

NEAR = 0.9
"""Shingle Jaccard index from which two texts are one passage."""
SHINGLE = 3
"""Words per shingle."""
_WORD = re.compile(r"\w+")


def text_key(text: str) -> str:
    """``text`` with case and whitespace normalised: equal keys are the same text."""
    return " ".join(text.lower().split())


def _shingles(text: str) -> frozenset[int]:
    words = _WORD.findall(text.lower())
    return frozenset(hash(tuple(words[i:i + SHINGLE])) for i in range(len(words) - SHINGLE + 1))


@dataclass
class Repeats:
    """The texts kept so far, and for a next text the kept one it repeats (if any)."""

    _by_key: dict[str, str] = field(default_factory=dict)
    _shingled: list[tuple[str, frozenset[int]]] = field(default_factory=list)

    def original(self, text: str) -> str | None:
        """The id of a kept text ``text`` repeats (the same or near-same), else None."""
        key = text_key(text)
        same = self._by_key.get(key)
        if same is not None or not key:
            return same
        mine = _shingles(text)
        if not mine:
            return None
        for kept, theirs in self._shingled:
            # a Jaccard index of NEAR needs sizes within that ratio: most pairs end here
            small, large = sorted((len(mine), len(theirs)))
            if small >= NEAR * large and len(mine & theirs) >= NEAR * len(mine | theirs):
                return kept
        return None

    def keep(self, item_id: str, text: str) -> None:
        """Remember ``text`` as the text of ``item_id``: later repeats of it are folded into it."""
        key = text_key(text)
        if not key:
            return
        self._by_key.setdefault(key, item_id)
        shingles = _shingles(text)
        if shingles:
            self._shingled.append((item_id, shingles))
