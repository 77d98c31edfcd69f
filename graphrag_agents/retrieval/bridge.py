"""Bridge expansion: from the best chunks, through the entities they mention, to other chunks mentioning them.

A multi-hop question often needs a paragraph it never names: "Which band released Counterparts and had a
drummer in the Modern Drummer Hall of Fame?" finds the song's paragraph, which names the band; the drummer's
paragraph names the band too, but not the song. Bridge expansion follows the entities of the top-ranked
(*seed*) chunks to the other chunks that mention them.

Weight of a chunk reached: the sum, over each seed and each entity it shares with that seed, of
``seed weight / ln(1 + chunks mentioning the entity)``: an entity named in two chunks is a strong link, one
named in thirty a weak one. Entities the question itself names are not followed (the question's own signals
already reach their chunks), and *hub* entities mentioned in more than ``HUB_MENTIONS`` chunks are dropped:
they link everything to everything, and skipping them also bounds the fan-out of the query.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..store.graph import GraphStore
from ._cypher import QueryVector, vector_param
from .candidates import CHUNK_COLUMNS, COSINE, Candidate

__all__ = ["HUB_MENTIONS", "TITLE_HUB", "bridge_candidates", "first_hop_candidates", "shared_hops",
           "titled_candidates"]

HUB_MENTIONS = 30
"""Entities mentioned in more chunks than this are hubs and are not followed."""
_ENTITIES_PER_SEED = 50
TITLE_HUB = 3
"""A name that titles more documents than this is not followed by the titled hop: it does not say which one
(a corpus of many "Introduction" documents, or the same subject under many synthetic paragraphs at scale)."""
_DOC_SCAN = 200
"""Chunks of a titled document compared to the question (its nearest one is kept)."""
_TO_CHUNK_MATCH = "OPTIONAL MATCH (ref:Chunk {id: $to_chunk}) "
_TO_CHUNK = ("CASE WHEN ref IS NULL OR ref.embedding IS NULL OR c.embedding IS NULL THEN null "
             "ELSE 1 - vec.cosineDistance(ref.embedding, c.embedding) END")
"""A candidate ``c``'s cosine to the chunk ``$to_chunk`` (null without it, or without either vector)."""


async def bridge_candidates(store: GraphStore, seeds: Sequence[tuple[str, float]], vector: QueryVector,
                            k: int, exclude_entities: Collection[str] = (),
                            document_ids: Sequence[str] | None = None,
                            to_chunk: str | None = None) -> list[Candidate]:
    """Chunks sharing a non-hub entity with the ``seeds`` (chunk id, seed weight), heaviest first, at most ``k``.

    Each candidate's ``bridge_via`` lists the entities that led to it (name key, weight as described in the
    module docstring); a seed can be reached from another seed. One read-only query; per seed at most 50
    entities are read and each followed entity has at most ``HUB_MENTIONS`` chunks, so the work is bounded
    whatever the graph. ``to_chunk``: each candidate's cosine to that chunk's vector is read too
    (``Candidate.seed_cosine``, for the vector feedback's feature).
    """
    if not seeds:
        return []
    rows = await store.ro_query(_bridge_query(document_ids) + _BRIDGE_RETURN,
                                _bridge_params(seeds, vector, k, exclude_entities, document_ids, to_chunk))
    return [_bridged(row) for row in rows]


def _bridge_query(document_ids: Sequence[str] | None) -> str:
    doc_filter = "AND c.document_id IN $docs " if document_ids else ""
    return (
        "UNWIND $seeds AS s MATCH (sc:Chunk {id: s[0]}) "
        "CALL { WITH sc MATCH (e:__Entity__)-[:MENTIONED_IN]->(sc) RETURN e LIMIT $per_seed } "
        "WITH s, sc, e, outdegree(e, 'MENTIONED_IN') AS m "
        "WHERE m >= 2 AND m <= $hub AND NOT e.id IN $exclude "
        "MATCH (e)-[:MENTIONED_IN]->(c:Chunk) WHERE c.id <> sc.id " + doc_filter
        + "WITH c, e, s, s[1] / log(1 + m) AS w ORDER BY w DESC "
        "WITH c, sum(w) AS weight, collect([e.name_key, w]) AS via, collect(s[0])[0] AS parent "
        "ORDER BY weight DESC LIMIT $k "
        f"OPTIONAL MATCH (d:Document {{id: c.document_id}}) {_TO_CHUNK_MATCH}"
    )


_BRIDGE_RETURN = (f"RETURN c.id, c.document_id, d.title, {COSINE}, {CHUNK_COLUMNS}, weight, via, parent, "
                  f"{_TO_CHUNK}")


