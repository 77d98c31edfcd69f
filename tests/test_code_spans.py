"""Code and markup are kept from the ner extractor: masked before spaCy, and names that read as code dropped."""

from __future__ import annotations

import pytest

from graphrag_agents.ingest.chunkers import FixedChunker
from graphrag_agents.ingest.code_spans import code_like, mask_chunks, mask_code
from graphrag_agents.ingest.common_names import ProseWords, runs_on
from graphrag_agents.ingest.extract_ner import NerExtractor, spacy_available
from graphrag_agents.ingest.ontology_store import DEFAULT_ONTOLOGY

TECHNICAL = """Crypto errors
-------------

Alice Smith maintains the crypto module at Acme Corp in Berlin. When parsing fails, OpenSSL returns
`ASN1_MEM_ERROR` and the callback receives NULL.

```js
const result = fs.readFileSync(path); // ASN1_MEM_ERROR = array([True, False])
```

    >>> ma.mask_or(a, b)

Bob Jones reviewed the ASN1 parser with NULL checks in London.
"""


def test_mask_code_keeps_every_offset() -> None:
    masked = mask_code(TECHNICAL)
    assert len(masked) == len(TECHNICAL) and masked.count("\n") == TECHNICAL.count("\n")
    assert "readFileSync" not in masked and "ASN1_MEM_ERROR" not in masked and "mask_or" not in masked
    assert "-------" not in masked and "Alice Smith maintains" in masked and "Bob Jones reviewed" in masked


@pytest.mark.parametrize(("name", "junk"), [
    ("ASN1_MEM_ERROR", True), ("NULL", True), ("ASN1", True), ("= array([True", True), ("ma.mask_or(", True),
    ("fs.readFile", True), ("maxBuffer", True), ("der len", True),
    ("Alice Smith", False), ("Node.js", False), ("NASA", False), ("U.S.", False), ("St. Louis", False),
    ("O'Brien", False), ("Python 3", False),
])
def test_code_like(name: str, junk: bool) -> None:
    assert code_like(name) is junk


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_the_ner_extractor_keeps_code_out() -> None:
    async def names(extractor: NerExtractor) -> set[str]:
        (extraction,) = await extractor.extract([[TECHNICAL]], DEFAULT_ONTOLOGY)
        assert not isinstance(extraction, Exception)
        return {e.name for e in extraction.entities}

    kept = await names(NerExtractor())
    assert {"Alice Smith", "Bob Jones"} <= kept
    assert not [n for n in kept if code_like(n)], kept
    assert [n for n in await names(NerExtractor(skip_code=False)) if code_like(n)]  # what the filter removes


# Real spans of the Node.js docs in /usr/share/doc/nodejs (the corpus of benchmarks/entity_junk_bench.py).
ADDON_CODE = [  # api/addons.md: a C++ example the sentence chunker cut in three
    "Addons are dynamically-linked shared objects written in C++.\n\n```cpp\n// hello.cc\n#include <node.h>",
    "void Method(const FunctionCallbackInfo<Value>& args) {\n  Isolate* isolate = args.GetIsolate();\n"
    "  args.GetReturnValue().Set(String::NewFromUtf8(isolate, \"world\").ToLocalChecked());\n}",
    "}  // namespace demo\n```\n\nThe `module_name` must match the file name of the final binary, as Node.js does.",
]


def test_a_code_block_cut_by_the_chunker_is_masked_in_every_piece() -> None:
    masked = mask_chunks(ADDON_CODE)
    assert [len(m) for m in masked] == [len(c) for c in ADDON_CODE]
    # Before: the middle piece shows no fence of its own and reached spaCy (GetIsolate, CreateObject as names).
    assert not masked[1].strip() and "namespace" not in masked[2]
    assert "Addons are dynamically-linked" in masked[0] and "as Node.js does" in masked[2]


def test_overlapping_chunks_are_masked_as_their_document() -> None:
    code = "const x = fs.readFileSync(p);\n" * 40
    text = "Intro text by Beth Griggs.\n\n```js\n" + code + "```\n\nAfter by Rod Vagg."
    chunks = [c.text for c in FixedChunker(size=300, overlap=60).chunk(text)]
    whole = mask_code(text)
    for chunk, masked in zip(chunks, mask_chunks(chunks), strict=True):
        assert masked == whole[text.index(chunk):text.index(chunk) + len(chunk)]


