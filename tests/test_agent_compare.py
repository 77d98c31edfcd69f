"""Comparison questions as hops (scripted chat model, real embedded graph): one checked value per side, the pick
made by the comparison rule, and ``missing_hop`` when one side's paragraph is missing; plus the plan rules and
the date / same-value readings on the mixed sets' wording."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from test_agent_hops import draft, open_graphs, run

from graphrag_agents.agent.hops.check import chain_text, passage_topic
from graphrag_agents.agent.hops.compare import decide, read_date, same_value
from graphrag_agents.agent.hops.compare_plan import Comparison, comparison_plan, option_span
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.text import wordnet

ORDER = "Which film came out first, Blue Harbour or Red Meadow?"
BLUE = "Blue Harbour is a 1990 drama film directed by Mara Lind."
RED = "Red Meadow is a 1984 western film directed by Ole Brandt."
BRIDGE = "Which film has the director who was born first, Blue Harbour or Red Meadow?"
LIND = "Mara Lind (born 3 May 1950) is a Swedish film director."
BRANDT = "Ole Brandt (born 12 June 1941) is a Danish film director."
# The passage titled "Mike Portnoy" names him in full (the bundled demo corpus; the 1.5B cassette's second side).
PORTNOY = "Michael Stephen Portnoy (born April 20, 1967) is an American drummer."


@pytest.fixture(scope="module")
async def graphs(data_dir: Path, embedder: Any) -> AsyncIterator[dict[str, KnowledgeGraph]]:
    """``full``: both films and both directors; ``missing``: Red Meadow's paragraph and Brandt's removed, as in
    the mixed sets' unanswerable half."""
    blue = ("blue", BLUE, [("Blue Harbour", "Work"), ("Mara Lind", "Person")])
    red = ("red", RED, [("Red Meadow", "Work"), ("Ole Brandt", "Person")])
    lind = ("lind", LIND, [("Mara Lind", "Person")])
    brandt = ("brandt", BRANDT, [("Ole Brandt", "Person")])
    portnoy = ("portnoy", PORTNOY, [("Mike Portnoy", "Person")])
    async with open_graphs("compare", {"full": [blue, red, lind, brandt, portnoy], "missing": [blue, lind]},
                           data_dir, embedder) as made:
        yield made


async def test_an_order_comparison_is_decided_by_the_cited_dates(graphs: dict[str, KnowledgeGraph]) -> None:
    # The model only reads each side's year; which came first is the rule's, so no choice call is made.
    result, model = await run(graphs["full"], ORDER, draft("1990", "a 1990 drama"), draft("1984", "a 1984 western"))
    assert not result.abstained and result.short_answer == "Red Meadow"
    assert [step["question"] for step in result.chain] == ["When was Blue Harbour released?",
                                                           "When was Red Meadow released?"]
    blue, red = (step["evidence"][0] for step in result.chain)
    assert result.answer == (f"Answer: Red Meadow [{blue}] [{red}] (Blue Harbour -> 1990 [{blue}]; "
                             f"Red Meadow -> 1984 [{red}]).")
    assert result.llm_calls == 2 == len(model.calls)


async def test_a_bridge_comparison_walks_each_sides_relation(graphs: dict[str, KnowledgeGraph]) -> None:
    result, _ = await run(graphs["full"], BRIDGE, draft("Mara Lind", "directed by Mara Lind"),
                          draft("3 May 1950", "born 3 May 1950"), draft("Ole Brandt", "directed by Ole Brandt"),
                          draft("12 June 1941", "born 12 June 1941"))
    assert not result.abstained and result.short_answer == "Red Meadow"
    assert "Blue Harbour -> Mara Lind" in result.chain_text and "; Red Meadow -> Ole Brandt" in result.chain_text


