"""Evidence is counted in sections: ``top_k`` passages are as many sections, unless a section's further chunk adds
coverage of the question, and then it stands right after its neighbour.

The span is real: npm 11.19.1's ``commands/npm-pkg.md › Description`` is six chunks, and for the question below
(``techdocs_a-s15``) three more of them filled the last three of eight places, after the other sections. Those
sections and the others the question found, one document each as the eval builds them, are rows of the shared
``techdocs_a`` corpus copied to ``tests/data/npm_pkg_sections.jsonl`` (license in ``tests/data/NOTICE.md``).
"""

from __future__ import annotations

import re

from section_rows import ingest_sections, read_rows

from graphrag_agents.kg import KnowledgeGraph

ROWS = read_rows("npm_pkg_sections.jsonl")
QUESTION = ("How do I add one more entry to an array in package.json with `npm pkg set` when I don't know how many "
            "entries it already has?")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


async def test_a_sections_further_chunk_enters_only_with_new_words_and_next_to_its_neighbour(
        kg: KnowledgeGraph) -> None:
    await ingest_sections(kg, ROWS, "none")
    hits = (await kg.retrieve(QUESTION, paths=["passages"], top_k=8)).passages
    assert len(hits) == 8
    asked = _words(QUESTION)
    for i, hit in enumerate(hits):
        if hit.document_id in {h.document_id for h in hits[:i]}:
            assert hits[i - 1].document_id == hit.document_id, [h.chunk_id for h in hits]  # next to its neighbour
            before = set().union(*(_words(h.text) for h in hits[:i]))
            assert (_words(hit.text) & asked) - before, hit.chunk_id  # it adds a question word
    assert len({h.document_id for h in hits}) >= 7
