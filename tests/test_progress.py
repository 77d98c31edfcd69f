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




class _Tracking(Progress):
    """The real Progress (disabled), recording each bar's total and how far it got."""

    bars: ClassVar[dict[str, list[int | None]]] = {}

    def add(self, key: str, description: str, total: int | None) -> None:
        self.bars[key] = [total, 0]
        super().add(key, description, total)

    def advance(self, key: str, amount: int = 1) -> None:
        self.bars[key][1] = int(self.bars[key][1] or 0) + amount
        super().advance(key, amount)

    def update(self, key: str, *, completed: int | None = None, total: int | None = None) -> None:
        if completed is not None:
            self.bars[key][1] = completed
        super().update(key, completed=completed, total=total)


async def test_finalize_shows_every_phase_with_its_total_and_completes_it(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bar for each phase of ``finalize``, its total known up front and reached at the end: merging and
    resolving names (before: no bar, the first silent minute at 6k documents), each kind embedded, the indexes."""
    from graphrag_agents import kg as kg_module

    _Tracking.bars = {}
    monkeypatch.setattr(kg_module, "Progress", _Tracking)
    monkeypatch.setattr(kg_module, "want_progress", lambda progress: True)
    # hotpotqa.corpus.jsonl, row hotpotqa-bb274af401b0 ("Jeff Porcaro"), its first two sentences
    await kg.ingest(text="Jeffrey Thomas Porcaro (April 1, 1954 – August 5, 1992) was an American drummer, songwriter, "
                         "and record producer. In a career that spanned more than 20 years, Porcaro was best known "
                         "for his work with the rock band Toto.", document_id="hotpotqa-bb274af401b0",
                    plan=IngestPlan(extractor="ner"))
    await kg.finalize(progress=False, entity_vectors="all")
    assert list(_Tracking.bars) == ["resolve", "chunks", "entities", "facts", "indexes"]
    for key, (total, done) in _Tracking.bars.items():
        assert total is not None and done == total, (key, total, done)
