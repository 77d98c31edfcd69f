"""Suggestions: for an uncited sentence, the evidence numbers that would support it if cited (private).

An item is suggested when its text holds every figure and name of the sentence (the literal rule) and, with the
meaning rules on, states them together without a conflict, so a sentence given the suggested marker passes the
check exactly as a cited one would. Newest first (the latest retrieval is the likeliest source), at most three.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..evidence import Evidence
from ..text.names import Name
from ._evidence import EvidenceIndex

__all__ = ["MAX_SUGGESTED", "Holders"]

MAX_SUGGESTED = 3
"""Evidence numbers suggested per uncited sentence."""


class Holders:
    """Finds the evidence items that hold all of a sentence's figures and names (indexes built on demand)."""

    def __init__(self, items: Mapping[int, Evidence], indexes: dict[int, EvidenceIndex],
                 build: Callable[[str], EvidenceIndex] = EvidenceIndex) -> None:
        self.items, self.indexes, self.build = items, indexes, build
        self._newest_first: list[int] | None = None  # sorted on the first search, reused for the next ones

    def index(self, n: int) -> EvidenceIndex:
        """The index of item ``n``, built (or taken from the session's cache) once per check."""
        found = self.indexes.get(n)
        if found is None:
            found = self.indexes[n] = self.build(self.items[n].content)
        return found

    def holding(self, figures: list[str], names: list[Name],
                agrees: Callable[[EvidenceIndex], bool] | None = None) -> list[int]:
        """Up to :data:`MAX_SUGGESTED` numbers, newest first, of items holding every figure and name.

        Args:
            figures: The sentence's figures.
            names: Its names (a lone first word counts).
            agrees: Also required of an item, when given: the meaning rules find no conflict with it.
        """
        if self._newest_first is None:
            self._newest_first = sorted(self.items, reverse=True)
        found: list[int] = []
        for n in self._newest_first:
            index = self.index(n)
            if not all(f in index.figures for f in figures):
                continue
            if not all(w in index.words for nm in names for w in nm.words):
                continue
            if agrees is not None and not agrees(index):
                continue
            found.append(n)
            if len(found) == MAX_SUGGESTED:
                break
        return found
