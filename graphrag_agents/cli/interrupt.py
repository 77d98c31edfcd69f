"""Ctrl-C and SIGTERM in the command line: stop cleanly, say what the graph holds, and that re-running resumes.

Every command prints the same line (:func:`interrupted_line`) and exits 130 (SIGINT) or 143 (SIGTERM); a second
signal during the stop ends it at once, and the line and the exit code are that signal's. Commands
that open their graph through :func:`watched` also say what it holds, read just before it closes: every write is
idempotent and ``ingest`` skips what is stored, so the same command run again goes on where this one stopped.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..kg import KnowledgeGraph

__all__ = ["interrupted_line", "run", "watched"]

RESUME = "Re-run the same command to resume: what is stored is kept and not done again."
_RECANCEL_S = 0.5
_held: list[str] = []
"""What the interrupted command's graph held, noted by :func:`watched` before the graph closed."""
_delivered: list[bool] = []
"""Set once the cancellation reached :func:`watched`: from then on the command is winding down."""
_watching: list[bool] = []
"""Set while a graph opened through :func:`watched` is in use (only then is a lost cancellation repeated)."""


@asynccontextmanager
async def watched(open_graph: Awaitable[KnowledgeGraph]) -> AsyncIterator[KnowledgeGraph]:
    """``async with`` the opened graph; when the command is interrupted, note what the graph holds, then close it."""
    async with await open_graph as kg:
        _watching.append(True)
        try:
            yield kg
        except (asyncio.CancelledError, KeyboardInterrupt):
            _delivered.append(True)
            _held.append(await _holdings(kg))
            raise
        finally:
            _watching.pop()


async def _holdings(kg: KnowledgeGraph) -> str:
    from ..errors import GraphNotFound

    try:
        status = await asyncio.wait_for(kg.status(), 10)
    except GraphNotFound:
        return f"graph '{kg.name}' holds nothing yet"
    except (Exception, asyncio.CancelledError):  # a second interrupt, or the store went away: say less
        return f"graph '{kg.name}' keeps everything written before the interrupt"
    waiting = f"; {status.unembedded:,} items wait for finalize" if status.unembedded else ""
    return (f"graph '{kg.name}' holds {status.documents:,} documents, {status.chunks:,} chunks, "
            f"{status.entities:,} entities, {status.relations:,} relations{waiting}")


def interrupted_line(signal_name: str, held: str | None) -> str:
    """The one line every interrupted command prints."""
    return f"interrupted ({signal_name}): {held or 'nothing half-written is kept'}. {RESUME}"


def run(command: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run ``command`` on a new event loop; on SIGINT or SIGTERM cancel it, stop the embedder and say so."""
    from ..models._batching import stop_workers

    received: list[signal.Signals] = []

    async def main() -> int:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()

        def cancel(again: bool = False) -> None:
            # A cancellation that lands as an awaited result arrives can be lost (the ingest went on to the end):
            # while a watched graph is in use, cancel again until it reaches it. Other commands (the MCP server,
            # eval) get one cancellation, as under asyncio.run, and their own shutdown.
            if task is None or task.done() or _delivered or (again and not _watching):
                return
            task.cancel()
            loop.call_later(_RECANCEL_S, cancel, True)

        def on_signal(number: signal.Signals) -> None:
            received.append(number)
            if len(received) == 1:
                cancel()
            else:  # a second signal: stop now, as asyncio.run does on a second Ctrl-C
                raise KeyboardInterrupt

        for number in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(number, on_signal, number)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
                pass
        return await command()

    _held.clear()
    _delivered.clear()
    _watching.clear()
    try:
        code = asyncio.run(main())
        if not received:
            return code
    except KeyboardInterrupt:
        if not received:  # a Ctrl-C before the handlers were set; else the second signal stopped the command now
            received.append(signal.SIGINT)
    except asyncio.CancelledError:
        if not received:
            raise
    stop_workers()  # the embedder's thread ends after its current batch, not torn down inside onnxruntime
    stopped_by = received[-1]  # the signal that ended the command: the first, or a second that cut its stop short
    print(interrupted_line(stopped_by.name, _held[-1] if _held else None), file=sys.stderr)
    return 128 + int(stopped_by)
