"""``retrieve(paths=["fuzzy_names"])`` on its own: the entities a question names, written right or slightly misspelt.

Real embedded FalkorDB, real MiniLM embeddings, the hand-made graphs of ``test_retrieval``.
"""

from __future__ import annotations

from test_retrieval import COMPANY, TEA, TOWER, _build

from graphrag_agents.kg import KnowledgeGraph

QUESTIONS = {
    "Where is Acme Corp based?": {"Acme Corp"},
    "When did Alice Moreau found Acme Crop?": {"Alice Moreau", "Acme Corp"},  # the company misspelt
    "When did Alice Moreu found Acme Corp?": {"Alice Moreau", "Acme Corp"},  # the founder misspelt
}


async def test_fuzzy_names_alone_finds_the_entities_the_question_names(kg: KnowledgeGraph) -> None:
    await _build(kg, COMPANY, TEA, TOWER)
    for question, named in QUESTIONS.items():
        alone = await kg.retrieve(question, paths=["fuzzy_names"], top_k=3)
        # Before: an entity the question names exactly was dropped from fuzzy_names as "reported by exact_names",
        # although exact_names was not asked for: "Where is Acme Corp based?" returned no entity at all.
        assert alone.paths_run == ["fuzzy_names"] and not alone.facts and not alone.relations and not alone.passages
        assert {e.name for e in alone.entities[:len(named)]} == named, (question, alone.entities)
        assert {e.path for e in alone.entities} == {"fuzzy_names"}
        assert all(e.documents == ["Acme Corp"] for e in alone.entities if e.name in named)  # cards filled in

    # With exact_names asked for too (and by default), an entity both paths find is still reported once, as exact.
    both = await kg.retrieve("When did Alice Moreau found Acme Crop?", paths=["exact_names", "fuzzy_names"])
    assert [(e.name, e.path) for e in both.entities][:2] == [("Alice Moreau", "exact_names"),
                                                             ("Acme Corp", "fuzzy_names")]
    assert len({e.entity_id for e in both.entities}) == len(both.entities)
    everything = await kg.retrieve("When did Alice Moreau found Acme Crop?")
    assert [(e.name, e.path) for e in everything.entities] == [(e.name, e.path) for e in both.entities]
