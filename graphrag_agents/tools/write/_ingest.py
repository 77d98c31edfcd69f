"""The file side of ``ingest``: expanding patterns in the sandbox, reading files, and guarding text ids.

Text can never overwrite or extend a document read from a file: a ``file:`` id, a stored document that carries
a file loader or a path other than its id, and an id that names a file under the files root are all refused.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass

from ..._keys import key_length_problem, path_key_problem
from ...errors import ToolError
from ...ingest.loaders import SUPPORTED_SUFFIXES, DocumentLoadError, loader_for
from ...ingest.plan import SourceDocument
from ...kg import KnowledgeGraph
from .inputs import MAX_FILES_PER_CALL
from .results import IngestDocument
from .sandbox import FilesRoot

__all__ = ["READ_GROUP_BYTES", "StoredDocument", "check_text_target", "collect_files", "group_paths", "read_sources"]

READ_GROUP_BYTES = 64 * 1024 * 1024
"""Files are read and ingested in groups of about this many bytes, so 50 large files never sit in memory."""
_FILE_HINT = "Use ingest(files=[...], reextract=true) to read the file again, or give the text another document_id."


@dataclass(frozen=True)
class StoredDocument:
    """What the graph stores about a document id the caller wants to write text under."""

    content_hash: str | None
    origin: str | None
    """``add_facts`` for documents written by that tool."""


async def check_text_target(kg: KnowledgeGraph, files: FilesRoot | None, document_id: str) -> StoredDocument | None:
    """Refuse a text ``document_id`` that is, or was, a file's document; return the stored document, if any."""
    if document_id.startswith("file:"):
        raise ToolError(f"Text cannot be ingested under the file id {document_id!r}: 'file:' ids belong to files.",
                        _FILE_HINT)
    stored: StoredDocument | None = None
    if await kg.store.exists():
        rows = await kg.store.ro_query(
            "MATCH (d:Document {id: $id}) RETURN d.loader, d.path, d.content_hash, d.origin, d.from_file, d.table "
            "LIMIT 1", {"id": document_id})
        if rows:
            loader, path, digest, origin, from_file, table = rows[0]
            if (loader in SUPPORTED_SUFFIXES.values() or from_file is True or table
                    or (path is not None and path != document_id)):
                raise ToolError(f"Document {document_id!r} was read from a file ({path or loader}); text cannot "
                                "overwrite or extend it.", _FILE_HINT)
            stored = StoredDocument(str(digest) if digest is not None else None,
                                    str(origin) if origin is not None else None)
    if files is not None:
        try:
            await asyncio.to_thread(files.stat_size, document_id)
        except ToolError:
            pass  # not a file under the root (missing, refused path, a folder): the id is free for text
        else:
            raise ToolError(f"Document id {document_id!r} names a file under the files root; text cannot be "
                            "ingested under it.", _FILE_HINT)
    return stored


def _failed(pattern: str, reason: str) -> IngestDocument:
    shown = pattern.removeprefix("file:")
    return IngestDocument(document_id="file:" + shown, path=shown, status="failed", reason=reason)


def _too_many(paths: Sequence[str]) -> ToolError:
    folders: dict[str, int] = {}
    for path in paths:
        folder = os.path.dirname(path) or "."
        folders[folder] = folders.get(folder, 0) + 1
    top = ", ".join(f"{f}/ ({n})" for f, n in sorted(folders.items(), key=lambda x: -x[1])[:6])
    return ToolError(
        f"The files match {len(paths)} files; ingest takes at most {MAX_FILES_PER_CALL} per call.",
        f"Call ingest several times with narrower patterns or explicit lists of at most {MAX_FILES_PER_CALL} "
        f"files (by folder: {top}); the first file is {paths[0]!r}, the {MAX_FILES_PER_CALL + 1}st "
        f"{paths[MAX_FILES_PER_CALL]!r}.")


async def collect_files(files: FilesRoot, patterns: Sequence[str]) -> tuple[list[str], list[IngestDocument]]:
    """The files ``patterns`` name (in order, without repeats) and a failed entry per pattern that names none.

    Globs and folders expand to supported files only; a plain path of another type is kept (it then fails
    with the list of supported types). More than 50 files raise :class:`ToolError` before anything is read.
    """

    def run() -> tuple[list[str], list[IngestDocument]]:
        found: dict[str, None] = {}
        failed: list[IngestDocument] = []
        for pattern in patterns:
            try:
                paths = files.list_files(pattern, suffixes=SUPPORTED_SUFFIXES)
            except ToolError as exc:
                if exc.message.startswith("Listing stopped"):
                    raise
                failed.append(_failed(pattern, f"{exc.message} {exc.hint}".strip()))
                continue
            if not paths:
                failed.append(_failed(pattern, "no supported file (.txt, .md, .markdown, .rst, .pdf) matches "
                                               "this pattern"))
            for path in paths:
                found.setdefault(path)
        ordered = list(found)
        if len(ordered) > MAX_FILES_PER_CALL:
            raise _too_many(ordered)
        return ordered, failed

    return await asyncio.to_thread(run)


def _read_one(files: FilesRoot, path: str) -> SourceDocument | IngestDocument:
    if (problem := path_key_problem(path)) is not None:
        return _failed(path, problem)
    try:
        loader_for(path)
        document_id, data = files.read_bytes(path)
    except DocumentLoadError as exc:
        return _failed(path, exc.reason)
    except ToolError as exc:
        return _failed(path, f"{exc.message} {exc.hint}".strip())
    if (problem := key_length_problem(document_id, "The path used as its document id")) is not None:
        return _failed(path, f"{problem}; move the file to a shorter path under the files root")
    return SourceDocument(document_id=document_id, name=path, data=data, path=path, from_file=True)


async def read_sources(files: FilesRoot, paths: Sequence[str]) -> list[SourceDocument | IngestDocument]:
    """Read ``paths`` (a group from :func:`group_paths`) off the event loop; unreadable files become failures."""
    return await asyncio.to_thread(lambda: [_read_one(files, p) for p in paths])


async def group_paths(files: FilesRoot, paths: Sequence[str]) -> list[list[str]]:
    """Split ``paths`` into groups of about :data:`READ_GROUP_BYTES` (one file at least per group)."""

    def size(path: str) -> int:
        try:
            return files.stat_size(path)
        except ToolError:
            return 0  # reading it will report why

    sizes = await asyncio.to_thread(lambda: [size(p) for p in paths])
    groups: list[list[str]] = []
    total = 0
    for path, nbytes in zip(paths, sizes, strict=True):
        # An empty (or unreadable: 0 here) first file still opens the first group.
        if not groups or (groups[-1] and total + nbytes > READ_GROUP_BYTES):
            groups.append([])
            total = 0
        groups[-1].append(path)
        total += nbytes
    return groups
