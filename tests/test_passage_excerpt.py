"""A long passage is shown around the question's words (``graphrag_agents/tools/excerpt.py``).

The row is real: ``npm install``'s section on how it uses ``package-lock.json`` from the shared ``techdocs_a``
corpus (``techdocs_a-165c5e92a133``, 15,864 characters), copied to ``tests/data/`` (license in
``tests/data/NOTICE.md``). The questions are written for these tests.
"""

from __future__ import annotations

from section_rows import read_rows

from graphrag_agents.tools.excerpt import excerpt, question_terms
from graphrag_agents.tools.results import MIN_PASSAGE_CHARS, PASSAGE_CHARS, PassageItem, RetrieveResult

SECTION = read_rows("npm_install_lockfile_section.jsonl")[0]
QUESTION = "Which file extensions must a tarball file use when npm installs it from the filesystem?"


def test_the_lines_holding_the_question_words_are_shown_with_the_lead() -> None:
    """The tarball requirements stand about 3,600 characters into the section, far past a head of 1,200: the
    excerpt shows them, after the section's first line (what the passage is about), with each cut marked."""
    text = SECTION["text"]
    shown = excerpt(text, question_terms(QUESTION), 600)
    assert len(shown) <= 600
    assert "`.tar`, `.tar.gz`, or `.tgz`" in shown and "`.tar`, `.tar.gz`" not in text[:1200]
    assert shown.startswith("When you run `npm install` without arguments") and " … " in shown


def test_a_short_passage_or_no_question_word_shows_the_head() -> None:
    text = SECTION["text"]
    assert excerpt(text, question_terms("zzz qqq"), 300) == excerpt(text, frozenset(), 300)
    assert excerpt(text, frozenset(), 300).startswith("When you run `npm install`")
    assert excerpt("Short text.", question_terms(QUESTION), 300) == "Short text."


def _result(copies: int) -> RetrieveResult:
    passages = [PassageItem(n=i + 1, document_id=f"d{i}", file="commands/npm-install.md", heading=SECTION["title"],
                            text=SECTION["text"], score=1.0 - i / 10) for i in range(copies)]
    return RetrieveResult(question=QUESTION, paths=["passages"], passages=passages)


def test_more_passages_are_read_when_they_are_long() -> None:
    """Eight long passages: by default the first keeps its 1,200 characters and the others are cut around the
    question's words so that more of them are read than when each shows its head (``focus=False``)."""
    result = _result(8)
    focused, heads = result.to_llm_text(), result.to_llm_text(focus=False)
    read = [sum(f"[{n}] (" in text for n in range(1, 9)) for text in (focused, heads)]
    assert read[0] > read[1]
    assert focused.count("`.tar`, `.tar.gz`") >= read[0] - 1 and "`.tar`, `.tar.gz`" not in heads
    assert MIN_PASSAGE_CHARS < PASSAGE_CHARS
