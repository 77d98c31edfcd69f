"""Passages name their file: for files ingested with ``kg.ingest(paths=...)`` as for the write tools' files."""

from __future__ import annotations

from pathlib import Path

from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit


async def test_passages_of_local_files_are_labelled_with_the_file_name(kg: KnowledgeGraph, tmp_path: Path) -> None:
    notes = tmp_path / "acme_notes.md"
    notes.write_text("# Acme\n\nAlice Smith works at Acme Corp in Berlin.\n", encoding="utf-8")
    await kg.ingest(paths=[str(notes)], plan=IngestPlan(extractor="none"))
    await kg.ingest(text="Bob Jones works at Globex in Springfield.", document_id="note-1", title="Bob's note",
                    plan=IngestPlan(extractor="none"))
    await kg.finalize(progress=False)
    found = await GraphRAGToolkit(kg, read_only=True).retrieve("Who works where?", paths=["passages"])
    labels = {("Alice" if "Alice" in p.text else "Bob"): p.file for p in found.passages}
    # Before: the file's passage was labelled "Acme", its title, like a text document.
    assert labels == {"Alice": "acme_notes.md", "Bob": "Bob's note"}
    assert "acme_notes.md" in found.to_llm_text()
