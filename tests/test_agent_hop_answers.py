"""Hop answers as the 1.5B model writes them: a person named by the surname alone in the sentence that states the
hop's subject (English names a person in full once, then by the last name), and an answer written as a sentence
that restates the hop's question. The passages and the questions are written for these tests; the cases are named
in ``agent.hops.check`` and ``agent.hops.restated``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from test_agent_hops import draft, open_graphs, run

from graphrag_agents.agent.hops.check import _answer_forms
from graphrag_agents.agent.hops.restated import restated_answer
from graphrag_agents.kg import KnowledgeGraph

QUESTION = "The story Grey Lantern first appeared in a magazine; who was that magazine's first editor?"
STORY = "Grey Lantern is a short story by Ines Varga. Grey Lantern was first published in Northwind Quarterly in 1952."
EDITOR = ("Tomas Elling Brandt grew up in Tromsø and studied law. Brandt, who was the first editor of Northwind "
          "Quarterly, ran it until 1960.")
# The surname alone, with no full name of it in the passage: nothing ties "Brandt" to the answer.
OTHER_BRANDT = "Northwind Quarterly is a literary magazine. Brandt, who was the first editor of Northwind Quarterly, " \
               "ran it until 1960."
PLAN = AIMessage(json.dumps({"steps": ["Which magazine first published Grey Lantern?",
                                       "Who was the first editor of #1?"]}))


@pytest.fixture(scope="module")
async def graphs(data_dir: Path, embedder: Any) -> AsyncIterator[dict[str, KnowledgeGraph]]:
    story = ("story", STORY, [("Grey Lantern", "Work"), ("Northwind Quarterly", "Organization")])
    editor = ("editor", EDITOR, [("Tomas Elling Brandt", "Person"), ("Northwind Quarterly", "Organization")])
    other = ("magazine", OTHER_BRANDT, [("Northwind Quarterly", "Organization")])
    async with open_graphs("surname", {"full": [story, editor], "surname_only": [story, other]}, data_dir,
                           embedder) as made:
        yield made


async def test_a_hop_answer_the_cited_sentence_names_by_surname_is_served(
        graphs: dict[str, KnowledgeGraph]) -> None:
    result, _ = await run(graphs["full"], QUESTION, PLAN, draft("Northwind Quarterly", "published in Northwind"),
                          draft("Tomas Elling Brandt", "Brandt, who was the first editor"))
    assert not result.abstained, result.missing_hop
    assert result.short_answer == "Tomas Elling Brandt"
    assert [step["answer"] for step in result.chain] == ["Northwind Quarterly", "Tomas Elling Brandt"]


async def test_a_surname_without_the_full_name_in_its_passage_does_not_state_the_answer(
        graphs: dict[str, KnowledgeGraph]) -> None:
    result, _ = await run(graphs["surname_only"], QUESTION, PLAN,
                          draft("Northwind Quarterly", "published in Northwind"),
                          draft("Tomas Elling Brandt", "Brandt, who was the first editor"))
    assert result.abstained and result.abstain_reason == "missing_hop"
    assert result.missing_hop is not None and result.missing_hop["index"] == 2


def test_the_surname_is_read_only_when_the_passage_writes_the_full_name_and_the_surname_again() -> None:
    assert _answer_forms("Tomas Elling Brandt", EDITOR) == ["Tomas Elling Brandt", "Brandt"]
    assert _answer_forms("Tomas Elling Brandt", OTHER_BRANDT) == ["Tomas Elling Brandt"]
    assert _answer_forms("Tomas Elling Brandt", "Tomas Elling Brandt studied law.") == ["Tomas Elling Brandt"]
    # not a name: lowercase words, or one word
    assert _answer_forms("first editor", "The first editor ... editor") == ["first editor"]
    assert _answer_forms("Brandt", EDITOR) == ["Brandt"]


# -- an answer that restates the hop's question ------------------------------------------------------------------


def test_a_hop_answer_that_restates_its_question_is_read_as_what_it_adds() -> None:
    question = "Which magazine first published Grey Lantern?"
    assert restated_answer(question, "Grey Lantern", "Grey Lantern was first published in Northwind Quarterly") \
        == "Northwind Quarterly"
    assert restated_answer("Where was Tomas Elling Brandt born?", "Tomas Elling Brandt",
                           "Tomas Elling Brandt was born in Tromsø.") == "Tromsø"
    # what follows is no name: the answer stays as the model wrote it
    assert restated_answer("What was Tomas Elling Brandt?", "Tomas Elling Brandt",
                           "Tomas Elling Brandt was a lawyer") == "Tomas Elling Brandt was a lawyer"
    # it does not open with the subject, or it is the answer alone
    assert restated_answer(question, "Grey Lantern", "It was published in Northwind Quarterly") \
        == "It was published in Northwind Quarterly"
    assert restated_answer(question, "Grey Lantern", "Northwind Quarterly") == "Northwind Quarterly"
    # a name that opens with the subject is the answer as written, not a sentence about the subject
    assert restated_answer("Where does Ines Varga work?", "Ines Varga", "Ines Varga Centre for Short Fiction") \
        == "Ines Varga Centre for Short Fiction"


async def test_a_chain_carries_the_answer_a_restating_hop_adds(graphs: dict[str, KnowledgeGraph]) -> None:
    result, _ = await run(graphs["full"], QUESTION, PLAN,
                          draft("Grey Lantern was first published in Northwind Quarterly", "published in Northwind"),
                          draft("Tomas Elling Brandt", "Brandt, who was the first editor"))
    assert not result.abstained, result.missing_hop
    assert result.chain[1]["question"] == "Who was the first editor of Northwind Quarterly?"
