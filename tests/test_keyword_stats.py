"""The keyword index: its terms (:mod:`graphrag_agents.text.keyword_terms`), the statistics written at ingest
(:mod:`graphrag_agents.ingest.keyword_stats`), their upgrade on a graph written without them, and the scorer that
reads them (:mod:`graphrag_agents.retrieval.corpus_stats`).

Every text is a row of the shared ``techdocs_a`` corpus copied to ``tests/data/`` (license in
``tests/data/NOTICE.md``): ``npm_pkg_sections.jsonl`` (``commands/npm-pkg.md``; row ``techdocs_a-de14859ae787``
is its Description, one section of six chunks), ``npm_install_lockfile_section.jsonl`` (row
``techdocs_a-165c5e92a133``, the Description of ``commands/npm-install.md``), ``npm_ci_install_sections.jsonl``
(``commands/npm-ci.md``'s configuration entries).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from query_spy import read_queries
from section_rows import ingest_sections, read_rows

from graphrag_agents.ingest.keyword_stats import rebuild_keyword_stats
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval.corpus_stats import CorpusStats, corpus_bm25, read_corpus_stats, sections_and_stats
from graphrag_agents.retrieval.passages import passages
from graphrag_agents.retrieval.term_frequency import Section
from graphrag_agents.text.keyword_terms import question_terms, stem, text_terms

PKG = read_rows("npm_pkg_sections.jsonl")
LOCKFILE = read_rows("npm_install_lockfile_section.jsonl")[0]  # techdocs_a-165c5e92a133
CI = {r["id"]: r for r in read_rows("npm_ci_install_sections.jsonl")}
AUDIT = CI["techdocs_a-8d57c360f458"]  # commands/npm-ci.md › Configuration › `audit`
FUND = CI["techdocs_a-8bc0fb987409"]  # commands/npm-ci.md › Configuration › `fund`


def test_an_identifier_is_a_term_whole_and_by_its_parts() -> None:
    """Row techdocs_a-165c5e92a133 writes ``GIT_SSH_COMMAND``, ``dtrace-provider`` and ``optionalDependencies``."""
    terms, _ = text_terms(LOCKFILE["text"])
    assert terms["git_ssh_command"] >= 2
    assert terms[stem("ssh")] >= terms["git_ssh_command"]  # its parts count as words too
    assert terms["dtrace-provider"] >= 1 and terms[stem("provider")] > terms["dtrace-provider"]
    assert stem("optionalDependencies") in terms and terms[stem("optional")] >= terms[stem("optionalDependencies")]
    assert "dtrace-provider" in question_terms("What does npm do when dtrace-provider fails to build?")


def test_words_meet_through_the_snowball_stemmer_and_stop_words_are_no_terms() -> None:
    assert stem("installing") == stem("installs") == stem("installed") == stem("install")
    assert stem("dependencies") == stem("dependency")
    terms, length = text_terms(AUDIT["text"])
    assert "the" not in terms and stem("audit") in terms
    assert length == len(__import__("re").findall(r"[^\W_]+", AUDIT["text"]))  # every word lengthens it


async def _stored(kg: KnowledgeGraph) -> tuple[Any, dict[str, int]]:
    meta = await kg.store.ro_query(
        "MATCH (m:__Meta__ {key: 'keyword_stats'}) RETURN m.rule, m.sections, m.words")
    terms = await kg.store.ro_query("MATCH (t:__Term__) RETURN t.term, t.df")
    return (tuple(meta[0]) if meta else None), {str(t): int(n) for t, n in terms}


def _expected(rows: list[dict[str, Any]]) -> tuple[int, int, Counter[str]]:
    """Sections, words and document frequencies counted straight from the rows (one section each)."""
    df: Counter[str] = Counter()
    words = 0
    for r in rows:
        counts, length = text_terms(r["text"])
        df.update(set(counts) | set(text_terms(f"{r['title']} ")[0]))
        words += length
    return len(rows), words, df


async def test_finalize_counts_every_section_and_later_writes_keep_the_counts(kg: KnowledgeGraph) -> None:
    first, later = list(CI.values())[:20], list(CI.values())[20:]
    await ingest_sections(kg, first, "none")
    meta, df = await _stored(kg)
    sections, words, expected = _expected(first)
    assert meta[1:] == (sections, words) and df == dict(expected)
    await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in later],
                              IngestPlan(extractor="none"))  # counted by the write itself, before finalize
    meta, df = await _stored(kg)
    sections, words, expected = _expected(first + later)
    assert meta[1:] == (sections, words) and df == dict(expected)
    changed = dict(first[0], text=FUND["text"] + "\n\nA later edit.")
    await kg.ingest_documents([SourceDocument(changed["id"], changed["id"], text=changed["text"],
                                              title=changed["title"])], IngestPlan(extractor="none"))
    await kg.delete_document(first[1]["id"])
    meta, df = await _stored(kg)
    sections, words, expected = _expected([changed, *first[2:], *later])
    assert meta[1:] == (sections, words) and df == dict(expected)
    assert not any(n <= 0 for n in df.values())
    rebuilt = await rebuild_keyword_stats(kg.store)  # a count from scratch agrees
    assert (rebuilt.sections, rebuilt.words) == (sections, words) and await _stored(kg) == (meta, df)


async def test_a_section_of_several_chunks_counts_once(kg: KnowledgeGraph) -> None:
    """Row techdocs_a-de14859ae787 is one section of six chunks."""
    await ingest_sections(kg, PKG, "none")
    meta, df = await _stored(kg)
    assert meta[1] == len(PKG)  # one section per row, however many chunks
    assert df[stem("array")] <= len(PKG)


async def test_a_graph_written_without_the_statistics_still_reads_and_finalize_upgrades_it(
        kg: KnowledgeGraph) -> None:
    """A graph of the previous release: no statistics node, no term nodes, no ``section_terms``."""
    await ingest_sections(kg, list(CI.values()), "none")
    written = await _stored(kg)
    await kg.store.query("MATCH (m:__Meta__ {key: 'keyword_stats'}) DELETE m")
    await kg.store.query("MATCH (t:__Term__) DELETE t")
    await kg.store.query("MATCH (c:Chunk) REMOVE c.section_terms, c.section_words")
    question = "Does npm ci submit audit reports alongside the install?"  # written for this test
    assert await read_corpus_stats(kg.store, question) is None
    vector = (await kg.embedder.aembed([question]))[0].tolist()
    hits = await passages(kg.store, question, vector, 5)  # scored with the candidates' own statistics
    assert hits and hits[0].document_id == AUDIT["id"]
    extra = FUND
    await kg.delete_document(extra["id"])  # a delete before the upgrade subtracts nothing
    await kg.ingest_documents([SourceDocument(extra["id"], extra["id"], text=extra["text"], title=extra["title"])],
                              IngestPlan(extractor="none"))  # nor does a write count into statistics not there
    assert await _stored(kg) == (None, {})
    await kg.finalize()
    assert await _stored(kg) == written
    stats = await read_corpus_stats(kg.store, question)
    assert stats is not None and stats.sections == len(CI) and stats.df[stem("audit")] >= 1


def test_the_score_of_a_section_does_not_depend_on_the_other_candidates() -> None:
    """The graph's mean length normalises every section: adding a long candidate (row techdocs_a-de14859ae787,
    six chunks) leaves the other two's scores in the same ratio (the pool's mean length moved them)."""
    stats = CorpusStats(sections=1271, mean_length=71.2, df={stem("audit"): 12, stem("report"): 30})
    two = {"audit": Section([AUDIT["text"]], AUDIT["title"]), "fund": Section([FUND["text"] + " audit"], "")}
    alone = corpus_bm25(two, stats)
    longest = next(r for r in PKG if r["id"] == "techdocs_a-de14859ae787")
    three = corpus_bm25({**two, "long": Section([longest["text"] + " audit report"], "")}, stats)
    assert alone["audit"] == 1.0 > alone["fund"] > 0
    assert abs(three["fund"] / three["audit"] - alone["fund"] / alone["audit"]) < 1e-9
    assert corpus_bm25(two, CorpusStats(sections=10, mean_length=50.0, df={})) == {"audit": 0.0, "fund": 0.0}


async def test_statistics_read_once_are_not_asked_again_until_a_write(kg: KnowledgeGraph) -> None:
    """Row techdocs_a-8d57c360f458 (``audit``): a second question of the same terms sends no query; a write by this
    process makes the next read ask again, and it sees the new section."""
    await ingest_sections(kg, [AUDIT], "none")
    sent = read_queries(kg, lambda query: "__Term__" in query)
    question = "Does npm ci submit audit reports?"  # written for this test
    first = await read_corpus_stats(kg.store, question)
    again = await read_corpus_stats(kg.store, "Which audit reports does npm ci submit?")
    assert first is not None and again is not None and len(sent) == 1
    assert first.sections == 1 and again.df == first.df
    await kg.ingest_documents([SourceDocument(FUND["id"], FUND["id"], text=FUND["text"] + " audit",
                                              title=FUND["title"])], IngestPlan(extractor="none"))
    after = await read_corpus_stats(kg.store, question)
    assert after is not None and len(sent) == 2 and after.sections == 2
    assert after.df[stem("audit")] == first.df[stem("audit")] + 1


async def test_the_statistics_come_in_the_query_that_reads_the_sections(kg: KnowledgeGraph) -> None:
    """Row techdocs_a-de14859ae787 (six chunks under one heading): its first chunk's neighbours and the question's
    statistics come back from one query; asked again, neither is sent; a new word asks for its count alone."""
    await ingest_sections(kg, PKG, "none")
    first = str((await kg.store.ro_query("MATCH (c:Chunk {document_id: 'techdocs_a-de14859ae787'}) "
                                         "RETURN c.id ORDER BY c.index LIMIT 1"))[0][0])
    sent = read_queries(kg)
    question = "How do I append to an array in package.json with npm pkg set?"  # written for this test
    texts, stats = await sections_and_stats(kg.store, [first], None, question)
    assert len(sent) == 1 and len(texts[first]) == 3
    assert stats is not None and stats.sections == len(PKG) and stats.df[stem("array")] >= 1
    assert await sections_and_stats(kg.store, [first], None, question) == (texts, stats) and len(sent) == 1
    _, more = await sections_and_stats(kg.store, [first], None, question + " Or delete a key?")
    assert len(sent) == 2 and more is not None and stem("delete") in more.df
