"""The page a question names by its file, written as code, takes the title feature for its best section.

The spans are real: ``techdocs_a`` row s01 asks what `` `npm ci` `` does when ``package.json`` and the lockfile
disagree, and the answer is the Description of ``commands/npm-ci.md``; the long section of ``npm install`` on how it
uses ``package-lock.json`` says "lockfile", "version" and "range" dozens of times. Both are rows of the shared
``techdocs_a`` corpus copied to ``tests/data/npm_ci_install_sections.jsonl`` (the ``npm cache`` and ``npm ci`` pages
and ``configuring-npm/install.md``) and ``tests/data/npm_install_lockfile_section.jsonl`` (license in
``tests/data/NOTICE.md``), one document per section as the eval builds them.
"""

from __future__ import annotations

import pytest
from section_rows import ingest_sections, read_rows

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval import passages
from graphrag_agents.retrieval.page_names import code_words, names_page, page_name

ROWS = read_rows("npm_ci_install_sections.jsonl") + read_rows("npm_install_lockfile_section.jsonl")
S01 = ("Our CI runs `npm ci`, but someone changed a version range in package.json without updating the lockfile. "
       "What does npm ci do in that case?")  # techdocs_a row s01
S32 = "For a global install on Unix, where does npm link the package's man pages?"  # techdocs_a row s32
CI_DESCRIPTION = "techdocs_a-ef9af12f70af"  # commands/npm-ci.md › Description
CI_PAGE = {r["id"] for r in ROWS if r["title"].startswith("commands/npm-ci.md ›")}


def test_a_page_is_named_by_its_file_name_of_two_words_or_more() -> None:
    assert page_name("commands/npm-ci.md › Description") == ("commands/npm-ci.md", ("npm", "ci"))
    assert page_name("npm ci", "docs/commands/npm-ci.md") == ("docs/commands/npm-ci.md", ("npm", "ci"))
    assert page_name("configuring-npm/install.md › Overview") == ("", ())  # one word: "install" in passing
    assert page_name("Fort Nelson/Gordon Field Airport") == ("", ())  # a 2Wiki title, not a file name


def test_the_question_names_a_page_only_inside_code_marks() -> None:
    name = page_name("commands/npm-ci.md › Description")[1]
    assert names_page(code_words(S01), name)
    link = page_name("commands/npm-link.md › Description")[1]
    assert code_words(S32) == ()  # "npm link" here is a verb, not the page
    assert not names_page(code_words(S32), link)
    assert not names_page(code_words("Is `npm` the same as `ci`?"), name)  # not across two code spans


@pytest.fixture
async def npm_kg(kg: KnowledgeGraph) -> KnowledgeGraph:
    return await ingest_sections(kg, ROWS, "none")


async def test_the_named_pages_best_section_leads_and_only_it_gains(npm_kg: KnowledgeGraph,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    named = (await npm_kg.retrieve(S01, paths=["passages"], top_k=10)).passages
    assert named[0].document_id == CI_DESCRIPTION, [(h.document_id, h.title) for h in named]
    monkeypatch.setattr(passages, "code_words", lambda question: ())  # the rule off
    unnamed = (await npm_kg.retrieve(S01, paths=["passages"], top_k=10)).passages
    assert unnamed[0].document_id != CI_DESCRIPTION  # without it, another section leads
    before = {h.chunk_id: h.score for h in unnamed}
    gained = {h.document_id for h in named if h.chunk_id in before and h.score > before[h.chunk_id] + 1e-3}
    assert gained == {CI_DESCRIPTION}, gained  # one section of the page, not the page's every section
    assert gained <= CI_PAGE
