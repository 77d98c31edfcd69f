"""The category rule (``agent.fit.category``): "what kind of N" is not answered by the name of one N. The
questions and passages are written for these tests; the rule's case is named in the module."""

from __future__ import annotations

import pytest

from graphrag_agents.agent import ShownItem, answer_fit
from graphrag_agents.agent.fit.category import category_problem

COLLEGE = ShownItem(1, "Ilse Marrow", "Ilse Marrow studied at Fenwick College, a private liberal arts college in "
                                      "Vermont.")


@pytest.mark.parametrize(("question", "answer", "flagged"), [
    ("What kind of college did Ilse Marrow attend?", "Fenwick College", True),
    ("What type of colleges did Ilse Marrow attend?", "Fenwick College", True),
    ("Which sort of library holds the Marrow letters?", "Stanfield Public Library", True),
    # a category, written in sentence case or lowercase: what the question asks for
    ("What kind of college did Ilse Marrow attend?", "private liberal arts college", False),
    ("What kind of college did Ilse Marrow attend?", "Liberal arts college", False),
    # a name that does not end in the asked noun
    ("What kind of plane dropped the crates on Tarn Island?", "Avro Lancaster bomber", False),
    ("What kind of plane dropped the crates on Tarn Island?", "Avro Lancaster", False),
    # not a kind question
    ("Which college did Ilse Marrow attend?", "Fenwick College", False),
])
def test_a_name_of_one_thing_does_not_answer_what_kind(question: str, answer: str, flagged: bool) -> None:
    assert (category_problem(question, answer) is not None) is flagged


def test_the_finding_reaches_the_answer_fit_rules() -> None:
    found = answer_fit("What kind of college did Ilse Marrow attend?", "Fenwick College", [1], [COLLEGE])
    assert [p.rule for p in found] == ["kind"] and "kind of college" in found[0].detail
    assert answer_fit("What kind of college did Ilse Marrow attend?", "private liberal arts college", [1],
                      [COLLEGE]) == []
