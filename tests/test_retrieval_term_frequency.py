"""The keyword feature reads a candidate's whole section, its term frequency and its heading trail
(:mod:`graphrag_agents.retrieval.term_frequency`).

Every text here is a row of the shared ``techdocs_a`` corpus copied to ``tests/data/`` (license in
``tests/data/NOTICE.md``): ``npm_pkg_sections.jsonl`` holds ``commands/npm-pkg.md › Description`` (one section
of six chunks, row ``techdocs_a-de14859ae787``), ``npm_ci_install_sections.jsonl`` the configuration entries of
``commands/npm-ci.md``.
"""

from __future__ import annotations

import re

import pytest
from section_rows import ingest_sections, read_rows

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.term_frequency import Section, fold, section_bm25, section_texts, term_counts

PKG = {r["id"]: r for r in read_rows("npm_pkg_sections.jsonl")}
CI = {r["id"]: r for r in read_rows("npm_ci_install_sections.jsonl")}
DESCRIPTION = PKG["techdocs_a-de14859ae787"]
AUDIT = CI["techdocs_a-8d57c360f458"]  # commands/npm-ci.md › Configuration › `audit`
FUND = CI["techdocs_a-8bc0fb987409"]  # commands/npm-ci.md › Configuration › `fund`


def test_words_fold_as_the_index_stems_them() -> None:
    assert fold("Dependencies") == fold("dependency") == "dependency"
    assert fold("installs") == fold("installed") == fold("installing") == "install"
    assert fold("caches") == fold("cache") == "cache"
    assert fold("process") == "process" and fold("status") == "status"  # an s that is no plural stays
    assert fold("ci") == "ci" and fold("is") == "is"  # short words stay whole
    for word in ("dependencies", "installing", "caches", "process", "lockfiles"):
        assert fold(fold(word)) == fold(word)


def test_term_counts_read_every_chunk_of_the_section_and_fold_their_words() -> None:
    wanted = {fold("array"): 1.0}
    counts, length = term_counts(Section([DESCRIPTION["text"]], ""), wanted)
    expected = sum(1 for w in re.findall(r"[^\W_]+", DESCRIPTION["text"]) if w.lower() in {"array", "arrays"})
    assert counts[fold("array")] == expected >= 4
    assert length == len(re.findall(r"[^\W_]+", DESCRIPTION["text"]))


def test_a_heading_word_counts_more_than_a_word_of_the_text() -> None:
    """``audit`` is both the entry's heading and a word of its text: the section filed under it outranks the
    same text filed under no heading."""
    scores = section_bm25({"filed": Section([AUDIT["text"]], AUDIT["title"]),
                           "unfiled": Section([AUDIT["text"]], "")}, {"audit": 2.0})
    assert scores["filed"] == 1.0
    assert 0 < scores["unfiled"] < 1.0


def test_the_rarer_word_weighs_more_and_a_section_without_any_scores_zero() -> None:
    idf = {"audit": 3.0, "fund": 0.5}
    scores = section_bm25({"audit": Section([AUDIT["text"]], AUDIT["title"]),
                           "fund": Section([FUND["text"]], FUND["title"]),
                           "description": Section([DESCRIPTION["text"]], DESCRIPTION["title"])}, idf)
    assert scores["audit"] == 1.0 > scores["fund"] > 0
    assert scores["description"] == 0.0
    assert section_bm25({"audit": Section([AUDIT["text"]], "")}, {}) == {"audit": 0.0}


async def test_a_chunk_reads_its_neighbours_under_the_same_heading_only(kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, list(PKG.values()), "none")
    rows = await kg.store.ro_query(
        "MATCH (c:Chunk) RETURN c.id, c.document_id, c.index, c.text ORDER BY c.document_id, c.index")
    chunks = {str(cid): (str(doc), int(index), str(text)) for cid, doc, index, text in rows}
    own = sorted((index, cid) for cid, (doc, index, _) in chunks.items() if doc == DESCRIPTION["id"])
    assert len(own) >= 5, "the Description section is several chunks"
    alone = next(cid for cid, (doc, _, _) in chunks.items() if doc == FUND["id"] or doc == PKG[
        "techdocs_a-8323e4a5fbac"]["id"])
    beside = await section_texts(kg.store, [own[0][1], own[2][1], alone])
    assert beside[own[0][1]] == [chunks[cid][2] for _, cid in own[1:4]]  # three after it, none before
    assert sorted(beside[own[2][1]]) == sorted(chunks[cid][2] for _, cid in own[:2] + own[3:6])
    assert alone not in beside
    have = {cid: chunks[cid][2] for _, cid in own[1:3]}
    assert await section_texts(kg.store, [own[0][1]], have) == {own[0][1]: beside[own[0][1]]}  # read or sent
    sizes = dict(await kg.store.ro_query("MATCH (c:Chunk) RETURN c.id, c.section_size"))
    assert sizes[own[0][1]] == len(own) and sizes[alone] == 1


