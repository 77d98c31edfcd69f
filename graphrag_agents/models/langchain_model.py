"""The LangChain chat model for the reference agent, from ``GRAPHRAG_MODEL`` through langchain-litellm.

Any litellm model name works (``openai/gpt-4o-mini``, ``anthropic/claude-sonnet-4-5``, ``ollama/qwen2.5``, or
``openai/local`` with ``OPENAI_API_BASE`` pointing at a local OpenAI-compatible server). langchain-litellm is
imported on first use, so the core never needs the ``langchain`` extra.

Example::

    model = langchain_chat_model()                  # GRAPHRAG_MODEL
    model = langchain_chat_model("openai/gpt-4o-mini", temperature=0)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._install import pip_extra
from ..errors import ConfigurationError
from ._litellm_retry import configured_api_base, import_litellm, use_bundled_cost_map

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["MODEL_ENV", "TIMEOUT_ENV", "configured_model_name", "langchain_chat_model"]

MODEL_ENV = "GRAPHRAG_MODEL"
"""The environment variable naming the chat model (a litellm model name)."""
TIMEOUT_ENV = "GRAPHRAG_MODEL_TIMEOUT"
"""Seconds per chat request (default 120)."""
DEFAULT_TIMEOUT = 120.0

_INSTALL = pip_extra("langchain")


def configured_model_name(env: Mapping[str, str] | None = None) -> str | None:
    """The model ``GRAPHRAG_MODEL`` names, or None when it is unset or blank."""
    name = (os.environ if env is None else env).get(MODEL_ENV, "").strip()
    return name or None


def langchain_chat_model(
    name: str | None = None,
    *,
    api_base: str | None = None,
    temperature: float = 0.0,
    timeout: float | None = None,
    max_retries: int = 2,
    **options: Any,
) -> BaseChatModel:
    """A ``ChatLiteLLM`` for ``name`` (default: ``GRAPHRAG_MODEL``).

    Args:
        name: litellm model name, e.g. ``"openai/gpt-4o-mini"``.
        api_base: endpoint override; default ``GRAPHRAG_API_BASE`` when set (litellm also reads the provider's
            own variables, such as ``OPENAI_API_BASE``).
        temperature: sampling temperature (0 keeps answers reproducible).
        timeout: seconds per request; default ``GRAPHRAG_MODEL_TIMEOUT``, else 120 (a small local model on a
            busy CPU may need more).
        max_retries: retries of a failed request inside litellm.
        options: further ``ChatLiteLLM`` fields (``max_tokens``, ``model_kwargs``, ...).

    Raises:
        ConfigurationError: no model is named, the timeout is not a number, or langchain-litellm is not
            installed.
    """
    model = (name or "").strip() or configured_model_name()
    if model is None:
        raise ConfigurationError(
            f"No chat model is configured. Fix: set {MODEL_ENV} to a litellm model name, e.g. "
            f"{MODEL_ENV}=openai/gpt-4o-mini (with OPENAI_API_KEY), or {MODEL_ENV}=openai/local with "
            "OPENAI_API_BASE=http://127.0.0.1:8089/v1 for a local OpenAI-compatible server."
        )
    use_bundled_cost_map()
    try:
        from langchain_litellm import ChatLiteLLM
    except ImportError as exc:
        raise ConfigurationError(
            f"The reference agent's default model needs langchain-litellm. Fix: {_INSTALL}"
        ) from exc
    import_litellm()  # its debug banner off before ChatLiteLLM's first call
    base = api_base or configured_api_base()
    fields: dict[str, Any] = {
        "model": model,
        "temperature": temperature,
        "request_timeout": _timeout(timeout),
        "max_retries": max_retries,
        **options,
    }
    if base:
        fields["api_base"] = base
    return ChatLiteLLM(**fields)


def _timeout(timeout: float | None) -> float:
    if timeout is not None:
        return timeout
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ConfigurationError(f"{TIMEOUT_ENV} must be a positive number of seconds, not {raw!r}.")
    return value
