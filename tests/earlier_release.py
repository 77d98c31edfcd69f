"""Writing a folder as a release before the rewrite at index creation did (``store/log_rewrite.py``): the index's
creation stays in the part of the embedded server's file that a start replays."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

from graphrag_agents.store.graph import GraphStore


async def _no_rewrite(store: GraphStore) -> bool:
    return False


@contextmanager
def without_log_rewrite() -> Iterator[None]:
    """Inside it, ``GraphStore.compact_log`` rewrites nothing (as for a remote server, whose file is not ours)."""
    with patch.object(GraphStore, "compact_log", _no_rewrite):
        yield