def _bridge_params(seeds: Sequence[tuple[str, float]], vector: QueryVector, k: int, exclude_entities: Collection[str],
                   document_ids: Sequence[str] | None, to_chunk: str | None) -> dict[str, Any]:
    return {"seeds": [[cid, float(w)] for cid, w in seeds],
            "per_seed": _ENTITIES_PER_SEED, "hub": HUB_MENTIONS, "exclude": list(exclude_entities),
            "v": vector_param(vector), "k": int(k), "docs": list(document_ids or []), "to_chunk": to_chunk}


def _bridged(row: Sequence[Any]) -> Candidate:
    cid, doc_id, title, cosine, text, heading, path, _weight, via, parent, to_ref = row[:11]
    return Candidate(chunk_id=str(cid), document_id=str(doc_id), title=str(title or ""),
                     cosine=float(cosine), bridge_via=[(str(n), float(w)) for n, w in via or []],
                     found_by=["bridge"], parent=str(parent or ""), text=str(text or ""),
                     heading=str(heading or ""), path=str(path or ""), loaded=True,
                     seed_cosine=None if to_ref is None else float(to_ref))


_TITLED = (
    "UNWIND $seeds AS s MATCH (sc:Chunk {id: s[0]}) "
    "CALL { WITH sc OPTIONAL MATCH (e:__Entity__)-[:MENTIONED_IN]->(sc) WITH e LIMIT $per_seed "
    "RETURN collect(e.name) AS mentioned } "
    # the entities' names and the names the seed's text writes (s[2]); the seed is carried as its id and weight,
    # not the list holding its names, which DISTINCT would compare on every row (12% of the query's server time)
    "WITH s[0] AS seed, s[1] AS weight, sc, mentioned + s[2] AS names "
    "UNWIND names AS name WITH DISTINCT seed, weight, sc, name "
    # The range reads the Document.title index; the exact test keeps only "name" and "name (...)"
    "CALL { WITH name, sc MATCH (d:Document) WHERE d.title >= name AND d.title <= (name + ' )') "
    "AND (d.title = name OR d.title STARTS WITH (name + ' (')) AND d.id <> sc.document_id {filter}"
    "RETURN d LIMIT $hub1 } "
    "WITH seed, weight, name, collect(d) AS titled WHERE size(titled) <= $hub "
    "UNWIND titled AS d "
    "WITH d, seed, weight ORDER BY weight DESC "
    "WITH d, collect([seed, weight])[0] AS best WITH d, best[1] AS weight, best[0] AS parent "
    "ORDER BY weight DESC LIMIT $k "
    "CALL { WITH d MATCH (c:Chunk {document_id: d.id}) WITH c LIMIT $scan "
    f"WITH c, {COSINE} AS cos ORDER BY cos DESC LIMIT 1 RETURN c, cos }} "
    + _TO_CHUNK_MATCH + "RETURN c.id, c.document_id, d.title, cos, c.text, c.heading, d.path, weight, parent, "
    + _TO_CHUNK
)


async def titled_candidates(store: GraphStore, seeds: Sequence[tuple[str, float]], vector: QueryVector, k: int,
                            document_ids: Sequence[str] | None = None,
                            written: Mapping[str, Sequence[str]] | None = None,
                            to_chunk: str | None = None) -> list[Candidate]:
    """The documents titled by an entity the ``seeds`` (chunk id, seed weight) mention, or by a name their text
    writes (``written``: per seed chunk id, :func:`~.written_names.written_names` of its text): per document its
    chunk nearest the question, with ``hop`` = the weight of the best seed that names it; at most ``k``.

    The second hop of a bridge question: the best paragraph for "the pianist who recorded Live at Shelly's
    Manne-Hole" names Les McCann, and the document *titled* "Les McCann" (or "Les McCann (pianist)") is the
    one about him, whether or not its own text repeats the name the way the entity extractor wrote it. A name
    titling more than ``TITLE_HUB`` documents is not followed. One read-only query through the
    ``Document.title`` index (per seed at most 50 entities and the names written, per name at most
    ``TITLE_HUB`` + 1 documents read). ``to_chunk``: as for :func:`bridge_candidates`.
    """
    if not seeds:
        return []
    rows = await store.ro_query(_TITLED.replace("{filter}", "AND d.id IN $docs " if document_ids else ""),
                                _titled_params(seeds, vector, k, document_ids, written, to_chunk))
    return [_titled(row) for row in rows]


