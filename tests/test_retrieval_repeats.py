"""Repeated text is shown once: the same section copied onto several pages is one passage naming every page.

The span is real: npm 11.19.1's docs copy the `package-lock-only` option's entry onto the pages of eight commands
(rows of the shared ``techdocs_a`` corpus, copied to ``tests/data/npm_repeated_sections.jsonl``; license in
``tests/data/NOTICE.md``). Four of the copies and six other sections, one document each, as the eval builds them.
"""

from __future__ import annotations

import pytest
from section_rows import ingest_sections, read_rows

from graphrag_agents.citations.check import check_citations
from graphrag_agents.evaluation.measure import path_documents
from graphrag_agents.evidence import EvidenceLedger
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.repeats import Repeats
from graphrag_agents.tools.read_tools import number_retrieval

ROWS = read_rows("npm_repeated_sections.jsonl")
COPIES = [r["id"] for r in ROWS if r["title"].endswith("`package-lock-only`")]
QUESTION = "Can npm list only what package-lock.json describes, ignoring node_modules?"


@pytest.fixture
async def npm_kg(kg: KnowledgeGraph) -> KnowledgeGraph:
    return await ingest_sections(kg, ROWS, "none")


async def test_a_section_copied_onto_four_pages_is_one_passage_naming_each(npm_kg: KnowledgeGraph) -> None:
    hits = await npm_kg.retrieve(QUESTION, paths=["passages"], top_k=5)
    texts = [" ".join(p.text.lower().split()) for p in hits.passages]
    assert len(texts) == len(set(texts)) == 5  # no text twice, and the places go to other sections
    folded = next(p for p in hits.passages if "package-lock-only" in p.text or "only use the" in p.text)
    assert sorted(folded.document_ids) == sorted(COPIES)
    # the eval's per-question record lists every source of the item, so its scorer can count each
    assert set(COPIES) <= set(await path_documents(npm_kg, hits, "passages"))


async def test_a_citation_of_the_folded_passage_holds_for_each_source(npm_kg: KnowledgeGraph) -> None:
    ledger = EvidenceLedger()
    hits = await npm_kg.retrieve(QUESTION, paths=["passages"], top_k=5)
    result = number_retrieval(ledger, hits)
    item = next(p for p in result.passages if p.copies)
    assert {item.document_id, *(c.document_id for c in item.copies)} == set(COPIES)
    text = result.to_llm_text()
    assert text.count("ignoring `node_modules`") == 1 and "also in" in text
    check = check_citations(f"It will only use the `package-lock.json`, ignoring `node_modules` [{item.n}].", ledger)
    assert check.grounded and not check.invalid and not check.unsupported
    assert len(check.sources[0].sources) == len(COPIES)
    # a copy's chunk is the same evidence: numbered again (a later call returning it first), it keeps the number
    hit = next(h for h in hits.passages if h.copies)
    for copy in hit.copies:
        assert ledger.add("retrieve", "passage", hit.text, key=copy.chunk_id).n == item.n


def test_a_copy_differing_by_case_spacing_or_a_word_is_the_same_passage() -> None:
    """The `package-lock-only` entry as npm writes it, and as another page would: reflowed and in another case,
    with one word added (word 3-shingle Jaccard .92), or with a sentence appended (.92). Two words reworded (.87)
    and a different option's entry are other passages."""
    entry = ROWS[0]["text"]
    repeats = Repeats()
    repeats.keep("audit", entry)
    assert repeats.original(entry.upper().replace("\n", " ")) == "audit"
    assert repeats.original(entry.replace("will only use", "will only ever use")) == "audit"
    assert repeats.original(entry + " See also the package-lock option.") == "audit"
    assert repeats.original(entry.replace("rather than", "instead of")) is None
    other = next(r["text"] for r in ROWS if r["title"].endswith("`package-lock`"))
    assert repeats.original(other) is None
