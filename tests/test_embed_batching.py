"""Query embeddings run off the event loop, one model call at a time, concurrent requests sharing a call."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from graphrag_agents.models._batching import EmbedBatcher
from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

QUESTIONS = [f"Which film did director number {i} make in {1990 + i}?" for i in range(8)]


class _GatedModel:
    """A blocking embed function that waits for ``release`` and records every call it gets."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: set[str] = set()

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        self.threads.add(threading.current_thread().name)
        self.entered.set()
        assert self.release.wait(10)
        return np.asarray([[float(len(t)), 1.0] for t in texts], dtype=np.float32)


async def _ticks_while(until: asyncio.Future[object]) -> int:
    ticks = 0
    while not until.done():
        await asyncio.sleep(0.001)
        ticks += 1
    return ticks


async def test_the_loop_keeps_running_while_an_embed_blocks() -> None:
    model = _GatedModel()
    batcher = EmbedBatcher(model)
    call = asyncio.ensure_future(batcher.embed(["slow"]))
    assert await asyncio.to_thread(model.entered.wait, 10)
    ticker = asyncio.ensure_future(_ticks_while(call))
    for _ in range(20):  # the loop runs other tasks while the model call is blocked
        await asyncio.sleep(0)
    assert not call.done()
    model.release.set()
    assert (await call).tolist() == [[4.0, 1.0]]
    assert await ticker > 0
    assert threading.main_thread().name not in model.threads


async def test_concurrent_requests_share_one_model_call() -> None:
    model = _GatedModel()
    batcher = EmbedBatcher(model, max_texts=32)
    first = asyncio.ensure_future(batcher.embed(["first"]))
    assert await asyncio.to_thread(model.entered.wait, 10)
    rest = [asyncio.ensure_future(batcher.embed([q, q + "!"])) for q in QUESTIONS]
    await asyncio.sleep(0.05)  # let every request reach the queue while the first call blocks
    model.release.set()
    results = await asyncio.gather(first, *rest)
    assert model.calls[0] == ["first"]
    assert len(model.calls) == 2  # the eight queued requests went into one call, not eight
    for question, vectors in zip(QUESTIONS, results[1:], strict=True):
        assert vectors[:, 0].tolist() == [len(question), len(question) + 1]  # each caller gets its own rows


async def test_a_batch_respects_max_texts_and_each_caller_gets_its_rows() -> None:
    model = _GatedModel()
    batcher = EmbedBatcher(model, max_texts=3)
    first = asyncio.ensure_future(batcher.embed(["a"]))
    assert await asyncio.to_thread(model.entered.wait, 10)
    asked = [["b" * n, "c" * (n + 5), "d" * (n + 1)] for n in (1, 2, 3)]
    rest = [asyncio.ensure_future(batcher.embed(texts)) for texts in asked]
    await asyncio.sleep(0.05)
    model.release.set()
    results = await asyncio.gather(first, *rest)
    assert all(len(call) <= 3 for call in model.calls)
    assert sorted(t for call in model.calls for t in call) == sorted(["a", *(t for ts in asked for t in ts)])
    for texts, vectors in zip(asked, results[1:], strict=True):
        assert vectors[:, 0].tolist() == [len(t) for t in texts]  # in the caller's order


async def test_a_question_does_not_wait_for_a_large_request_to_finish() -> None:
    model = _GatedModel()
    batcher = EmbedBatcher(model, max_texts=32)
    chunks = [f"chunk text number {i} " * (1 + i % 7) for i in range(100)]
    large = asyncio.ensure_future(batcher.embed(chunks))
    assert await asyncio.to_thread(model.entered.wait, 10)
    question = asyncio.ensure_future(batcher.embed(["Who wrote it?"]))
    await asyncio.sleep(0.05)
    model.release.set()
    vectors, answer = await asyncio.gather(large, question)
    assert len(model.calls) == 4 and all(len(call) <= 32 for call in model.calls)
    assert "Who wrote it?" in model.calls[1], "the question went into the next slice, not after the 100 chunks"
    assert vectors[:, 0].tolist() == [len(c) for c in chunks] and answer.shape == (1, 2)
    lengths = [len(t) for t in model.calls[0]]
    assert lengths == sorted(lengths), "a large request is embedded shortest texts first"


async def test_a_failure_reaches_every_caller_of_the_batch_and_the_worker_survives() -> None:
    failing = True

    def model(texts: list[str]) -> np.ndarray:
        if failing:
            raise RuntimeError("model broke")
        return np.ones((len(texts), 2), dtype=np.float32)

    batcher = EmbedBatcher(model)
    results = await asyncio.gather(*(batcher.embed([q]) for q in QUESTIONS[:3]), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
    failing = False
    assert (await batcher.embed(["again"])).shape == (1, 2)


async def test_a_cancelled_request_is_skipped() -> None:
    model = _GatedModel()
    batcher = EmbedBatcher(model)
    first = asyncio.ensure_future(batcher.embed(["first"]))
    assert await asyncio.to_thread(model.entered.wait, 10)
    dropped = asyncio.ensure_future(batcher.embed(["dropped"]))
    kept = asyncio.ensure_future(batcher.embed(["kept"]))
    await asyncio.sleep(0.01)
    dropped.cancel()
    await asyncio.sleep(0.01)  # the cancellation reaches the queued request through the loop
    model.release.set()
    await asyncio.gather(first, kept)
    with pytest.raises(asyncio.CancelledError):
        await dropped
    assert all("dropped" not in call for call in model.calls)


async def test_a_large_request_cancelled_midway_stops_being_embedded() -> None:
    model = _GatedModel()
    batcher = EmbedBatcher(model, max_texts=2)
    large = asyncio.ensure_future(batcher.embed([f"text {i}" for i in range(10)]))
    assert await asyncio.to_thread(model.entered.wait, 10)
    large.cancel()
    await asyncio.sleep(0.01)  # the cancellation reaches the queued request through the loop
    model.release.set()
    with pytest.raises(asyncio.CancelledError):
        await large
    assert (await batcher.embed(["after"])).shape == (1, 2)
    assert len(model.calls) == 2, "one slice ran before the cancellation, then only the next request"


async def test_onnx_aembed_matches_embed_when_batched() -> None:
    embedder = OnnxMiniLMEmbedder()
    alone = embedder.embed(QUESTIONS)
    together = await asyncio.gather(*(embedder.aembed([q]) for q in QUESTIONS))
    for row, vectors in zip(alone, together, strict=True):
        assert vectors.shape == (1, 384)
        assert float(row @ vectors[0]) > 0.9999
    assert (await embedder.aembed([])).shape == (0, 384)
    with pytest.raises(TypeError):
        await embedder.aembed("a bare string")


async def test_onnx_concurrent_questions_cost_fewer_model_runs_than_questions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = OnnxMiniLMEmbedder()
    embedder.embed(["warm up"])
    runs: list[int] = []
    original = embedder._run_batch

    def counted(runtime, encodings):  # type: ignore[no-untyped-def]
        runs.append(len(encodings))
        return original(runtime, encodings)

    monkeypatch.setattr(embedder, "_run_batch", counted)
    await asyncio.gather(*(embedder.aembed([q]) for q in QUESTIONS))
    assert sum(runs) == len(QUESTIONS)
    assert len(runs) <= 4  # one model run per question before (8 here)
