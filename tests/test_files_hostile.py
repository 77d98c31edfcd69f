"""Hostile files under ``files_root``: hard links to files outside it, an empty or vanishing first file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphrag_agents.errors import ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit
from graphrag_agents.tools.write.sandbox import FilesRoot

_SECRET = "The launch code is 0000-SECRET and nobody outside may read it."


@pytest.fixture
def linked_root(tmp_path: Path) -> Path:
    """A files root holding a normal file and a hard link to a file outside the root."""
    outside = tmp_path / "private" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text(_SECRET)
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "notes.txt").write_text("Alice works at Acme.")
    os.link(outside, root / "innocent.txt")
    return root


def test_sandbox_refuses_a_hard_link_to_a_file_outside(linked_root: Path) -> None:
    files = FilesRoot(linked_root)
    with pytest.raises(ToolError, match="hard links") as err:
        files.read_bytes("innocent.txt")
    assert "allow_hard_links=True" in err.value.hint
    with pytest.raises(ToolError, match="hard links"):
        files.read_window("innocent.txt", 0, 100)
    assert files.read_bytes("notes.txt")[1] == b"Alice works at Acme."


async def test_ingest_and_preview_never_read_the_linked_file(kg: KnowledgeGraph, linked_root: Path) -> None:
    toolkit = GraphRAGToolkit(kg, files_root=linked_root)
    result = await toolkit.call("ingest", {"files": ["*.txt"]})
    statuses = {d.path: d for d in result.documents}  # type: ignore[attr-defined]
    assert statuses["notes.txt"].status == "ingested"
    assert statuses["innocent.txt"].status == "failed" and "hard links" in (statuses["innocent.txt"].reason or "")
    preview = await toolkit.call("preview_files", {})
    assert _SECRET[:20] not in preview.model_dump_json()
    (texts,), = await kg.store.ro_query("MATCH (c:Chunk) RETURN collect(c.text)")
    assert not any("SECRET" in t for t in texts)


async def test_operator_may_allow_hard_links(kg: KnowledgeGraph, linked_root: Path) -> None:
    toolkit = GraphRAGToolkit(kg, files_root=FilesRoot(linked_root, allow_hard_links=True))
    result = await toolkit.call("ingest", {"files": ["innocent.txt"]})
    assert [d.status for d in result.documents] == ["ingested"]  # type: ignore[attr-defined]


async def test_empty_first_file_is_a_failed_status_and_the_others_go_on(kg: KnowledgeGraph, tmp_path: Path) -> None:
    (tmp_path / "a_empty.txt").write_text("")
    (tmp_path / "b.txt").write_text("Bob works at Beta.")
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path)
    result = await toolkit.call("ingest", {"files": ["a_empty.txt", "b.txt"]})
    statuses = {d.path: d.status for d in result.documents}  # type: ignore[attr-defined]
    assert statuses == {"a_empty.txt": "failed", "b.txt": "ingested"}


async def test_first_file_not_a_regular_file_is_failed(kg: KnowledgeGraph, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "a.txt")  # named explicitly: listed, but neither sized nor read
    (tmp_path / "b.txt").write_text("Bob works at Beta.")
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path)
    result = await toolkit.call("ingest", {"files": ["a.txt", "b.txt"]})
    statuses = {d.path: d.status for d in result.documents}  # type: ignore[attr-defined]
    assert statuses == {"a.txt": "failed", "b.txt": "ingested"}


async def test_first_file_unreadable_after_listing_is_failed(kg: KnowledgeGraph, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Soon unreadable.")
    (tmp_path / "b.txt").write_text("Bob works at Beta.")
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path)
    (tmp_path / "a.txt").chmod(0)  # listed by the glob, but neither sized nor read
    try:
        if os.access(tmp_path / "a.txt", os.R_OK):
            pytest.skip("running as root: file modes do not stop reads")
        result = await toolkit.call("ingest", {"files": ["*.txt"]})
    finally:
        (tmp_path / "a.txt").chmod(0o644)
    statuses = {d.path: d.status for d in result.documents}  # type: ignore[attr-defined]
    assert statuses == {"a.txt": "failed", "b.txt": "ingested"}
