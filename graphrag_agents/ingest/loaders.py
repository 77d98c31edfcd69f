"""Turn the bytes of a .txt, .md, .markdown, .rst or .pdf file into text with a title.

The byte-based :func:`load_bytes` is the main entry point: the ``files_root`` sandbox reads a file from a safe
handle and hands over its bytes, so loaders never open paths themselves. :func:`load_file` is the convenience
for trusted paths (tests, the CLI). PDF support needs the ``pdf`` extra (pypdf), imported only when a PDF is
loaded. Every failure is a :class:`DocumentLoadError` whose ``reason`` says what is wrong with the file.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from graphrag_agents._install import pip_extra
from graphrag_agents.errors import ConfigurationError, DocumentLoadError
from graphrag_agents.ingest._front_matter import Scalar, read_front_matter
from graphrag_agents.ingest._markdown import atx_heading, fenced_lines

__all__ = [
    "MAX_PDF_PAGES",
    "PDF_CONTENT_BYTES_PER_CHAR",
    "SUPPORTED_SUFFIXES",
    "DocumentLoadError",
    "LoadedDocument",
    "PdfSample",
    "decode_window",
    "estimate_pdf_chars",
    "front_matter_metadata",
    "load_bytes",
    "load_file",
    "loader_for",
    "sample_middle",
]

SUPPORTED_SUFFIXES: dict[str, str] = {
    ".txt": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".pdf": "pdf",
}
"""File suffix (lower case) -> loader name."""

_PDF_EXTRA = pip_extra("pdf")

MAX_PDF_PAGES = 5000
"""PDFs with more pages are refused before any page is read."""
PDF_CONTENT_BYTES_PER_CHAR = 8
"""With a character limit, a PDF whose page content (decoded content streams, counted once per page that draws
them) exceeds this many bytes per allowed character is refused before any text is extracted: extraction time
grows with those bytes, and a few kilobytes of PDF can make every page draw the same megabytes."""
_MIN_CONTENT_BYTES = 4 * 1024 * 1024
_SAMPLE_PAGE_CONTENT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class LoadedDocument:
    """The text of one file and what the graph stores about it on its ``Document`` node."""

    text: str
    """Extracted text: UTF-8 (BOM dropped, line ends normalised to ``\\n``, a Markdown file's front matter
    left out) or the PDF's page texts."""
    title: str
    """A Markdown file's front matter ``title``, first Markdown ``#`` heading, RST title, PDF metadata title, else
    the file stem."""
    loader: str
    """``"text"``, ``"markdown"``, ``"rst"`` or ``"pdf"``."""
    content_hash: str
    """sha256 hex digest of the file's bytes: unchanged bytes mean an unchanged document."""
    path: str
    """The name the bytes were loaded under (a path relative to the files root when read through it)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Flat scalar properties: ``size_bytes`` always, ``pages`` for PDFs; from a Markdown file's front matter,
    ``description`` and every other field as ``front_matter_<name>`` (see :func:`front_matter_metadata`)."""


@dataclass(frozen=True)
class PdfSample:
    """A few pages from the middle of a PDF and the size of its whole text extrapolated from them."""

    text: str
    """The text of the sampled pages, in page order."""
    chars: int
    """Characters of text in the whole PDF: exact when every page was read, else an estimate."""
    pages: int
    """Number of pages in the PDF."""
    estimated: bool
    """True when ``chars`` was extrapolated from the sampled pages."""


def loader_for(name: str) -> str:
    """Return the loader name for a file name; raise :class:`DocumentLoadError` naming the supported types."""
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    loader = SUPPORTED_SUFFIXES.get(suffix)
    if loader is None:
        kind = f"'{suffix}'" if suffix else "a file without a suffix"
        supported = ", ".join(SUPPORTED_SUFFIXES)
        raise DocumentLoadError(f"unsupported file type {kind}; supported types are {supported}", name)
    return loader


