"""``finalize`` reads the names of technical text against the whole corpus (``graphrag_agents/ingest/marked_names.py``).
The rows are real: eleven sections of npm 11.19.1's docs from the shared ``techdocs_a`` corpus, copied to
``tests/data/npm_marked_sections.jsonl`` (license in ``tests/data/NOTICE.md``), one document each as the eval
builds them."""

from __future__ import annotations

import pytest
from section_rows import read_rows

from graphrag_agents.ingest.code_spans import mask_code
from graphrag_agents.ingest.common_names import ProseWords
from graphrag_agents.ingest.extract_ner import spacy_available
from graphrag_agents.ingest.marked_names import (
    CorpusText,
    code_identifier,
    common_word,
    indefinite,
    lone_person,
    platform_like,
    plural_written,
    sentence_word,
)
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


# Lines of the Node.js 20 docs that Debian's nodejs package installs in /usr/share/doc/nodejs (file:line).
HTTP2_PRIORITY = ["  * `parent` {number} Specifies the numeric identifier of a stream the newly",  # http2.md:1091
                  "  * `weight` {number} Specifies the relative dependency of a stream in relation"]  # :1093
HTTP2_WRITE = "the second parameter specifies how to encode it into a byte stream."  # http2.md:4664


def test_a_word_opening_a_chunk_after_masked_markup_starts_its_line() -> None:
    """A chunk of api/http2.md that starts inside an option list opens with a bullet, a code span and a JSDoc type,
    which the mask blanks: "Specifies" stands where the line starts (spaCy names it an organisation), and
    http2.md:4664 writes "specifies" in lower case, so it is a common word. Before, a text opening with blanks
    was read as opening mid-line and "Specifies" as capitalised inside a sentence."""
    chunks = [mask_code("\n".join(HTTP2_PRIORITY)), mask_code(HTTP2_WRITE)]
    prose = ProseWords(chunks, sentence_starts=True)
    assert prose.starts["Specifies"] == 2 and prose.inline["Specifies"] == 0
    assert common_word("Specifies", prose)


HTTP2_CONNECT = ["### Supporting the `CONNECT` method",  # http2.md:3595
                 "The `CONNECT` method is used to allow an HTTP/2 server to be used as a proxy",  # :3597
                 "An HTTP/2 CONNECT proxy:",  # :3628
                 "  * `signal` {AbortSignal} An AbortSignal that may be used to abort an ongoing"]  # :1099


def test_a_name_written_as_code_is_an_identifier() -> None:
    """api/http2.md writes the HTTP method `` `CONNECT` `` twice as code and once in prose, and the class
    ``{AbortSignal}`` as a JSDoc type beside "An AbortSignal" in prose: both are code identifiers. "HTTP"
    stands in prose only."""
    corpus = CorpusText.read(HTTP2_CONNECT)
    assert code_identifier("CONNECT", corpus) and code_identifier("AbortSignal", corpus)
    assert not code_identifier("HTTP", corpus)


N_API = ["Node-API (formerly N-API) is an API for building native Addons. It is",  # n-api.md:9
         "Node-API is a C API that ensures ABI stability across Node.js versions",  # n-api.md:36
         "and different compiler levels. A C++ API can be easier to use.",  # :37
         "The end result is that the addon only uses the exported C APIs. As a result,",  # :75
         "* the Node.js C++ APIs available via any of",  # :93
         "For Linux developers, the necessary C/C++ toolchain packages are readily",  # :133
         "For Mac developers, [Xcode][] offers all the required compiler tools.",  # :138
         "maintained as part of Node.js itself. This API will be Application Binary"]  # :11


def test_a_name_written_in_the_plural_is_a_kind() -> None:
    """api/n-api.md writes "a C API" and "the exported C APIs", "A C++ API" and "the Node.js C++ APIs": each is a
    kind of interface, not one named thing. "Node.js" is never written with a plural ending."""
    corpus = CorpusText.read(N_API)
    assert plural_written("C API", corpus) and plural_written("C++ API", corpus)
    assert not plural_written("Node.js", corpus) and not plural_written("Application Binary", corpus)


def test_a_person_named_by_one_word_beside_no_other_name_is_no_person() -> None:
    """api/n-api.md writes "For Linux developers" and "For Mac developers", where spaCy types "Linux" and "Mac"
    a person; "For" is a common word set in capitals where the sentence starts. A person named in full beside
    another capitalised word stays one."""
    corpus = CorpusText.read([*N_API, "Reviewed by Beth Griggs.", "Thanks to Griggs for the release."])
    assert lone_person("Linux", corpus) and lone_person("Mac", corpus)
    assert not lone_person("Griggs", corpus)


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_finalize_deletes_code_identifiers_and_kinds_and_retypes_lone_persons(kg: KnowledgeGraph) -> None:
    """The lines above, ingested as technical text with the ``ner`` extractor, which names "AbortSignal" an
    organisation, "C++ API", "Linux" and "Mac" persons: ``finalize`` deletes the identifier and the kind, moves
    the lone persons to ``Unknown`` and keeps "Node-API"."""
    rows = [("n-api", "\n".join(N_API)), ("http2", "\n".join(HTTP2_CONNECT + HTTP2_PRIORITY))]
    await kg.ingest_documents([SourceDocument(i, i, text=t, title=i) for i, t in rows], IngestPlan(extractor="ner"))
    names = "MATCH (e:__Entity__) RETURN e.name, e.label"
    before = {str(n): str(lb) for n, lb in await kg.store.ro_query(names)}
    assert {"AbortSignal", "C++ API", "Linux", "Mac", "Node-API"} <= set(before) and before["Linux"] == "Person"
    await kg.finalize()
    left = {str(n): str(lb) for n, lb in await kg.store.ro_query(names)}
    assert "AbortSignal" not in left and "C++ API" not in left
    assert left["Linux"] == left["Mac"] == "Unknown" and left["Node-API"] == before["Node-API"]


def test_an_acronym_after_a_at_the_end_of_its_phrase_is_a_kind() -> None:
    """api/n-api.md:3251-3252 writes "calls to other APIs that might\\ntrigger a GC." (a garbage collection, which
    spaCy names an organisation): "a GC." ends an indefinite noun phrase. "a TCP connection" uses "TCP" as a
    modifier of "connection" and says nothing of it; so does "a JavaScript" before a line break inside a
    paragraph (api/n-api.md:2615-2616), and "a Node" before ".js"."""
    corpus = CorpusText.read(["within the same callback as long as there are no calls to other APIs that might",
                              "trigger a GC.", "It opens a TCP connection to the server.",
                              "* `[in] description`: Optional `napi_value` which refers to a JavaScript",  # :2615
                              "  `string` to be set as the description for the symbol."])  # :2616
    assert indefinite("GC", corpus) and not indefinite("TCP", corpus)
    assert not indefinite("JavaScript", corpus)  # a line's end inside a paragraph ends no phrase
    # techdocs_a's workspaces section: "defining a Node.js package" writes no "a Node."
    workspaces = "that contains a `package.json` inside it, defining a Node.js package"
    assert not indefinite("Node", CorpusText.read([workspaces]))
