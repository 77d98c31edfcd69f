"""Calls to a model through litellm: lazy import, retries with backoff, failures sorted by who must act, keys masked.

Rate limits, timeouts and server errors are retried; a refused request (bad key, unknown model, rejected
parameters) is a :class:`~graphrag_agents.errors.ConfigurationError` at once; anything else, and transient
failures that outlast the retries, raise the caller's own error class. litellm is imported on first use only
(:func:`import_litellm`): importing it takes seconds.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TypeVar

from .._install import pip_extra
from .._secrets import mask_secrets
from ..errors import ConfigurationError, GraphRAGError

__all__ = ["LiteLLMCaller", "configured_api_base", "describe_error", "import_litellm", "use_bundled_cost_map"]

_R = TypeVar("_R")

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_TRANSIENT_NAMES = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)
_CONFIG_STATUS = frozenset({400, 401, 403, 404, 422})
_CONFIG_NAMES = ("AuthenticationError", "PermissionDeniedError", "NotFoundError", "BadRequestError")


@dataclass(frozen=True)
class LiteLLMCaller:
    """Sends one request with retries and turns its failures into errors that name the fix.

    Example::

        caller = LiteLLMCaller("Chat model openai/x", key, ChatModelError, config_fix="check the key.",
                               retry_fix="retry later.", max_attempts=3, backoff_s=1.0)
        response = await caller.call(litellm, lambda: litellm.acompletion(**kwargs))
    """

    subject: str
    """How messages name the model, e.g. ``"Chat model openai/gpt-4o-mini"``."""
    api_key: str | None
    """Masked in every message."""
    error: type[GraphRAGError]
    """Raised for failures that are the provider's, not the configuration's."""
    config_fix: str
    """The fix named when the provider refuses the request (bad key, unknown model, rejected request)."""
    retry_fix: str
    """The fix named when transient failures outlast the retries."""
    max_attempts: int
    """Tries per request on rate limits, timeouts and server errors."""
    backoff_s: float
    """First wait before a retry; it doubles per attempt, with jitter."""
    max_backoff_s: float = math.inf
    """Cap on one wait (before jitter)."""
    unsupported_fix: str | None = None
    """The fix named for litellm's ``UnsupportedParamsError``; None treats it as any other refused request."""

    async def call(self, litellm: ModuleType, send: Callable[[], Awaitable[_R]]) -> _R:
        """Await ``send()``, retrying transient failures with exponential backoff.

        Raises:
            ConfigurationError: the provider refused the request (not retried).
            GraphRAGError: :attr:`error`, for other failures and transient ones past :attr:`max_attempts`.
        """
        for attempt in range(1, self.max_attempts + 1):
            try:
                return await send()
            except Exception as exc:
                if not _is_transient(litellm, exc):
                    raise self.classify(litellm, exc) from None
                if attempt == self.max_attempts:
                    raise self.error(
                        f"{self.subject} failed {attempt} times: {self.describe(exc)}. Fix: {self.retry_fix}"
                    ) from None
                wait = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
                await asyncio.sleep(wait * (0.5 + random.random()))
        raise AssertionError("unreachable")

    def classify(self, litellm: ModuleType, exc: Exception) -> GraphRAGError:
        """The error to raise for ``exc``, a failure not worth retrying."""
        message = self.describe(exc)
        if self.unsupported_fix and _is_instance(litellm, exc, ("UnsupportedParamsError",)):
            return ConfigurationError(
                f"{self.subject} does not accept the request: {message}. Fix: {self.unsupported_fix}"
            )
        if _is_instance(litellm, exc, _CONFIG_NAMES) or _status(exc) in _CONFIG_STATUS:
            return ConfigurationError(f"{self.subject} refused the request: {message}. Fix: {self.config_fix}")
        return self.error(f"{self.subject} failed: {message}.")

    def describe(self, exc: BaseException) -> str:
        """``exc`` as :func:`describe_error` shows it, with :attr:`api_key` masked."""
        return describe_error(exc, self.api_key)


def describe_error(exc: BaseException, api_key: str | None = None) -> str:
    """``exc`` as one line of at most 500 characters, with ``api_key`` and other keys and tokens masked."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return mask_secrets(text, [api_key] if api_key else [])[:500]


def use_bundled_cost_map() -> None:
    """Make litellm, when it is imported, use its bundled model price map."""
    # litellm fetches its model price map over the network at import unless told to use the bundled copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def configured_api_base() -> str | None:
    """The server ``GRAPHRAG_API_BASE`` names for chat models, or None."""
    return os.environ.get("GRAPHRAG_API_BASE") or None


def import_litellm() -> ModuleType:
    """The litellm module, imported now (it takes seconds) with its bundled model price map."""
    use_bundled_cost_map()
    try:
        import litellm
    except ImportError as exc:  # re-raised below with the install line
        raise ConfigurationError(f"Hosted chat and embedding models (GRAPHRAG_MODEL, GRAPHRAG_EMBED_MODEL) need "
                                 f"litellm. Fix: {pip_extra('llm')}, or use the offline defaults.") from exc
    # Its "Give Feedback / Get Help" banner (ANSI-coloured, on stdout) would precede our own error, and on the MCP
    # stdio transport stdout is the protocol: off before the first call, on every path that imports it here.
    litellm.suppress_debug_info = True
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
