"""Running a retrieve's queries concurrently without leaving any behind when one fails or the caller cancels."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any

__all__ = ["all_or_none", "cancel_all"]


async def cancel_all(tasks: Sequence[asyncio.Future[Any]]) -> None:
    """Cancel ``tasks`` and wait until every one has finished (their errors are dropped)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def all_or_none(*awaitables: Awaitable[Any]) -> list[Any]:
    """The results of ``awaitables`` run concurrently, in order; when one raises (or this is cancelled), the others
    are cancelled and awaited before the error propagates.

    ``asyncio.gather`` alone lets the others run on after the first error (cancelling a finished gather does
    nothing), so a failed retrieve could still be sending queries.
    """
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        await cancel_all(tasks)
        raise
