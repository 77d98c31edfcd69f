"""The titled hop shares a seed's weight among the documents it leads to, as a walk divides by out-degree.

The spans are real: MuSiQue train100 row ``2hop__590911_47465`` ("The state where Henry Worrall died has how many
congressional districts?", ``benchmarks/data/musique/train100.jsonl.gz``, CC BY 4.0). Its first passage, Henry
Worrall's, writes Kansas, Boston and London, and the sample holds two documents titled "Boston" and one "London"
(the first sentence of each is kept here, with the passage on Kansas's congressional districts). Each document the
titled hop reached took the seed's whole weight, and three of them outranked that passage.
"""

from __future__ import annotations

import pytest
from test_retrieval_hop import _build, _doc

from graphrag_agents.ingest.records import chunk_id
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.retrieval.bridge import first_hop_candidates

QUESTION = "The state where Henry Worrall died has how many congressional districts?"
SEED = ("Henry Worrall (1825-1902) was an American visual artist and musician in Ohio and Kansas in the 19th century. "
        "He settled in Topeka in 1868 and may have been \"the only regular subscriber to the London \"Punch\" in "
        "Kansas.\" Some of his musical compositions were published by Oliver Ditson in Boston and J.L. Peters & Bros. "
        "in St. Louis. He died in Kansas in 1902.")  # musique-fcf60aa35e80, "Henry Worrall (artist)"
TITLED = {  # document id: (title, its first sentence)
    "musique-8ce00819f7f1": ("Boston", "Boston is surrounded by the \"Greater Boston\" region and is contiguously "
                             "bordered by the cities and towns of Winthrop, Revere, Chelsea, Everett, Somerville, "
                             "Cambridge, Watertown, Newton, Brookline, Needham, Dedham, Canton, Milton, and Quincy."),
    "musique-e048fef6c54c": ("Boston", "The Boston Red Sox, a founding member of the American League of Major League "
                             "Baseball in 1901, play their home games at Fenway Park, near Kenmore Square in the "
                             "city's Fenway section."),
    "musique-243270240597": ("London", "The 2011 census recorded that 2,998,264 people or 36.7% of London's "
                             "population are foreign-born making London the city with the second largest immigrant "
                             "population, behind New York City, in terms of absolute numbers."),
    "musique-0e61d86b6cc4": ("Kansas's congressional districts", "Kansas is currently divided into 4 congressional "
                             "districts, each represented by a member of the United States House of "
                             "Representatives."),
}


@pytest.fixture
async def worrall_kg(kg: KnowledgeGraph) -> KnowledgeGraph:
    await _build(kg, _doc("musique-fcf60aa35e80", "Henry Worrall (artist)", [SEED], ["Kansas", "Boston", "London"]),
                 *(_doc(doc_id, title, [text]) for doc_id, (title, text) in TITLED.items()))
    return kg


async def test_a_seed_whose_names_title_three_documents_gives_each_a_third_of_its_weight(
        worrall_kg: KnowledgeGraph) -> None:
    seed = chunk_id("musique-fcf60aa35e80", 0)
    vector = VectorParam((await worrall_kg.embedder.aembed([QUESTION]))[0].tolist())
    _, titled = await first_hop_candidates(worrall_kg.store, [(seed, 1.0)], [(seed, 1.0)], vector, 30)
    found = {c.document_id for c in titled}
    assert found == {"musique-8ce00819f7f1", "musique-e048fef6c54c", "musique-243270240597"}, found
    assert all(c.parent == seed for c in titled)
    assert [round(c.hop, 4) for c in titled] == [round(1 / 3, 4)] * 3  # not the seed's whole weight each
