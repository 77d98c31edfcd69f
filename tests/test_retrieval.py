"""retrieve's five paths on small hand-made graphs in the real embedded FalkorDB (real MiniLM embeddings)."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from graphrag_agents.ingest.records import (
    ChunkRecord,
    DocumentBatch,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    chunk_id,
    entity_id,
)
from graphrag_agents.ingest.writer import write_document
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.bridge import HUB_MENTIONS, bridge_candidates
from graphrag_agents.retrieval.chain import ChainSettings
from graphrag_agents.retrieval.links import hop_shares, links_cap
from graphrag_agents.retrieval.names import name_keys
from graphrag_agents.retrieval.passages import dense_passages, passages
from graphrag_agents.retrieval.retriever import retrieve

Entity = tuple[str, str, str]  # name, label, description
Relation = tuple[str, str, str, str]  # source name, type, target name, fact


def _batch(doc_id: str, title: str, chunks: Sequence[str], entities: Sequence[Entity] = (),
           relations: Sequence[Relation] = ()) -> DocumentBatch:
    """A document whose entities are mentioned in every chunk that contains their name."""
    records = [ChunkRecord(id=chunk_id(doc_id, i), index=i, text=t) for i, t in enumerate(chunks)]
    labels = {name: label for name, label, _ in entities}
    ents = [EntityRecord(id=entity_id(label, name), label=label, name=name, description=description,
                         chunk_ids=[c.id for c in records if name in c.text] or [records[0].id])
            for name, label, description in entities]
    rels = [RelationRecord(entity_id(labels[src], src), entity_id(labels[dst], dst), rel_type, fact,
                           next((c.id for c in records if src in c.text and dst in c.text), records[0].id))
            for src, rel_type, dst, fact in relations]
    return DocumentBatch(DocumentRecord(id=doc_id, title=title, content_hash=doc_id), records, ents, rels)


async def _build(kg: KnowledgeGraph, *batches: DocumentBatch) -> None:
    await kg.ensure_schema()
    for batch in batches:
        await write_document(kg.store, batch)
    await kg.finalize()


COMPANY = _batch(
    "acme", "Acme Corp",
    ["Acme Corp is a rocket company based in Springfield. Alice Moreau founded Acme Corp in 1999.",
     "Acme Corp builds small launch vehicles for weather satellites."],
    [("Acme Corp", "Company", "maker of small rockets"), ("Alice Moreau", "Person", "aerospace engineer"),
     ("Springfield", "Place", "")],
    [("Alice Moreau", "FOUNDED", "Acme Corp", "Alice Moreau founded Acme Corp in 1999."),
     ("Acme Corp", "BASED_IN", "Springfield", "Acme Corp is based in Springfield.")],
)
TEA = _batch(
    "tea", "Green tea", ["Green tea is made from Camellia sinensis leaves. It originated in China."],
    [("Green tea", "Product", "a tea"), ("China", "Place", "")],
    [("Green tea", "ORIGINATED_IN", "China", "Green tea originated in China.")],
)
TOWER = _batch(
    "tower", "Eiffel Tower", ["The Eiffel Tower is a wrought-iron tower in Paris, completed in 1889."],
    [("Eiffel Tower", "Landmark", ""), ("Paris", "Place", "")],
    [("Eiffel Tower", "LOCATED_IN", "Paris", "The Eiffel Tower is in Paris.")],
)
LOUVRE = _batch(
    "louvre", "Louvre", ["The Louvre is the world's most visited museum, in Paris."],
    [("Louvre", "Landmark", ""), ("Paris", "Place", "")],
    [("Louvre", "LOCATED_IN", "Paris", "The Louvre museum is in Paris.")],
)


async def test_each_path_returns_what_it_should(kg: KnowledgeGraph) -> None:
    await _build(kg, COMPANY, TEA, TOWER)
    hits = await kg.retrieve("Where is Acme Corp based?")
    assert hits.paths_run == ["facts", "exact_names", "fuzzy_names", "links", "passages"]

    assert hits.facts[0].fact == "Acme Corp is based in Springfield."
    assert hits.facts[0].path == "facts" and 0 < hits.facts[0].score <= 1
    assert [f.score for f in hits.facts] == sorted((f.score for f in hits.facts), reverse=True)

    exact = [e for e in hits.entities if e.path == "exact_names"]
    assert [e.name for e in exact] == ["Acme Corp"]
    assert exact[0].label == "Company" and exact[0].mentions == 2
    assert exact[0].score == pytest.approx(np.log(2) / np.log(3), abs=1e-4)  # named in two chunks

    assert hits.relations and all(r.path == "links" and r.hop == 1 for r in hits.relations)
    assert {r.type for r in hits.relations} == {"FOUNDED", "BASED_IN"}
    assert hits.relations[0].type == "BASED_IN"  # the fact nearest the question first

    assert hits.passages[0].chunk_id == "acme#0" and hits.passages[0].title == "Acme Corp"
    assert {"vector", "fulltext"} <= set(hits.passages[0].found_by)
    assert all(0 <= p.score <= 1 for p in hits.passages)
    assert [p.score for p in hits.passages] == sorted((p.score for p in hits.passages), reverse=True)
    assert hits.best_score == max(h.score for h in [*hits.entities, *hits.facts, *hits.relations, *hits.passages])

    fuzzy = await kg.retrieve("which company makes small rockets?", paths=["fuzzy_names"], top_k=3)
    assert fuzzy.paths_run == ["fuzzy_names"] and not fuzzy.facts and not fuzzy.passages
    assert fuzzy.entities[0].name == "Acme Corp" and fuzzy.entities[0].path == "fuzzy_names"
    assert all(0 <= e.score <= 1 for e in fuzzy.entities)

    with pytest.raises(ValueError, match="valid paths are: facts, exact_names"):
        await kg.retrieve("Acme", paths=["facts", "sql"])


def test_name_keys_normalise_like_stored_names() -> None:
    keys = name_keys('Did Alice Moreau\'s "Acme Corp" ship to the United States?')
    assert keys["alice moreau"].words == 2 and keys["alice moreau"].cased
    assert "acme corp" in keys and "the acme corp" in keys  # an article is tried both ways
    assert "united states" in keys and "the united states" in keys
    assert not any(k in keys for k in ("did", "to the", "the"))  # stopwords alone are never names
    assert name_keys("did the rock band ship?")["rock band"].cased  # a question without capitals: all count
    assert not name_keys("Did the rock band ship to Paris?")["rock band"].cased


async def test_links_cap_is_shared_per_hop(kg: KnowledgeGraph) -> None:
    leaves = [f"Leaf{i}" for i in range(30)]
    ents: list[Entity] = [("Zentrix", "Company", "")]
    ents += [(leaf, "Part", "") for leaf in leaves] + [(f"Deep{i}", "Part", "") for i in range(30)]
    rels: list[Relation] = [("Zentrix", "SUPPLIES", leaf, f"Zentrix supplies {leaf}.") for leaf in leaves]
    rels += [(leaf, "CONTAINS", f"Deep{i}", f"{leaf} contains Deep{i}.") for i, leaf in enumerate(leaves)]
    text = "Zentrix catalogue: " + ", ".join(leaves) + ", " + ", ".join(f"Deep{i}" for i in range(30)) + "."
    await _build(kg, _batch("star", "Zentrix catalogue", [text], ents, rels))

    one = await kg.retrieve("What does Zentrix supply?", paths=["links"], top_k=5)
    assert links_cap(5) == 20 and len(one.relations) == 20 and {r.hop for r in one.relations} == {1}

    two = await kg.retrieve("What does Zentrix supply?", paths=["links"], top_k=5, expand_hops=2)
    hops = [r.hop for r in two.relations]
    assert hop_shares(20, 2) == [10, 10]
    assert len(hops) == 20 and hops.count(1) == 10 and hops.count(2) == 10  # the busy hop 1 keeps its share
    assert all(r.type == "CONTAINS" for r in two.relations if r.hop == 2)

    three = await kg.retrieve("What does Zentrix supply?", paths=["links"], top_k=5, expand_hops=3)
    hops = [r.hop for r in three.relations]
    assert len(hops) == 20 and hops.count(2) >= 7  # hop 3 finds nothing new: its share goes back to the others
    many = await kg.retrieve("What does Zentrix supply?", paths=["links"], top_k=50, expand_hops=5)
    hops = [r.hop for r in many.relations]
    assert links_cap(50) == 40 and 30 < len(hops) <= 40 and hops.count(2) >= 8  # 40 // 5 per hop, at least
    first = await kg.retrieve("Zentrix", paths=["links"], top_k=1, expand_hops=9)  # hops clamp to 5
    assert len(first.relations) == 4


async def test_document_filter_applies_to_every_path(kg: KnowledgeGraph) -> None:
    await _build(kg, TOWER, LOUVRE, TEA)
    question = "Which landmarks are in Paris?"
    everywhere = await kg.retrieve(question)
    assert {p.document_id for p in everywhere.passages} >= {"tower", "louvre"}
    assert {f.fact for f in everywhere.facts} >= {"The Eiffel Tower is in Paris.", "The Louvre museum is in Paris."}

    hits = await kg.retrieve(question, document_ids=["louvre"])
    assert hits.passages and {p.document_id for p in hits.passages} == {"louvre"}
    assert hits.facts and {f.fact for f in hits.facts} == {"The Louvre museum is in Paris."}
    assert hits.relations and {r.fact for r in hits.relations} == {"The Louvre museum is in Paris."}
    assert {e.name for e in hits.entities} <= {"Louvre", "Paris"} and "Paris" in {e.name for e in hits.entities}
    assert not (await kg.retrieve("Eiffel Tower", document_ids=["tea"], paths=["exact_names"])).entities
    assert not (await kg.retrieve(question, document_ids=["no-such-doc"])).passages


FILM = ("Quiet Harbour is a 1998 drama film directed by Maren Lindqvist.", "Quiet Harbour", "Maren Lindqvist")
DIRECTOR = "Maren Lindqvist spent her childhood in Bergen, where her father built fishing boats."
DISTRACTORS = [
    ("Grey Tide is a 1997 drama film about a quiet harbour town, directed by Jonas Berg.", "Grey Tide", "Jonas Berg"),
    ("Salt Wind is a 1999 drama film set in a harbour city, directed by Ola Strand.", "Salt Wind", "Ola Strand"),
    ("The director of Still Water grew up in a harbour city; the film is a 2001 drama.", "Still Water", ""),
    ("Harbour Lights is a 1996 film; its director grew up in the city of Oslo.", "Harbour Lights", "Oslo"),
    ("Which city a film director grew up in often shapes their harbour dramas.", "Harbour dramas", ""),
]


async def test_bridge_expansion_finds_a_paragraph_the_question_never_names(kg: KnowledgeGraph) -> None:
    norway = ("Norway", "Place", "")
    batches = [
        _batch("film", "Quiet Harbour", [FILM[0]], [(FILM[1], "Work", ""), (FILM[2], "Person", "")]),
        _batch("director", "Maren Lindqvist", [DIRECTOR], [(FILM[2], "Person", ""), ("Bergen", "Place", "")]),
    ]
    for i, (text, title, person) in enumerate(DISTRACTORS):
        ents = [(title, "Work", "")] + ([(person, "Person", "")] if person else [])
        batches.append(_batch(f"d{i}", title, [text], ents))
    # a hub: named in the film's paragraph and in more than HUB_MENTIONS others
    batches[0].entities.append(EntityRecord(entity_id("Place", "Norway"), "Place", "Norway",
                                            chunk_ids=[batches[0].chunks[0].id]))
    for i in range(HUB_MENTIONS + 1):
        batches.append(_batch(f"hub{i}", f"Fjord {i}", [f"Fjord number {i} lies in Norway."], [norway]))
    await _build(kg, *batches)
    question = "In which city did the director of Quiet Harbour grow up?"

    vector = kg.embedder.embed([question])[0]
    dense = await dense_passages(kg.store, vector, 5)
    assert "director" not in {h.document_id for h in dense}  # the question alone does not reach it

    hits = await kg.retrieve(question, paths=["passages"], top_k=5)
    found = {h.document_id: h for h in hits.passages}
    assert "director" in {h.document_id for h in hits.passages[:3]}
    # by score alone the film and its director lead; the final order by new coverage (novelty.py) lets d4,
    # written to echo the question's words, pass the one after the best (the film before vector feedback, which
    # lifts the film, the seed of the moved vector: feedback.py)
    by_score = await passages(kg.store, question, _floats(vector), 5, chains=ChainSettings(novelty=0.0))
    assert {h.document_id for h in by_score[:2]} == {"film", "director"}
    assert {"bridge", "titled"} <= set(found["director"].found_by)  # it also carries the entity's name as title

    bridged = await bridge_candidates(kg.store, [("film#0", 1.0)], _floats(vector), 50)
    assert {c.document_id for c in bridged} == {"director"}  # never through the hub "Norway"
    assert bridged[0].bridge_via == [("maren lindqvist", pytest.approx(1 / np.log(3)))]


def _floats(vector: npt.NDArray[np.float32]) -> list[float]:
    return [float(x) for x in vector]


class _CountingEmbedder:
    """Wraps the real embedder and counts calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dimension = inner.dimension
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += list(texts)
        result: npt.NDArray[np.float32] = self.inner.embed(texts)
        return result

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += list(texts)
        result: npt.NDArray[np.float32] = await self.inner.aembed(texts)
        return result