async def test_a_side_its_passage_names_in_full_is_checked_under_that_name(
        graphs: dict[str, KnowledgeGraph]) -> None:
    # "Mike Portnoy" is in no sentence of the passage titled with him; its opening name is "Michael Stephen
    # Portnoy", and that sentence states the date. The 1.5B model's right answer was refused as missing_hop.
    result, _ = await run(graphs["full"], "Who was born first, Mara Lind or Mike Portnoy?",
                          draft("3 May 1950", "born 3 May 1950"), draft("April 20, 1967", "born April 20, 1967"))
    assert not result.abstained and result.short_answer == "Mara Lind"
    assert result.chain[1]["subject"] == "Mike Portnoy"


async def test_a_missing_sides_paragraph_ends_in_missing_hop(graphs: dict[str, KnowledgeGraph]) -> None:
    # Without Red Meadow's paragraph the 1.5B model still named a year; no shown sentence states it with the film.
    result, _ = await run(graphs["missing"], ORDER, draft("1990", "a 1990 drama"), draft("1984", "a 1990 drama"))
    assert result.abstained and result.abstain_reason == "missing_hop"
    assert result.missing_hop is not None and result.missing_hop["index"] == 2
    assert result.missing_hop["question"] == "When was Red Meadow released?"


async def test_a_side_the_rule_cannot_compare_is_refused(graphs: dict[str, KnowledgeGraph]) -> None:
    # Both sides cited, but the second value is no date: the rule decides nothing, so nothing is served.
    # The second side's hop is drafted again from Red Meadow's own passage (once a run), and fails again.
    result, model = await run(graphs["full"], ORDER, draft("1990", "a 1990 drama"),
                              draft("Ole Brandt", "a 1984 western"), draft("Ole Brandt", "a 1984 western"))
    assert result.abstained and result.abstain_reason == "missing_hop" and len(model.calls) == 3
    assert "Blue Harbour" not in model.calls[-1][-1].text  # the retry shows only the side's own passage


async def test_a_hop_misread_from_another_passage_is_drafted_again_from_its_subjects_own(
        graphs: dict[str, KnowledgeGraph]) -> None:
    # The 1.5B model's error on compositional hops: the date of another film among the shown passages. Shown only
    # the passage titled with the hop's subject, it reads the right one.
    result, model = await run(graphs["full"], ORDER, draft("1990", "a 1990 drama"),
                              draft("1990", None), draft("1984", "a 1984 western"))
    assert not result.abstained and result.short_answer == "Red Meadow" and result.llm_calls == 3 == len(model.calls)


async def test_the_old_path_keeps_comparisons_on_one_retrieve(graphs: dict[str, KnowledgeGraph]) -> None:
    result, model = await run(graphs["full"], ORDER, draft("Red Meadow", "a 1984 western"), hops=False,
                              choice_check=False)
    assert result.chain == [] and len(model.calls) == 1


