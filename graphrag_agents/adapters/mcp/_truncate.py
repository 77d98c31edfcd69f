"""Shorten a tool result's JSON to a character limit, keeping it valid JSON and its structure intact.

The limit counts the characters of the compact JSON (``ensure_ascii=False``). Order of cuts:

1. a string outside every collection longer than a quarter of the limit is cut to that size first (one huge
   text, e.g. an echoed answer, would otherwise empty every list before the text itself is touched);
2. the longest collection first, at any depth: trailing items are removed from it until the result fits or it
   is no longer than the next longest one. A collection is a list, or a dict with more keys than any result
   model has fields (``entity_labels`` and the like); tuples (``(source, target)`` patterns) are never cut;
3. then the longest strings, down to 64 characters, ending in ``…``.

No key is ever removed, so the result still fits its model and output schema. Every evidence item cut or
shortened is reported in ``damaged``: an item removed from a list, with everything numbered inside it, and the
nearest enclosing object with an integer ``n`` of anything shortened (a passage whose text was cut, an
ontology whose type list was cut). The caller drops those numbers from the session, so they cannot be cited.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OVERSIZED_MAP_KEYS", "ResultTooLarge", "Truncation", "json_size", "truncate_json"]

OVERSIZED_MAP_KEYS = 32
"""A dict with at least this many keys is a collection (a map of labels), not a result object."""
_MIN_STRING = 64
_ELLIPSIS = "…"
_NOTE_RESERVE = 700


class ResultTooLarge(Exception):
    """The result cannot be brought under the limit without removing keys."""


def json_size(value: Any) -> int:
    """Characters of ``value`` as compact JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


