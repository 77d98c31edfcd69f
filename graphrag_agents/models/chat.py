"""A small async chat-model wrapper over litellm: retries with backoff, counts calls and tokens, masks keys.

litellm is imported on first use only (importing it takes seconds). The model comes from ``GRAPHRAG_MODEL``
by default, e.g. ``openai/gpt-4o-mini``, or ``openai/local`` with ``OPENAI_API_BASE`` pointing at a local
OpenAI-compatible server.

Example::

    chat = ChatModel("openai/gpt-4o-mini")
    text = await chat.complete([{"role": "user", "content": "Say hi as JSON"}], json_mode=True)
    chat.usage.calls, chat.usage.prompt_tokens
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ChatModelError, ConfigurationError
from ._litellm_retry import LiteLLMCaller, configured_api_base, describe_error, import_litellm
from .langchain_model import configured_model_name

__all__ = ["ChatModel", "ChatModelError", "ChatUsage", "chat_model_from"]

Message = Mapping[str, str]


@dataclass
class ChatUsage:
    """What a :class:`ChatModel` has spent so far."""

    calls: int = 0
    """Requests that returned an answer (retries of a failed request are not counted twice)."""
    attempts: int = 0
    """Every request sent, including retried ones."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    """Wall time spent waiting for the provider, retries and backoff included."""


class ChatModel:
    """An async chat model served by litellm.

    Args:
        model: litellm model name, e.g. ``"openai/gpt-4o-mini"`` or ``"ollama/qwen2.5"``.
        api_base: endpoint override (a local server, a proxy, Azure); default ``GRAPHRAG_API_BASE`` if set.
        api_key: key to send instead of the provider's environment variable; masked in every error.
        timeout: seconds per request.
        max_attempts: tries per request on rate limits, timeouts and server errors, with exponential backoff.
        temperature: sampling temperature (0 keeps extraction reproducible).
        max_tokens: cap on the answer's length (None: the provider's default); a capped answer may be cut.
        backoff_s: first wait before a retry; it doubles per attempt, with jitter.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_attempts: int = 3,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        backoff_s: float = 1.0,
    ) -> None:
        if not model.strip():
            raise ConfigurationError("The chat model name is empty. Fix: set GRAPHRAG_MODEL, e.g. openai/gpt-4o-mini.")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.model = model.strip()
        self.api_base = api_base or configured_api_base()
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.backoff_s = backoff_s
        self.usage = ChatUsage()
        self._api_key = api_key

    def __repr__(self) -> str:
        return f"ChatModel({self.model!r})"

    async def complete(self, messages: Sequence[Message], *, json_mode: bool = False) -> str:
        """Send ``messages`` and return the answer's text.

        ``json_mode`` asks for a JSON object (``response_format``); the text still needs validating.

        Raises:
            ConfigurationError: bad key, unknown model or a request the provider refuses (not retried).
            ChatModelError: rate limits, timeouts or server errors that outlasted the retries.
        """
        litellm: Any = import_litellm()
        litellm.suppress_debug_info = True  # no "Give Feedback" banners on stdout (MCP stdio owns it)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "timeout": self.timeout,
            "temperature": self.temperature,
            "num_retries": 0,
        }
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        started = time.perf_counter()
        try:
            response = await self._send(litellm, kwargs)
        finally:
            self.usage.seconds += time.perf_counter() - started
        self.usage.calls += 1
        usage = _field(response, "usage")
        self.usage.prompt_tokens += int(_field(usage, "prompt_tokens") or 0)
        self.usage.completion_tokens += int(_field(usage, "completion_tokens") or 0)
        choices = _field(response, "choices") or []
        message = _field(choices[0], "message") if choices else None
        return str(_field(message, "content") or "")

    async def _send(self, litellm: Any, kwargs: dict[str, Any]) -> Any:
        async def attempt() -> Any:
            self.usage.attempts += 1
            return await asyncio.wait_for(litellm.acompletion(**kwargs), self.timeout + 5)

        caller = LiteLLMCaller(
            f"Chat model {self.model}",
            self._api_key,
            ChatModelError,
            config_fix="check GRAPHRAG_MODEL, the provider's API key variable and the api_base.",
            retry_fix="retry later, lower the request rate, or check the model server.",
            max_attempts=self.max_attempts,
            backoff_s=self.backoff_s,
        )
        return await caller.call(litellm, attempt)

    def describe(self, exc: BaseException) -> str:
        """``exc`` as one line with API keys and tokens masked."""
        return describe_error(exc, self._api_key)


def chat_model_from(llm: ChatModel | str | None, env: Mapping[str, str] | None = None) -> ChatModel | None:
    """A :class:`ChatModel` from an instance, a model name, or ``GRAPHRAG_MODEL`` (None when unset)."""
    if isinstance(llm, ChatModel):
        return llm
    name = llm if llm is not None else configured_model_name(env)
    return ChatModel(name) if name and name.strip() else None


def _field(item: Any, name: str) -> Any:
    if item is None:
        return None
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
