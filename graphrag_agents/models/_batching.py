"""One worker thread per embedder that runs concurrent ``aembed`` calls together, off the event loop.

Eight sessions retrieving at once each embed one question. Run as eight model calls on eight threads, they
compete for the same two cores (each call also starts onnxruntime's own intra-op threads) and every call pays
the per-run overhead; the event loop thread, which must also parse the database's replies, waits for the GIL
behind them. Here the requests that arrive while a model call runs are queued and go into the next call as one
batch: one model call at a time, on one thread, with the cost of a batch of short questions close to that of one
(``benchmarks/concurrency_bench.py`` measures it).

The queue is thread-safe and independent of any event loop: callers on several loops (or plain threads) share
it. The worker exits after a short idle time and starts again on the next request, so an embedder that is
dropped does not keep a thread alive.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np
import numpy.typing as npt

__all__ = ["EmbedBatcher"]

Vectors = npt.NDArray[np.float32]
_IDLE_SECONDS = 2.0


class EmbedBatcher:
    """Queue of embed requests served by one worker thread, several requests per model call.

    Args:
        embed: the blocking embed function (texts -> one row per text, in order).
        max_texts: texts gathered into one call at most; a single larger request still runs whole, alone.
    """

    def __init__(self, embed: Callable[[list[str]], Vectors], max_texts: int = 32) -> None:
        self._embed = embed
        self._max_texts = max_texts
        self._queue: queue.SimpleQueue[tuple[list[str], Future[Vectors]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    async def embed(self, texts: list[str]) -> Vectors:
        """Embed ``texts`` on the worker thread; the awaiting task may be cancelled (the result is dropped)."""
        future: Future[Vectors] = Future()
        self._queue.put((texts, future))
        self._ensure_worker()
        return await asyncio.wrap_future(future)

    def _ensure_worker(self) -> None:
        with self._lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._serve, name="graphrag-embed", daemon=True)
                self._worker.start()

    def _serve(self) -> None:
        carry: tuple[list[str], Future[Vectors]] | None = None
        while True:
            if carry is None:
                try:
                    carry = self._queue.get(timeout=_IDLE_SECONDS)
                except queue.Empty:
                    with self._lock:
                        if self._queue.empty():  # a request put after the timeout finds a live worker or starts one
                            self._worker = None
                            return
                    continue
            batch, carry = self._gather(carry)
            self._run(batch)

    def _gather(self, first: tuple[list[str], Future[Vectors]],
                ) -> tuple[list[tuple[list[str], Future[Vectors]]], tuple[list[str], Future[Vectors]] | None]:
        """``first`` plus every queued request that fits in ``max_texts``; the first one that does not is carried
        over to the next call (so requests keep their order)."""
        batch = [first]
        size = len(first[0])
        while size < self._max_texts:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return batch, None
            if size + len(item[0]) > self._max_texts:
                return batch, item
            batch.append(item)
            size += len(item[0])
        return batch, None

    def _run(self, batch: list[tuple[list[str], Future[Vectors]]]) -> None:
        live = [(texts, future) for texts, future in batch if future.set_running_or_notify_cancel()]
        if not live:
            return
        try:
            vectors = self._embed([text for texts, _ in live for text in texts])
        except BaseException as exc:  # every caller of the batch hears of the failure
            for _, future in live:
                future.set_exception(exc)
            return
        start = 0
        for texts, future in live:
            future.set_result(vectors[start:start + len(texts)])
            start += len(texts)
