"""Repeated text: whether two passages say the same thing word for word (or nearly), so it is shown once.

Documentation repeats itself: npm's docs copy each config option's section onto every command page that reads
the option ("commands/npm-install.md › Configuration › `save`" is the text of "commands/npm-ci.md ›
Configuration › `save`" and four more pages), and a question about the option found six copies that filled six of
eight passages. Two texts are the same when they are equal once case and whitespace are normalised, and nearly
the same when their 3-shingles of words (split at whitespace, so punctuation stays on its word) overlap by a
Jaccard index of at least :data:`NEAR` (a copy that differs by a link target or a word). Texts too short to hold a
shingle are compared whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["NEAR", "SHINGLE", "Repeats", "text_key"]

NEAR = 0.9
"""Shingle Jaccard index from which two texts are one passage."""
SHINGLE = 3
"""Words per shingle."""
_MARGIN = 0.1


@lru_cache(maxsize=2_048)  # a graph's candidates come back question after question
def text_key(text: str) -> str:
    """``text`` with case and whitespace normalised: equal keys are the same text."""
    return " ".join(text.lower().split())


@lru_cache(maxsize=2_048)
def _shingles(key: str) -> frozenset[int]:
    """The word 3-shingles of a normalised text (:func:`text_key`)."""
    words = key.split()
    # hashed once: a set of tuples hashes each tuple again at every intersection
    return frozenset(map(hash, zip(*(words[i:] for i in range(SHINGLE)), strict=False)))


@dataclass
class Repeats:
    """The texts kept so far, and for a next text the kept one it repeats (if any)."""

    _by_key: dict[str, str] = field(default_factory=dict)
    _by_text: dict[str, str] = field(default_factory=dict)
    _kept: list[tuple[str, int, frozenset[int]]] = field(default_factory=list)

    def original(self, text: str, *, near: bool = True) -> str | None:
        """The id of a kept text ``text`` repeats, else None: the same once normalised or near-same, or with
        ``near`` False the same string only (a dictionary lookup, without normalising ``text``)."""
        if not near:
            return self._by_text.get(text)
        key = text_key(text)
        same = self._by_key.get(key)
        if same is not None or not key or not self._kept:
            return same
        count = key.count(" ") + 2 - SHINGLE  # its shingles, a repeated one counted each time
        # a Jaccard index of NEAR needs shingle sets of sizes within that ratio, so texts whose lengths differ more
        # (with a margin for shingles a text repeats) end here, unshingled: most of them
        close = [(kept, theirs) for kept, n, theirs in self._kept
                 if count > 0 and min(n, count) >= (NEAR - _MARGIN) * max(n, count)]
        if not close:
            return None
        mine = _shingles(key)
        for kept, theirs in close:
            if len(mine & theirs) >= NEAR * len(mine | theirs):
                return kept
        return None

    def keep(self, item_id: str, text: str) -> None:
        """Remember ``text`` as the text of ``item_id``: later repeats of it are folded into it."""
        key = text_key(text)
        if not key:
            return
        self._by_key.setdefault(key, item_id)
        self._by_text.setdefault(text, item_id)
        shingles = _shingles(key)
        if shingles:
            self._kept.append((item_id, key.count(" ") + 2 - SHINGLE, shingles))
