"""The embedder contract every vector search and ingest step relies on.

Two implementations ship: :class:`~graphrag_agents.models.onnx_minilm.OnnxMiniLMEmbedder` (local, offline,
the default) and :class:`~graphrag_agents.models.litellm_embedder.LiteLLMEmbedder` (hosted models, litellm).
:func:`embedder_from_env` picks one from the environment.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "SpanEmbedder", "embedder_from_env", "l2_normalise", "text_list"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    ``model_name`` and ``dimension`` are stored in the graph and compared when it is opened, so they must stay
    stable across versions for vectors that stay compatible.
    """

    model_name: str
    """Stable identifier of the model; two embedders with the same name produce comparable vectors."""
    dimension: int
    """Length of every vector."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` in order; returns shape ``(len(texts), dimension)``, rows of unit length."""
        ...

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Async :meth:`embed`; never blocks the event loop."""
        ...


@runtime_checkable
class SpanEmbedder(Protocol):
    """An embedder that also reads spans of a text in the same model run (a local model, whose token states
    it holds; a hosted model returns one vector a text). ``finalize`` reads a co-mention fact's vector from its
    chunk's run this way, instead of embedding the sentence again."""

    def embed_spans(self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
                    ) -> tuple[npt.NDArray[np.float32], list[list[npt.NDArray[np.float32] | None]]]:
        """The texts' vectors, as ``embed`` gives them, and one vector (or None: not read) per character span."""
        ...


def l2_normalise(vectors: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    """Rows scaled to unit length as float32; all-zero rows stay zero instead of becoming NaN."""
    matrix: npt.NDArray[np.float32] = np.asarray(vectors, dtype=np.float32)
    norms: npt.NDArray[np.float32] = np.linalg.norm(matrix, axis=1, keepdims=True)
    scaled: npt.NDArray[np.float32] = matrix / np.maximum(norms, np.float32(1e-12))
    return scaled


def text_list(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list; refuses a bare string (it would embed one character per row) and non-strings."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not a single string; wrap it in a list")
    items = list(texts)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"texts[{index}] is {type(item).__name__}, expected str")
    return items


def embedder_from_env() -> Embedder:
    """The embedder the environment asks for.

    ``GRAPHRAG_EMBED_MODEL`` set: a :class:`LiteLLMEmbedder` for that model, with ``GRAPHRAG_EMBED_DIM`` and
    ``GRAPHRAG_EMBED_SEND_DIMENSIONS``; otherwise the local :class:`OnnxMiniLMEmbedder`.

    Raises:
        ConfigurationError: ``GRAPHRAG_EMBED_DIM`` or ``GRAPHRAG_EMBED_SEND_DIMENSIONS`` cannot be parsed.
    """
    # Imported here: both modules import this one for the Protocol and l2_normalise.
    from graphrag_agents.models.litellm_embedder import LiteLLMEmbedder, parse_embed_env
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    model = os.environ.get("GRAPHRAG_EMBED_MODEL", "").strip()
    if not model:
        return OnnxMiniLMEmbedder()
    dimension, send_dimensions = parse_embed_env(os.environ)
    return LiteLLMEmbedder(model, dimension=dimension, send_dimensions=send_dimensions)
