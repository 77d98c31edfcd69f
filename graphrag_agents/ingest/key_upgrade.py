"""The finalize upgrade that gives documents stored by an earlier version the keys the key rule now gives them.

Before the rule normalised Unicode (``graphrag_agents._keys``), the composed and decomposed ``"café"``, a
full-width ``"ｃａｆé"`` or an id with a byte-order mark at its start were separate documents. Each is renamed to
its canonical id; when two of them meet there, the one written last is kept, as a new ingest would have replaced
the other. File ids are left alone: they name the file as it is on disk. It runs once per graph (``key_rule`` in
the metadata).
"""

from __future__ import annotations

from .._keys import KEY_RULE, canonical_key, key_length_problem
from ..store.graph import GraphStore
from ..store.schema import write_meta_field
from .writer import delete_document_query

__all__ = ["upgrade_document_keys"]

_STEP = "\nWITH count(*) AS _\n"
_RENAME = (
    "MATCH (d:Document {id: $old}) SET d.id = $new, "
    "d.path = CASE WHEN d.path = $old THEN $new ELSE d.path END, "
    "d.title = CASE WHEN d.title = $old THEN $new ELSE d.title END\n"
    "WITH d OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) SET c.document_id = $new"
)


def _canonical(doc_id: str) -> str | None:
    try:
        new = canonical_key(doc_id)
    except UnicodeError:
        return None
    if not new or new == doc_id or new.startswith("file:") or key_length_problem(new) is not None:
        return None  # nothing to do, or an id the rule refuses now (left as it is, still readable)
    return new


async def upgrade_document_keys(store: GraphStore) -> int:
    """Rename documents whose id the key rule now writes differently; returns how many were renamed or merged.

    Run under the graph's exclusive lock (``finalize`` does).
    """
    rows = await store.ro_query("MATCH (m:__Meta__ {key: 'graph'}) RETURN m.key_rule")
    if not rows or (rows[0][0] is not None and int(rows[0][0]) >= KEY_RULE):
        return 0
    docs = await store.ro_query("MATCH (d:Document) WHERE NOT coalesce(d.from_file, false) "
                                "AND NOT d.id STARTS WITH 'file:' RETURN d.id, coalesce(d.updated, 0)")
    written = {str(i): int(t) for i, t in docs}
    changed = 0
    for old in sorted(written, key=lambda i: written[i]):  # oldest first: the newest of a clash is kept
        new = _canonical(old)
        if new is None:
            continue
        there = written[new] if new in written else await _updated(store, new)
        if there is not None and there > written[old]:  # the document at the canonical id is the newer one
            await _delete(store, old)
            written.pop(old)
        else:
            if there is not None:
                await _delete(store, new)
            await store.query(_RENAME, {"old": old, "new": new}, idempotent=True)
            written[new] = written.pop(old)
        changed += 1
    await write_meta_field(store, "key_rule", KEY_RULE)
    return changed


async def _updated(store: GraphStore, doc_id: str) -> int | None:
    """When the document ``doc_id`` was last written (0: unknown), or None when there is none."""
    rows = await store.ro_query("MATCH (d:Document {id: $id}) RETURN coalesce(d.updated, 0)", {"id": doc_id})
    return int(rows[0][0]) if rows else None


async def _delete(store: GraphStore, doc_id: str) -> None:
    await store.query(_STEP.join(delete_document_query()) + "\nRETURN 0", {"doc_id": doc_id}, idempotent=True)
