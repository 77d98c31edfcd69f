"""Progress bars (rich) for long ingests and ``finalize``; silent when stderr is not a terminal or when asked.

``progress=None`` means "show when stderr is a TTY"; ``True`` forces bars, ``False`` silences them. Each bar shows
done/total, the percentage, ``elapsed`` and ``left`` each before its time (rich's estimate from the recent rate;
unlabelled, "0:00:04 left -:--:--" read as four seconds left), so callers give every bar its total up front. Bars
stopped by Ctrl-C or SIGTERM are cleared, so the terminal is left clean for the line that says what was stored.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Progress", "want_progress"]


def want_progress(progress: bool | None) -> bool:
    """Resolve the ``progress`` argument: None = only on an interactive terminal."""
    if progress is not None:
        return progress
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class Progress:
    """A few named bars; every method is a no-op when disabled, so callers need no ``if``.

    Example::

        with Progress(True) as bars:
            bars.add("extract", "Extracting", total=120)
            bars.advance("extract", 10)
    """

    def __init__(self, enabled: bool, console: Console | None = None) -> None:
        self.enabled = enabled
        self.console = console
        """Where the bars go (default: stderr)."""
        self._bars: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bars = RichProgress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
                TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                console=self.console or Console(stderr=True), transient=False)
            self._bars.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bars is not None:
            if exc_type is not None and not issubclass(exc_type, Exception):  # Ctrl-C, SIGTERM: clear the bars
                self._bars.live.transient = True
            self._bars.stop()
            self._bars = None

    def add(self, key: str, description: str, total: int | None) -> None:
        """Start a bar (total None = unknown: then it shows no percentage and no time left)."""
        if self._bars is not None:
            self._tasks[key] = self._bars.add_task(description, total=total)

    def advance(self, key: str, amount: int = 1) -> None:
        """Move a bar forward."""
        if self._bars is not None and key in self._tasks:
            self._bars.advance(self._tasks[key], amount)

    def update(self, key: str, *, completed: int | None = None, total: int | None = None) -> None:
        """Set a bar's position and/or total."""
        if self._bars is not None and key in self._tasks:
            self._bars.update(self._tasks[key], completed=completed, total=total)
