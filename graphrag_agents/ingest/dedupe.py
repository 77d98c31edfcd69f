"""``finalize``'s deduplication: fold ``Unknown`` entities into the one typed entity of the same name, and the
``ner`` extractor's differently typed entities of one name into the type most of their mentions got.

Exact duplicates never exist in the graph: an entity's id is its type and normalised name, and writes
``MERGE`` on it. What can remain is the same name stored once as ``Unknown`` (an extractor could not type it
in one document) and once with a type elsewhere. When exactly one typed entity shares the name, the Unknown
one is merged into it: its mentions and relations move over (relations keep their facts and chunk ids; a
relation between the two becomes a self-loop and is dropped), descriptions are joined, and it is deleted.
Each batch of merges is one atomic query.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..store.graph import GraphStore
from .regroup import NER_PLAN

__all__ = ["merge_entities", "merge_label_votes", "merge_unknown_duplicates"]

_BATCH = 500
_STEP = "\nWITH count(*) AS _\n"
_MERGE_STEPS = [
    "UNWIND $pairs AS p MATCH (d:__Entity__ {id: p[0]})-[:MENTIONED_IN]->(c:Chunk) "
    "MATCH (k:__Entity__ {id: p[1]}) MERGE (k)-[:MENTIONED_IN]->(c)",
    "UNWIND $pairs AS p MATCH (d:__Entity__ {id: p[0]})-[r:RELATES]->(b:__Entity__) "
    "MATCH (k:__Entity__ {id: p[1]}) WHERE b <> k "
    "MERGE (k)-[x:RELATES {type: r.type, fact: r.fact}]->(b) "
    "ON CREATE SET x.chunk_ids = r.chunk_ids "
    "ON MATCH SET x.chunk_ids = x.chunk_ids + [c IN r.chunk_ids WHERE NOT c IN x.chunk_ids]",
    "UNWIND $pairs AS p MATCH (a:__Entity__)-[r:RELATES]->(d:__Entity__ {id: p[0]}) "
    "MATCH (k:__Entity__ {id: p[1]}) WHERE a <> k AND a <> d "
    "MERGE (a)-[x:RELATES {type: r.type, fact: r.fact}]->(k) "
    "ON CREATE SET x.chunk_ids = r.chunk_ids "
    "ON MATCH SET x.chunk_ids = x.chunk_ids + [c IN r.chunk_ids WHERE NOT c IN x.chunk_ids]",
    "UNWIND $pairs AS p MATCH (d:__Entity__ {id: p[0]})-[:IN_FACT]->(f:__Fact__) "
    "MATCH (k:__Entity__ {id: p[1]}) MERGE (k)-[:IN_FACT]->(f)",
    "UNWIND $pairs AS p MATCH (d:__Entity__ {id: p[0]}), (k:__Entity__ {id: p[1]}) "
    "SET k.description = CASE WHEN d.description = '' OR k.description CONTAINS d.description "
    "THEN k.description WHEN k.description = '' THEN d.description "
    "ELSE k.description + ' ' + d.description END, k.stale = true "
    "DETACH DELETE d",
]


async def merge_entities(store: GraphStore, pairs: list[tuple[str, str]]) -> None:
    """Merge each ``(duplicate id, kept id)`` pair in one atomic query (ids must not chain).

    Idempotent, so retried after a lost reply: a second run finds no duplicate left to match (the first deleted
    it, atomically with everything it moved), and every edge it adds is a MERGE."""
    if pairs:
        await store.query(_STEP.join(_MERGE_STEPS) + "\nRETURN 0", {"pairs": [list(p) for p in pairs]},
                          idempotent=True)


async def merge_unknown_duplicates(store: GraphStore) -> int:
    """Merge every Unknown entity into the single typed entity sharing its normalised name; returns merges."""
    merged = 0
    while True:
        rows = await store.ro_query(
            "MATCH (u:Unknown) MATCH (t:__Entity__ {name_key: u.name_key}) WHERE NOT t:Unknown "
            "WITH u, collect(t.id) AS typed WHERE size(typed) = 1 "
            "RETURN u.id, typed[0] LIMIT $n", {"n": _BATCH})
        if not rows:
            return merged
        await merge_entities(store, [(str(d), str(k)) for d, k in rows])
        merged += len(rows)
        if len(rows) < _BATCH:
            return merged


async def merge_label_votes(store: GraphStore, order: Sequence[str] = ()) -> int:
    """One entity per name where the ner extractor typed the same name differently in different sentences.

    Among typed entities sharing a normalised name, all of whose mentions come from documents ingested with the
    ``ner`` extractor, the one with the most mentions wins (ties: the label declared first in ``order``, the
    ontology's entity types, then by name); the others are merged into it and
    their labels kept on it as ``aliases``. Names typed differently by the llm extractor or ``add_facts`` are left
    alone: there two types usually mean two things. Returns the number of entities merged away.
    """
    rows = await store.ro_query(
        "MATCH (e:__Entity__) WHERE NOT e:Unknown WITH e.name_key AS k, collect(e) AS es WHERE size(es) > 1 "
        "UNWIND es AS e MATCH (e)-[:MENTIONED_IN]->(c:Chunk) MATCH (d:Document {id: c.document_id}) "
        "WITH k, e, count(c) AS mentions, sum(CASE WHEN d.plan CONTAINS $plan THEN 0 ELSE 1 END) AS other "
        "RETURN k, e.id, e.label, mentions, other, coalesce(e.aliases, [])", {"plan": NER_PLAN})
    groups: dict[str, list[tuple[str, str, int, int, list[str]]]] = {}
    for key, eid, label, mentions, other, aliases in rows:
        groups.setdefault(str(key), []).append((str(eid), str(label), int(mentions), int(other),
                                                [str(a) for a in aliases]))
    rank = {label: i for i, label in enumerate(order)}
    pairs: list[tuple[str, str]] = []
    kept: list[dict[str, object]] = []
    for members in groups.values():
        if len(members) < 2 or any(other for *_, other, _ in members):
            continue
        members.sort(key=lambda m: (-m[2], rank.get(m[1], len(rank)), m[1]))
        winner = members[0]
        aliases = list(dict.fromkeys([*winner[4], *(m[1] for m in members[1:]), *(a for m in members[1:]
                                                                                  for a in m[4])]))
        kept.append({"id": winner[0], "aliases": [a for a in aliases if a != winner[1]]})
        pairs += [(m[0], winner[0]) for m in members[1:]]
    for start in range(0, len(kept), _BATCH):
        await store.query("UNWIND $rows AS r MATCH (k:__Entity__ {id: r.id}) SET k.aliases = r.aliases",
                          {"rows": kept[start:start + _BATCH]})
    for start in range(0, len(pairs), _BATCH):
        await merge_entities(store, pairs[start:start + _BATCH])
    return len(pairs)
