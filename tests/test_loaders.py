"""Loaders: text formats, titles, PDFs (built here byte by byte), and every refusal reason."""

from __future__ import annotations

import hashlib
import io
import sys
from pathlib import Path

import pytest

from graphrag_agents.errors import ConfigurationError, GraphRAGError
from graphrag_agents.ingest.loaders import (
    SUPPORTED_SUFFIXES,
    DocumentLoadError,
    decode_window,
    estimate_pdf_chars,
    load_bytes,
    load_file,
    sample_middle,
)


def make_pdf(pages: list[str], title: str | None = None) -> bytes:
    """A minimal valid PDF whose pages show ``pages`` in Helvetica (empty string: a page without text)."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % i for i in page_ids)
                   + b"] /Count %d >>" % len(pages))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for text in pages:
        content_id = len(objects) + 2
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0"
                       b" R >> >> /Contents %d 0 R >>" % content_id)
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        lines = escaped.split("\n")
        ops = b"".join(b"(%s) Tj 0 -14 Td " % line.encode("latin-1") for line in lines if line)
        stream = b"BT /F1 12 Tf 72 720 Td " + ops + b"ET" if ops else b""
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    if title is not None:
        objects.append(b"<< /Title (" + title.encode("latin-1") + b") >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    info = b" /Info %d 0 R" % len(objects) if title is not None else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref)
    return bytes(out)


@pytest.mark.parametrize(
    ("name", "data", "loader", "title"),
    [
        ("notes/a.txt", b"Plain text.\n", "text", "a"),
        ("A.TXT", b"# not a title in text\n", "text", "A"),
        ("doc.md", b"Intro\n\n# Main Title ##\n\n## Sub\n", "markdown", "Main Title"),
        ("doc.markdown", b"Setext Title\n============\n\nbody\n", "markdown", "Setext Title"),
        ("fenced.md", b"```bash\n# a comment\n```\n\n# Real\n", "markdown", "Real"),
        ("no-heading.md", b"just text\n## only level two\n", "markdown", "no-heading"),
        ("hashtag.md", b"#hashtag is not a heading\n", "markdown", "hashtag"),
        ("guide.rst", b"=====\nGuide\n=====\n\nIntro\n-----\n", "rst", "Guide"),
        ("plain.rst", b"Section One\n~~~~~~~~~~~\ntext\n", "rst", "Section One"),
        ("short.rst", b"Too long a title\n===\n", "rst", "short"),
        ("bom.md", "\ufeff# Café\r\nText".encode(), "markdown", "Café"),
    ],
)
def test_text_loaders_pick_loader_and_title(name: str, data: bytes, loader: str, title: str) -> None:
    doc = load_bytes(data, name)
    assert doc.loader == loader
    assert doc.title == title
    assert doc.path == name
    assert doc.content_hash == hashlib.sha256(data).hexdigest()
    assert doc.metadata == {"size_bytes": len(data)}
    assert "\r" not in doc.text and not doc.text.startswith("\ufeff")


def test_supported_suffixes_are_the_five_formats() -> None:
    assert sorted(SUPPORTED_SUFFIXES) == [".markdown", ".md", ".pdf", ".rst", ".txt"]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("a.docx", b"x", "unsupported file type '.docx'; supported types are .txt, .md, .markdown, .rst, "
                         ".pdf"),
        ("Makefile", b"x", "unsupported file type a file without a suffix"),
        ("a.txt", b"", "the file is empty (0 bytes)"),
        ("a.md", b" \n\t\n", "the file is empty (only whitespace)"),
        ("a.txt", b"ok \xff more", "byte 0xff at byte offset 3"),
        ("a.txt", "é".encode() + b"\xc3", "at byte offset 2"),
        ("a.txt", b"abc\x00def", "NUL byte at byte offset 3"),
        ("a.pdf", b"hello, not a pdf", "not a PDF file"),
        ("a.pdf", b"%PDF-1.4\ngarbage without objects", "unreadable PDF"),
        ("a.pdf", None, "no extractable text in its 2 page(s); it may be a scanned PDF"),
    ],
)
def test_refusals_name_the_reason(name: str, data: bytes | None, reason: str) -> None:
    payload = make_pdf(["", ""]) if data is None else data
    with pytest.raises(DocumentLoadError) as caught:
        load_bytes(payload, name)
    assert reason in caught.value.reason
    assert caught.value.path == name
    assert isinstance(caught.value, GraphRAGError)


def test_pdf_text_title_and_pages() -> None:
    data = make_pdf(["Aspirin treats headache.", "", "Page three (final)."], title="Drug Notes")
    doc = load_bytes(data, "reports/q1.pdf")
    assert doc.loader == "pdf"
    assert doc.title == "Drug Notes"
    assert "Aspirin treats headache." in doc.text
    assert "Page three (final)." in doc.text
    assert doc.text.index("Aspirin") < doc.text.index("Page three")
    assert doc.metadata == {"size_bytes": len(data), "pages": 3}


def test_pdf_without_title_uses_stem() -> None:
    assert load_bytes(make_pdf(["Some text"]), "dir/annual-report.PDF").title == "annual-report"


def test_encrypted_pdf_is_refused_or_read_with_empty_password() -> None:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(["Secret text"]))))
    writer.encrypt(user_password="pw", owner_password="owner", algorithm="RC4-128")
    locked = io.BytesIO()
    writer.write(locked)
    with pytest.raises(DocumentLoadError, match="encrypted with a password"):
        load_bytes(locked.getvalue(), "locked.pdf")
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(["Open text"]))))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    opened = io.BytesIO()
    writer.write(opened)
    assert "Open text" in load_bytes(opened.getvalue(), "open.pdf").text


def test_missing_pypdf_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    with pytest.raises(ConfigurationError, match=r"pip install '\.\[pdf\]' in the graphrag-agents source folder"):
        load_bytes(make_pdf(["x"]), "a.pdf")
    assert load_bytes(b"text still works", "a.txt").text == "text still works"


def test_load_file_reads_path_and_reports_missing(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text("# Guide\nbody", encoding="utf-8")
    assert load_file(path).title == "Guide"
    with pytest.raises(DocumentLoadError, match="cannot read the file"):
        load_file(tmp_path / "missing.md")


def test_estimate_pdf_chars_samples_middle_pages() -> None:
    pages = [f"Page {i:02d} " + "word " * 20 for i in range(10)]
    data = make_pdf(pages)
    exact = len(load_bytes(data, "a.pdf").text.replace("\n\n", ""))
    sample = estimate_pdf_chars(data, sample_pages=2)
    assert sample.pages == 10 and sample.estimated
    assert "Page 04" in sample.text and "Page 05" in sample.text
    assert "Page 00" not in sample.text and "Page 09" not in sample.text
    assert abs(sample.chars - exact) <= exact * 0.05
    handle_sample = estimate_pdf_chars(io.BytesIO(data), sample_pages=2)
    assert handle_sample == sample


def test_estimate_pdf_chars_small_pdf_is_exact() -> None:
    sample = estimate_pdf_chars(make_pdf(["one", "two"]), sample_pages=3)
    assert (sample.pages, sample.estimated, sample.chars) == (2, False, len("one") + len("two"))
    with pytest.raises(ValueError):
        estimate_pdf_chars(make_pdf(["one"]), sample_pages=0)
    with pytest.raises(DocumentLoadError, match="not a PDF"):
        estimate_pdf_chars(b"nope")


@pytest.mark.parametrize(
    ("text", "max_chars", "expected"),
    [
        ("short text", 100, "short text"),
        ("a b c d e", 3, "c"),
        ("alpha beta gamma delta epsilon", 11, "gamma"),
        ("x" * 50, 10, "x" * 10),
    ],
)
def test_sample_middle(text: str, max_chars: int, expected: str) -> None:
    got = sample_middle(text, max_chars)
    assert got == expected
    assert len(got) <= max_chars


def test_sample_middle_comes_from_the_middle() -> None:
    text = " ".join(f"w{i:03d}" for i in range(300))
    got = sample_middle(text, 100)
    assert len(got) <= 100
    middle = text.index("w150")
    assert text.index(got) < middle < text.index(got) + len(got)
    with pytest.raises(ValueError):
        sample_middle(text, 0)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("héllo wörld".encode(), "héllo wörld"),
        ("éa".encode()[1:], "a"),  # cut after the lead byte: the orphan continuation byte is dropped
        ("a€".encode()[:-1], "a"),  # cut inside a 3-byte character at the end
        ("a€".encode()[:-2], "a"),
        ("a𝄞".encode()[:-1], "a"),
        (b"line\r\nnext", "line\nnext"),
        (b"", ""),
    ],
)
def test_decode_window_drops_cut_characters(data: bytes, expected: str) -> None:
    assert decode_window(data) == expected