@pytest.mark.parametrize(("question", "steps", "kind", "pick"), [
    # The 2WikiMultihopQA mixed set's shapes (its first 200 questions' wording).
    ("Who was born first out of Aivar Kuusmaa and Andy Summers?",
     ["When was Aivar Kuusmaa born?", "When was Andy Summers born?"], "order", "min"),
    ("Was Angus Wagner or Juan Carlos Falcón born first?",
     ["When was Angus Wagner born?", "When was Juan Carlos Falcón born?"], "order", "min"),
    ("Who is younger, Denise Kandel or Bruce Robinson?",
     ["When was Denise Kandel born?", "When was Bruce Robinson born?"], "order", "max"),
    ("Which film was released more recently, An Empress And The Warriors or Die Screaming, Marianne?",
     ["When was An Empress And The Warriors released?", "When was Die Screaming, Marianne released?"], "order",
     "max"),
    # A title holding "First" is not the question's direction.
    ("Which film has the director who was born later, The First Day Of Freedom or Malabimba – The Malicious Whore?",
     ["Who is the director of film The First Day Of Freedom?", "When was #1 born?",
      "Who is the director of film Malabimba – The Malicious Whore?", "When was #3 born?"], "order", "max"),
    ("Which film has the director died later, The Glass Wall or Where Does It Hurt??",
     ["Who is the director of film The Glass Wall?", "When did #1 die?",
      "Who is the director of film Where Does It Hurt??", "When did #3 die?"], "order", "max"),
    ("Are Marufabad and Nasamkhrali both located in the same country?",
     ["Which country is Marufabad located in?", "Which country is Nasamkhrali located in?"], "same", None),
    ("Do both directors of films Wrong Turn 5: Bloodlines and Dark River (2017 Film) have the same nationality?",
     ["Who is the director of film Wrong Turn 5: Bloodlines?", "What is the nationality of #1?",
      "Who is the director of film Dark River (2017 Film)?", "What is the nationality of #3?"], "same", None),
    ("Were both Pietro Salini and Domenico Ravenna, born in the same place?",
     ["Where was Pietro Salini born?", "Where was Domenico Ravenna born?"], "same", None),
])
def test_comparison_plans_read_the_question(question: str, steps: list[str], kind: str, pick: str | None) -> None:
    planned = comparison_plan(question)
    assert planned is not None
    assert planned[0] == steps and planned[1]["kind"] == kind and planned[1]["pick"] == pick


@pytest.mark.parametrize("question", [
    "Who lived longer, Hubert Mordek or Levon Ashotovich Grigorian?",  # two dates a side: not planned here
    "Who lived to an older age, Elia Kazan or Moustapha Akkad?",
    "Which documentary is the oldest, The Private Life of Plants or Marx Reloaded?",  # "oldest" of a work
    "Which mountain is taller, Gasherbrum II or Langtang Ri?",  # no date to compare
    "Are Karl Shapiro and Elie Wiesel both American writers?",  # not a comparison of two values
    "Where was the director of film Blue Harbour born?",
])
def test_other_questions_get_no_comparison_plan(question: str) -> None:
    assert comparison_plan(question) is None


def test_an_options_punctuation_is_put_back() -> None:
    question = "Which film has the director born later, Illusions (1982 Film) or It'S A Wonderful Afterlife?"
    assert option_span(question, "Illusions 1982 Film") == "Illusions (1982 Film)"
    planned = comparison_plan(question)
    assert planned is not None and planned[1]["subjects"][0] == "Illusions"  # the passage's own name


@pytest.mark.parametrize(("text", "date"), [
    ("12 June 1967", (1967, 6, 12)), ("December 24, 1886", (1886, 12, 24)), ("1961", (1961, None, None)),
    ("March 1926", (1926, 3, None)), ("20 March 851", (851, 3, 20)), ("300 BC", (-300, None, None)),
    ("the 3rd of May, 1901", (1901, 5, 3)), ("Ole Brandt", None),
])
def test_dates_are_read_as_written(text: str, date: tuple[int, int | None, int | None] | None) -> None:
    assert read_date(text) == date


def test_the_order_rule_refuses_what_the_dates_do_not_decide() -> None:
    plan = Comparison(kind="order", pick="min", options=["A", "B"], finals=[0, 1], subjects=["A", "B"])
    assert decide(plan, ["June 1950", "1951"]).answer == "A"
    assert decide(plan, ["1950", "3 May 1950"]).answer is None  # the same year as far as both are written
    later = Comparison(kind="order", pick="max", options=["A", "B"], finals=[0, 1], subjects=["A", "B"])
    assert decide(later, ["3 May 1950", "2 May 1950"]).answer == "A"


needs_lexicon = pytest.mark.skipif(not wordnet.available(), reason="the lexicon extra (WordNet data) is not installed")


@needs_lexicon
def test_same_value_reads_nationality_adjectives_from_wordnet() -> None:
    assert same_value("American", "United States")  # 2Wiki: "Christopher Newton (Criminal)" / "Frances M. Vega"
    assert same_value("American", "U.S.")  # 2Wiki mixed row 238: King Baggot / James L. Robinson
    assert same_value("Rome", "Roman")
    assert same_value("Perú", "peru")
    assert not same_value("Iran", "Iraq")
    assert not same_value("British", "American")


