"""Names read from text (``text.names``): a capitalised opener after a sentence's end is not part of a name.

Case: a question of two sentences whose second opens with a preposition ("... a program. On Linux (...), which
...") was read as naming "On Linux", a two-word specific name no passage states, so the answer-fit anchor rule
refused the right answer. The sentences here are written for the test.
"""

from __future__ import annotations

from graphrag_agents.agent.fit.anchor import specific_names
from graphrag_agents.text.names import extract_names


def _texts(text: str) -> list[str]:
    return [name.text for name in extract_names(text, lone_first=True)]


def test_an_opener_after_a_sentence_end_is_not_part_of_the_next_name() -> None:
    assert _texts("The tool starts a viewer. On Linux (not macOS), which viewer is it?") == ["Linux"]
    assert _texts("The builds are cached. With Gradle Cloud, where does the cache live?") == ["Gradle Cloud"]
    assert _texts("Is it fast? For Windows users, which shell runs it?") == ["Windows"]


def test_an_opener_inside_a_sentence_still_joins_a_name() -> None:
    assert _texts("She moved to The Hague in 1990.") == ["The Hague"]
    assert _texts("He served in the U.S. Army for ten years.") == ["U.S. Army"]


def test_a_one_word_name_after_an_opener_is_not_a_specific_name_by_itself() -> None:
    question = "The command opens a viewer. On Linux (not macOS), which viewer does it open?"
    assert [name.text for name in specific_names(question, [])] == []
