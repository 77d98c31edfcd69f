"""The second look's sentences (agent/second_look.py): the ones of the shown items closest to the question."""

from __future__ import annotations

from graphrag_agents.agent.second_look import closest_sentences, second_look_prompt

# ../shared/eval/hotpotqa.corpus.jsonl, hotpotqa-7463eab29ffc "Catawissa (tugboat)" and hotpotqa-1e09cd24dece
# "Sutera".
TUGBOAT = ("Catawissa was a historic tugboat located at Waterford in Saratoga County, New York. She was built in "
           "1896-1897 by Harlan and Hollingsworth of Wilmington, Delaware for the Philadelphia and Reading Railroad "
           "to tow coal barges between ports on the Eastern Seaboard. She was 158 feet in length, 19 feet in beam "
           "and 18 feet in depth. She was registered at 558 gross tons.")
SUTERA = ('Sutera is a "comune" (municipality) in the Province of Caltanissetta in the Italian region Sicily, '
          "located about 70 km southeast of Palermo and about 30 km west of Caltanissetta. The area is dominated by "
          'a large monolithic rock termed "The Mountain of San Paolino".')


def test_the_sentence_holding_the_rarest_question_terms_comes_first_and_each_keeps_its_number() -> None:
    items = [(1, SUTERA), (2, TUGBOAT)]
    best = closest_sentences("At how many gross tons was the tugboat registered?", items, limit=1)
    assert best == [(2, "She was registered at 558 gross tons.")]
    two = closest_sentences("Who built the tugboat, and how long was it?", items, limit=2)
    assert [n for n, _ in two] == [2, 2] and two[0][1].startswith("Catawissa was")  # in the passage's order


def test_no_sentence_sharing_a_question_term_means_no_second_look() -> None:
    assert closest_sentences("Which opera premiered in Vienna?", [(1, TUGBOAT)]) == []
    assert closest_sentences("Where is Sutera?", []) == []


def test_the_prompt_lists_each_sentence_under_its_evidence_number() -> None:
    prompt = second_look_prompt("Where is Sutera?", [(3, "Sutera is a comune in Sicily.")])
    assert "[3] Sutera is a comune in Sicily." in prompt and prompt.rstrip().endswith('"evidence": []}.')
