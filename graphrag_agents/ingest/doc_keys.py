"""Which stored document an id names: the key rule's id, or the id an earlier rule stored it under.

Every lookup of a document id goes through :func:`resolve_ids` (ingest, update, delete, the ``document_ids``
filter, the tools), so a document's own id always finds that document and only it. The candidates, in order:

1. the id exactly as an earlier rule stored it (whitespace stripped only, or a file's path as written), when that
   differs from the rule's id: a graph not yet upgraded by ``finalize``, or a document an upgrade left under its
   stored id because another document holds the rule's id (``ingest/key_upgrade.py``);
2. the rule's id (:func:`~graphrag_agents._keys.canonical_key`, :func:`~graphrag_agents._keys.file_key`);
3. the id's NFKC form (:func:`~graphrag_agents._keys.compatibility_key`), for a document written under rule 2
   only, which stored ``"x²"`` as ``"x2"`` and kept no trace of the ``"x²"``: ``delete_document("x²")`` still
   finds it, while a ``"x2"`` written under rule 3 is not found by ``"x²"``.

When none is stored, the rule's id is the one a write creates. Ids with nothing but ASCII in them have no other
candidate and cost no query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._keys import KEY_RULE, compatibility_key, file_key, normalise_key
from ..store.graph import GraphStore

__all__ = ["RULE_TWO", "Lookup", "document_lookup", "file_lookup", "keeps_rule_two", "resolve_ids", "stored_rule"]

RULE_TWO = 2
"""The rule whose documents are found by their NFKC form (ids folded when written, the given id lost)."""

_FILE = "(coalesce(d.from_file, false) OR d.id STARTS WITH 'file:')"


@dataclass(frozen=True)
class Lookup:
    """The ids one user value may name, in the order they are tried."""

    key: str
    """The id under the current rule: what a write creates when nothing older is stored."""
    exact: str | None = None
    """The value as an earlier rule stored it, when it differs from :attr:`key`."""
    folded: str | None = None
    """The value's NFKC form (rule 2's id), when it differs from :attr:`key`; files have none."""

    @property
    def plain(self) -> bool:
        """True when :attr:`key` is the only candidate (no query needed)."""
        return self.exact is None and self.folded is None


def document_lookup(value: object, what: str = "Document id") -> Lookup:
    """The candidates for a document id given by a user (refused with :class:`ToolError` as the rule says)."""
    key = normalise_key(value, what)
    assert isinstance(value, str)
    if key.isascii() and value.isascii():
        return Lookup(key)
    exact = value.strip()
    try:
        folded = compatibility_key(value)
    except UnicodeError:
        folded = key
    return Lookup(key, exact if exact != key else None, folded if folded != key else None)


def file_lookup(document_id: str, path: str) -> Lookup:
    """The candidates for a file's ``document_id`` (its path in NFC, with any prefix such as ``file:``) read from
    ``path`` as written: an earlier rule stored the path as written."""
    canon = file_key(path)
    if canon == path or not document_id.endswith(canon):
        return Lookup(document_id)
    return Lookup(document_id, document_id[:len(document_id) - len(canon)] + path)


def stored_rule(row_rule: object, graph_rule: object) -> int:
    """The rule a stored document was written under: its own mark, else the graph's (unmarked: before rule 3)."""
    for rule in (row_rule, graph_rule):
        if isinstance(rule, (int, float, str)):
            return int(rule)
    return 1


async def resolve_ids(store: GraphStore, lookups: Sequence[Lookup]) -> list[str]:
    """The stored id each lookup names (the first stored candidate), else its :attr:`Lookup.key`; one read."""
    wanted = sorted({c for lk in lookups if not lk.plain for c in (lk.exact, lk.key, lk.folded) if c is not None})
    if not wanted or not await store.exists():
        return [lk.key for lk in lookups]
    rows = await store.ro_query(
        "OPTIONAL MATCH (m:__Meta__ {key: 'graph'}) WITH max(m.key_rule) AS rule\n"
        f"UNWIND $ids AS i MATCH (d:Document {{id: i}}) RETURN d.id, d.key_rule, rule, {_FILE}", {"ids": wanted})
    found = {str(i): (stored_rule(own, rule), bool(is_file)) for i, own, rule, is_file in rows}
    out: list[str] = []
    for lk in lookups:
        if lk.exact is not None and lk.exact in found:
            out.append(lk.exact)
        elif lk.key in found or lk.folded is None or lk.folded not in found:
            out.append(lk.key)
        else:
            rule, is_file = found[lk.folded]
            out.append(lk.folded if rule == RULE_TWO and not is_file else lk.key)
    return out


def keeps_rule_two(rule: int, is_file: bool) -> int:
    """The rule to mark a rewritten document with: a document written under rule 2 stays one (its NFKC form still
    finds it), any other is written under the current rule."""
    return RULE_TWO if rule == RULE_TWO and not is_file else KEY_RULE

