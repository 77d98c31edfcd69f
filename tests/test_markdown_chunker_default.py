"""Markdown and reST files are cut at their sections by default; ``--chunker sentence`` keeps the old chunks."""

from __future__ import annotations

from pathlib import Path

from graphrag_agents.cli.commands import _parser
from graphrag_agents.ingest.chunkers import chunker_for
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph

# As in the issue: a README whose setext heading ran into the next section's text with the sentence chunker.
README = """Project notes
=============

The tool reads files and stores them for later questions.

Testing
-------

### Manual execution

When you change the parser, run the checks by hand before a release.

### Automatic execution

Every push runs the checks on the build server.
"""


async def _chunks(kg: KnowledgeGraph, doc_id: str) -> list[tuple[str, str]]:
    rows = await kg.store.ro_query("MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c.text, c.heading "
                                   "ORDER BY c.index", {"id": doc_id})
    return [(str(t), str(h)) for t, h in rows]


def test_auto_means_sections_for_markdown_and_rst_only() -> None:
    assert IngestPlan().chunker == "auto"
    assert [chunker_for("auto", loader) for loader in ("markdown", "rst", "text", "pdf", None)] == \
        ["structural", "structural", "sentence", "sentence", "sentence"]
    assert chunker_for("sentence", "markdown") == "sentence"
    args = _parser()[0].parse_args(["ingest", "notes.md"])
    assert args.chunker == "auto"
    assert _parser()[0].parse_args(["ingest", "notes.md", "--chunker", "sentence"]).chunker == "sentence"


async def test_a_markdown_heading_no_longer_runs_into_the_text(kg: KnowledgeGraph, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(README, encoding="utf-8")
    await kg.ingest(paths=[str(tmp_path / "README.md"), str(tmp_path / "notes.txt")],
                    plan=IngestPlan(extractor="none"), progress=False)
    sections = await _chunks(kg, str(tmp_path / "README.md"))
    # Before: one chunk "... Testing ------- ### Manual execution When you change ..." with no heading.
    assert ("When you change the parser, run the checks by hand before a release." in sections[1][0]
            and sections[1][1] == "Project notes > Testing > Manual execution"), sections
    assert not any("The tool reads" in text and "Manual execution" in text for text, _ in sections)
    assert all(heading == "" for _, heading in await _chunks(kg, str(tmp_path / "notes.txt")))  # .txt: sentences


async def test_a_graph_chunked_by_sentences_stays_readable(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(README, encoding="utf-8")
    await kg.ingest(paths=[str(path)], plan=IngestPlan(chunker="sentence", extractor="none"), progress=False)
    await kg.finalize(progress=False)
    before = await _chunks(kg, str(path))
    assert all(heading == "" for _, heading in before)  # the previous default's chunks

    report = await kg.ingest(paths=[str(path)], plan=IngestPlan(extractor="none"), progress=False)
    assert [d.status for d in report.documents] == ["unchanged"]
    assert await _chunks(kg, str(path)) == before  # kept as written, and still answered
    hits = await kg.retrieve("How are the checks run on every push?")
    assert any("build server" in p.text for p in hits.passages)

    path.write_text(README.replace("build server", "shared build server"), encoding="utf-8")
    report = await kg.ingest(paths=[str(path)], plan=IngestPlan(extractor="none"), progress=False)
    assert [d.status for d in report.documents] == ["updated"]
    await kg.finalize(progress=False)
    after = await _chunks(kg, str(path))
    assert after[-1] == ("### Automatic execution\n\nEvery push runs the checks on the shared build server.",
                         "Project notes > Testing > Automatic execution")
    hits = await kg.retrieve("How are the checks run on every push?")
    assert any("shared build server" in p.text for p in hits.passages)


async def test_reextract_cuts_an_unchanged_file_at_its_sections(kg: KnowledgeGraph, tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(README, encoding="utf-8")
    await kg.ingest(paths=[str(path)], plan=IngestPlan(chunker="sentence", extractor="none"), progress=False)
    report = await kg.ingest(paths=[str(path)], plan=IngestPlan(extractor="none"), reextract=True, progress=False)
    assert [d.status for d in report.documents] == ["reextracted"]
    assert [h for _, h in await _chunks(kg, str(path))] == [
        "Project notes", "Project notes > Testing > Manual execution", "Project notes > Testing > Automatic execution"]
