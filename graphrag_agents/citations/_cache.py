"""A session's cache of evidence indexes: each item's words, sentences and parses are read once (private).

A session checks several drafts against the same evidence (a draft, its revision, the gate's second look); the
index of an item (:class:`~._evidence.EvidenceIndex`: its figures, words, word keys, sentences) is the costly
part of a check, so a session keeps one per evidence text, the newest :data:`CAPACITY` of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ._evidence import EvidenceIndex

__all__ = ["CAPACITY", "IndexCache"]

CAPACITY = 4000
"""Evidence texts a cache keeps (twice a default ledger's capacity: a ledger's content may change by key)."""


class IndexCache:
    """Evidence indexes by evidence text, least recently used dropped first; safe to share between threads."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._by_text: OrderedDict[str, EvidenceIndex] = OrderedDict()
        self._lock = threading.Lock()

    def index(self, content: str) -> EvidenceIndex:
        """The index of one evidence text, built on first use."""
        with self._lock:
            found = self._by_text.get(content)
            if found is not None:
                self._by_text.move_to_end(content)
                return found
        built = EvidenceIndex(content)
        with self._lock:
            found = self._by_text.setdefault(content, built)
            while len(self._by_text) > self.capacity:
                self._by_text.popitem(last=False)
        return found

    def __len__(self) -> int:
        return len(self._by_text)