@dataclass
class Truncation:
    """The outcome of :func:`truncate_json`."""

    data: dict[str, Any]
    """The (possibly shortened) result; a new object when anything was cut."""
    truncated: bool = False
    cut_lists: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Label of each cut collection (``passages``, ``sources``, ``documents[].chunks``) -> (before, after)."""
    cut_strings: list[str] = field(default_factory=list)
    """Labels of shortened strings (``passages[].text``)."""
    damaged: set[int] = field(default_factory=set)
    """Evidence numbers of items cut or shortened."""

    def note(self, limit: int, dropped: int) -> str:
        """The hint naming what was cut."""
        parts = [f"{label} ({before} → {after})" for label, (before, after) in self.cut_lists.items()]
        text = f"Result shortened to fit {limit:,} characters"
        if parts:
            text += ": cut the longest lists, " + ", ".join(parts[:8]) + (", …" if len(parts) > 8 else "")
        if self.cut_strings:
            labels = list(dict.fromkeys(self.cut_strings))
            text += ("; " if parts else ": ") + "shortened long text in " + ", ".join(labels[:6])
            text += ", …" if len(labels) > 6 else ""
        text += "."
        if dropped:
            text += (f" {dropped} evidence item{'s' if dropped != 1 else ''} cut or shortened here "
                     f"{'were' if dropped != 1 else 'was'} dropped from this session and cannot be cited.")
        return text + " Narrow the call (fewer paths, a lower top_k, document_ids) to see the rest."


@dataclass
class _Node:
    """A collection or string found in the tree, with where it sits."""

    parent: Any
    key: Any
    label: str
    owner: int | None
    """The ``n`` of the nearest enclosing object that has one."""
    size: int
    loose: bool = False
    """A string outside every collection: removing items cannot make it smaller."""


def _evidence_number(node: Any) -> int | None:
    if isinstance(node, dict):
        n = node.get("n")
        if isinstance(n, int) and not isinstance(n, bool):
            return n
    return None


def _numbers_in(node: Any) -> Iterator[int]:
    if isinstance(node, dict):
        n = _evidence_number(node)
        if n is not None:
            yield n
        for value in node.values():
            yield from _numbers_in(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _numbers_in(value)


def _is_collection(node: Any) -> bool:
    return isinstance(node, list) or (isinstance(node, dict) and len(node) >= OVERSIZED_MAP_KEYS)


def _child_label(label: str, parent: Any, key: Any) -> str:
    if isinstance(parent, dict) and not _is_collection(parent):
        return f"{label}.{key}" if label else str(key)
    return f"{label}[]" if isinstance(parent, list) else f"{label}.*"


def _walk(root: dict[str, Any]) -> tuple[int, list[_Node], list[_Node]]:
    """Size of ``root`` and every collection and string in it, sizes computed bottom-up in one pass."""
    collections: list[_Node] = []
    strings: list[_Node] = []

    def visit(node: Any, parent: Any, key: Any, label: str, owner: int | None, loose: bool) -> int:
        if isinstance(node, str):
            size = json_size(node)
            if parent is not None:
                strings.append(_Node(parent, key, label, owner, len(node), loose))
            return size
        inside = loose and not _is_collection(node)
        if isinstance(node, dict):
            inner = _evidence_number(node)
            own = inner if inner is not None else owner
            size = 2 + max(len(node) - 1, 0)
            for k, v in node.items():
                size += json_size(str(k)) + 1 + visit(v, node, k, _child_label(label, node, k), own, inside)
        elif isinstance(node, (list, tuple)):
            size = 2 + max(len(node) - 1, 0)
            holder = node if isinstance(node, list) else None
            for i, v in enumerate(node):
                size += visit(v, holder, i, _child_label(label, node, i), owner, inside)
        else:
            return json_size(node)
        if parent is not None and _is_collection(node) and len(node) > 0:
            collections.append(_Node(parent, key, label, owner, size))
        return size

    total = visit(root, None, None, "", None, True)
    return total, collections, strings


def _trailing_cost(coll: Any, excess: int) -> tuple[int, int] | None:
    """(characters, items) the fewest trailing items of ``coll`` that remove ``excess`` characters take."""
    keys = list(coll) if isinstance(coll, dict) else None
    removed = 0
    for count in range(1, len(coll) + 1):
        if keys is None:
            removed += json_size(coll[-count]) + 1
        else:
            removed += json_size(str(keys[-count])) + 2 + json_size(coll[keys[-count]])
        if removed >= excess:
            return removed, count
    return None


def _pop(coll: Any) -> tuple[Any, int]:
    """Remove the last item of a list or map; the item and the characters it took."""
    if isinstance(coll, list):
        item = coll.pop()
        return item, json_size(item) + (1 if coll else 0)
    last = next(reversed(coll))
    item = coll.pop(last)
    return item, json_size(str(last)) + 1 + json_size(item) + (1 if coll else 0)


def _shorten(text: str, length: int) -> str:
    return text[: max(length - 1, 0)] + _ELLIPSIS


class _Cutter:
    def __init__(self, data: dict[str, Any]) -> None:
        self.out = Truncation(data=data)

    def cut_collection(self, node: _Node, excess: int, floor: int, count: int | None = None) -> None:
        """Remove trailing items of ``node`` until ``excess`` characters are gone or it is down to ``floor``
        (or exactly ``count`` items)."""
        coll = node.parent[node.key]
        before = len(coll)
        removed = 0
        size = node.size
        while coll and (removed == 0 or (removed < excess and size > floor)):
            if count is not None and before - len(coll) >= count:
                break
            item, cost = _pop(coll)
            removed += cost
            size -= cost
            self.out.damaged.update(_numbers_in(item))
        self._record(node, before, len(coll))

    def _record(self, node: _Node, before: int, after: int) -> None:
        if node.owner is not None:
            self.out.damaged.add(node.owner)
        first, _ = self.out.cut_lists.get(node.label, (before, after))
        self.out.cut_lists[node.label] = (max(first, before), after)
        self.out.truncated = True

    def cut_string(self, node: _Node, length: int) -> None:
        node.parent[node.key] = _shorten(node.parent[node.key], length)
        if node.owner is not None:
            self.out.damaged.add(node.owner)
        self.out.cut_strings.append(node.label)
        self.out.truncated = True


def _fit(data: dict[str, Any], budget: int, cutter: _Cutter) -> int:
    total, _, strings = _walk(data)
    cap = max(budget // 4, _MIN_STRING)
    for node in sorted((s for s in strings if s.loose), key=lambda s: s.size, reverse=True):
        if total <= budget or node.size <= cap:
            break
        cutter.cut_string(node, cap)
        total -= node.size - cap
    while True:
        total, collections, strings = _walk(data)
        if total <= budget or not collections:
            break
        collections.sort(key=lambda c: c.size, reverse=True)
        excess = total - budget
        largest = collections[0].parent[collections[0].key]
        if (_trailing_cost(largest, excess) or (0, 0))[1] == 1:
            # The last cut: take it where the fewest characters go, so one big item is not lost for a few.
            costs = [(cost, -c.size, i, n) for i, c in enumerate(collections)
                     if (found := _trailing_cost(c.parent[c.key], excess)) for cost, n in [found]]
            _, _, best, count = min(costs)
            cutter.cut_collection(collections[best], excess, 0, count)
            continue
        floor = collections[1].size if len(collections) > 1 else 0
        cutter.cut_collection(collections[0], excess, floor)
    while total > budget:
        level = _water_level([n.size for n in strings], total - budget)
        if level is None:
            break
        for node in strings:
            if node.size > level:
                cutter.cut_string(node, level)
        total, _, strings = _walk(data)
    return total


def _water_level(sizes: list[int], excess: int) -> int | None:
    """The length to cut every longer string to so that about ``excess`` characters go (never under 64)."""
    sizes = sorted((s for s in sizes if s > _MIN_STRING), reverse=True)
    if not sizes:
        return None
    total = 0
    level = _MIN_STRING
    for k, size in enumerate(sizes, 1):
        total += size
        candidate = (total - excess - k) // k
        following = sizes[k] if k < len(sizes) else _MIN_STRING
        if candidate >= following:
            level = candidate
            break
    return max(min(level, sizes[0] - 1), _MIN_STRING)


def truncate_json(data: dict[str, Any], limit: int, issued: set[int] | None = None,
                  hint_key: str = "hint") -> Truncation:
    """``data`` shortened to at most ``limit`` characters of compact JSON (a deep copy when anything is cut).

    Args:
        data: the result as JSON-ready values (tuples allowed; they are never cut).
        limit: the character limit.
        issued: the evidence numbers the result issued; the note counts those among the damaged ones.
        hint_key: where the note goes; appended to a text already there. ``truncated: true`` is set beside it.

    Raises:
        ResultTooLarge: even with every collection emptied and every string shortened it does not fit.
    """
    if json_size(data) <= limit:
        return Truncation(data=data)
    work = copy.deepcopy(data)
    cutter = _Cutter(work)
    budget = max(limit - _NOTE_RESERVE, limit // 2)
    for _ in range(4):
        _fit(work, budget, cutter)
        out = cutter.out
        dropped = len(out.damaged & issued) if issued is not None else len(out.damaged)
        note = out.note(limit, dropped)
        final = dict(work)
        previous = final.get(hint_key)
        final[hint_key] = f"{previous} {note}" if isinstance(previous, str) and previous else note
        final["truncated"] = True
        size = json_size(final)
        if size <= limit:
            out.data = final
            return out
        budget -= size - limit + 50
    raise ResultTooLarge(f"the result does not fit in {limit:,} characters even shortened")