async def test_chunks_written_without_a_section_size_still_read_their_neighbours(kg: KnowledgeGraph) -> None:
    """A graph written by the release before ``Chunk.section_size`` reads the same sections."""
    await ingest_sections(kg, list(PKG.values()), "none")
    rows = await kg.store.ro_query(
        "MATCH (c:Chunk {document_id: $doc}) RETURN c.id ORDER BY c.index", {"doc": DESCRIPTION["id"]})
    first = str(rows[0][0])
    written = await section_texts(kg.store, [first])
    await kg.store.query("MATCH (c:Chunk) REMOVE c.section_size")
    assert await section_texts(kg.store, [first]) == written
    assert len(written[first]) == 3


async def test_a_word_only_a_later_chunk_holds_scores_the_first_chunk_through_its_section(
        kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, list(PKG.values()), "none")
    rows = await kg.store.ro_query(
        "MATCH (c:Chunk {document_id: $doc}) RETURN c.id, c.text ORDER BY c.index", {"doc": DESCRIPTION["id"]})
    first_id, first_text = str(rows[0][0]), str(rows[0][1])
    first_words = {fold(w) for w in re.findall(r"[^\W_]+", first_text)}
    word = sorted(w.lower() for w in re.findall(r"[^\W_]+", str(rows[1][1]))
                  if len(w) > 3 and fold(w) not in first_words)[0]
    beside = await section_texts(kg.store, [first_id])
    alone = section_bm25({"first": Section([first_text], ""), "other": Section([FUND["text"]], "")}, {word: 1.0})
    read = section_bm25({"first": Section([first_text, *beside[first_id]], ""),
                         "other": Section([FUND["text"]], "")}, {word: 1.0})
    assert alone["first"] == 0.0
    assert read["first"] == 1.0


QUESTION = "Which subcommand of npm pkg deletes a key from package.json?"  # written for this test


async def _section_reads(kg: KnowledgeGraph, monkeypatch, link: bool) -> list[list[str]]:  # type: ignore[no-untyped-def]
    import graphrag_agents.retrieval.passages as passages_module

    calls: list[list[str]] = []
    real_texts, real_hop = passages_module._sections, passages_module.first_hop_candidates

    async def texts(store, ids, known, question):  # type: ignore[no-untyped-def]
        calls.append(list(ids))
        return await real_texts(store, ids, known, question)

    async def hop(*args, **kwargs):  # type: ignore[no-untyped-def]
        found, titled = await real_hop(*args, **kwargs)
        if link and not found:  # as if an entity the best match mentions linked it to another passage
            seed = (await kg.store.ro_query("MATCH (c:Chunk {document_id: $doc}) RETURN c.id LIMIT 1",
                                            {"doc": FUND["id"]}))[0][0]
            rows = await passages_module.fetch_passages(kg.store, [str(seed)])
            hit = rows[str(seed)]
            from graphrag_agents.retrieval.candidates import Candidate
            found = [Candidate(chunk_id=hit.chunk_id, document_id=hit.document_id, title=hit.title, cosine=0.1,
                               text=hit.text, heading=hit.heading, loaded=True, bridge_via=[("npm", 1.0)])]
        return found, titled

    monkeypatch.setattr(passages_module, "_sections", texts)
    monkeypatch.setattr(passages_module, "first_hop_candidates", hop)
    await ingest_sections(kg, [*PKG.values(), FUND], "none")
    hits = (await kg.retrieve(QUESTION, paths=["passages"], top_k=5)).passages
    assert hits
    return calls


@pytest.mark.usefixtures("no_warm_up")
async def test_the_section_feature_scores_when_no_candidate_is_linked(kg: KnowledgeGraph, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A manual's sections, which no entity links: the text decides, so the candidates' sections are read (the
    direct matches' with the first hop, then the best candidates' for the feature, remembered from the first read)."""
    calls = await _section_reads(kg, monkeypatch, link=False)
    assert len(calls) == 2 and calls[0] and calls[1]
    assert set(calls[1]) <= set(calls[0])  # no candidate the first hop reached has a section of its own here


@pytest.mark.usefixtures("no_warm_up")
async def test_a_candidate_reached_through_a_link_keeps_the_linked_weights(kg: KnowledgeGraph, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The first hop reached a passage through a graph link: the linked weights score, and no section is asked for
    the feature (only the direct matches' read beside the first hop, before the link was known)."""
    assert len(await _section_reads(kg, monkeypatch, link=True)) == 1


async def test_a_chunk_found_alone_is_not_asked_for_again_until_the_graph_is_written(kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, list(PKG.values()), "none")
    rows = await kg.store.ro_query("MATCH (c:Chunk) RETURN c.id, c.document_id ORDER BY c.id")
    alone = [str(cid) for cid, doc in rows if doc == FUND["id"] or doc == "techdocs_a-8323e4a5fbac"]
    asked: list[object] = []
    query = kg.store.ro_query

    async def counting(statement, params=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(params)
        return await query(statement, params, *args, **kwargs)

    kg.store.ro_query = counting  # type: ignore[method-assign]
    assert await section_texts(kg.store, alone) == {}
    assert await section_texts(kg.store, alone) == {}
    assert len(asked) == 1  # the second time, every chunk is known alone: no query
    await kg.store.query("MATCH (c:Chunk {id: $id}) SET c.section_size = 1", {"id": alone[0]})  # a write
    await section_texts(kg.store, alone)
    assert len(asked) == 2
