"""Hosted embedding models through litellm (OpenAI, Azure, Ollama, Bedrock, ...).

litellm is imported on first use only: importing it takes seconds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from graphrag_agents._secrets import mask_secrets
from graphrag_agents.errors import ConfigurationError, GraphRAGError
from graphrag_agents.models.embedder import l2_normalise, text_list

__all__ = ["EmbeddingProviderError", "LiteLLMEmbedder", "mask_secrets", "native_dimension", "parse_embed_env"]

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_TRANSIENT_NAMES = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)
_CONFIG_NAMES = ("AuthenticationError", "PermissionDeniedError", "NotFoundError", "BadRequestError")


class EmbeddingProviderError(GraphRAGError):
    """The embedding provider kept failing (rate limit, outage, timeout) past the retries; keys are masked."""


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
    raw_send = env.get("GRAPHRAG_EMBED_SEND_DIMENSIONS", "").strip().lower()
    send: bool | None = None
    if raw_send in ("1", "true", "yes", "on"):
        send = True
    elif raw_send in ("0", "false", "no", "off"):
        send = False
    elif raw_send:
        raise ConfigurationError(f"GRAPHRAG_EMBED_SEND_DIMENSIONS must be true or false, got {raw_send!r}.")
    return dimension, send


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
        litellm = _import_litellm()
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
        for attempt in range(1, self.max_attempts + 1):
            try:
                response = await litellm.aembedding(**kwargs)
                break
            except Exception as exc:
                if not _is_transient(litellm, exc):
                    raise self._classify(litellm, exc) from None
                if attempt == self.max_attempts:
                    raise EmbeddingProviderError(
                        f"Embedding model {self.model_name} failed {attempt} times: "
                        f"{self._describe(exc)}. Fix: retry later, or lower the request rate."
                    ) from None
                await asyncio.sleep(min(8.0, 0.5 * 2 ** (attempt - 1)) * (0.5 + random.random()))
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

    def _classify(self, litellm: ModuleType, exc: Exception) -> GraphRAGError:
        message = self._describe(exc)
        if _is_instance(litellm, exc, ("UnsupportedParamsError",)):
            return ConfigurationError(
                f"Embedding model {self.model_name} does not accept the request: {message}. "
                "Fix: unset GRAPHRAG_EMBED_DIM or GRAPHRAG_EMBED_SEND_DIMENSIONS."
            )
        if _is_instance(litellm, exc, _CONFIG_NAMES) or _status(exc) in (400, 401, 403, 404, 422):
            return ConfigurationError(
                f"Embedding model {self.model_name} refused the request: {message}. Fix: check the model "
                "name, the provider's API key variable and the api_base."
            )
        return EmbeddingProviderError(f"Embedding model {self.model_name} failed: {message}.")

    def _describe(self, exc: BaseException) -> str:
        extra = [self._api_key] if self._api_key else []
        return mask_secrets(f"{type(exc).__name__}: {exc}", extra)[:500]


def _import_litellm() -> ModuleType:
    # litellm fetches its model price map over the network at import unless told to use the bundled copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:
        raise ConfigurationError("Hosted embedding models need litellm. Fix: pip install litellm") from exc
    return litellm


def _is_transient(litellm: ModuleType, exc: Exception) -> bool:
    if _is_instance(litellm, exc, _TRANSIENT_NAMES):
        return True
    if isinstance(exc, (asyncio.TimeoutError, ConnectionError)):
        return True
    return _status(exc) in _TRANSIENT_STATUS


def _is_instance(litellm: ModuleType, exc: Exception, names: Sequence[str]) -> bool:
    classes = tuple(c for c in (getattr(litellm, name, None) for name in names) if isinstance(c, type))
    return bool(classes) and isinstance(exc, classes)


def _status(exc: Exception) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
