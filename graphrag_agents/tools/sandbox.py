"""The ``files_root`` sandbox: the only way tools read files.

Paths are relative to the root; ``..``, absolute paths, hidden files or folders (a name starting with ``.``)
and symlinks leaving the root are refused. A file is known by its real on-disk path (case as stored, symlinks
inside the root resolved), so two spellings of one file, or a link and its target, give one document id:
``"file:" + real path relative to the root``.

On POSIX the root is opened once and checked on every call to still be the folder it was at start; each path
is then opened folder by folder from that handle with ``O_NOFOLLOW`` (symlinks inside the root are resolved
here, component by component, never by the OS), the file is checked to be a regular file on its open handle
and read from that handle. A symlink swapped in after a check therefore makes the open fail instead of leading
outside. On Windows (no ``O_NOFOLLOW``/``dir_fd``) the path is resolved, checked to be under the root and then
reopened by name: a symlink or junction swapped in between can still lead outside, so that guarantee is
POSIX-only.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import BinaryIO, TypeVar

from graphrag_agents.errors import ToolError

__all__ = ["DEFAULT_MAX_ENTRIES", "DEFAULT_MAX_FILE_BYTES", "FilesRoot", "glob_match"]

DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 100_000
_MAX_SYMLINKS = 40  # as Linux's MAXSYMLINKS: a longer chain is a loop
_GLOB_CHARS = frozenset("*?[")
_O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY: int = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
_POSIX = (os.name == "posix" and _O_NOFOLLOW != 0 and _O_DIRECTORY != 0 and os.scandir in os.supports_fd
          and all(f in os.supports_dir_fd for f in (os.open, os.stat, os.readlink)))
_DIR_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
# O_NONBLOCK: a FIFO swapped in after the check must not block the open; the handle check then refuses it
_FILE_FLAGS = (os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
_R = TypeVar("_R")
_PATH_HINT = "Give a path relative to the files root, e.g. 'reports/q1.pdf', or a glob like 'reports/*.pdf'."
_LINK_HINT = "Only symlinks that stay inside the files root are followed."


def _outside(shown: str) -> ToolError:
    return ToolError(f"Path {shown} refused: a symlink in it leads outside the files root.", _LINK_HINT)


class _NotFound(ToolError):
    """Nothing exists at the path (lets a ``file:`` id fall back to its plain path)."""


@dataclass(frozen=True)
class _Resolved:
    parts: tuple[str, ...]  # real path relative to the root
    fd: int | None  # handle of the file or folder (None: a folder on the fallback); the caller closes it
    st: os.stat_result


def _show(path: str) -> str:
    return repr(path if len(path) <= 120 else path[:120] + "…")


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def _match(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """Glob match by path component: ``*``, ``?``, ``[..]`` stay in one name, ``**`` spans any folders.

    Runs in len(parts) x len(pattern) steps however many ``**`` a pattern has (no backtracking).
    """
    size = len(pattern)

    def past_globstars(states: list[bool]) -> list[bool]:
        for j in range(size):
            states[j + 1] = states[j + 1] or (states[j] and pattern[j] == "**")
        return states

    states = past_globstars([True] + [False] * size)  # states[j]: pattern[:j] matches the names so far
    for name in parts:
        following = [False] * (size + 1)
        for j in range(size):
            if states[j] and pattern[j] == "**":
                following[j] = True
            elif states[j] and fnmatchcase(name, pattern[j]):
                following[j + 1] = True
        states = past_globstars(following)
    return states[size]


def glob_match(path: str, pattern: str) -> bool:
    """Whether a relative ``path`` fits a glob, name by name: ``*``, ``?``, ``[..]`` stay in one name, ``**``
    spans folders (``glob_match("a/b/c.md", "a/**/*.md")`` is True)."""
    names = tuple(p for p in path.split("/") if p)
    return _match(names, tuple(p for p in pattern.split("/") if p))


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


class FilesRoot:
    """A folder tools may read files from, and nothing outside it.

    Args:
        root: the folder; refused when it is the filesystem root, the home folder or a folder containing it.
        max_file_bytes: largest file :meth:`read_bytes` reads (``None``: no limit).
        max_entries: folder entries :meth:`list_files` may walk per call before it gives up.

    Example::

        files = FilesRoot("corpus")
        for path in files.list_files(["notes/*.md", "**/*.pdf"]):
            doc_id, data = files.read_bytes(path)     # ('file:notes/a.md', b'...')
    """

    def __init__(self, root: str | os.PathLike[str], *, max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
                 max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if max_file_bytes is not None and max_file_bytes < 1:
            raise ValueError("max_file_bytes must be at least 1, or None for no limit")
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_file_bytes = max_file_bytes
        self.max_entries = max_entries
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
        """The document id of a file: ``"file:"`` + its real path relative to the root."""
        with self._open(rel_path) as res:
            return "file:" + "/".join(res.parts)

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
            return "file:" + shown, b"".join(chunks)

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
                yield "file:" + "/".join(res.parts), handle

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

    @staticmethod
    def _split(rel_path: str) -> list[str]:
        """Lexical checks: relative, no ``..``, nothing hidden; returns the path's names."""
        if not isinstance(rel_path, str) or not rel_path or "\x00" in rel_path:
            raise ToolError(f"Invalid path {_show(str(rel_path))}: give a non-empty path.", _PATH_HINT)
        text = rel_path.replace("\\", "/") if os.name == "nt" else rel_path
        if text.startswith("/") or os.path.isabs(rel_path) or (os.name == "nt" and ":" in text):
            raise ToolError(f"Absolute path {_show(rel_path)} refused: paths are relative to the files root.",
                            _PATH_HINT)
        parts = [p for p in text.split("/") if p not in ("", ".")]
        for part in parts:
            if part == "..":
                raise ToolError(f"Path {_show(rel_path)} refused: '..' may not be used.", _PATH_HINT)
            if part.startswith("."):
                raise ToolError(f"Path {_show(rel_path)} refused: {part!r} is hidden (starts with '.').",
                                "Hidden files and folders cannot be read; move the file to a visible folder.")
        if not parts:
            raise ToolError(f"Path {_show(rel_path)} names the files root itself, not a file.", _PATH_HINT)
        return parts

    @contextmanager
    def _open(self, rel_path: str) -> Iterator[_Resolved]:
        """Resolve and open a file; a ``file:`` id means its plain path unless it names a real file."""
        self._check_root()
        res: _Resolved | None = None
        if rel_path.startswith("file:"):
            if os.name != "nt":  # ':' cannot occur in a Windows file name
                with suppress(_NotFound):
                    res = self._resolve(self._split(rel_path))
            rel_path = rel_path if res else rel_path[len("file:"):]
        res = res or self._resolve(self._split(rel_path))
        try:
            yield res
        finally:
            if res.fd is not None:
                os.close(res.fd)

    def _resolve(self, parts: list[str], want_dir: bool = False, exact: bool = False) -> _Resolved:
        """Walk ``parts`` from the root handle one name at a time; ``exact`` skips the stored-case lookup."""
        if not _POSIX:
            return self._resolve_by_name(parts, want_dir)
        assert self._fd is not None
        shown = _show("/".join(parts))
        fds: list[int] = [self._fd]
        real: list[str] = []
        pending, links = list(reversed(parts)), 0
        try:
            while pending:
                name = pending.pop()
                if name in ("", "."):
                    continue
                if name == "..":
                    if not real:
                        raise _outside(shown)
                    real.pop()
                    os.close(fds.pop())
                    continue
                if name.startswith("."):
                    raise ToolError(f"Path {shown} refused: it leads to the hidden {name!r}.", _LINK_HINT)
                st = self._lstat(name, fds[-1], shown)
                name = name if exact else self._stored_name(fds[-1], name, st)
                if stat.S_ISLNK(st.st_mode):
                    links += 1
                    if links > _MAX_SYMLINKS:
                        raise ToolError(f"Path {shown} refused: too many symlinks (a loop?).", _LINK_HINT)
                    target: str = self._call(os.readlink, name, fds[-1], shown)
                    if target.startswith("/"):  # absolute: allowed only when it names a place under the root
                        root = [p for p in str(self.root).split("/") if p]
                        names = [p for p in target.split("/") if p]
                        if names[:len(root)] != root:
                            raise _outside(shown)
                        while len(fds) > 1:
                            os.close(fds.pop())
                        real.clear()
                        target = "/".join(names[len(root):])
                    pending.extend(reversed(target.split("/")))
                    continue
                if stat.S_ISDIR(st.st_mode) and (pending or want_dir):
                    fds.append(self._call(os.open, name, fds[-1], shown, _DIR_FLAGS))
                    real.append(name)
                    continue
                if pending:
                    raise _NotFound(f"Path {shown} not found: {name!r} is a file, not a folder.", _PATH_HINT)
                if stat.S_ISDIR(st.st_mode):
                    raise ToolError(f"Path {shown} is a folder, not a file.",
                                    f"Name its files, e.g. with a glob such as {name + '/*.md'!r}.")
                self._check_regular(st, shown)
                fds.append(self._call(os.open, name, fds[-1], shown, _FILE_FLAGS))
                fst = os.fstat(fds[-1])
                self._check_regular(fst, shown)  # the check that counts: on the handle that is read
                return _Resolved((*real, name), fds.pop(), fst)
            if not want_dir:
                raise ToolError(f"Path {shown} is a folder, not a file.", _PATH_HINT)
            fd = fds.pop() if len(fds) > 1 else self._call(os.open, ".", self._fd, shown, _DIR_FLAGS)
            return _Resolved(tuple(real), fd, os.fstat(fd))
        finally:
            for fd in fds[1:]:
                os.close(fd)

    def _resolve_by_name(self, parts: list[str], want_dir: bool) -> _Resolved:
        """Windows fallback: check the resolved path, then reopen it by name (weaker, see the module doc)."""
        shown = _show("/".join(parts))
        try:
            real = Path(os.path.realpath(self.root.joinpath(*parts), strict=True))
            st = os.stat(real)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ToolError(f"Path {shown} refused: too many symlinks (a loop?).", _LINK_HINT) from exc
            raise _NotFound(f"Path {shown} not found under the files root.", _PATH_HINT) from exc
        if real != self.root and self.root not in real.parents:
            raise _outside(shown)
        rel = real.relative_to(self.root).parts
        if any(p.startswith(".") for p in rel):
            raise ToolError(f"Path {shown} refused: it leads to a hidden name.", _LINK_HINT)
        if stat.S_ISDIR(st.st_mode):
            if want_dir:
                return _Resolved(rel, None, st)
            raise ToolError(f"Path {shown} is a folder, not a file.", _PATH_HINT)
        self._check_regular(st, shown)
        fd = os.open(real, _FILE_FLAGS | getattr(os, "O_NOINHERIT", 0))
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode):
            os.close(fd)
            self._check_regular(fst, shown)
        return _Resolved(rel, fd, fst)

    def _lstat(self, name: str, dir_fd: int, shown: str) -> os.stat_result:
        """Stat one name in a folder without following it (the seam tests use to swap entries)."""
        return self._call(lambda n, dir_fd: os.stat(n, dir_fd=dir_fd, follow_symlinks=False),
                          name, dir_fd, shown)

    @staticmethod
    def _call(func: Callable[..., _R], name: str, dir_fd: int, shown: str, *args: int) -> _R:
        """Run a ``dir_fd`` call, turning OS errors into ToolErrors; ELOOP means a symlink was swapped in."""
        try:
            return func(name, *args, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise _NotFound(f"Path {shown} not found under the files root.", _PATH_HINT) from exc
            if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR, errno.EINVAL):
                raise ToolError(f"Path {shown} refused: {name!r} turned into a symlink or another kind of "
                                "entry while it was opened.", "Read it again once the folder is stable.",
                                ) from exc
            raise ToolError(f"Path {shown} cannot be opened: {exc.strerror}.", _PATH_HINT) from exc

    @staticmethod
    def _check_regular(st: os.stat_result, shown: str) -> None:
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"Path {shown} refused: it is not a regular file (a FIFO, device or socket).",
                            "Only regular files can be read.")

    def _check_size(self, shown: str, size: int) -> None:
        limit = self.max_file_bytes
        if limit is not None and size > limit:
            raise ToolError(f"File {_show(shown)} is {size} bytes, over max_file_bytes ({limit}).",
                            "Split the file or raise max_file_bytes.")

    def _stored_name(self, dir_fd: int, name: str, st: os.stat_result) -> str:
        """The name as stored: a case-insensitive file system opens ``q1.pdf`` when asked for ``Q1.PDF``."""
        try:
            fd = os.open(".", _DIR_FLAGS, dir_fd=dir_fd)  # a fresh handle: listing must not move a shared one
            try:
                names = os.listdir(fd)
            finally:
                os.close(fd)
        except OSError:
            return name
        if name in names:
            return name
        for candidate in (n for n in names if _fold(n) == _fold(name)):
            with suppress(OSError):
                other = os.stat(candidate, dir_fd=dir_fd, follow_symlinks=False)
                if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                    return candidate
        return name

    def _kind(self, parts: list[str]) -> tuple[tuple[str, ...], bool] | None:
        """``(real parts, is a folder)`` of an existing file or folder, None when nothing is there."""
        try:
            res = self._resolve(parts, want_dir=True)
        except _NotFound:
            return None
        if res.fd is not None:
            os.close(res.fd)
        return res.parts, stat.S_ISDIR(res.st.st_mode)

    def _list_one(self, pattern: str, suffixes: set[str] | None, walked: list[int]) -> list[str]:
        if pattern.startswith("file:"):  # a document id, unless real names start with "file:"
            literal = [] if os.name == "nt" else self._expand(pattern, suffixes, walked, missing_ok=True)
            return literal or self._expand(pattern[len("file:"):], suffixes, walked)
        return self._expand(pattern, suffixes, walked)

    def _expand(self, pattern: str, suffixes: set[str] | None, walked: list[int],
                missing_ok: bool = False) -> list[str]:
        parts = tuple(self._split(pattern))
        found = self._kind(list(parts))
        if found is not None:
            real, is_dir = found
            everything = (*parts, "**", "*")
            return self._walk(real, parts, everything, suffixes, walked) if is_dir else ["/".join(real)]
        cut = next((i for i, p in enumerate(parts) if _GLOB_CHARS.intersection(p)), None)
        if cut is None:
            if missing_ok:
                return []
            raise _NotFound(f"Path {_show(pattern)} not found under the files root.", _PATH_HINT)
        start = self._kind(list(parts[:cut])) if cut else ((), True)
        if start is None or not start[1]:
            return []
        return self._walk(start[0], parts[:cut], parts, suffixes, walked)

    def _walk(self, base: tuple[str, ...], prefix: tuple[str, ...], pattern: tuple[str, ...],
              suffixes: set[str] | None, walked: list[int]) -> list[str]:
        """Files under the real folder ``base`` (spelled ``prefix``) whose spelled paths match ``pattern``."""
        max_depth = None if "**" in pattern else len(pattern) - len(prefix)
        found: list[str] = []
        stack, seen = [(prefix, base)], {base}
        while stack:
            spelled, real = stack.pop()
            for name, kind in self._scan(real):
                walked[0] += 1
                if walked[0] > self.max_entries:
                    raise ToolError(
                        f"Listing stopped after walking {self.max_entries} entries under the files root.",
                        "Point files_root at the folder that holds the documents, or use a narrower pattern "
                        "such as 'reports/*.pdf'.")
                if name.startswith("."):
                    continue
                path, target = (*spelled, name), (*real, name)
                if kind == "link":
                    with suppress(ToolError):  # leaving the root, hidden, a loop, a FIFO: not listed
                        resolved = self._kind([*real, name])
                        if resolved:
                            target, kind = resolved[0], "dir" if resolved[1] else "file"
                deep_enough = max_depth is not None and len(path) - len(prefix) >= max_depth
                looping = real[:len(target)] == target  # a link to a folder that holds it
                if kind == "dir" and not deep_enough and not looping and target not in seen:
                    seen.add(target)
                    stack.append((path, target))
                elif kind == "file" and _match(path, pattern) and (
                        suffixes is None or os.path.splitext(target[-1])[1].lower() in suffixes):
                    found.append("/".join(target))
        return sorted(found)

    def _scan(self, real: tuple[str, ...]) -> list[tuple[str, str]]:
        """``(name, kind)`` of a folder's entries, kind being dir, file, link or other."""
        res = self._resolve(list(real), want_dir=True, exact=True)
        try:
            with os.scandir(res.fd if res.fd is not None else self.root.joinpath(*res.parts)) as entries:
                return sorted((e.name, "link" if e.is_symlink() or getattr(e, "is_junction", bool)()
                               else "dir" if e.is_dir(follow_symlinks=False)
                               else "file" if e.is_file(follow_symlinks=False) else "other") for e in entries)
        finally:
            if res.fd is not None:
                os.close(res.fd)
