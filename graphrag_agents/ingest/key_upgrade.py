"""The finalize upgrade that gives documents stored under an earlier key rule the ids the rule gives them now.

It never deletes a document. Rule 1 (or none: ids stripped only) stored the composed and decomposed ``"café"``,
an id with a byte-order mark at its start, and a file's path as written, as they came; rule 2 did the same for
file paths. Each is renamed to its id under the current rule (``graphrag_agents._keys``) when no other document
holds that id. When one does (two documents an earlier rule kept apart, the same text in two Unicode forms), both
are kept, the newer one under the rule's id and the other under its stored id, where every lookup still finds it
(``ingest/doc_keys.py``), and the clash is reported: a :class:`KeyClash` in ``FinalizeReport.key_clashes`` and a
WARNING naming both ids and the call that resolves it. The ids left are kept in the graph's metadata
(``key_clashes``) and tried again by every ``finalize``: once the document holding the rule's id is deleted, the
one left gets it.

Rule 2 stored ids NFKC-folded, the given id lost (``"x²"`` as ``"x2"``); those ids are already the current rule's,
so they are marked (``key_rule = 2`` on the document) and keep being found by any id whose NFKC form they are.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

from .._keys import KEY_RULE, canonical_key, file_key, key_length_problem
from ..store.graph import GraphStore
from ..store.schema import write_meta_field
from .doc_keys import RULE_TWO

__all__ = ["KeyClash", "KeyUpgrade", "upgrade_document_keys"]

logger = logging.getLogger(__name__)

_IS_FILE = "coalesce(d.from_file, false) OR d.id STARTS WITH 'file:'"
# Only when no document holds the new id (checked in the same query: FalkorDB keeps the row of an OPTIONAL MATCH
# that found a node through `WITH taken WHERE taken IS NULL`, so the check counts). A file keeps its path and title.
_RENAME = (
    "OPTIONAL MATCH (taken:Document {id: $new}) WITH count(taken) AS held WHERE held = 0\n"
    "MATCH (d:Document {id: $old}) SET d.id = $new, "
    "d.path = CASE WHEN d.path = $old AND NOT $file THEN $new ELSE d.path END, "
    "d.title = CASE WHEN d.title = $old AND NOT $file THEN $new ELSE d.title END\n"
    "WITH d OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) SET c.document_id = $new\n"
    "RETURN count(DISTINCT d)"
)


@dataclass(frozen=True)
class KeyClash:
    """A document left under the id an earlier key rule stored it under: another document holds the id the rule
    gives it. Both are kept, each found by its own id."""

    stored_id: str
    """The id the document is kept under (``kg.delete_document`` of it deletes it and no other)."""
    key: str
    """The id the key rule gives it, held by another document."""

    @property
    def fix(self) -> str:
        """The call that resolves the clash."""
        return (f"kg.delete_document({self.stored_id!a}) deletes the one under its stored id; or "
                f"kg.delete_document({self.key!a}) deletes the other, and the next finalize renames "
                f"{self.stored_id!a} to {self.key!a}")

    def __str__(self) -> str:
        return (f"documents {self.stored_id!a} and {self.key!a} are one id under the key rule (NFC, invisible "
                f"marks at the ends stripped); both are kept, {self.stored_id!a} under its stored id: {self.fix}")


@dataclass
class KeyUpgrade:
    """What :func:`upgrade_document_keys` did."""

    renamed: int = 0
    """Documents renamed to the id the key rule gives them."""
    clashes: list[KeyClash] = field(default_factory=list)
    """Documents left under their stored id (see :class:`KeyClash`)."""


def _target(doc_id: str, is_file: bool) -> str | None:
    """The id the rule gives a stored id, or None when it keeps its id (already the rule's, or one the rule
    refuses now: left as it is, still found by itself)."""
    try:
        new = file_key(doc_id) if is_file else canonical_key(doc_id)
    except UnicodeError:
        return None
    if not new or new == doc_id or key_length_problem(new) is not None:
        return None
    if is_file and canonical_key(doc_id) != new:
        return None  # a path whose edges the rule would strip: it would name another file
    return new


async def upgrade_document_keys(store: GraphStore) -> KeyUpgrade:
    """Rename documents whose id the key rule now writes differently, deleting none; report the clashes.

    Runs fully once per graph written under an older rule (``key_rule`` in the metadata), then only tries again
    the clashes left. Run under the graph's exclusive lock (``finalize`` does).
    """
    rows = await store.ro_query("MATCH (m:__Meta__ {key: 'graph'}) RETURN m.key_rule, m.key_clashes")
    if not rows:
        return KeyUpgrade()
    rule, left = rows[0]
    if rule is not None and int(rule) >= KEY_RULE:
        return await _retry(store, [str(i) for i in left or []]) if left else KeyUpgrade()
    if rule is not None and int(rule) == RULE_TWO:
        await store.query(f"MATCH (d:Document) WHERE d.key_rule IS NULL AND NOT ({_IS_FILE}) "
                          f"SET d.key_rule = {RULE_TWO}", idempotent=True)
    docs = await store.ro_query(f"MATCH (d:Document) RETURN d.id, {_IS_FILE}, coalesce(d.updated, 0)")
    stored = {str(i) for i, _, _ in docs}
    variants: dict[str, list[tuple[int, str, bool]]] = defaultdict(list)
    for doc_id, is_file, updated in docs:
        new = _target(str(doc_id), bool(is_file))
        if new is not None:
            variants[new].append((int(updated), str(doc_id), bool(is_file)))
    result = KeyUpgrade()
    for new, found in sorted(variants.items()):
        found.sort(key=lambda v: (-v[0], v[1]))  # the newest first: it gets the rule's id when that is free
        for _, old, is_file in found:
            if new not in stored and await _rename(store, old, new, is_file):
                stored.add(new)
                result.renamed += 1
            else:
                result.clashes.append(KeyClash(old, new))
    await _finish(store, result)
    await write_meta_field(store, "key_rule", KEY_RULE)
    return result


async def _rename(store: GraphStore, old: str, new: str, is_file: bool) -> bool:
    rows = await store.query(_RENAME, {"old": old, "new": new, "file": is_file}, idempotent=True)
    return bool(rows and rows[0][0])


async def _retry(store: GraphStore, left: list[str]) -> KeyUpgrade:
    """Try again the clashes an earlier finalize left: a document whose rule id is free now gets it."""
    rows = await store.ro_query(f"UNWIND $ids AS i MATCH (d:Document {{id: i}}) RETURN d.id, {_IS_FILE}",
                                {"ids": left})
    result = KeyUpgrade()
    for doc_id, is_file in rows:
        new = _target(str(doc_id), bool(is_file))
        if new is None:
            continue
        if await _rename(store, str(doc_id), new, bool(is_file)):
            result.renamed += 1
        else:
            result.clashes.append(KeyClash(str(doc_id), new))
    await _finish(store, result)
    return result


async def _finish(store: GraphStore, result: KeyUpgrade) -> None:
    await write_meta_field(store, "key_clashes", [c.stored_id for c in result.clashes] or None)
    for clash in result.clashes:
        logger.warning("finalize kept two documents under one key: %s", clash)
