"""Vector searches of one index take turns (FalkorDB/FalkorDB#2848: concurrent searches of one HNSW index return
nodes twice and lose real neighbours)."""

from __future__ import annotations

import asyncio

import numpy as np

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import vector_param
from graphrag_agents.store.vector_searches import searched_indexes, vector_search_turn

CHUNKS = 2000  # searches of a few nodes end too fast to overlap often
PAGE = 100
SEARCH = "CALL db.idx.vector.queryNodes('Chunk', 'embedding', $k, vecf32($v)) YIELD node RETURN node.id"


async def test_concurrent_searches_of_one_index_each_return_every_node_once(kg: KnowledgeGraph) -> None:
    """Before the turns, about one page in six of four concurrent searches came back with a chunk twice. The bug
    was first seen as a facts-path test that failed one run in thirty."""
    await kg.ensure_schema()
    rng = np.random.default_rng(7)
    rows = [{"id": f"d#{i}", "v": vector_param(v)}
            for i, v in enumerate(rng.normal(size=(CHUNKS, kg.embedder.dimension)).astype(np.float32))]
    for start in range(0, CHUNKS, 500):
        await kg.store.query("UNWIND $rows AS r CREATE (:Chunk {id: r.id, document_id: 'd', text: 't', "
                             "embedding: vecf32(r.v)})", {"rows": rows[start:start + 500]})
    await kg.store.wait_for_indexes(60)
    questions = [{"k": PAGE, "v": vector_param(v)} for v in rng.normal(size=(4, kg.embedder.dimension))]
    wrong = 0
    for _ in range(100):
        pages = await asyncio.gather(*(kg.store.ro_query(SEARCH, params) for params in questions))
        wrong += sum(len({row[0] for row in page}) != PAGE for page in pages)
    assert wrong == 0


def test_the_searched_indexes_are_read_from_the_query() -> None:
    query = ("CALL db.idx.vector.queryNodes('Chunk', 'embedding', $k, vecf32($v)) YIELD node "
             "CALL db.idx.vector.queryRelationships( 'RELATES','embedding', 5, vecf32($v)) YIELD relationship "
             "CALL db.idx.vector.queryNodes('Chunk', 'embedding', 3, node.embedding) YIELD node AS again "
             "CALL db.idx.fulltext.queryNodes('Chunk', 'word') YIELD node AS word RETURN 1")
    assert searched_indexes(query) == [("Nodes", "Chunk", "embedding"), ("Relationships", "RELATES", "embedding")]
    assert searched_indexes("CALL db.idx.fulltext.queryNodes('Chunk', $t) YIELD node RETURN node") == []


async def test_searches_of_one_index_take_turns_and_other_indexes_do_not_wait() -> None:
    chunk = [("Nodes", "Chunk", "embedding")]
    held: list[str] = []
    release = asyncio.Event()

    async def search(name: str, graph: str, indexes: list[tuple[str, str, str]]) -> None:
        async with vector_search_turn(graph, indexes):
            held.append(name)
            await release.wait()

    tasks = [asyncio.create_task(search("first", "g", chunk)),
             asyncio.create_task(search("same index", "g", chunk)),
             asyncio.create_task(search("other graph", "h", chunk)),
             asyncio.create_task(search("other index", "g", [("Nodes", "__Entity__", "embedding")]))]
    await asyncio.sleep(0.05)
    assert held == ["first", "other graph", "other index"]  # "same index" waits for "first"
    release.set()
    await asyncio.gather(*tasks)
    assert held[-1] == "same index"
