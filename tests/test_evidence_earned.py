"""Evidence that earns its place: a fact line or entity card enters ``retrieve``'s evidence only when it tells the
reader something the passages shown do not, about the question (``graphrag_agents/tools/earned.py``).

The spans are real: 33 sections of npm 11.19.1's docs from the shared ``techdocs_a`` corpus (the ``npm cache`` and
``npm ci`` pages and the install page of ``configuring-npm``, copied to ``tests/data/npm_ci_install_sections.jsonl``;
license in ``tests/data/NOTICE.md``), one document each, as the eval builds them, with the default ``ner``
extractor.
"""

from __future__ import annotations

import pytest
from section_rows import ingest_sections, read_rows

from graphrag_agents.evidence import EvidenceLedger
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.hits import FactEntity, RelationHit
from graphrag_agents.tools.earned import on_question
from graphrag_agents.tools.read_tools import number_retrieval

ROWS = read_rows("npm_ci_install_sections.jsonl")
UNABLE = ("If you are unable to use a Node version manager, you can use a Node installer to install both Node.js and "
          "npm on your system.")  # configuring-npm/install.md, techdocs_a-f88ed6b22c63


@pytest.fixture
async def npm_kg(kg: KnowledgeGraph) -> KnowledgeGraph:
    return await ingest_sections(kg, ROWS, "ner")


async def test_a_fact_off_the_question_is_left_out_and_one_naming_its_entity_stays(npm_kg: KnowledgeGraph) -> None:
    """The case: for "Does npm ci write to the lockfile?", the facts path returns the install page's lines about
    Node installers (configuring-npm/install.md), which hold no content word of the question ("write": in under
    5% of the chunks) and name no entity of it. By default they are left out; ``earned_only=False`` keeps them."""
    question = "Does npm ci write to the lockfile?"
    hits = await npm_kg.retrieve(question, top_k=10, paths=["facts"])
    assert "write" in set(hits.question_words or ())
    every = number_retrieval(EvidenceLedger(), hits, earned_only=False)
    assert any(f.fact.startswith("If you are unable to use a Node version manager") for f in every.facts)
    assert number_retrieval(EvidenceLedger(), hits).facts == []
    # a fact naming an entity the question names earns its place, with no passage shown beside it
    hits = await npm_kg.retrieve("Which installer is recommended on Linux?", top_k=10, paths=["facts"])
    kept = number_retrieval(EvidenceLedger(), hits).facts
    assert "If you use Linux, we recommend that you use a NodeSource installer." in [f.fact for f in kept]


def test_a_content_word_is_matched_whole_and_a_short_word_is_no_content() -> None:
    """configuring-npm/install.md › "Using a Node installer ..." (techdocs_a-f88ed6b22c63): its fact "If you are
    unable to use a Node version manager, you can use a Node installer to install both Node.js and npm on your
    system." holds "installer" and "system", not "installers" and "systems", and "up" (two letters) tells no
    subject: for a question whose content words are those, naming no entity of the fact, it is off the question."""
    fact = _fact(["Node", "Node.js"], UNABLE)
    assert not on_question(fact, "Which installers set up shared systems?", {"installers", "systems", "up"})
    assert on_question(fact, "Which installer sets up a shared system?", {"installer", "system", "up"})


async def test_a_list_the_splitter_left_whole_is_no_fact(npm_kg: KnowledgeGraph) -> None:
    """techdocs_a, configuring-npm/install.md › "Using a Node installer to install Node.js and npm": the two list
    items ``* [Node.js installer](...)`` and ``* [NodeSource installer](...)`` are one "sentence" to the splitter;
    the extractor makes no fact of them, so no question gets them back."""
    hits = await npm_kg.retrieve("Which Node.js installer and NodeSource installer links are listed?", top_k=10,
                                 paths=["facts", "links"])
    lines = [f.fact for f in [*hits.facts, *hits.relations]]
    assert lines and not any(line.startswith("* [Node.js installer]") for line in lines)


async def test_an_entity_card_repeating_a_shown_name_is_left_out(npm_kg: KnowledgeGraph) -> None:
    """The case: ``Linux (Person)`` returned beside the install page's sections, which write "Linux": the card adds
    a guessed type, nothing the text says. The same card stays when no passage is shown."""
    question = "Which installer is recommended on Linux?"
    hits = await npm_kg.retrieve(question, top_k=10)
    every = number_retrieval(EvidenceLedger(), hits)  # the card rule is opt-in: the default keeps every card
    assert "Linux" in [e.name for e in every.entities] and every.passages
    result = number_retrieval(EvidenceLedger(), hits, earned_only=True)
    shown = " ".join(p.text for p in result.passages)
    assert all(e.name not in shown or e.description for e in result.entities)
    assert "Linux" not in [e.name for e in result.entities]
    alone = number_retrieval(EvidenceLedger(), await npm_kg.retrieve(question, top_k=10, paths=["exact_names"]),
                             earned_only=True)
    assert "Linux" in [e.name for e in alone.entities]


def _fact(names: list[str], text: str) -> RelationHit:
    return RelationHit(source="", source_label="", type="RELATED_TO", target="", target_label="", fact=text,
                       score=0.5, path="facts", entities=[FactEntity(entity_id=f"Organization:{n.lower()}", name=n,
                                                                     label="Organization") for n in names],
                       fact_id="f")


def test_a_file_name_names_no_entity_and_one_shared_word_is_a_coincidence() -> None:
    """configuring-npm/package-json.md › Description (techdocs_a-7fc7d2114eb7): "It must be actual JSON, not just a
    JavaScript object literal." names JSON; a question about the fields of ``package.json`` names a file, not the
    format. configuring-npm/install.md (techdocs_a-f88ed6b22c63): "If you are unable to use a Node version manager,
    ..." shares only "system" with a question about which system maps a scope to a team; it shares "installer",
    "unable" and "system" with one about which installer to use when unable to build on one's system."""
    json_fact = _fact(["JSON", "JavaScript"], "It must be actual JSON, not just a JavaScript object literal.")
    question = "Which fields of package.json does npm require?"
    assert not on_question(json_fact, question, {"fields", "require"})
    assert on_question(json_fact, "Is package.json written in JSON?", {"written"})
    unable = _fact(["Node", "Node.js"], UNABLE)
    assert not on_question(unable, "Which system maps a scope to a team?", {"system", "scope", "team"})
    assert on_question(unable, "Which installer do I use when unable to build on my system?",
                       {"installer", "unable", "system"})
