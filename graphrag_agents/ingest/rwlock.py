"""An asyncio readers-writer lock: plain ingests share it, updates and re-extractions hold it alone.

Writer-preferring: a writer waits for the readers already inside, and readers that arrive after a waiting
writer wait for it, so a stream of ingests cannot starve an update. Not thread-safe: one event loop.

An update deletes the entities its old version leaves without a mention; run beside an ingest that has read
an entity id (resolution) but not yet linked it, it could delete that entity under it. Holding this lock
alone for the update removes that race.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["KeyedLocks", "ReadWriteLock"]


class ReadWriteLock:
    """``async with lock.shared(): ...`` for ingests, ``async with lock.exclusive(): ...`` for updates."""

    def __init__(self) -> None:
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0
        self._cond: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        # Created lazily so the lock binds to the loop that first uses it, not the one alive at construction.
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    @property
    def readers(self) -> int:
        """Holders of the shared side right now."""
        return self._readers

    @property
    def writing(self) -> bool:
        """True while a writer holds the lock."""
        return self._writer

    @asynccontextmanager
    async def shared(self) -> AsyncIterator[None]:
        """Hold the lock with other readers; waits while a writer holds it or waits for it."""
        cond = self._condition()
        async with cond:
            await cond.wait_for(lambda: not self._writer and self._writers_waiting == 0)
            self._readers += 1
        try:
            yield
        finally:
            async with cond:
                self._readers -= 1
                cond.notify_all()

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold the lock alone: waits for the readers and the writer inside to leave."""
        cond = self._condition()
        async with cond:
            self._writers_waiting += 1
            try:
                await cond.wait_for(lambda: not self._writer and self._readers == 0)
            finally:
                self._writers_waiting -= 1
                cond.notify_all()  # a cancelled writer must release the readers queued behind it
            self._writer = True
        try:
            yield
        finally:
            async with cond:
                self._writer = False
                cond.notify_all()


class KeyedLocks:
    """One asyncio lock per key (document id), created on demand and dropped when nobody holds or waits."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, keys: list[str]) -> AsyncIterator[None]:
        """Hold the locks of ``keys`` (taken in sorted order, so two holders cannot deadlock)."""
        registered: list[str] = []
        acquired: list[str] = []
        try:
            for key in sorted(set(keys)):
                lock, users = self._locks.get(key, (asyncio.Lock(), 0))
                self._locks[key] = (lock, users + 1)
                registered.append(key)
                await lock.acquire()
                acquired.append(key)
            yield
        finally:
            for key in acquired:
                self._locks[key][0].release()
            for key in registered:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)
