"""One worker thread per embedder that runs concurrent ``aembed`` calls together, off the event loop.

Eight sessions retrieving at once each embed one question. Run as eight model calls on eight threads, they
compete for the same two cores (each call also starts onnxruntime's own intra-op threads) and every call pays
the per-run overhead; the event loop thread, which must also parse the database's replies, waits for the GIL
behind them. Here the requests that arrive while a model call runs are queued and go into the next call as one
batch: one model call at a time, on one thread, with the cost of a batch of short questions close to that of one
(``benchmarks/concurrency_bench.py`` measures it).

A large request (``finalize`` embeds 256 chunks a call) runs in slices of ``max_texts`` texts, shortest texts
first, and every slice is topped up with the smaller requests waiting, smallest first: a question asked during a
finalize waits for one slice, not for the whole request.

The queue is thread-safe and independent of any event loop: callers on several loops (or plain threads) share
it. The worker exits after a short idle time and starts again on the next request, so an embedder that is
dropped does not keep a thread alive.

At interpreter exit (a Ctrl-C during ``finalize``) the worker is stopped after its current model call and joined
(:func:`stop_workers`, registered with :mod:`atexit`): a daemon thread still inside onnxruntime when the process
tears the runtime down ends in ``terminate called without an active exception`` and a native abort (exit 134).
"""

from __future__ import annotations

import asyncio
import atexit
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..errors import EmbedderStopped

__all__ = ["EmbedBatcher", "EmbedderStopped", "stop_workers"]


def _stopped() -> EmbedderStopped:
    return EmbedderStopped("The embedder was stopped (the process is exiting) before these texts were embedded. "
                           "Fix: embed them again in a running process; a new request starts a new worker.")

Vectors = npt.NDArray[np.float32]
_IDLE_SECONDS = 2.0
_LIVE: weakref.WeakSet[EmbedBatcher] = weakref.WeakSet()


def stop_workers(timeout: float = 30.0) -> None:
    """Stop every batcher's worker after its current model call, fail the requests left, and join the workers."""
    for batcher in list(_LIVE):
        batcher.stop(timeout)


atexit.register(stop_workers)


@dataclass
class _Job:
    """One ``embed`` request and how far it has got. Its future stays pending until the last slice, so the
    caller can cancel it at any time (the rest of its texts are then skipped)."""

    texts: list[str]
    future: Future[Vectors]
    order: list[int] = field(default_factory=list)
    """Indices of the texts still to embed, shortest text first (similar lengths pad less in a batch)."""
    rows: list[Vectors | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.order = sorted(range(len(self.texts)), key=lambda i: (len(self.texts[i]), i))
        self.rows = [None] * len(self.texts)

    def take(self, n: int) -> list[int]:
        """The next ``n`` indices to embed (the shortest texts left)."""
        taken, self.order = self.order[:n], self.order[n:]
        return taken

    def finish(self, outcome: Vectors | BaseException) -> None:
        """Hand the caller its vectors (or the failure), unless it cancelled meanwhile."""
        self.order = []
        if not self.future.set_running_or_notify_cancel():
            return
        if isinstance(outcome, BaseException):
            self.future.set_exception(outcome)
        else:
            self.future.set_result(outcome)


class EmbedBatcher:
    """Queue of embed requests served by one worker thread, several requests per model call.

    Args:
        embed: the blocking embed function (texts -> one row per text, in order).
        max_texts: texts in one model call at most; larger requests are embedded in slices of this size.
    """

    def __init__(self, embed: Callable[[list[str]], Vectors], max_texts: int = 32) -> None:
        if max_texts < 1:
            raise ValueError(f"max_texts must be at least 1, got {max_texts}")
        self._embed = embed
        self._max_texts = max_texts
        self._queue: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stopping = threading.Event()
        _LIVE.add(self)

    async def embed(self, texts: list[str]) -> Vectors:
        """Embed ``texts`` on the worker thread; the awaiting task may be cancelled (the result is dropped)."""
        if not texts:
            return self._embed([])
        future: Future[Vectors] = Future()
        self._queue.put(_Job(list(texts), future))
        self._ensure_worker()
        return await asyncio.wrap_future(future)

    def stop(self, timeout: float = 30.0) -> None:
        """Let the worker finish its current model call, then end it; requests not yet embedded fail.

        A request made after ``stop`` starts a new worker (a test may stop and reuse an embedder).
        """
        self._stopping.set()
        with self._lock:
            worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            self._queue.put(_Job([], Future()))  # wakes an idle worker, which then sees the stop
            worker.join(timeout)
        while True:
            try:
                self._queue.get_nowait().finish(_stopped())
            except queue.Empty:
                break
        self._stopping.clear()

    def _ensure_worker(self) -> None:
        with self._lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._serve, name="graphrag-embed", daemon=True)
                self._worker.start()

    def _serve(self) -> None:
        active: list[_Job] = []
        while True:
            if not active:
                try:
                    active.append(self._queue.get(timeout=_IDLE_SECONDS))
                except queue.Empty:
                    with self._lock:
                        if self._queue.empty():  # a request put after the timeout finds a live worker or starts one
                            self._worker = None
                            return
                    continue
            while True:
                try:
                    active.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            active = [job for job in active if not job.future.cancelled()]
            if self._stopping.is_set():
                for job in active:
                    job.finish(_stopped())
                with self._lock:
                    self._worker = None
                return
            if active:
                self._run(self._slice(active))
                active = [job for job in active if job.order]

    def _slice(self, active: list[_Job]) -> list[tuple[_Job, list[int]]]:
        """Up to ``max_texts`` texts for the next call: the requests with the fewest texts left go first."""
        room = self._max_texts
        chosen: list[tuple[_Job, list[int]]] = []
        for job in sorted(active, key=lambda j: len(j.order)):
            if room == 0:
                break
            taken = job.take(min(room, len(job.order)))
            chosen.append((job, taken))
            room -= len(taken)
        return chosen

    def _run(self, chosen: list[tuple[_Job, list[int]]]) -> None:
        try:
            vectors = self._embed([job.texts[i] for job, indices in chosen for i in indices])
        except BaseException as exc:  # every caller of the batch hears of the failure
            for job, _ in chosen:
                job.finish(exc)
            return
        start = 0
        for job, indices in chosen:
            for offset, i in enumerate(indices):
                job.rows[i] = vectors[start + offset]
            start += len(indices)
            if not job.order:
                job.finish(np.stack([row for row in job.rows if row is not None]).astype(np.float32, copy=False))