@needs_lexicon
def test_a_comparison_by_country_decides_only_on_nationalities() -> None:
    # 2Wiki mixed, "Are both businesses, Google and Banco De Ponce, located in the same country?" (unanswerable):
    # the sides were answered "California" and "Puerto Rico", and "no" was served.
    planned = comparison_plan("Are both businesses, Google and Banco De Ponce, located in the same country?")
    assert planned is not None and planned[1]["what"] == "country"
    refused = decide(planned[1], ["California", "Puerto Rico"])
    assert refused.answer is None and "country or nationality: 'Puerto Rico'" in refused.reason
    assert decide(planned[1], ["Chicago", "Australia"]).answer is None  # "The Knockout Kid", a city
    assert decide(planned[1], ["American", "United States"]).answer == "yes"
    assert decide(planned[1], ["Bolivian", "Bolivian"]).answer == "yes"  # 2Wiki mixed row 191, Allqamari
    # 2Wiki mixed row 338 (Rhosgoch / Qaleh-ye Sahar): two countries, neither side's evidence naming the other
    assert decide(planned[1], ["United Kingdom", "Iran"]).answer == "no"
    # "Sweden" reads as a nationality only through the evidence's own "Swedish" (LIND above)
    assert decide(planned[1], ["Sweden", "Danish"]).answer is None
    assert decide(planned[1], ["Sweden", "Danish"], [[LIND], [BRANDT]]).answer == "no"
    # A state is in its country: a side cited from a passage that also writes "American" may share it
    google = "Google LLC is an American multinational technology company based in Mountain View, California."
    shared = decide(planned[1], ["California", "United States"], [[google], []])
    assert shared.answer is None and "also names 'United States'" in shared.reason
    # A plan stored by the previous release has no "what": it decides as before.
    stored = Comparison(kind="same", pick=None, options=["A", "B"], finals=[0, 1], subjects=["A", "B"])
    assert decide(stored, ["California", "Puerto Rico"]).answer == "no"
    place = comparison_plan("Were both Mara Lind and Otto Berg born in the same place?")
    assert place is not None and decide(place[1], ["Uppsala", "Aarhus"]).answer == "no"


def test_without_the_lexicon_a_country_comparison_says_yes_or_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wordnet, "pertainyms", lambda word: frozenset())
    monkeypatch.setattr(wordnet, "available", lambda: False)
    planned = comparison_plan("Are both businesses, Google and Banco De Ponce, located in the same country?")
    assert planned is not None
    assert decide(planned[1], ["the United States", "United States"]).answer == "yes"
    refused = decide(planned[1], ["United Kingdom", "Iran"])
    assert refused.answer is None and "lexicon extra" in refused.reason


@pytest.mark.parametrize(("text", "topic"), [
    ("Michael Stephen Portnoy (born April 20, 1967) is an American drummer.", "Michael Stephen Portnoy"),
    ("Ludwig van Beethoven was a German composer.", "Ludwig van Beethoven"),
    ('"Nobody\'s Hero" is a song by Rush.', "Nobody's Hero"),
    ("In 1990 the film premiered.", "In"),
])
def test_a_passages_opening_name(text: str, topic: str) -> None:
    assert passage_topic(text) == topic


def test_a_comparison_chain_is_shown_as_one_run_per_side() -> None:
    steps = [{"subject": "A", "answer": "1961", "evidence": [1]}, {"subject": "B", "answer": "1946", "evidence": [3]}]
    assert chain_text(steps) == "A -> 1961 [1]; B -> 1946 [3]"
    linear = [{"subject": "X", "answer": "Y", "evidence": [1]}, {"subject": "Y", "answer": "Z", "evidence": [2]}]
    assert chain_text(linear) == "X -> Y [1] -> Z [2]"
