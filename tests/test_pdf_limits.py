"""Hostile PDFs: pages and extracted text are bounded before chunking, and parsing never blocks the event loop."""

from __future__ import annotations

import asyncio
import io
import threading
from pathlib import Path
from typing import Any

import pytest
from test_loaders import make_pdf

from graphrag_agents.ingest import pipeline
from graphrag_agents.ingest.loaders import DocumentLoadError, load_bytes
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

pypdf = pytest.importorskip("pypdf")

FAST = [{"match": "*", "extractor": "none"}]
_LINE = b"BT /F1 12 Tf 72 720 Td (Lorem ipsum dolor sit amet) Tj ET\n"


def shared_stream_pdf(pages: int = 12, stream_bytes: int = 1_250_000) -> bytes:
    """A few kilobytes of PDF whose ``pages`` all draw one compressed content stream of ``stream_bytes``."""
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter()
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica")}))
    stream = DecodedStreamObject()
    stream.set_data(_LINE * (stream_bytes // len(_LINE)))
    content = writer._add_object(stream.flate_encode())
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        page[NameObject("/Contents")] = content
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


async def test_a_tiny_pdf_drawing_one_huge_stream_on_every_page_is_refused_before_extraction(
        kg: KnowledgeGraph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = shared_stream_pdf()
    assert len(data) < 10_000
    (tmp_path / "bomb.pdf").write_bytes(data)
    extracted: list[int] = []
    original = pypdf.PageObject.extract_text

    def counting(self: Any, *args: Any, **kwargs: Any) -> str:
        extracted.append(1)
        return str(original(self, *args, **kwargs))

    monkeypatch.setattr(pypdf.PageObject, "extract_text", counting)
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path)
    result = await toolkit.ingest(files=["bomb.pdf"], plan=FAST)
    (doc,) = result.documents
    assert doc.status == "failed"
    assert doc.reason and "bytes of content" in doc.reason and "split the file" in doc.reason
    assert "max_chunks" in doc.reason
    assert extracted == [], "no page's text was extracted"


def test_text_past_the_limit_stops_at_the_page_that_passes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_pdf([f"Page {i} says something about the weather. " * 20 for i in range(10)])
    read: list[int] = []
    original = pypdf.PageObject.extract_text

    def counting(self: Any, *args: Any, **kwargs: Any) -> str:
        read.append(1)
        return str(original(self, *args, **kwargs))

    monkeypatch.setattr(pypdf.PageObject, "extract_text", counting)
    with pytest.raises(DocumentLoadError) as caught:
        load_bytes(data, "long.pdf", max_chars=2000)
    assert "passes 2,000 characters at page 3 of 10" in caught.value.reason
    assert len(read) == 3
    assert load_bytes(data, "long.pdf", max_chars=100_000).metadata["pages"] == 10


def test_too_many_pages_are_refused_before_any_page_is_read() -> None:
    data = make_pdf(["one", "two", "three"])
    with pytest.raises(DocumentLoadError) as caught:
        load_bytes(data, "many.pdf", max_pages=2)
    assert "3 pages, over the limit of 2" in caught.value.reason and "split it" in caught.value.reason


def test_a_text_file_over_the_limit_is_refused() -> None:
    with pytest.raises(DocumentLoadError) as caught:
        load_bytes(b"word " * 1000, "big.txt", max_chars=1000)
    assert "5,000 characters, over the limit of 1,000" in caught.value.reason


async def test_the_plan_limit_reaches_the_loader(kg: KnowledgeGraph, tmp_path: Path) -> None:
    (tmp_path / "long.pdf").write_bytes(make_pdf(["A sentence of the report. " * 30] * 3))
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path, plan_limits={"max_chunks": 2})
    result = await toolkit.ingest(files=["long.pdf"], plan=FAST)
    (doc,) = result.documents
    assert doc.status == "failed" and doc.reason and "at page 3 of 3" in doc.reason, doc.reason
    fits = GraphRAGToolkit(kg, files_root=tmp_path)
    assert (await fits.ingest(files=["long.pdf"], plan=FAST)).documents[0].status == "ingested"


async def test_files_are_parsed_off_the_event_loop(kg: KnowledgeGraph, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "slow.pdf").write_bytes(make_pdf(["Alice Smith works at Acme Corp."]))
    released = threading.Event()
    parsing = threading.Event()
    threads: list[threading.Thread] = []

    def slow_load(data: bytes, name: str, **limits: Any) -> Any:
        threads.append(threading.current_thread())
        parsing.set()
        # Only the event loop sets ``released``: were parsing on the loop, this would wait in vain.
        assert released.wait(5), "the event loop was blocked while the PDF was parsed"
        return load_bytes(data, name, **limits)

    monkeypatch.setattr(pipeline, "load_bytes", slow_load)
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path)
    call = asyncio.ensure_future(toolkit.ingest(files=["slow.pdf"], plan=FAST))
    while not parsing.is_set():
        await asyncio.sleep(0.001)
    released.set()
    result = await call
    assert result.documents[0].status == "ingested"
    assert threads and threads[0] is not threading.main_thread()


async def test_preview_samples_no_page_of_the_tiny_huge_pdf(kg: KnowledgeGraph, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bomb.pdf").write_bytes(shared_stream_pdf())
    (tmp_path / "fine.pdf").write_bytes(make_pdf(["Alice Smith works at Acme Corp."]))
    extracted: list[int] = []
    original = pypdf.PageObject.extract_text

    def counting(self: Any, *args: Any, **kwargs: Any) -> str:
        extracted.append(1)
        return str(original(self, *args, **kwargs))

    monkeypatch.setattr(pypdf.PageObject, "extract_text", counting)
    page = await GraphRAGToolkit(kg, files_root=tmp_path).preview_files()
    found = {f.path: f for f in page.files}
    assert found["bomb.pdf"].error and "bytes of content" in found["bomb.pdf"].error
    assert "split the file" in found["bomb.pdf"].error
    assert found["fine.pdf"].error is None and "Acme" in (found["fine.pdf"].sample or "")
    assert extracted == [1], "only the harmless PDF's page was extracted"