def test_markup_that_is_not_text_is_masked() -> None:
    yaml = ("<!-- YAML\nadded: v0.1.21\nchanges:\n  - version: v10.0.0\n    pr-url: https://github.com/nodejs/node/pull/17003\n"
            "    description: Used comparison changed from Strict Equality to `Object.is()`.\n-->\n\nTests for strict "
            "equality between the `actual` and `expected` parameters.")  # api/assert.md
    masked = mask_code(yaml)
    assert "Strict Equality" not in masked and "Tests for strict equality" in masked
    person = ("* [apapirovski](https://github.com/apapirovski) -\n  **Anatoli Papirovski** <<apapirovski@mac.com>> "
              "(he/him)")  # README.md
    masked = mask_code(person)
    assert "github.com" not in masked and "mac.com" not in masked and "*" not in masked
    assert "Anatoli Papirovski" in masked and "[apapirovski" in masked
    row = "| GNU/Linux        | ppc64le >=power8 | kernel >= 4.18[^1], glibc >= 2.28 | Tier 2 | e.g. Ubuntu 20.04 |"
    assert mask_code(row).count(";") == 6 and "|" not in mask_code(row)  # BUILDING.md: cells stay apart
    param = "  * `saltLength`: {number} Minimal salt length in bytes (RSA-PSS)."  # api/crypto.md
    assert "{number}" not in mask_code(param) and "Minimal salt length" in mask_code(param)


@pytest.mark.parametrize(("name", "junk"), [
    ("NaN", True), ('Timothy" Gu', True), ("None", False), ('Tiancheng "Timothy" Gu', False),
])
def test_code_like_constants_and_cut_quotes(name: str, junk: bool) -> None:
    assert code_like(name) is junk


@pytest.mark.parametrize(("name", "run_on"), [
    ("Node.js first", True), ("Desktop development", True), ("Chesapeake Bay beach", True),
    ("Le nozze di Figaro", False), ("Atari 8-bit", False), ("Mitchells & Butlers plc", False), ("Node.js", False),
])
def test_runs_on(name: str, run_on: bool) -> None:
    assert runs_on(name) is run_on


def test_common_words_set_in_capitals() -> None:
    building = ProseWords(mask_chunks([  # BUILDING.md
        "Bugs or regressions on tier 1 platforms will block releases.\n\n"
        "| GNU/Linux        | ppc64le >=power8 | kernel >= 4.18[^1], glibc >= 2.28 | Tier 2 |\n\n"
        "#### Troubleshooting Unix and macOS builds\n\nStale builds can sometimes result in `file not found` errors.\n"
        "Node.js runs on Linux, and Linux is a Tier 1 platform; see the linux folder.",
    ]))
    assert building.common("Tier 2") and building.common("Stale")
    assert not building.common("Linux") and not building.common("Unix") and not building.common("Node.js")
    addons = ProseWords(["Node-API is an API for building native addons. The\nexamples use the V8 APIs."])
    assert addons.common("API") and not addons.common("V8")  # api/addons.md
    hooks = ProseWords(["### Hook callbacks\n\nThe specifics are in the [Hook Callbacks][] section."])
    assert hooks.common("Hook Callbacks")  # api/async_hooks.md
    hotpot = ProseWords(["Jeffrey Porcaro was best known for his work with the rock band Toto. Hans Zimmer's music."])
    assert not hotpot.common("Toto") and not hotpot.common("Hans Zimmer") and not hotpot.common("Jeffrey Porcaro")


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_the_ner_extractor_keeps_markup_and_common_words_out() -> None:
    readme = ("## Current project team members\n\n* [apapirovski](https://github.com/apapirovski) -\n"
              "  **Anatoli Papirovski** <<apapirovski@mac.com>> (he/him)\n"
              "* [TimothyGu](https://github.com/TimothyGu) -\n  **Tiancheng \"Timothy\" Gu** <<timothygu99@gmail.com>> "
              "(he/him)\n\n## 2016-05-05, Version 5.11.1 (Stable), @evanlucas\n\nStale builds can sometimes fail; a "
              "new version of Node.js fixes it.")
    (extraction,) = await NerExtractor().extract([[*ADDON_CODE, readme]], DEFAULT_ONTOLOGY)
    assert not isinstance(extraction, Exception)
    kept = {e.name for e in extraction.entities}
    assert "Anatoli Papirovski" in kept, kept
    assert not kept & {"GetIsolate", "Papirovski", 'Timothy" Gu', "Version 5.11.1", "Version", "Stale"}, kept
