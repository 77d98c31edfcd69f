"""The last step of ``finalize``: leave the graph ready to answer, so the first ``retrieve`` costs what later ones do.

FalkorDB keeps a write's changes to a label's or a relationship type's matrix pending, and applies them at the
first query that reads that matrix. After a build, that first query is the user's first ``retrieve``: measured on
300 ``techdocs_a`` documents, three of its queries waited about 130 ms each for it, against 20-40 ms once applied
(``docs/scale-building.md``, "A graph is ready when built"). :func:`settle` reads every label and relationship type
once, with ``LIMIT 1``, so the changes are applied inside ``finalize``.
"""

from __future__ import annotations

from ..store.graph import GraphStore

__all__ = ["settle"]


def _quoted(name: object) -> str:
    return "`" + str(name).replace("`", "``") + "`"


async def settle(store: GraphStore) -> int:
    """Read one item of every label and relationship type of the graph; returns how many were read."""
    types = [row[0] for row in await store.ro_query("CALL db.relationshipTypes()")]
    labels = [row[0] for row in await store.ro_query("CALL db.labels()")]
    for name in types:
        await store.ro_query(f"MATCH ()-[r:{_quoted(name)}]->() WITH r LIMIT 1 RETURN count(r)")
    for name in labels:
        await store.ro_query(f"MATCH (n:{_quoted(name)}) WITH n LIMIT 1 RETURN count(n)")
    return len(types) + len(labels)
