"""``finalize`` reads the names of technical text against the whole corpus (``graphrag_agents/ingest/marked_names.py``).
The rows are real: eleven sections of npm 11.19.1's docs from the shared ``techdocs_a`` corpus, copied to
``tests/data/npm_marked_sections.jsonl`` (license in ``tests/data/NOTICE.md``), one document each as the eval
builds them."""

from __future__ import annotations

import pytest
from section_rows import read_rows

from graphrag_agents.ingest.common_names import ProseWords
from graphrag_agents.ingest.extract_ner import spacy_available
from graphrag_agents.ingest.marked_names import common_word, platform_like, sentence_word
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph

ROWS = read_rows("npm_marked_sections.jsonl")


def test_a_sentence_opening_verb_and_a_platform() -> None:
    """The `cpu` option of commands/npm-install.md (techdocs_a-db141e41fb89) opens a line with "Override CPU
    architecture"; the `strict-peer-deps` and `allow-scripts` options of commands/npm-ci.md (techdocs_a-65e4e41daf0d,
    techdocs_a-c1c3d6dcd566) write "override" in lower case. The bin-links option (techdocs_a-6f00cf448b20) writes
    "on Windows", as a platform, not a place."""
    prose = ProseWords(r["text"] for r in ROWS)
    assert sentence_word("Override CPU", prose) and not sentence_word("Granular Access Tokens", prose)
    bin_links = next(r["text"] for r in ROWS if r["id"] == "techdocs_a-6f00cf448b20")
    assert platform_like("Windows", [bin_links])
    assert not platform_like("Paris", ["She was born in Paris and lived on the Left Bank of Paris."])
    # commands/npm-trust.md › Prerequisites (techdocs_a-2759c4dc13c7): no place word before the name, no place
    assert platform_like("Granular Access Tokens", ["Granular Access Tokens (GAT) with the bypass 2FA option are "
                                                    "not supported."])


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_common_words_go_and_a_platform_is_no_place_at_finalize(kg: KnowledgeGraph) -> None:
    """commands/npm-whoami.md › Description (techdocs_a-bb7f16ce0d9f) writes "a registry that uses Basic Auth", and
    spaCy names "Basic Auth" a person; npm-trust's Prerequisites (techdocs_a-2759c4dc13c7) and logging's "Logs and
    Sensitive Information" (techdocs_a-66be652f230c) write "basic auth" in lower case. "Windows" is typed a place
    on the bin-links, Cache and prefix sections (written "on Windows" each time). The extractor stores both, as the
    previous release did; the next ``finalize`` deletes "Basic Auth" and moves "Windows" to ``Unknown``."""
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in ROWS]
    await kg.ingest_documents(sources, IngestPlan(extractor="ner"))
    labels = "MATCH (e:__Entity__) WHERE e.name IN ['Basic Auth', 'Windows'] RETURN e.name, e.label ORDER BY e.name"
    before = [list(r) for r in await kg.store.ro_query(labels)]
    assert ["Basic Auth", "Person"] in before and ["Windows", "Location"] in before
    report = await kg.finalize()
    assert report.dropped >= 1 and report.retyped >= 1
    assert [list(r) for r in await kg.store.ro_query(labels)] == [["Windows", "Unknown"]]
    orphans = await kg.store.ro_query("MATCH (f:__Fact__) WHERE NOT ()-[:IN_FACT]->(f) RETURN count(f)")
    assert orphans[0][0] == 0


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_a_name_in_a_section_without_markup_is_read_when_the_corpus_is_technical(kg: KnowledgeGraph) -> None:
    """commands/npm-config.md › Sub-commands (techdocs_a-dbea0210e5a7) is one line, "Config supports the following
    sub-commands:", with no markup, and spaCy names "Config"; six more sections of npm's docs
    (``tests/data/npm_config_sections.jsonl``) write "config" in lower case 21 times and all hold markup. Most
    of the graph's chunks hold markup, so its names are read against the corpus: "Config" goes at finalize."""
    rows = read_rows("npm_config_sections.jsonl")
    await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows],
                              IngestPlan(extractor="ner"))
    config = "MATCH (e:__Entity__ {name: 'Config'}) RETURN count(e)"
    assert (await kg.store.ro_query(config))[0][0] == 1
    await kg.finalize()
    assert (await kg.store.ro_query(config))[0][0] == 0


def test_an_abbreviation_opening_a_sentence_is_a_common_word() -> None:
    """The Node.js docs' api/http.md: "The 3-digit HTTP response status code. E.G. `404`." (spaCy names "E.G" a
    person) opens a sentence inside a line; the same page writes "(e.g. 120 seconds)" in lower case. Read as
    ``finalize`` reads technical text (sentence starts are no name's place), "E.G" is a common word, "HTTP" not."""
    lines = ["The 3-digit HTTP response status code. E.G. `404`.",
             "The HTTP response status message (reason phrase). E.G. `OK` or `Internal Server Error`.",
             "It must be set to a non-zero value (e.g. 120 seconds) to protect against"]
    prose = ProseWords(lines, sentence_starts=True)
    assert common_word("E.G", prose) and not common_word("HTTP", prose)
    assert not common_word("E.G", ProseWords(lines))  # a document's own reading keeps sentence starts inline