def load_bytes(data: bytes, name: str, *, max_chars: int | None = None,
               max_pages: int = MAX_PDF_PAGES) -> LoadedDocument:
    """Load a file's bytes; ``name`` (its path or file name) picks the loader by suffix and gives the stem.

    Args:
        max_chars: refuse a file whose text is longer (a PDF stops at the page that passes it, and one whose
            page content exceeds :data:`PDF_CONTENT_BYTES_PER_CHAR` bytes per allowed character is refused
            before its text is extracted); None: no limit.
        max_pages: refuse a PDF with more pages, before any page is read.

    Example::

        doc = load_bytes(b"# Q1 report\\nSales rose.", "reports/q1.md")
        doc.title, doc.loader   # ('Q1 report', 'markdown')
    """
    loader = loader_for(name)
    if not data:
        raise DocumentLoadError("the file is empty (0 bytes)", name)
    stem = PurePosixPath(name.replace("\\", "/")).stem or name
    metadata: dict[str, Any] = {"size_bytes": len(data)}
    if loader == "pdf":
        text, pdf_title, pages = _read_pdf(data, name, max_chars, max_pages)
        metadata["pages"] = pages
        title = pdf_title or stem
    else:
        text = _decode_text(data, name)
        if max_chars is not None and len(text) > max_chars:
            raise DocumentLoadError(f"the text is {len(text):,} characters, over the limit of {max_chars:,}; "
                                    f"{_SPLIT_HINT}", name)
        front = read_front_matter(text) if loader == "markdown" else None
        if front is not None:
            text = text[front.body_start:]
            if not text.strip():
                raise DocumentLoadError("the file holds front matter only, no text after its closing line", name)
            metadata.update(front_matter_metadata(front.fields))
        titles = {"markdown": _markdown_title, "rst": _rst_title}
        declared = front.fields.get("title") if front is not None else None
        title = (str(declared).strip() if declared is not None else "") or \
            (titles[loader](text) if loader in titles else None) or stem
    digest = hashlib.sha256(data).hexdigest()
    return LoadedDocument(text=text, title=title, loader=loader, content_hash=digest, path=name,
                          metadata=metadata)


_NOT_NAME = re.compile(r"[^0-9A-Za-z_]")


def front_matter_metadata(fields: dict[str, Scalar]) -> dict[str, Scalar]:
    """The Document properties front matter ``fields`` give: ``description`` as itself, every other field but
    ``title`` (the document's title) as ``front_matter_<name>`` (other characters than letters, digits and
    ``_`` as ``_``), so that no field can overwrite a property the graph keeps (``id``, ``path``, ``key_rule``).

    Example: ``front_matter_metadata({"title": "npm-ci", "section": 1, "description": "Clean install"})`` is
    ``{"front_matter_section": 1, "description": "Clean install"}``.
    """
    meta: dict[str, Scalar] = {}
    for name, value in fields.items():
        if name == "description":
            meta["description"] = value
        elif name != "title":
            meta["front_matter_" + _NOT_NAME.sub("_", name)] = value
    return meta


