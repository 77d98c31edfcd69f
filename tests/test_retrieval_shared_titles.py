"""A title the question names gives each document it titles its share of the title feature.

Real rows: CLIMATE-FEVER keeps each Wikipedia sentence as a document under its article's title (230 titled "Global
warming"), and its claim "Global warming is driving polar bears toward extinction" names that title; the evidence
is a sentence of "Habitat destruction". A HotpotQA paragraph's title names one document, so its feature stays 1.
"""

from __future__ import annotations

from graphrag_agents.retrieval.candidates import Candidate
from graphrag_agents.retrieval.passages import named_titles

SENTENCES = [
    ("Global warming", "Environmental impacts include the extinction or relocation of many species as their "
     "ecosystems change, most immediately the environments of coral reefs, mountains, and the Arctic."),
    ("Global warming", "Rising temperatures push bees to their physiological limits, and could cause the extinction "
     "of bee populations."),
    ("Global warming", "Future climate change and associated impacts will differ from region to region."),
    ("Habitat destruction", "Rising global temperatures, caused by the greenhouse effect, contribute to habitat "
     "destruction, endangering various species, such as the polar bear."),
]


def _candidates(rows: list[tuple[str, str]]) -> list[Candidate]:
    return [Candidate(chunk_id=f"c{i}", document_id=f"d{i}", title=title, cosine=0.5, text=text)
            for i, (title, text) in enumerate(rows)]


def test_a_title_that_names_several_documents_is_shared_among_them() -> None:
    names = named_titles(_candidates(SENTENCES), frozenset({"global warming"}))
    assert names == {"global warming": 1 / 3}
    assert named_titles(_candidates(SENTENCES), frozenset({"global warming"}), shared=False) == {"global warming": 1}


def test_two_chunks_of_one_document_are_one_document() -> None:
    one = [Candidate(chunk_id=f"c{i}", document_id="d0", title="Global warming", cosine=0.5) for i in range(3)]
    assert named_titles(one, frozenset({"global warming"})) == {"global warming": 1.0}


def test_a_title_that_names_one_document_keeps_the_whole_feature() -> None:
    hotpot = [Candidate(chunk_id="c0", document_id="d0", title="Jeff Porcaro", cosine=0.4),
              Candidate(chunk_id="c1", document_id="d1", title="Carmine Appice", cosine=0.3)]
    assert named_titles(hotpot, frozenset({"jeff porcaro"})) == {"jeff porcaro": 1.0}
    assert named_titles(hotpot, frozenset()) == {}
