"""Progress bars: every ingest bar has its total from the start, and bars show the time left."""

from __future__ import annotations

import io
from pathlib import Path
from typing import ClassVar

import pytest
from rich.console import Console

from graphrag_agents.ingest import pipeline
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.ingest.progress import Progress
from graphrag_agents.kg import KnowledgeGraph


def test_bars_show_done_total_percent_and_time_left() -> None:
    out = io.StringIO()
    with Progress(True, console=Console(file=out, force_terminal=True, width=140)) as bars:
        bars.add("x", "Extracting documents", total=40)
        bars.advance("x", 10)
    text = out.getvalue()
    assert "Extracting documents" in text and "10/40" in text and "25%" in text
    assert "left" in text, "a time-left column (before: elapsed time only)"


class _Recording(Progress):
    """The real Progress (disabled), recording every total it is given."""

    totals: ClassVar[list[tuple[str, int | None]]] = []

    def add(self, key: str, description: str, total: int | None) -> None:
        self.totals.append((key, total))
        super().add(key, description, total)

    def update(self, key: str, *, completed: int | None = None, total: int | None = None) -> None:
        if total is not None:
            self.totals.append((key, total))
        super().update(key, completed=completed, total=total)


async def test_ingest_totals_are_known_up_front_and_never_grow(kg: KnowledgeGraph, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _Recording.totals = []
    monkeypatch.setattr(pipeline, "Progress", _Recording)
    monkeypatch.setattr(pipeline, "_WINDOW", 2)  # several windows, as in a large corpus
    paths = []
    for i in range(5):
        paths.append(tmp_path / f"doc{i}.txt")
        paths[-1].write_text(" ".join(f"Sentence {j} of document {i}." for j in range(3 + i)), encoding="utf-8")
    report = await kg.ingest(paths=[str(p) for p in paths], plan=IngestPlan(extractor="none"))
    assert {d.status for d in report.documents} == {"ingested"}
    # Before: the extract bar started with no total and grew window by window (0 -> 2 docs' chunks -> ...).
    assert _Recording.totals == [("extract", 5), ("write", 5)]