def load_file(path: str | Path) -> LoadedDocument:
    """Read and load a file by path. It is not sandboxed: use it for trusted paths only."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise DocumentLoadError(f"cannot read the file: {exc.strerror or exc}", str(path)) from exc
    return load_bytes(data, str(path))


def _decode_text(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentLoadError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start} cannot be decoded; "
            "save the file as UTF-8", name) from exc
    nul = text.find("\x00")
    if nul >= 0:
        offset = len(text[:nul].encode("utf-8"))
        raise DocumentLoadError(f"contains a NUL byte at byte offset {offset}; it looks like a binary file",
                                name)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise DocumentLoadError("the file is empty (only whitespace)", name)
    return text


_SETEXT_H1 = re.compile(r"^ {0,3}=+[ \t]*$")


def _markdown_title(text: str) -> str | None:
    """First level-1 heading (ATX ``# Title`` or Setext ``Title`` over ``===``), outside code fences."""
    lines = text.split("\n")
    previous = ""
    for line, fenced in zip(lines, fenced_lines(lines), strict=True):
        if fenced:
            previous = ""
            continue
        atx = atx_heading(line)
        if atx and atx[0] == 1 and atx[1].strip("# \t"):
            return atx[1]
        if _SETEXT_H1.match(line) and previous.strip():
            return previous.strip()
        previous = line
    return None


_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")


def _rst_title(text: str) -> str | None:
    """First RST title: a text line underlined (optionally overlined) by one repeated punctuation mark."""
    lines = text.split("\n")
    for i in range(1, len(lines)):
        under = _RST_ADORNMENT.match(lines[i])
        title = lines[i - 1].strip()
        if not under or not title or _RST_ADORNMENT.match(lines[i - 1]):
            continue
        if len(lines[i].rstrip()) >= len(title):
            return title
    return None


def _import_pypdf() -> Any:
    try:
        import pypdf
    except ImportError as exc:
        raise ConfigurationError(f"Reading PDF files needs pypdf: {_PDF_EXTRA}") from exc
    return pypdf


def _open_pdf(source: bytes | IO[bytes], name: str) -> Any:
    """A pypdf reader over the source, decrypted when it only has an empty user password."""
    pypdf = _import_pypdf()
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    stream.seek(0)
    head = stream.read(1024)
    stream.seek(0)
    if b"%PDF-" not in head:
        raise DocumentLoadError("not a PDF file (no %PDF- header)", name)
    try:
        reader = pypdf.PdfReader(stream)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentLoadError("the PDF is encrypted with a password; save an unencrypted copy", name)
        if len(reader.pages) == 0:
            raise DocumentLoadError("the PDF has no pages", name)
    except DocumentLoadError:
        raise
    except Exception as exc:  # pypdf raises many types (PdfReadError, ValueError, KeyError...) on bad files
        raise DocumentLoadError(f"unreadable PDF: {type(exc).__name__}: {exc}", name) from exc
    return reader


def _page_text(reader: Any, index: int, name: str) -> str:
    try:
        return str(reader.pages[index].extract_text() or "").strip()
    except Exception as exc:  # same as _open_pdf: any pypdf failure is a broken file
        reason = f"unreadable PDF page {index + 1}: {type(exc).__name__}: {exc}"
        raise DocumentLoadError(reason, name) from exc


_SPLIT_HINT = "split the file, use larger chunks, or raise the plan's max_chunks"


def _content_bytes(reader: Any, index: int, name: str) -> int:
    """Decoded size of the content streams page ``index`` draws (what extracting its text has to parse)."""
    try:
        contents = reader.pages[index].get_contents()
        return len(contents.get_data()) if contents is not None else 0
    except Exception as exc:  # same as _open_pdf: any pypdf failure is a broken file
        raise DocumentLoadError(f"unreadable PDF page {index + 1}: {type(exc).__name__}: {exc}", name) from exc


def _check_pdf_size(reader: Any, name: str, max_chars: int | None, max_pages: int) -> None:
    pages = len(reader.pages)
    if pages > max_pages:
        raise DocumentLoadError(f"the PDF has {pages:,} pages, over the limit of {max_pages:,}; split it into "
                                f"parts of at most {max_pages:,} pages", name)
    if max_chars is None:
        return
    budget = max(_MIN_CONTENT_BYTES, PDF_CONTENT_BYTES_PER_CHAR * max_chars)
    total = 0
    for index in range(pages):
        total += _content_bytes(reader, index, name)
        if total > budget:
            raise DocumentLoadError(
                f"the PDF's pages draw over {budget:,} bytes of content by page {index + 1} of {pages} (a text "
                f"limit of {max_chars:,} characters allows {budget:,}), so its text was not extracted; "
                f"{_SPLIT_HINT}", name)


def _read_pdf(data: bytes, name: str, max_chars: int | None = None,
              max_pages: int = MAX_PDF_PAGES) -> tuple[str, str | None, int]:
    reader = _open_pdf(data, name)
    _check_pdf_size(reader, name, max_chars, max_pages)
    pages = len(reader.pages)
    texts: list[str] = []
    chars = 0
    for index in range(pages):
        text = _page_text(reader, index, name)
        chars += len(text) + (2 if texts and text else 0)
        if max_chars is not None and chars > max_chars:
            raise DocumentLoadError(f"the PDF's text passes {max_chars:,} characters at page {index + 1} of "
                                    f"{pages}; {_SPLIT_HINT}", name)
        if text:
            texts.append(text)
    if not texts:
        raise DocumentLoadError(
            f"the PDF has no extractable text in its {pages} page(s); it may be a scanned PDF (images of "
            "pages): run OCR on it first", name)
    title: str | None = None
    try:
        raw = reader.metadata.title if reader.metadata else None
        title = str(raw).strip() if raw else None
    except Exception:  # a broken Info dictionary only costs the title
        title = None
    return "\n\n".join(texts), title or None, pages


def estimate_pdf_chars(source: bytes | IO[bytes], name: str = "document.pdf",
                       sample_pages: int = 3) -> PdfSample:
    """Read ``sample_pages`` pages from the middle of a PDF and extrapolate its text size by page count.

    ``source`` is the PDF's bytes or a seekable binary handle (pypdf then reads only what those pages need).
    Raises :class:`DocumentLoadError` for unreadable PDFs, and for a sampled page that draws over 1 MiB of
    content (its text is not extracted: that alone could take seconds).
    """
    if sample_pages < 1:
        raise ValueError("sample_pages must be at least 1")
    reader = _open_pdf(source, name)
    pages = len(reader.pages)
    first = max(0, (pages - sample_pages) // 2)
    chosen = range(first, min(pages, first + sample_pages))
    for index in chosen:
        drawn = _content_bytes(reader, index, name)
        if drawn > _SAMPLE_PAGE_CONTENT_BYTES:
            raise DocumentLoadError(
                f"page {index + 1} of {pages} draws {drawn:,} bytes of content, so its text was not sampled; "
                f"ingest refuses a PDF whose pages draw more than {PDF_CONTENT_BYTES_PER_CHAR} bytes per character "
                f"the plan allows: {_SPLIT_HINT}", name)
    texts = [_page_text(reader, i, name) for i in chosen]
    sampled = sum(len(t) for t in texts)
    estimated = len(chosen) < pages
    chars = round(sampled * pages / len(chosen)) if estimated else sampled
    return PdfSample(text="\n\n".join(t for t in texts if t), chars=chars, pages=pages, estimated=estimated)


def decode_window(data: bytes) -> str:
    """Decode a byte window cut from the middle of a UTF-8 file, dropping characters cut at either edge."""
    start = 0
    while start < min(len(data), 3) and 0x80 <= data[start] <= 0xBF:
        start += 1
    end = len(data)
    # a lead byte in the last 3 bytes whose sequence runs past the end was cut: drop it
    for back in range(1, min(4, len(data) - start) + 1):
        byte = data[end - back]
        if byte < 0x80:
            break
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            if needed > back:
                end -= back
            break
    return data[start:end].decode("utf-8", errors="replace").replace("\r\n", "\n")


def sample_middle(text: str, max_chars: int) -> str:
    """Return at most ``max_chars`` characters from the middle of ``text``, cut at whitespace when possible.

    The whole text comes back when it fits. Example: ``sample_middle("a b c d e", 3) == "c"``.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    text = text.strip()
    if len(text) <= max_chars:
        return text
    start = (len(text) - max_chars) // 2
    end = start + max_chars
    # snap inward to word boundaries, unless a single word fills the window
    if not text[start - 1].isspace():
        cut = next((i for i in range(start, end) if text[i].isspace()), None)
        start = cut + 1 if cut is not None and cut + 1 < end else start
    if end < len(text) and not text[end].isspace():
        cut = next((i for i in range(end - 1, start, -1) if text[i].isspace()), None)
        end = cut if cut is not None else end
    return text[start:end].strip()
