"""A query that states a claim is ordered by score; a question, or keywords, keeps the order by new coverage.

Every text is real: claims of HealthVer (its dev file) and CLIMATE-FEVER, questions of the shared sets
(``techdocs_a`` s01; HotpotQA lines 158 and 181, written without a question mark, and line 187), and keyword
queries made from ``techdocs_a`` questions by dropping their function words, as the measurement did
(``benchmarks/results/2026-12-07-claims-ranking.md``). Retrieval is asked on real ``techdocs_a`` sections, with a
claim that is a sentence of ``commands/npm-ci.md › Description``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from section_rows import ingest_sections, read_rows

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval import passages
from graphrag_agents.retrieval.chain import CHAINS
from graphrag_agents.text.statements import reads_as_statement

CLAIMS = [
    "The CORONAVIRUS is not of natural origin",  # HealthVer
    "Vitamin D may improve odds of survival from COVID-19.",  # HealthVer
    "Global warming is driving polar bears toward extinction",  # CLIMATE-FEVER
    "The polar bear population has been growing.",  # CLIMATE-FEVER
]
QUESTIONS = [
    "Our CI runs `npm ci`, but someone changed a version range in package.json without updating the lockfile. "
    "What does npm ci do in that case?",  # techdocs_a s01
    'which German philosopher wrote "The opera "Lulu"  ',  # HotpotQA, no question mark
    "McLaren MP4/11 was driven by what Finnish former professional racing driver",  # HotpotQA, the same
    "Can Vitamin C Protect You from COVID-19?",  # HealthVer: a claim written as a question
    'In which language is the notable song by Suresh Peters from "Gentleman "',  # HotpotQA line 187 without "?"
]
KEYWORDS = [
    "CI runs `npm ci` someone changed version range package.json without updating lockfile. npm ci case",
    "package.json `main` field file `require my-pkg ` load",
    "Vitamin C cures COVID-19",  # HealthVer: a headline reads as keywords, and keeps the question's ranking
]


@pytest.mark.parametrize("text", CLAIMS)
def test_a_claim_reads_as_a_statement(text: str) -> None:
    assert reads_as_statement(text)


@pytest.mark.parametrize("text", QUESTIONS + KEYWORDS + ["", "  ", "?"])
def test_a_question_or_keywords_do_not(text: str) -> None:
    assert not reads_as_statement(text)


ROWS = read_rows("npm_ci_install_sections.jsonl")
CLAIM = ("If dependencies in the package lock do not match those in package.json, npm ci will exit with an error, "
         "instead of updating the package lock.")  # a sentence of commands/npm-ci.md › Description


@pytest.fixture
async def npm_kg(kg: KnowledgeGraph) -> KnowledgeGraph:
    return await ingest_sections(kg, ROWS, "none")


async def test_a_statement_skips_the_coverage_order_and_a_question_keeps_it(npm_kg: KnowledgeGraph,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    weights: list[float] = []
    reorder = passages.by_new_coverage

    def spy(*args: Any) -> list[str]:
        weights.append(args[-1])
        return reorder(*args)

    monkeypatch.setattr(passages, "by_new_coverage", spy)
    await npm_kg.retrieve(QUESTIONS[0], paths=["passages"], top_k=5)
    assert weights == [CHAINS.novelty]
    claim = (await npm_kg.retrieve(CLAIM, paths=["passages"], top_k=5)).passages
    assert weights == [CHAINS.novelty]  # not called for the claim
    assert claim and claim[0].document_id == "techdocs_a-ef9af12f70af"
    vector = (await npm_kg.embedder.aembed([CLAIM]))[0]
    before = await passages.passages(npm_kg.store, CLAIM, vector, 5, chains=replace(CHAINS, statements=True))
    assert weights == [CHAINS.novelty, CHAINS.novelty]  # the option keeps the previous behaviour
    assert before
