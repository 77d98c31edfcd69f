"""``finalize`` ends by asking the graph one question, so the first retrieve after a build sends only what any
retrieve sends (``retrieval/warm_up.py``)."""

from __future__ import annotations

import logging

import pytest
from query_spy import read_queries

from graphrag_agents import kg as kg_module
from graphrag_agents.errors import StoreUnavailable
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph

NER = IngestPlan(extractor="ner")
FIRST_TIME_READS = ("RETURN count(x)", "CALL db.indexes()", "m.fact_vectors")
"""What a retrieve reads once a while, and again after this process wrote the graph."""


async def _build(kg: KnowledgeGraph) -> None:
    await kg.ingest(text="Ada Lovelace worked with Charles Babbage in London. She wrote the first program.",
                    document_id="ada", title="Ada Lovelace", plan=NER)
    await kg.ingest(text="Charles Babbage designed the Analytical Engine in London.", document_id="babbage",
                    title="Charles Babbage", plan=NER)


async def test_the_first_retrieve_after_finalize_reads_nothing_a_later_one_does_not(kg: KnowledgeGraph) -> None:
    await _build(kg)
    await kg.finalize(progress=False)
    sent = read_queries(kg)
    hits = await kg.retrieve("Who designed the Analytical Engine?")
    assert hits.passages
    assert not [q for q in sent if any(read in q for read in FIRST_TIME_READS)], sent


async def test_without_the_warm_up_the_first_retrieve_reads_them(kg: KnowledgeGraph,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The other side of the test above: the reads it rules out are there when nothing warms the graph."""

    async def skip(*_: object) -> str:
        return ""

    monkeypatch.setattr(kg_module, "warm_up", skip)
    await _build(kg)
    await kg.finalize(progress=False)
    sent = read_queries(kg)
    await kg.retrieve("Who designed the Analytical Engine?")
    assert [q for q in sent if any(read in q for read in FIRST_TIME_READS)]


async def test_a_failing_warm_up_does_not_fail_the_build(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    async def fail(*_: object) -> str:
        raise StoreUnavailable("the server went away")

    monkeypatch.setattr(kg_module, "warm_up", fail)
    await _build(kg)
    with caplog.at_level(logging.WARNING, logger="graphrag_agents"):
        report = await kg.finalize(progress=False)
    assert report.embedded.chunks == 2 and report.status.chunks == 2
    assert "warm-up question" in caplog.text and "the server went away" in caplog.text
