"""``finalize``'s reading of the whole corpus: a name the ``ner`` extractor typed a person or a place that the
corpus writes as code is a tool, a format or a language, and becomes ``Unknown``.

spaCy types "JSON", "Git" and "Linux" a Person and "CycloneDX" a Location in npm's docs. Each document alone
often does not show what they are (a section of a page that writes "JSON" in prose, and ``package.json`` or
``--json`` on other pages), so the extractor's own check, over one document's code, misses them. Here the whole
graph is read:

* :func:`code_shaped` names are never a person or a place, in any document: a word with a dotted lower-case
  ending (``Node.js``), or capitals joined to a number (``UTF-8``, ``SHA-256``). (The extractor leaves their
  type to this step: an ``Unknown`` mention at extraction would drop out of its sentence's fact, a moved entity
  keeps its facts.)
* a one-word name the graph's chunks write in code (inline code, fences, link targets:
  :func:`~graphrag_agents.ingest.name_places.code_words`) in at least as many chunks as mention it is code.

Only entities all of whose mentions come from documents ingested with the ``ner`` extractor are read (an llm
extractor's or ``add_facts``' type is a statement, not a guess). Each is moved onto the ``Unknown`` entity of its
name (created when missing: mentions, relations and facts move as in deduplication) and its type is not kept as
an alias. A graph built before this rule is re-typed by its next ``finalize``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from ..store.graph import GraphStore
from .code_spans import mask_code
from .dedupe import merge_entities
from .name_places import code_words
from .records import entity_id
from .regroup import NER_PLAN
from .writer import UNKNOWN_LABEL

__all__ = ["code_shaped", "code_typed", "move_to_unknown", "retype_code_names"]

_DOTTED = re.compile(r"[^\W_]\.[a-z]{2,}\b")
"""A dotted lower-case ending inside a word: ``Node.js``, ``Socket.io`` (not "St. Louis", "U.S.")."""
_CAPS_NUMBER = re.compile(r"^[A-Z]{2,}-?\d[\d.]*$")
"""Capitals joined to a number: ``UTF-8``, ``SHA-256``, ``ES2015``."""
_ONE_WORD = re.compile(r"^[^\W_]+$")
_PAGE = 2000


def code_shaped(name: str) -> bool:
    """Whether ``name`` is shaped as no person's or place's name is: a dotted lower-case ending inside a word
    (``Node.js``) or capitals joined to a number (``UTF-8``)."""
    return _DOTTED.search(name) is not None or _CAPS_NUMBER.match(name) is not None


def code_typed(name: str, mentions: int, code_chunks: Counter[str]) -> bool:
    """Whether a person or place called ``name``, mentioned in ``mentions`` chunks, reads as code corpus-wide:
    :func:`code_shaped`, or a one-word name that ``code_chunks`` (chunks per word written in code) writes in
    code in at least as many chunks."""
    if code_shaped(name):
        return True
    return _ONE_WORD.match(name) is not None and code_chunks[name.casefold()] >= max(1, mentions)


async def _code_chunks(store: GraphStore) -> Counter[str]:
    """How many chunks write each word in code (only chunks holding a backtick or a link are read)."""
    counts: Counter[str] = Counter()
    skip = 0
    while True:
        rows = await store.ro_query(
            "MATCH (c:Chunk) WHERE c.text CONTAINS '`' OR c.text CONTAINS '](' "
            "RETURN c.text SKIP $skip LIMIT $n", {"skip": skip, "n": _PAGE})
        for (text,) in rows:
            text = str(text or "")
            counts.update(code_words(text, mask_code(text)))
        if len(rows) < _PAGE:
            return counts
        skip += _PAGE


async def retype_code_names(store: GraphStore, labels: Iterable[str]) -> int:
    """Move every ner-typed entity of ``labels`` (the person and place types) that reads as code
    (:func:`code_typed`) onto the ``Unknown`` entity of its name; returns how many were moved."""
    rows = await store.ro_query(
        "MATCH (e:__Entity__) WHERE e.label IN $labels "
        "MATCH (e)-[:MENTIONED_IN]->(c:Chunk) MATCH (d:Document {id: c.document_id}) "
        "WITH e, count(c) AS mentions, sum(CASE WHEN d.plan CONTAINS $plan THEN 0 ELSE 1 END) AS other "
        "WHERE other = 0 RETURN e.id, e.name, mentions", {"labels": sorted(set(labels)), "plan": NER_PLAN})
    if not rows:
        return 0
    code = await _code_chunks(store) if any(_ONE_WORD.match(str(n)) for _, n, _ in rows) else Counter[str]()
    moves = [(str(eid), str(name)) for eid, name, mentions in rows if code_typed(str(name), int(mentions), code)]
    await move_to_unknown(store, [eid for eid, _ in moves])
    return len(moves)


async def move_to_unknown(store: GraphStore, ids: list[str]) -> None:
    """Move each entity of ``ids`` onto the ``Unknown`` entity of its name (created when missing), its mentions,
    relations and facts with it; its type is not kept."""
    for start in range(0, len(ids), 500):
        rows = await store.ro_query("UNWIND $ids AS id MATCH (d:__Entity__ {id: id}) RETURN d.id, d.name",
                                    {"ids": ids[start:start + 500]})
        batch = [(str(eid), entity_id(UNKNOWN_LABEL, str(name))) for eid, name in rows]
        await store.query(
            "UNWIND $rows AS r MATCH (d:__Entity__ {id: r[0]}) MERGE (k:__Entity__:`Unknown` {id: r[1]}) "
            "ON CREATE SET k.name = d.name, k.name_key = d.name_key, k.description = '', k.label = $unknown",
            {"rows": [list(m) for m in batch], "unknown": UNKNOWN_LABEL}, idempotent=True)
        await merge_entities(store, batch)
