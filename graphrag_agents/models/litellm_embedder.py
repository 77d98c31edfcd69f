"""Hosted embedding models through litellm (OpenAI, Azure, Ollama, Bedrock, ...).

litellm is imported on first use only: importing it takes seconds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from graphrag_agents._env import env_bool
from graphrag_agents._secrets import mask_secrets
from graphrag_agents.errors import ConfigurationError, EmbeddingProviderError
from graphrag_agents.models._litellm_retry import LiteLLMCaller, import_litellm
from graphrag_agents.models.embedder import l2_normalise, text_list

__all__ = ["EmbeddingProviderError", "LiteLLMEmbedder", "mask_secrets", "native_dimension", "parse_embed_env"]

def native_dimension(model: str) -> int:
    """Default vector size for ``model``: 3072 for ``text-embedding-3-large``, otherwise 1536."""
    return 3072 if "text-embedding-3-large" in model else 1536


def parse_embed_env(env: Mapping[str, str]) -> tuple[int | None, bool | None]:
    """``(dimension, send_dimensions)`` from ``GRAPHRAG_EMBED_DIM`` and ``GRAPHRAG_EMBED_SEND_DIMENSIONS``.

    Unset or empty values give ``None``. Raises :class:`ConfigurationError` on values that do not parse.
    """
    raw_dim = env.get("GRAPHRAG_EMBED_DIM", "").strip()
    dimension: int | None = None
    if raw_dim:
        try:
            dimension = int(raw_dim)
        except ValueError:
            dimension = 0
        if dimension <= 0:
            raise ConfigurationError(f"GRAPHRAG_EMBED_DIM must be a positive integer, got {raw_dim!r}.")
    return dimension, env_bool("GRAPHRAG_EMBED_SEND_DIMENSIONS", env)


class LiteLLMEmbedder:
    """Embeddings from any model litellm serves, L2-normalised, in batches, with retries.

    Args:
        model: litellm model name, e.g. ``"text-embedding-3-small"`` or ``"ollama/nomic-embed-text"``; it is
            also the ``model_name`` stored in the graph.
        dimension: Vector size; ``None`` means the model's native size (:func:`native_dimension`). When given,
            it is sent as ``dimensions`` to ``text-embedding-3`` models.
        api_base: Endpoint override (Azure, a proxy, a local server).
        send_dimensions: ``True`` sends ``dimensions`` to any model (an Azure deployment name, say), ``False``
            never sends it; ``None`` decides by the model name.
        batch_size: Texts per provider call.
        max_attempts: Tries per batch on rate limits, timeouts and server errors, with exponential backoff.
        concurrency: Batches in flight at once.
        timeout: Seconds per provider call.
        api_key: Key to send instead of the provider's environment variable; masked in every error.

    Raises (from :meth:`embed` / :meth:`aembed`):
        ConfigurationError: bad key, unknown model, rejected request, or vectors of another size than
            ``dimension``.
        EmbeddingProviderError: transient failures that outlasted the retries.
    """

    def __init__(
        self,
        model: str,
        dimension: int | None = None,
        api_base: str | None = None,
        send_dimensions: bool | None = None,
        *,
        batch_size: int = 64,
        max_attempts: int = 3,
        concurrency: int = 4,
        timeout: float = 60.0,
        api_key: str | None = None,
    ) -> None:
        if not model.strip():
            raise ConfigurationError("The embedding model name is empty; set GRAPHRAG_EMBED_MODEL.")
        if dimension is not None and dimension <= 0:
            raise ConfigurationError(f"The embedding dimension must be positive, got {dimension}.")
        if batch_size < 1 or max_attempts < 1 or concurrency < 1:
            raise ValueError("batch_size, max_attempts and concurrency must be at least 1")
        self.model_name: str = model
        self.dimension: int = dimension if dimension is not None else native_dimension(model)
        self.api_base = api_base
        sends = send_dimensions if send_dimensions is not None else "text-embedding-3" in model
        self._send_dimensions = dimension is not None and sends
        self.batch_size = batch_size
        self.max_attempts = max_attempts
        self.concurrency = concurrency
        self.timeout = timeout
        self._api_key = api_key

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Blocking :meth:`aembed`; inside a running event loop it runs in a worker thread."""
        items = text_list(texts)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.aembed(items))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.aembed(items)).result()

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` in order; returns float32 ``(len(texts), dimension)`` unit rows."""
        items = text_list(texts)
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        litellm = import_litellm()
        gate = asyncio.Semaphore(self.concurrency)

        async def run(batch: list[str]) -> npt.NDArray[np.float32]:
            async with gate:
                return await self._embed_batch(litellm, batch)

        batches = [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
        return np.concatenate(await asyncio.gather(*(run(batch) for batch in batches)))

    async def _embed_batch(self, litellm: ModuleType, batch: list[str]) -> npt.NDArray[np.float32]:
        # Providers reject empty strings; a space embeds as "no content" just as well.
        inputs = [text if text.strip() else " " for text in batch]
        kwargs: dict[str, Any] = {"model": self.model_name, "input": inputs, "timeout": self.timeout}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self._send_dimensions:
            kwargs["dimensions"] = self.dimension
        response = await self._caller().call(litellm, lambda: litellm.aembedding(**kwargs))
        return self._vectors(response, len(batch))

    def _vectors(self, response: Any, expected_rows: int) -> npt.NDArray[np.float32]:
        data = list(_field(response, "data") or [])
        if len(data) != expected_rows:
            raise EmbeddingProviderError(
                f"Embedding model {self.model_name} returned {len(data)} vectors for {expected_rows} texts."
            )
        if all(_field(item, "index") is not None for item in data):
            data.sort(key=lambda item: int(_field(item, "index")))
        matrix = np.asarray([_field(item, "embedding") for item in data], dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != self.dimension:
            got = matrix.shape[1] if matrix.ndim == 2 else "ragged"
            raise ConfigurationError(
                f"Embedding model {self.model_name} returned {got}-dimensional vectors, expected "
                f"{self.dimension}. Fix: set GRAPHRAG_EMBED_DIM={got} (or dimension={got})"
                + ("" if self._send_dimensions else ", or GRAPHRAG_EMBED_SEND_DIMENSIONS=true")
                + "."
            )
        return l2_normalise(matrix)

    def _caller(self) -> LiteLLMCaller:
        return LiteLLMCaller(
            f"Embedding model {self.model_name}",
            self._api_key,
            EmbeddingProviderError,
            config_fix="check the model name, the provider's API key variable and the api_base.",
            retry_fix="retry later, or lower the request rate.",
            max_attempts=self.max_attempts,
            backoff_s=0.5,
            max_backoff_s=8.0,
            unsupported_fix="unset GRAPHRAG_EMBED_DIM or GRAPHRAG_EMBED_SEND_DIMENSIONS.",
        )


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