async def test_no_llm_call_only_one_question_embedding(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    await _build(kg, COMPANY, TEA)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("retrieve must not call an LLM")

    # Patch litellm if something imported it already; otherwise stand in for it (importing it takes seconds).
    litellm = sys.modules.get("litellm") or types.ModuleType("litellm")
    monkeypatch.setitem(sys.modules, "litellm", litellm)
    for name in ("completion", "acompletion", "text_completion", "atext_completion", "embedding", "aembedding"):
        monkeypatch.setattr(litellm, name, forbidden, raising=False)
    counting = _CountingEmbedder(kg.embedder)
    hits = await retrieve(kg.store, counting, "Who founded Acme Corp?", expand_hops=3)  # type: ignore[arg-type]
    assert hits.facts and hits.entities and hits.relations and hits.passages
    assert counting.texts == ["Who founded Acme Corp?"]


INJECTIONS = [
    "Acme'}) MATCH (n) DETACH DELETE n //",
    'Acme"}) DETACH DELETE n RETURN 1 //',
    "@name:{Acme*} -Corp | (\"x\") ~Alice %Acme% $v \\ ` CALL db.idx.fulltext.drop('Chunk')",
    "CREATE (:Document {id: 'x'})",
]


@pytest.mark.parametrize("question", INJECTIONS)
async def test_cypher_injection_in_the_question_is_harmless(kg: KnowledgeGraph, question: str) -> None:
    await _build(kg, COMPANY)
    before = await kg.status()
    hits = await kg.retrieve(question, expand_hops=2, document_ids=["acme') DETACH DELETE (n) //", "acme"])
    assert hits.question == question and hits.passages  # still searches, on the words alone
    after = await kg.status()
    assert (after.documents, after.chunks, after.entities, after.relations) == (
        before.documents, before.chunks, before.entities, before.relations)


async def test_min_score_and_questions_without_content_words(kg: KnowledgeGraph) -> None:
    await _build(kg, COMPANY, TEA, TOWER)
    hits = await retrieve(kg.store, kg.embedder, "Who founded Acme Corp?", min_score=0.3)
    items = [*hits.entities, *hits.facts, *hits.relations, *hits.passages]
    assert items and all(h.score >= 0.3 for h in items)
    bare = await kg.retrieve("who is the one?")  # only stopwords: no names, no keywords, vectors still work
    assert not [e for e in bare.entities if e.path == "exact_names"] and bare.passages
