"""``finalize`` re-types a person or place of the ner extractor that the corpus writes as code
(``graphrag_agents/ingest/retype.py``). The rows are real: three sections of npm 11.19.1's docs from the shared
``techdocs_a`` corpus, copied to ``tests/data/npm_git_sections.jsonl`` (license in ``tests/data/NOTICE.md``)."""

from __future__ import annotations

from collections import Counter

import pytest
from section_rows import read_rows

from graphrag_agents.ingest.extract_ner import spacy_available
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.ingest.retype import code_shaped, code_typed
from graphrag_agents.kg import KnowledgeGraph


def test_code_shaped_names_are_no_person_or_place() -> None:
    """The Node.js docs' api/crypto.md and api/esm.md type ``Node.js`` and ``UTF-8`` a place; a town, a
    state's abbreviation and a name with a dotted initial are not code-shaped."""
    assert code_shaped("Node.js") and code_shaped("UTF-8") and code_shaped("SHA-256")
    assert not any(code_shaped(n) for n in ("St. Louis", "U.S.", "Mountrail County", "J. R. R. Tolkien", "K2"))
    assert code_typed("Git", 1, Counter({"git": 2})) and not code_typed("Git", 3, Counter({"git": 2}))


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_a_person_the_corpus_writes_in_code_is_retyped_at_finalize(kg: KnowledgeGraph) -> None:
    """techdocs_a-912fbd439cea ("commands/npm-doctor.md › Description › `Checking for git executable in PATH`")
    writes "Git" in prose only, and spaCy types it a Person there; the `allow-git` option of `npm ci`
    (techdocs_a-6c00aa249d0e) and package-spec's git URLs (techdocs_a-58d976fe2491) write `git` in code. The
    extractor reads one document at a time and stores ``Git (Person)``, as the previous release stored it; the
    next ``finalize`` reads the whole graph and moves it, mentions and facts, onto ``Git (Unknown)``."""
    rows = read_rows("npm_git_sections.jsonl")
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows]
    await kg.ingest_documents(sources, IngestPlan(extractor="ner"))
    query = "MATCH (e:__Entity__ {name: 'Git'}) OPTIONAL MATCH (e)-[m:MENTIONED_IN]->() RETURN e.label, count(m)"
    assert ["Person", 1] in [list(r) for r in await kg.store.ro_query(query)]
    report = await kg.finalize()
    assert report.retyped >= 1
    assert [list(r) for r in await kg.store.ro_query(query)] == [["Unknown", 1]]
    facts = await kg.store.ro_query("MATCH (:__Entity__ {name: 'Git'})-[:IN_FACT]->(f:__Fact__) RETURN count(f)")
    assert facts[0][0] >= 1  # "... especially on Windows – you may have Git set up ..." moved with it
    assert (await kg.finalize()).retyped == 0  # nothing left to move
