"""Code and markup are kept from the ner extractor: masked before spaCy, and names that read as code dropped."""

from __future__ import annotations

import pytest

from graphrag_agents.ingest.code_spans import code_like, mask_code
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
