"""``preview_files``: one sample from the middle of each file, read in bounded windows, paged by ``offset``.

A text file is read in one window of a few bytes per sampled character around its middle, never whole; a PDF
through pypdf on the sandbox's handle, a few pages from the middle. A file's character count is then
extrapolated (``chars_estimated``) unless the window held the whole file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ...errors import ConfigurationError, ToolError
from ...ingest.loaders import SUPPORTED_SUFFIXES, DocumentLoadError, decode_window, estimate_pdf_chars, loader_for
from ...ingest.loaders import sample_middle as middle
from .results import PreviewFile, PreviewFilesResult
from .sandbox import FilesRoot

__all__ = ["PAGE_CHARS", "preview_files"]

PAGE_CHARS = 30_000
"""Most characters of one page of samples (paths and figures included)."""
_PER_FILE_OVERHEAD = 120
_BYTES_PER_CHAR = 4  # the longest UTF-8 sequence: a window this wide always holds enough characters
_PDF_PAGES = 3


def _preview_text(files: FilesRoot, path: str, sample_chars: int) -> PreviewFile:
    size = files.stat_size(path)
    if size == 0:
        return PreviewFile(path=path, error="the file is empty (0 bytes)")
    window = min(size, sample_chars * _BYTES_PER_CHAR + 8)
    data = files.read_window(path, (size - window) // 2, window)
    if b"\x00" in data:
        return PreviewFile(path=path, error="contains NUL bytes: it looks like a binary file, not text")
    whole = window >= size
    text = data.decode("utf-8-sig", errors="replace") if whole else decode_window(data)
    if "\ufffd" in text and text.count("\ufffd") * 20 > max(len(text), 1):
        return PreviewFile(path=path, error="not valid UTF-8 text; save the file as UTF-8")
    if not text.strip():
        if whole:
            return PreviewFile(path=path, error="the file is empty (only whitespace)")
        return PreviewFile(path=path, chars=size, chars_estimated=True,
                           error="the middle of the file is blank")
    chars = len(text) if whole else round(size * len(text) / max(len(data), 1))
    return PreviewFile(path=path, chars=chars, chars_estimated=not whole, sample=middle(text, sample_chars))


def _preview_pdf(files: FilesRoot, path: str, sample_chars: int) -> PreviewFile:
    with files.open_file(path) as (_, handle):
        sample = estimate_pdf_chars(handle, path, sample_pages=_PDF_PAGES)
    text = middle(sample.text, sample_chars) if sample.text.strip() else ""
    error = None if text else "no extractable text in the sampled pages (a scanned PDF? run OCR first)"
    return PreviewFile(path=path, chars=sample.chars, chars_estimated=sample.estimated, pages=sample.pages,
                       sample=text, error=error)


def preview_one(files: FilesRoot, path: str, sample_chars: int) -> PreviewFile:
    """Sample one file; a file that cannot be read gets an ``error`` instead of failing the page."""
    try:
        loader = loader_for(path)
        item = (_preview_pdf if loader == "pdf" else _preview_text)(files, path, sample_chars)
    except DocumentLoadError as exc:
        return PreviewFile(path=path, error=exc.reason)
    except ToolError as exc:
        return PreviewFile(path=path, error=exc.message)
    except ConfigurationError as exc:
        return PreviewFile(path=path, error=str(exc))
    limit = files.max_file_bytes
    if limit is not None and item.error is None:
        size = files.stat_size(path)
        if size > limit:
            item.error = f"{size} bytes: over max_file_bytes ({limit}), so ingest will refuse it; split the file"
    return item


def _page(files: FilesRoot, paths: Sequence[str], offset: int, sample_chars: int) -> PreviewFilesResult:
    items: list[PreviewFile] = []
    used = 0
    index = offset
    while index < len(paths):
        item = preview_one(files, paths[index], sample_chars)
        cost = len(item.sample) + len(item.path) + len(item.error or "") + _PER_FILE_OVERHEAD
        if items and used + cost > PAGE_CHARS:
            break
        items.append(item)
        used += cost
        index += 1
    next_offset = index if index < len(paths) else None
    result = PreviewFilesResult(files=items, total_files=len(paths), offset=offset, next_offset=next_offset)
    if next_offset is not None:
        result.hint = (f"Call preview_files again with offset={next_offset} until next_offset is null, then "
                       "declare one ontology for the whole corpus with set_ontology.")
    elif not paths:
        result.hint = ("No supported files (.txt, .md, .markdown, .rst, .pdf) under the files root match; check "
                       "the patterns.")
    elif offset >= len(paths):
        result.hint = f"offset {offset} is past the last file ({len(paths)} files); start again at offset=0."
    else:
        result.hint = ("That was the last page. Declare one ontology for the whole corpus with set_ontology: a "
                       "specific relation type for each kind of link, with its (source, target) patterns.")
    return result


async def preview_files(files: FilesRoot, patterns: Sequence[str] | None, offset: int,
                        sample_chars: int) -> PreviewFilesResult:
    """One page of samples of the files ``patterns`` name (default: every supported file), from ``offset``."""

    def run() -> PreviewFilesResult:
        paths = files.list_files(list(patterns or ["**/*"]), suffixes=SUPPORTED_SUFFIXES)
        return _page(files, paths, offset, sample_chars)

    # Reading files and parsing PDFs blocks: keep it off the event loop.
    return await asyncio.to_thread(run)
