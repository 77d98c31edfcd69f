"""The structured drafting call: the model constrained to the draft's JSON Schema, or asked in words.

``response_format`` with a JSON Schema (:func:`~graphrag_agents.agent.drafting.response_format`) is bound to the
chat model; litellm passes it on to OpenAI-compatible servers (llama.cpp turns it into a grammar) and the hosted
providers. A model or provider that refuses the parameter gets the same prompt without it, once and from then on:
the prompt spells the format out, and :func:`~graphrag_agents.agent.drafting.parse_draft` reads the reply either
way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig

from .confidence import missing_logprobs
from .drafting import response_format

__all__ = ["StructuredCaller", "as_ai_message", "refuses_response_format"]

# Words of the errors a provider (or litellm) raises for a response_format it does not support.
_REFUSAL_WORDS = ("response_format", "json_schema", "response format", "structured output", "unsupportedparams")


def refuses_response_format(exc: BaseException) -> bool:
    """Whether ``exc`` says the model or provider does not support ``response_format`` (not a transient error)."""
    text = f"{type(exc).__name__} {exc}".lower()
    return any(word in text for word in _REFUSAL_WORDS)


class StructuredCaller:
    """Calls ``model`` with the draft's JSON Schema (or ``fmt``) as ``response_format``, falling back to plain calls
    when the model refuses it (``supported`` then turns False for the rest of the agent's life); ``logprobs``: ask
    for the reply's token log-probabilities too (:mod:`~graphrag_agents.agent.confidence` reads them)."""

    def __init__(self, model: BaseChatModel, fmt: dict[str, Any] | None = None, *, logprobs: bool = False) -> None:
        self.logprobs = {"logprobs": True} if logprobs else {}
        self.model: Runnable[Any, BaseMessage] = model.bind(**self.logprobs) if logprobs else model
        self.supported = True
        self._bound: Runnable[Any, BaseMessage] = model.bind(response_format=fmt or response_format(),
                                                             **self.logprobs)

    async def ainvoke(self, prompt: Sequence[BaseMessage], config: RunnableConfig | None = None) -> AIMessage:
        """The model's reply to ``prompt``, as an AIMessage."""
        if self.supported:
            try:
                return as_ai_message(await self._bound.ainvoke(list(prompt), config))
            except Exception as exc:  # which errors mean "unsupported" differs per provider; others re-raise
                if self.logprobs and "logprobs" in str(exc).lower():
                    raise missing_logprobs(f"The model refused log-probabilities ({exc})") from exc
                if not refuses_response_format(exc):
                    raise
                self.supported = False
        return as_ai_message(await self.model.ainvoke(list(prompt), config))


def as_ai_message(response: BaseMessage) -> AIMessage:
    """``response`` as an AIMessage (a model wrapped to return another message type)."""
    return response if isinstance(response, AIMessage) else AIMessage(str(response.content))