def _titled_params(seeds: Sequence[tuple[str, float]], vector: QueryVector, k: int,
                   document_ids: Sequence[str] | None, written: Mapping[str, Sequence[str]] | None,
                   to_chunk: str | None) -> dict[str, Any]:
    written = written or {}
    return {"seeds": [[cid, float(w), list(written.get(cid, ()))] for cid, w in seeds],
            "per_seed": _ENTITIES_PER_SEED, "k": int(k),
            "hub": TITLE_HUB, "hub1": TITLE_HUB + 1, "scan": _DOC_SCAN, "v": vector_param(vector),
            "docs": list(document_ids or []), "to_chunk": to_chunk}


def _titled(row: Sequence[Any]) -> Candidate:
    cid, doc_id, title, cosine, text, heading, path, weight, parent, to_ref = row[:10]
    return Candidate(chunk_id=str(cid), document_id=str(doc_id), title=str(title or ""),
                     cosine=float(cosine), hop=float(weight), found_by=["titled"],
                     parent=str(parent or ""), text=str(text or ""), heading=str(heading or ""),
                     path=str(path or ""), loaded=True,
                     seed_cosine=None if to_ref is None else float(to_ref))


_COLUMNS = ("id", "document_id", "title", "cos", "text", "heading", "path", "weight", "via", "parent", "to_ref")


async def first_hop_candidates(store: GraphStore, bridge_seeds: Sequence[tuple[str, float]],
                               titled_seeds: Sequence[tuple[str, float]], vector: QueryVector, k: int,
                               exclude_entities: Collection[str] = (), document_ids: Sequence[str] | None = None,
                               written: Mapping[str, Sequence[str]] | None = None,
                               to_chunk: str | None = None) -> tuple[list[Candidate], list[Candidate]]:
    """:func:`bridge_candidates` of ``bridge_seeds`` and :func:`titled_candidates` of ``titled_seeds``, the same
    candidates in one query (``UNION ALL``): the first hop's two expansions cost one round trip."""
    if not bridge_seeds or not titled_seeds:
        return (await bridge_candidates(store, bridge_seeds, vector, k, exclude_entities, document_ids, to_chunk),
                shared_hops(await titled_candidates(store, titled_seeds, vector, k, document_ids, written, to_chunk)))
    bridge_return = ", ".join(f"{value} AS {name}" for value, name in zip(
        ["c.id", "c.document_id", "d.title", COSINE, "c.text", "c.heading", "d.path", "weight", "via", "parent",
         _TO_CHUNK], _COLUMNS, strict=True))
    titled = _TITLED.replace("{filter}", "AND d.id IN $docs " if document_ids else "")
    titled = titled.replace("$seeds", "$titled_seeds").replace("$hub1", "$titled_hub1").replace(
        "$hub ", "$titled_hub ")
    head, _, _ = titled.rpartition("RETURN ")
    titled_return = ", ".join(f"{value} AS {name}" for value, name in zip(
        ["c.id", "c.document_id", "d.title", "cos", "c.text", "c.heading", "d.path", "weight", "null", "parent",
         _TO_CHUNK], _COLUMNS, strict=True))
    titled_params = _titled_params(titled_seeds, vector, k, document_ids, written, to_chunk)
    params = {**titled_params, **_bridge_params(bridge_seeds, vector, k, exclude_entities, document_ids, to_chunk),
              "titled_seeds": titled_params["seeds"], "titled_hub": TITLE_HUB, "titled_hub1": TITLE_HUB + 1}
    rows = await store.ro_query(
        _bridge_query(document_ids) + "RETURN " + bridge_return + ", true AS bridged UNION ALL "
        + head + "RETURN " + titled_return + ", false AS bridged", params)
    return ([_bridged(row) for row in rows if row[11]],
            shared_hops([_titled([*row[:8], *row[9:11]]) for row in rows if not row[11]]))


def shared_hops(titled: list[Candidate]) -> list[Candidate]:
    """The first hop's ``titled`` candidates, each one's ``hop`` divided by the number of them its seed (``parent``)
    led to: a passage that names many documents points at each of them less surely.

    The weight a seed passes on is shared among its out-links, as a random walk over the graph shares it (PageRank
    divides a node's weight by its out-degree). Without it, every place a biography names took the seed's whole
    weight: for MuSiQue train100's "The state where Henry Worrall died has how many congressional districts?"
    (``2hop__590911_47465``), three documents titled by names the first passage writes, at cosines to the question
    of .03-.31, ranked above the passage on the state's congressional districts (the figures:
    ``docs/retrieval-passages.md``, "Titled second hop")."""
    led: dict[str, int] = {}
    for cand in titled:
        led[cand.parent] = led.get(cand.parent, 0) + 1
    for cand in titled:
        cand.hop /= led[cand.parent]
    return titled
