"""Path resolution for the ``files_root`` sandbox: lexical checks, then a walk that never leaves the root.

On POSIX each path is opened folder by folder from the root handle with ``O_NOFOLLOW``; symlinks inside the root
are resolved here, component by component, never by the OS, and a file is checked to be a regular file on its
open handle. On Windows the path is resolved by name, checked to be under the root and reopened by name (the
weaker guarantee the :mod:`~graphrag_agents.tools.sandbox` docstring describes).
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from graphrag_agents.errors import PathNotFound, ToolError

_MAX_SYMLINKS = 40  # as Linux's MAXSYMLINKS: a longer chain is a loop
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


@dataclass(frozen=True)
class _Resolved:
    parts: tuple[str, ...]  # real path relative to the root
    fd: int | None  # handle of the file or folder (None: a folder on the fallback); the caller closes it
    st: os.stat_result


def _show(path: str) -> str:
    return repr(path if len(path) <= 120 else path[:120] + "…")


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


class _PathResolver:
    """Turns a path relative to the root into an open handle on its real file or folder, refusing escapes."""

    root: Path
    """The root's real path."""
    _fd: int | None
    """The root handle on POSIX (-1 once closed); None on the by-name fallback."""
    allow_hard_links: bool
    """Read regular files with more than one hard link (off: such a file may be a link to one outside)."""

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

    def _resolve(self, parts: list[str], want_dir: bool = False, exact: bool = False) -> _Resolved:
        """Walk ``parts`` from the root handle one name at a time; ``exact`` skips the stored-case lookup."""
        if self._fd is None:  # no root handle: the platform lacks O_NOFOLLOW or dir_fd (see _POSIX)
            return self._resolve_by_name(parts, want_dir)
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
                    raise PathNotFound(f"Path {shown} not found: {name!r} is a file, not a folder.", _PATH_HINT)
                if stat.S_ISDIR(st.st_mode):
                    raise ToolError(f"Path {shown} is a folder, not a file.",
                                    f"Name its files, e.g. with a glob such as {name + '/*.md'!r}.")
                self._check_regular(st, shown)
                fds.append(self._call(os.open, name, fds[-1], shown, _FILE_FLAGS))
                fst = os.fstat(fds[-1])
                self._check_regular(fst, shown)  # the check that counts: on the handle that is read
                self._check_links(fst, shown)
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
            raise PathNotFound(f"Path {shown} not found under the files root.", _PATH_HINT) from exc
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
        try:
            self._check_regular(fst, shown)
            self._check_links(fst, shown)
        except ToolError:
            os.close(fd)
            raise
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
                raise PathNotFound(f"Path {shown} not found under the files root.", _PATH_HINT) from exc
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

    def _check_links(self, st: os.stat_result, shown: str) -> None:
        # A hard link is indistinguishable from its target: one made inside the root to a file outside it
        # (a key, a config) would be read as if it were a document. Refused unless the operator opts in.
        if st.st_nlink > 1 and not self.allow_hard_links:
            raise ToolError(f"Path {shown} refused: the file has {st.st_nlink} hard links, so it may be a link to a "
                            "file outside the files root.",
                            "Copy the file into the files root instead of linking it, or (operator) build the "
                            "toolkit with files_root=FilesRoot(root, allow_hard_links=True) if hard-linked "
                            "documents are expected.")

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
