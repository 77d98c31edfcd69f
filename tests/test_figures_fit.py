"""The answer-fit rules that read figures (``kind``, ``order``): cases from real drafts of the 1.5B model on the
tuning questions (mixed set, questions 81-200) that passed the citation check and were wrong."""

from __future__ import annotations

import pytest

from graphrag_agents.agent import ShownItem, answer_fit
from graphrag_agents.agent.fit.figures import first_metres, first_year, kind_problem

MUZTAGH = ShownItem(1, "Muztagh Ata", "Muztagh Ata, or Muztagata, is the second highest (7,546 m) of the mountains "
                                      "which form the northern edge of the Tibetan Plateau.")
MANASLU = ShownItem(2, "Manaslu", "Manaslu is the eighth-highest mountain in the world at 8,163 metres "
                                  "(26,781 ft) above sea level.")
PEARS = ShownItem(3, "Iain Pears", "Iain George Pears (born 8 August 1955) is an English art historian, novelist "
                                   "and journalist.")
LLEWELLYN = ShownItem(4, "Richard Llewellyn", "Richard Dafydd Vivian Llewellyn Lloyd (8 December 1906 – 30 "
                                              "November 1983) was a Welsh novelist.")
SPIRIT = ShownItem(5, "Spirit Halloween", "Spirit Halloween is a seasonal retailer; in 1999 Spirit Halloween LLC "
                                          "was purchased by Spencer Gifts LLC.")


def rules(question: str, answer: str, cited: list[int], shown: list[ShownItem]) -> list[str]:
    return [p.rule for p in answer_fit(question, answer, cited, shown)]


def test_the_side_its_own_heights_put_second_is_refused_with_the_figures() -> None:
    question = "Which peak stands higher, Muztagh Ata or Manaslu?"
    problems = answer_fit(question, "Muztagh Ata", [1, 2], [MUZTAGH, MANASLU])
    assert [p.rule for p in problems] == ["order"]
    assert "7,546 m" in problems[0].detail and "8,163 metres" in problems[0].detail
    assert "the answer is Manaslu" in problems[0].detail
    assert rules(question, "Manaslu", [2], [MUZTAGH, MANASLU]) == []
    assert rules("Which peak is lower, Muztagh Ata or Manaslu?", "Muztagh Ata", [1], [MUZTAGH, MANASLU]) == []


def test_born_first_is_decided_by_each_sides_first_year() -> None:
    question = "Who was born first Iain Pears or Richard Llewellyn ?"
    assert rules(question, "Iain George Pears", [3], [PEARS, LLEWELLYN]) == ["order"]
    assert rules(question, "Richard Llewellyn", [4], [PEARS, LLEWELLYN]) == []
    assert rules("Who is younger, Iain Pears or Richard Llewellyn?", "Iain Pears", [3], [PEARS, LLEWELLYN]) == []


def test_no_order_finding_without_a_figure_for_each_side_or_a_known_comparative() -> None:
    undated = ShownItem(4, "Richard Llewellyn", "Richard Llewellyn was a Welsh novelist.")
    assert rules("Who was born first Iain Pears or Richard Llewellyn ?", "Iain Pears", [3], [PEARS, undated]) == []
    assert rules("Who wrote more novels, Iain Pears or Richard Llewellyn?", "Iain Pears", [3],
                 [PEARS, LLEWELLYN]) == []
    # Two comparatives at once ("older and taller") decide nothing.
    assert rules("Which is older and taller, Muztagh Ata or Manaslu?", "Muztagh Ata", [1],
                 [MUZTAGH, MANASLU]) == []


def test_how_many_needs_a_number_in_the_answer() -> None:
    question = "in 1999, Spirit Halloween LLC was purchased by a mall retailer that has how many stores?"
    assert "kind" in rules(question, "Spencer Gifts LLC", [5], [SPIRIT])
    assert "kind" not in rules(question, "over 600", [5], [SPIRIT])
    assert "kind" not in rules(question, "six hundred", [5], [SPIRIT])


@pytest.mark.parametrize(("question", "answer", "fits"), [
    ("When was the Holm Tower completed?", "1781", True),
    ("When was the Holm Tower completed?", "14 March", True),
    ("When was the Holm Tower completed?", "the 18th century", True),
    ("When was the Holm Tower completed?", "Holm Tower", False),
    ("In what year did the band form?", "Rush", False),
    ("Which city hosted the 1936 games?", "Berlin", True),
    ("When Harry Met Sally... starred which actress?", "Meg Ryan", True),
    ("How much did the film earn?", "$5 million", True),
])
def test_the_kind_of_answer_a_question_asks_for(question: str, answer: str, fits: bool) -> None:
    assert (kind_problem(question, answer) is None) is fits


def test_figure_readers() -> None:
    assert first_year("Iain George Pears (born 8 August 1955)") == (1955, "1955")
    assert first_year("a population of 12,000 in 1,500 homes") is None
    assert first_metres("at 8,163 metres (26,781 ft)") == (8163, "8,163 metres")
    assert first_metres("7546 m high") == (7546, "7546 m")
    assert first_metres("5 miles") is None
