"""The keyword search at scale. A word the graph's keyword statistics put in ``MAX_DF`` chunks or more (left out of
the search) is never counted by reading its postings: its document frequency is the statistics' estimate, read by
one index seek in the search query itself. A word first seen under the postings cap has its postings read once, for
its count and its search. Built on rows of the shared ``techdocs_a`` corpus copied to ``tests/data/`` (license in
``tests/data/NOTICE.md``): ``npm_pkg_sections.jsonl`` (``commands/npm-pkg.md``, its Description section six chunks
long, row ``techdocs_a-de14859ae787``) and ``npm_ci_install_sections.jsonl`` (``commands/npm-ci.md``)."""

from __future__ import annotations

from typing import Any

import pytest
from query_spy import read_queries
from section_rows import ingest_sections, read_rows

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval import candidates, fulltext
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.text.keyword_terms import stem

ROWS = read_rows("npm_pkg_sections.jsonl") + read_rows("npm_ci_install_sections.jsonl")
QUESTION = "How do I read a nested field of package.json with npm pkg get?"  # written for these tests
CAP = 4
"""``MAX_DF`` here: "npm" and "package" stand in more chunks of these rows."""


async def _truth(kg: KnowledgeGraph, words: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Per word, its postings (counted whole) and the estimate of the keyword statistics (sections holding its stem
    times chunks per section, rounded)."""
    counted = {w: int((await kg.store.ro_query(
        "CALL db.idx.fulltext.queryNodes('Chunk', $t) YIELD node RETURN count(node)", {"t": w}))[0][0]) for w in words}
    n = int((await kg.store.ro_query("MATCH (c:Chunk) RETURN count(c)"))[0][0])
    sections = int((await kg.store.ro_query("MATCH (m:__Meta__ {key: 'keyword_stats'}) RETURN m.sections"))[0][0])
    stored = {str(t): int(df) for t, df in await kg.store.ro_query(
        "UNWIND $s AS s MATCH (t:__Term__ {term: s}) RETURN t.term, t.df", {"s": [stem(w) for w in words]})}
    estimate = {w: round(stored[stem(w)] * n / sections) for w in words if stem(w) in stored}
    return counted, estimate


@pytest.mark.usefixtures("no_warm_up")
async def test_a_word_too_common_to_search_is_estimated_from_the_statistics_not_counted(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    await ingest_sections(kg, ROWS, "none")
    monkeypatch.setattr(fulltext, "MAX_DF", CAP + 1)
    words = fulltext.query_terms(QUESTION)
    counted, estimate = await _truth(kg, words)
    common = [w for w in words if estimate.get(w, 0) > CAP]
    assert "npm" in common and any(counted[w] != estimate[w] for w in common)  # a count would show
    sent = read_queries(kg)
    vector = VectorParam(kg.embedder.embed([QUESTION])[0].tolist())
    found, weighted = await candidates.keyword_search(kg.store, QUESTION, vector, 30)
    assert len([q for q in sent if "fulltext" in q]) == 1  # counted, estimated and searched in one query
    remembered = {w: fulltext._frequencies[kg.store].df[("Chunk", w)][1] for w in words}
    assert remembered == {w: estimate[w] if w in common else counted[w] for w in words}
    assert found and {str(w[0]) for w in weighted[0]} == {w for w in words if 0 < remembered[w] <= CAP}


@pytest.mark.usefixtures("no_warm_up")
async def test_term_weights_estimate_a_word_too_common_to_search_too(kg: KnowledgeGraph,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The path ``content_words`` and the chain scoring take when the search has not counted the words."""
    await ingest_sections(kg, ROWS, "none")
    monkeypatch.setattr(fulltext, "MAX_DF", CAP + 1)
    words = fulltext.query_terms(QUESTION)
    counted, estimate = await _truth(kg, words)
    n = await fulltext.label_size(kg.store, "Chunk")
    weights, _ = await fulltext.term_weights(kg.store, "Chunk", words)
    df = {w: estimate[w] if estimate.get(w, 0) > CAP else counted[w] for w in words}
    assert weights == [[w, pytest.approx(fulltext.idf(n, df[w]))] for w in words if 0 < df[w] < fulltext.MAX_DF]
    assert {w: fulltext._frequencies[kg.store].df[("Chunk", w)][1] for w in words} == df  # what content_words reads
    assert any(df[w] != counted[w] for w in words)


async def _postings_read(kg: KnowledgeGraph, query: str, params: dict[str, Any]) -> int:
    """The postings the full-text procedure calls of ``query`` yield (``GRAPH.PROFILE``: records each produced)."""
    plan = await kg.store._graph().profile(query, params)
    return sum(int(line.split("Records produced: ")[1].split(",")[0]) for line in map(str, plan.plan)
               if "ProcedureCall" in line.replace(" ", ""))


async def test_a_word_first_seen_under_the_cap_has_its_postings_read_once_for_its_count_and_its_search(
        kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, ROWS, "none")
    question = "Which nested field does pkg get read?"  # every word under the cap of 1,000 postings
    words = fulltext.query_terms(question)
    counted, _ = await _truth(kg, words)
    assert 0 < max(counted.values()) <= fulltext.POSTINGS_CAP
    sent: list[tuple[str, dict[str, Any]]] = []
    query = kg.store.ro_query

    async def spy(statement: str, params: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        sent.append((statement, params or {}))
        return await query(statement, params, *args, **kwargs)

    kg.store.ro_query = spy  # type: ignore[method-assign]
    vector = VectorParam(kg.embedder.embed([question])[0].tolist())
    found, _ = await candidates.keyword_search(kg.store, question, vector, 30)
    searched = [(q, p) for q, p in sent if "fulltext" in q]
    assert found and len(searched) == 1
    assert await _postings_read(kg, *searched[0]) == sum(counted.values())  # not twice: count, then search


async def test_on_a_large_graph_a_word_over_the_cap_is_read_only_beside_the_rarer_words(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``BESIDE_FROM`` does on a graph of 5,000 chunks or more, here on a small one with the cap lowered: the
    keyword candidates are the chunks holding one of the question's words under the cap, the first time the words
    are seen (counted in the query) as when every count is known."""
    await ingest_sections(kg, ROWS, "none")
    monkeypatch.setattr(candidates, "POSTINGS_CAP", CAP)
    monkeypatch.setattr(candidates, "BESIDE_FROM", 1)
    words = fulltext.query_terms(QUESTION)
    counted, _ = await _truth(kg, words)
    rare = [w for w in words if 0 < counted[w] <= CAP]
    assert rare and any(counted[w] > CAP for w in words)
    holding = {str(r[0]) for w in rare for r in await kg.store.ro_query(
        "CALL db.idx.fulltext.queryNodes('Chunk', $t) YIELD node RETURN node.id", {"t": w})}
    vector = VectorParam(kg.embedder.embed([QUESTION])[0].tolist())
    first, weighted = await candidates.keyword_search(kg.store, QUESTION, vector, 30)
    again, _ = await candidates.keyword_search(kg.store, QUESTION, vector, 30)
    assert first and {c.chunk_id for c in first} <= holding
    assert [(c.chunk_id, round(c.lexical, 9)) for c in again] == [(c.chunk_id, round(c.lexical, 9)) for c in first]
    monkeypatch.setattr(candidates, "BESIDE_FROM", fulltext.MAX_DF)  # a graph this small: the best postings
    capped = await candidates.lexical_candidates(kg.store, QUESTION, vector, 30, weighted=_ready(weighted))
    assert not {c.chunk_id for c in capped} <= holding


async def _ready(weights: candidates.TermWeights) -> candidates.TermWeights:
    return weights


@pytest.mark.usefixtures("no_warm_up")
async def test_on_a_large_graph_a_word_the_statistics_hold_is_estimated_not_counted(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``ESTIMATED_FROM`` does on a graph of 5,000 chunks or more, here on a small one with the bar lowered: no
    word the keyword statistics hold has its postings counted, however rare; one they do not hold ("zebra", in no
    row) is counted as before, and searched one letter off when no chunk holds it."""
    await ingest_sections(kg, ROWS, "none")
    monkeypatch.setattr(fulltext, "ESTIMATED_FROM", 1)
    question = QUESTION.replace("?", ", zebra?")
    words = fulltext.query_terms(question)
    counted, estimate = await _truth(kg, words)
    assert "zebra" not in estimate and counted["zebra"] == 0
    assert any(counted[w] != estimate[w] for w in estimate)  # a count would show
    counting: list[dict[str, Any]] = []
    query = kg.store.ro_query

    async def spy(statement: str, params: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        if "fulltext" in statement and "$countcap" in statement:
            counting.append(params or {})
        return await query(statement, params, *args, **kwargs)

    kg.store.ro_query = spy  # type: ignore[method-assign]
    vector = VectorParam(kg.embedder.embed([question])[0].tolist())
    found, weighted = await candidates.keyword_search(kg.store, question, vector, 30)
    remembered = {w: fulltext._frequencies[kg.store].df[("Chunk", w)][1] for w in words}
    assert remembered == {w: estimate.get(w, counted[w]) for w in words} and remembered["zebra"] == 0
    assert found and {str(w[0]) for w in weighted[0]} == {w for w in words if 0 < remembered[w] < fulltext.MAX_DF}
    assert counting  # "zebra" was counted, and so was its respelling
    assert all(df >= 0 for p in counting for t, df in zip(p["terms"], p["dfs"], strict=True) if t in estimate)
    monkeypatch.setattr(fulltext, "ESTIMATED_FROM", fulltext.MAX_DF)  # a graph this small: every word counted
    fulltext._frequencies[kg.store].df.clear()
    await candidates.keyword_search(kg.store, question, vector, 30)
    assert {w: fulltext._frequencies[kg.store].df[("Chunk", w)][1] for w in words} == counted
