"""Evidence items and the per-session ledger that numbers them.

Every entity, relation, fact and passage a tool returns, and each ``status`` / ``get_ontology`` result as a
whole, becomes one :class:`Evidence` with a number ``n`` that runs across all calls of a session.
``check_citations`` checks an answer's ``[n]`` markers against this ledger.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["Evidence", "EvidenceKind", "EvidenceLedger"]

EvidenceKind = Literal["entity", "relation", "fact", "passage", "status", "ontology"]


class Evidence(BaseModel):
    """One numbered piece of evidence a tool returned."""

    n: int = Field(description="The evidence number an answer cites as [n].")
    tool: str = Field(description="The tool that returned it, e.g. 'retrieve'.")
    kind: EvidenceKind = Field(description="What it is: entity, relation, fact, passage, status or ontology.")
    content: str = Field(description="The text the citation check searches for figures and names.")
    source: str | None = Field(default=None, description="Document id or file the item came from (not searched).")
    sources: list[str] = Field(default_factory=list, description="Every document id or file the item's text came "
                               "from, when it stands in several (a passage repeated across pages is one item); a "
                               "citation of it is valid for each (not searched).")


class EvidenceLedger:
    """Numbers evidence across calls and keeps the newest ``capacity`` items.

    The same (kind, key) returned twice keeps its first number, so repeated retrieval does not inflate numbers;
    a relation returned as a fact and as a link is the same item.
    """

    def __init__(self, capacity: int = 2000) -> None:
        if capacity < 1:
            raise ValueError("ledger capacity must be at least 1")
        self.capacity = capacity
        self._items: OrderedDict[int, Evidence] = OrderedDict()
        self._by_key: dict[tuple[str, str], int] = {}
        self._next = 1

    def add(self, tool: str, kind: EvidenceKind, content: str, source: str | None = None,
            key: str | None = None, *, sources: Sequence[str] = (), aliases: Sequence[str] = ()) -> Evidence:
        """Number one item; ``key`` (default: the content) identifies repeats of the same item.

        ``sources``: every source of an item standing in several (``source`` is the first); ``aliases``: other
        keys of the same item (the chunks a repeated passage was folded from), which get its number too.
        """
        # A fact is a relation found by its sentence: the same relation from both paths is one piece of evidence.
        kind_key = "relation" if kind == "fact" else kind
        dedup = (kind_key, key if key is not None else content)
        known = next((n for k in (dedup, *((kind_key, a) for a in aliases))
                      if (n := self._by_key.get(k)) is not None and n in self._items), None)
        if known is not None:
            self._items.move_to_end(known)
            have = self._items[known]
            have.sources = list(dict.fromkeys([*have.sources, *sources]))
            for a in (dedup[1], *aliases):
                self._by_key.setdefault((kind_key, a), known)
            return have
        item = Evidence(n=self._next, tool=tool, kind=kind, content=content, source=source,
                        sources=list(dict.fromkeys(sources)))
        self._next += 1
        self._items[item.n] = item
        self._by_key[dedup] = item.n
        for a in aliases:
            self._by_key[(kind_key, a)] = item.n
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
        return item

    def get(self, n: int) -> Evidence | None:
        """The item numbered ``n``, or None when it was never issued or has been dropped."""
        return self._items.get(n)

    def drop(self, numbers: Iterable[int]) -> None:
        """Forget items (e.g. cut from an MCP reply) so they can no longer be cited."""
        for n in numbers:
            self._items.pop(n, None)

    def items(self) -> list[Evidence]:
        """Every item still held, oldest first."""
        return list(self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, n: object) -> bool:
        return n in self._items
