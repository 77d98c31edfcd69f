"""The graph's schema: indexes, and the metadata node holding the embedder and the ontology.

Data model (DESIGN.md): ``(:Document)-[:HAS_CHUNK]->(:Chunk)``, ``(:Chunk)-[:NEXT]->(:Chunk)``,
``(:__Entity__:<Label>)-[:MENTIONED_IN]->(:Chunk)``, ``(:__Entity__)-[:RELATES {type, fact}]->(:__Entity__)``
for typed relations, ``(:__Entity__)-[:IN_FACT]->(:__Fact__ {id, type, text, chunk_ids})`` for a co-mention fact
(one node and one vector per sentence, however many entity pairs it links), and one ``(:__Meta__)`` node with
the embedding model name, its dimension and the ontology as JSON.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from .._keys import KEY_RULE
from ..errors import EmbeddingMismatch, StoreUnavailable
from .graph import GraphStore

__all__ = [
    "EF_CONSTRUCTION",
    "VECTOR_INDEXES",
    "GraphMeta",
    "check_embedder",
    "create_range_index",
    "drop_vector_index_statement",
    "ensure_schema",
    "read_meta",
    "vector_index_statement",
    "vector_indexed_labels",
    "wait_for_indexes",
    "write_meta_field",
]

_log = logging.getLogger(__name__)

_RANGE_INDEXES = [("Document", "id"), ("Document", "title"), ("Chunk", "id"), ("Chunk", "document_id"),
                  ("__Entity__", "id"), ("__Entity__", "name_key"), ("__Fact__", "id"),
                  ("__Term__", "term")]  # the keyword statistics (ingest/keyword_stats.py)
VECTOR_INDEXES: tuple[tuple[str, str], ...] = (("Chunk", "node"), ("__Entity__", "node"), ("RELATES", "edge"),
                                               ("__Fact__", "node"))
"""(label or relation type, ``node`` / ``edge``) of every vector index, each on ``embedding``."""
EF_CONSTRUCTION = 64
"""HNSW ``efConstruction`` of new vector indexes. FalkorDB rebuilds every vector index at each server start, at a
cost that follows it: 64 instead of FalkorDB's default 200 loads a 100k-chunk graph in 0.24x the server CPU with
the same ``retrieve`` recall (``benchmarks/hnsw_bench.py``, ``docs/scale.md``). Indexes created by an earlier
version keep their value."""
_INDEX_TIMEOUT_S = 120.0
_ALREADY = "is already indexed"


@dataclass(frozen=True)
class GraphMeta:
    """What the graph remembers about how it was built."""

    embed_model: str
    """Name of the embedding model the stored vectors come from."""
    embed_dim: int
    """Dimension of the stored vectors."""
    ontology_json: str
    """The declared ontology (JSON), empty object when none was declared."""


async def read_meta(store: GraphStore) -> GraphMeta | None:
    """The stored metadata, or None for a graph never written (read-only query)."""
    rows = await store.ro_query(
        "MATCH (m:__Meta__ {key: 'graph'}) RETURN m.embed_model, m.embed_dim, m.ontology LIMIT 1"
    )
    if not rows:
        return None
    model, dim, ontology = rows[0]
    return GraphMeta(embed_model=str(model), embed_dim=int(dim), ontology_json=str(ontology or "{}"))


async def write_meta_field(store: GraphStore, field: str, value: Any) -> None:
    """Set one metadata property (``field`` is one of ours, never user input)."""
    assert field.isidentifier()
    await store.query(f"MATCH (m:__Meta__ {{key: 'graph'}}) SET m.{field} = $value", {"value": value},
                      idempotent=True)


async def _existing_indexes(store: GraphStore) -> dict[tuple[str, str, str], str]:
    rows = await store.ro_query("CALL db.indexes() YIELD label, types, status RETURN label, types, status")
    found: dict[tuple[str, str, str], str] = {}
    for label, types, status in rows:
        for prop, kinds in dict(types).items():
            for kind in kinds:
                found[(str(label), str(prop), str(kind))] = str(status)
    return found


async def vector_indexed_labels(store: GraphStore) -> set[str]:
    """The labels (and relation types) of the graph that have a vector index, built or building."""
    return {label for label, _, kind in await _existing_indexes(store) if kind == "VECTOR"}


def check_embedder(store: GraphStore, meta: GraphMeta, embed_model: str, embed_dim: int) -> None:
    """Refuse a graph whose stored vectors come from another embedding model or dimension."""
    if meta.embed_dim != embed_dim:
        raise EmbeddingMismatch(
            f"Graph '{store.name}' stores {meta.embed_dim}-dimensional vectors from {meta.embed_model!r}, but "
            f"the embedder in use ({embed_model!r}) makes {embed_dim}-dimensional ones. Fix: open it with the "
            f"embedder it was built with (GRAPHRAG_EMBED_MODEL / GRAPHRAG_EMBED_DIM), or use another graph name."
        )
    if meta.embed_model != embed_model:
        raise EmbeddingMismatch(
            f"Graph '{store.name}' was built with the embedding model {meta.embed_model!r}, not {embed_model!r} "
            "(same dimension, different vectors: search results would be meaningless). Fix: open it with "
            f"GRAPHRAG_EMBED_MODEL={meta.embed_model}, or use another graph name."
        )


async def ensure_schema(store: GraphStore, embed_model: str, embed_dim: int) -> GraphMeta:
    """Create the metadata node and every index if missing (first write); check the embedder otherwise.

    Idempotent, also across processes creating the same graph at once: an index another process created
    first is accepted, and the embedder is checked against the metadata that won.
    """
    meta = await read_meta(store) if await store.exists() else None
    if meta is None:
        await store.query(
            "MERGE (m:__Meta__ {key: 'graph'}) ON CREATE SET m.embed_model = $model, m.embed_dim = $dim, "
            "m.ontology = '{}', m.created = timestamp(), m.key_rule = $key_rule",
            {"model": embed_model, "dim": embed_dim, "key_rule": KEY_RULE}, idempotent=True,
        )
        # Another process may have created it first, with another embedder: check what is stored.
        meta = await read_meta(store) or GraphMeta(embed_model, embed_dim, "{}")
    check_embedder(store, meta, embed_model, embed_dim)
    created = await _create_indexes(store, embed_dim)
    await wait_for_indexes(store)
    if created:  # so that no index is created in the replayed part of the embedded server's file
        try:
            await store.compact_log()
        except StoreUnavailable as exc:  # the graph is whole; a restart before the next rewrite doubles its vectors
            _log.warning("Graph %r: the append-only file was not rewritten after its indexes were created (%s); "
                         "if a restart comes first, opening it will name the vector indexes for finalize to rebuild",
                         store.name, exc)
    await _drop_key_shells(store)
    return meta


# Characters str.strip() removes (and the range index ignores) at the ends of a key; NUL cannot be sent.
_EDGE_CHARS = sorted({chr(c) for c in range(1, 0x21)} | {c for c in map(chr, range(0x80, 0x3001)) if c.isspace()})


async def _drop_key_shells(store: GraphStore) -> None:
    """Remove documents an earlier version stored under an id with whitespace at either end.

    The range index ignores such whitespace, so those writes stored the document node but none of its chunks:
    empty shells never retrieved, which would also shadow the stripped id now used. Ingesting the documents
    again (the id is now stripped) stores them whole.
    """
    await store.query(
        "MATCH (d:Document) WHERE (left(d.id, 1) IN $edge OR right(d.id, 1) IN $edge) "
        "AND NOT (d)-[:HAS_CHUNK]->() DETACH DELETE d", {"edge": _EDGE_CHARS}, idempotent=True)


async def _create_indexes(store: GraphStore, dim: int) -> bool:
    """Create the indexes the graph lacks; True when it lacked any."""
    have = await _existing_indexes(store)
    wanted: list[tuple[tuple[str, str, str], str]] = [
        ((label, prop, "RANGE"), f"CREATE INDEX FOR (n:{label}) ON (n.{prop})") for label, prop in _RANGE_INDEXES
    ]
    wanted += [((label, "embedding", "VECTOR"), vector_index_statement(label, pattern, dim))
               for label, pattern in VECTOR_INDEXES]
    wanted += [
        (("Chunk", "text", "FULLTEXT"), "CALL db.idx.fulltext.createNodeIndex('Chunk', 'text')"),
        (("__Entity__", "name", "FULLTEXT"),
         "CALL db.idx.fulltext.createNodeIndex('__Entity__', 'name', 'description')"),
    ]
    missing = [statement for key, statement in wanted if key not in have]
    for statement in missing:
        await _create_index(store, statement)
    return bool(missing)


async def create_range_index(store: GraphStore, label: str, prop: str) -> None:
    """Create the range index on ``label.prop`` unless it exists (one of :data:`_RANGE_INDEXES`, for a step that
    needs it before the next :func:`ensure_schema`)."""
    assert (label, prop) in _RANGE_INDEXES
    if (label, prop, "RANGE") not in await _existing_indexes(store):
        await _create_index(store, f"CREATE INDEX FOR (n:{label}) ON (n.{prop})")


def vector_index_statement(label: str, pattern: str, dim: int, *, ef_construction: int = EF_CONSTRUCTION) -> str:
    """The statement creating the cosine vector index on ``embedding`` of ``label`` (a node label, or a relation
    type when ``pattern`` is ``edge``)."""
    options = f"dimension: {int(dim)}, similarityFunction: 'cosine', efConstruction: {int(ef_construction)}"
    return f"CREATE VECTOR INDEX FOR {_vector_target(label, pattern)} ON (n.embedding) OPTIONS {{{options}}}"


def drop_vector_index_statement(label: str, pattern: str = "node") -> str:
    """The statement dropping the vector index :func:`vector_index_statement` creates."""
    return f"DROP VECTOR INDEX FOR {_vector_target(label, pattern)} ON (n.embedding)"


def _vector_target(label: str, pattern: str) -> str:
    return f"()-[n:{label}]->()" if pattern == "edge" else f"(n:{label})"


async def _create_index(store: GraphStore, statement: str) -> None:
    """Create one index; one that exists already (another process created it meanwhile, or a retried
    statement whose first reply was lost) is what was wanted, not an error."""
    from redis.exceptions import ResponseError

    try:
        await store.query(statement, idempotent=True)
    except ResponseError as exc:
        if _ALREADY not in str(exc):
            raise


async def wait_for_indexes(store: GraphStore, timeout_s: float = _INDEX_TIMEOUT_S) -> None:
    """Block until every index reports OPERATIONAL (FalkorDB builds them in the background)."""
    deadline = time.monotonic() + timeout_s
    delay = 0.005
    while True:
        pending = [key for key, status in (await _existing_indexes(store)).items() if status != "OPERATIONAL"]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise StoreUnavailable(
                f"Could not reach the graph store in a usable state: indexes {pending} of graph '{store.name}' "
                f"were still building after {timeout_s:.0f} s. Fix: retry later, or check the server's memory."
            )
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.2)
