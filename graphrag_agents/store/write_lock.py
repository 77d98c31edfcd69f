"""A cross-process write lock per graph in the embedded server's data folder (``write.<graph>.lock``).

Several processes may share one embedded server (an MCP server and the CLI on the same folder). FalkorDB runs
each query atomically, but an ingest reads what is stored, builds its batch, and writes later: two processes
ingesting the same new document would both write it. Writers hold this lock (an advisory ``flock``) around
"check what is stored, then write", so the second one sees the first one's document. It is reentrant within
one asyncio task, so a locked step may call another (``add_facts`` creating the schema).

A remote FalkorDB has no shared folder: there, writes rely on MERGE on ids, which never stores a chunk twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

from ..errors import StoreUnavailable

__all__ = ["FolderWriteLock"]

_by_path: dict[Path, FolderWriteLock] = {}


class FolderWriteLock:
    """``async with lock.hold(): ...`` excludes every other holder, in this process and in others."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._loop_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary())
        self._owner: asyncio.Task[object] | None = None
        self._depth = 0

    @classmethod
    def for_graph(cls, data_dir: Path, graph: str) -> FolderWriteLock:
        """The process's one lock object for ``graph`` in ``data_dir`` (one per graph keeps reentrancy exact;
        graph names are checked to be file-name safe before a store opens them)."""
        path = data_dir / f"write.{graph}.lock"
        return _by_path.setdefault(path, cls(path))

    def _open(self) -> int:
        """Open (create) the lock file; a path that cannot be one is :class:`StoreUnavailable` naming the fix."""
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            if self.path.is_symlink() and not self.path.exists():
                what = f"a symlink to {os.readlink(self.path)!r}, which does not exist"
            elif self.path.is_dir():
                what = "a folder"
            else:
                what = f"not usable ({exc.strerror or exc})"
            raise StoreUnavailable(
                f"Cannot take the write lock of this graph: {str(self.path)!r} is {what}, and writers of the data "
                f"folder lock that file. Fix: remove it (rm -r {str(self.path)!r}); the next write creates it "
                "again as a plain file.") from None

    def _flock(self, fd: int | None = None) -> int:
        fd = self._open() if fd is None else fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _try_flock(self) -> tuple[int, bool]:
        """Open the lock file and try to take the lock without waiting: (fd, taken)."""
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return fd, False
        except BaseException:
            os.close(fd)
            raise
        return fd, True

    @staticmethod
    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Hold the lock for the block (waits, off the event loop, while another process holds it)."""
        task = asyncio.current_task()
        if task is not None and self._owner is task:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        loop = asyncio.get_running_loop()
        local = self._loop_locks.setdefault(loop, asyncio.Lock())
        async with local:  # one waiter per loop on the flock: the others wait here, not in threads
            fd, taken = self._try_flock()  # uncontended (the usual case): no thread hop
            if not taken:
                pending = asyncio.ensure_future(asyncio.to_thread(self._flock, fd))
                try:
                    fd = await asyncio.shield(pending)
                except asyncio.CancelledError:
                    # The thread may still get the lock: give it back as soon as it does.
                    pending.add_done_callback(
                        lambda f: None if f.cancelled() or f.exception() else self._unlock(f.result()))
                    raise
            self._owner, self._depth = task, 1
            try:
                yield
            finally:
                self._owner, self._depth = None, 0
                self._unlock(fd)
