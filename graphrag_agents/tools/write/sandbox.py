"""The ``files_root`` sandbox: the only way tools read files.

Paths are relative to the root; ``..``, absolute paths, hidden files or folders (a name starting with ``.``)
and symlinks leaving the root are refused, and so are files with more than one hard link (a hard link inside
the root may point at a file outside it) unless ``allow_hard_links=True``. A file is known by its real on-disk
path (case as stored, symlinks inside the root resolved), so two spellings of one file, or a link and its
target, give one document id:
``"file:" + real path relative to the root``, in NFC (the key rule of ``graphrag_agents._keys``).

On POSIX the root is opened once and checked on every call to still be the folder it was at start; each path
is then opened folder by folder from that handle with ``O_NOFOLLOW`` (symlinks inside the root are resolved
here, component by component, never by the OS), the file is checked to be a regular file on its open handle
and read from that handle. A symlink swapped in after a check therefore makes the open fail instead of leading
outside. On Windows (no ``O_NOFOLLOW``/``dir_fd``) the path is resolved, checked to be under the root and then
reopened by name: a symlink or junction swapped in between can still lead outside, so that guarantee is
POSIX-only.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from graphrag_agents._keys import file_key
from graphrag_agents.errors import PathNotFound, ToolError

from ._sandbox_listing import _FileLister, glob_match
from ._sandbox_resolve import _O_CLOEXEC, _O_DIRECTORY, _POSIX, _Resolved, _show

__all__ = ["DEFAULT_MAX_ENTRIES", "DEFAULT_MAX_FILE_BYTES", "FilesRoot", "glob_match"]

DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 100_000


def _refuse_broad_root(real: Path) -> None:
    hint = "Point files_root at the folder that holds the documents, e.g. './corpus'."
    if real == Path(real.anchor):
        raise ToolError(f"files_root {str(real)!r} is the filesystem root, which is refused.", hint)
    homes = [os.path.expanduser("~"), os.environ.get("HOME"), os.environ.get("USERPROFILE")]
    with suppress(ImportError, KeyError, AttributeError):
        import pwd

        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    for home in {Path(os.path.realpath(h)) for h in homes if h and h != "~"}:
        if real == home or real in home.parents:
            what = "is the home folder" if real == home else f"contains the home folder {str(home)!r}"
            raise ToolError(f"files_root {str(real)!r} {what}, which is refused.", hint)


class FilesRoot(_FileLister):
    """A folder tools may read files from, and nothing outside it.

    Args:
        root: the folder; refused when it is the filesystem root, the home folder or a folder containing it.
        max_file_bytes: largest file :meth:`read_bytes` reads (``None``: no limit).
        max_entries: folder entries :meth:`list_files` may walk per call before it gives up.
        allow_hard_links: read regular files that have more than one hard link. Off by default: a hard link
            made inside the root to a file outside it looks exactly like a file of the root, so such files are
            refused (with a hint) unless the operator knows the corpus uses hard links (deduplicated backups).

    Example::

        files = FilesRoot("corpus")
        for path in files.list_files(["notes/*.md", "**/*.pdf"]):
            doc_id, data = files.read_bytes(path)     # ('file:notes/a.md', b'...')
    """

    def __init__(self, root: str | os.PathLike[str], *, max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
                 max_entries: int = DEFAULT_MAX_ENTRIES, allow_hard_links: bool = False) -> None:
        if max_file_bytes is not None and max_file_bytes < 1:
            raise ValueError("max_file_bytes must be at least 1, or None for no limit")
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_file_bytes = max_file_bytes
        self.max_entries = max_entries
        self.allow_hard_links = allow_hard_links
        given = os.path.expanduser(os.fspath(root))
        try:
            real = Path(os.path.realpath(given, strict=True))
        except OSError as exc:
            raise ToolError(f"files_root {given!r} does not exist ({exc.strerror}).",
                            "Create the folder or point files_root at an existing one.") from exc
        if not real.is_dir():
            raise ToolError(f"files_root {given!r} is not a folder.", "Point files_root at a folder.")
        _refuse_broad_root(real)
        self.root = real
        """The root's real path."""
        self._fd: int | None = None
        if _POSIX:
            self._fd = os.open(real, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
            self._finalizer = weakref.finalize(self, os.close, self._fd)
        st = os.fstat(self._fd) if self._fd is not None else os.stat(real)
        self._identity = (st.st_dev, st.st_ino)
        self._check_root()  # the folder opened is the one checked above, not one swapped in since

    def close(self) -> None:
        """Release the root handle; later calls raise :class:`ToolError`."""
        if self._fd is not None and self._fd >= 0:
            self._finalizer()
        self._fd = -1

    def __enter__(self) -> FilesRoot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def doc_id(self, rel_path: str) -> str:
        """The document id of a file: ``"file:"`` + its real path relative to the root, in NFC (the key rule)."""
        with self._open(rel_path) as res:
            return file_key("file:" + "/".join(res.parts))

    def stat_size(self, rel_path: str) -> int:
        """The file's size in bytes, read on its open handle."""
        with self._open(rel_path) as res:
            return res.st.st_size

    def read_bytes(self, rel_path: str) -> tuple[str, bytes]:
        """Read a whole file; returns ``(doc_id, bytes)``. Files over ``max_file_bytes`` raise ToolError."""
        with self._open(rel_path) as res:
            assert res.fd is not None
            shown = "/".join(res.parts)
            self._check_size(shown, res.st.st_size)
            chunks: list[bytes] = []
            total = 0
            while data := os.read(res.fd, 1 << 20):
                chunks.append(data)
                total += len(data)
                self._check_size(shown, total)  # the file may have grown since fstat
            return file_key("file:" + shown), b"".join(chunks)

    def read_window(self, rel_path: str, offset: int, size: int) -> bytes:
        """Read at most ``size`` bytes from ``offset`` (a bounded preview read; never the whole file)."""
        if offset < 0 or size < 0:
            raise ValueError("offset and size must not be negative")
        with self._open(rel_path) as res:
            assert res.fd is not None
            os.lseek(res.fd, offset, os.SEEK_SET)
            parts: list[bytes] = []
            while size > 0 and (data := os.read(res.fd, size)):
                parts.append(data)
                size -= len(data)
            return b"".join(parts)

    @contextmanager
    def open_file(self, rel_path: str) -> Iterator[tuple[str, BinaryIO]]:
        """Open a file safely; yields ``(doc_id, binary handle)``, e.g. for pypdf to read a few pages."""
        with self._open(rel_path) as res:
            assert res.fd is not None
            with os.fdopen(os.dup(res.fd), "rb") as handle:
                yield file_key("file:" + "/".join(res.parts)), handle

    def list_files(self, patterns: Iterable[str] | str, *,
                   suffixes: Iterable[str] | None = None) -> list[str]:
        """Real relative paths of the files the patterns name, in pattern order, without repeats.

        A pattern is a file path, a folder (all files under it), or a glob: ``*``, ``?`` and ``[..]`` match
        within one name and ``**`` any number of folders (``reports/*.pdf``, ``**/*.md``). A name with glob
        characters that exists is taken literally. A ``file:`` document id is read as its path, unless a
        real file literally named so exists. Hidden entries are skipped; symlinks are followed only inside
        the root. ``suffixes`` (e.g. ``[".md", ".pdf"]``) filters the files globs and folders expand to.
        Walking more than ``max_entries`` entries raises :class:`ToolError`; a missing plain path too.
        """
        self._check_root()
        wanted = None if suffixes is None else {s.lower() for s in suffixes}
        walked = [0]
        found: dict[str, None] = {}
        for pattern in [patterns] if isinstance(patterns, str) else patterns:
            for path in self._list_one(pattern, wanted, walked):
                found.setdefault(path)
        return list(found)

    def _check_root(self) -> None:
        if self._fd == -1:
            raise ToolError("The files root was closed.", "Create a new toolkit with files_root.")
        hint = "Restore the folder, or restart with files_root pointing at the documents."
        try:
            now = os.stat(self.root)
            held = os.fstat(self._fd) if self._fd is not None else now
        except OSError as exc:
            raise ToolError(f"files_root {str(self.root)!r} is gone: {exc.strerror}.", hint) from exc
        if held.st_nlink == 0 or {(now.st_dev, now.st_ino), (held.st_dev, held.st_ino)} != {self._identity}:
            raise ToolError(f"files_root {str(self.root)!r} is no longer the folder it was at start: it was "
                            "moved, replaced or deleted.", hint)

    @contextmanager
    def _open(self, rel_path: str) -> Iterator[_Resolved]:
        """Resolve and open a file; a ``file:`` id means its plain path unless it names a real file."""
        self._check_root()
        res: _Resolved | None = None
        if rel_path.startswith("file:"):
            if os.name != "nt":  # ':' cannot occur in a Windows file name
                with suppress(PathNotFound):
                    res = self._resolve(self._split(rel_path))
            rel_path = rel_path if res else rel_path[len("file:"):]
        res = res or self._resolve(self._split(rel_path))
        try:
            yield res
        finally:
            if res.fd is not None:
                os.close(res.fd)

    def _check_size(self, shown: str, size: int) -> None:
        limit = self.max_file_bytes
        if limit is not None and size > limit:
            raise ToolError(f"File {_show(shown)} is {size} bytes, over max_file_bytes ({limit}).",
                            "Split the file or raise max_file_bytes.")
