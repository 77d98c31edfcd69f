"""The model's own confidence in its short answer, read from the token log-probabilities of the drafting reply.

A structured draft's short answer is a few tokens inside ``{"answer": "...", ...}``. The probability the model
gave those tokens (the product of their probabilities, ``exp`` of the summed log-probabilities) is low when it was
torn between names, dates or "not in evidence": the drafts a small model gets wrong from the right passage (the
wrong year, a related person) are mostly such. With ``min_confidence`` the agent asks the model for
``logprobs`` and refuses an answer whose confidence is under the threshold (``abstain_reason="low_confidence"``).

Providers that return log-probabilities: OpenAI and OpenAI-compatible servers (llama.cpp, vLLM), through litellm
as ``response_metadata["logprobs"]``. A reply without them has no confidence (None).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage

from ..errors import ConfigurationError

__all__ = ["answer_confidence", "answer_probability", "missing_logprobs", "token_logprobs"]

# The opening of the answer's string value in the reply, e.g. `"answer": "`.
_ANSWER_VALUE = re.compile(r'"answer"\s*:\s*"')


def token_logprobs(message: AIMessage) -> list[tuple[str, float]] | None:
    """(token, log-probability) of each token of ``message``'s reply, or None when the provider returned none
    (litellm's ``ChoiceLogprobs`` object or OpenAI's dict form)."""
    raw = (message.response_metadata or {}).get("logprobs")
    content = _field(raw, "content")
    if not content:
        return None
    tokens = []
    for item in content:
        token, logprob = _field(item, "token"), _field(item, "logprob")
        if not isinstance(token, str) or not isinstance(logprob, int | float):
            return None
        tokens.append((token, float(logprob)))
    return tokens


def answer_confidence(message: AIMessage) -> float | None:
    """The probability the model gave the short answer of its structured reply (0-1), or None when the reply has
    no log-probabilities or no ``"answer"`` string."""
    tokens = token_logprobs(message)
    return None if tokens is None else answer_probability(tokens)


def answer_probability(tokens: list[tuple[str, float]]) -> float | None:
    """The probability of the ``"answer"`` string's tokens among ``tokens`` (:func:`token_logprobs`), or None
    when they spell no such string."""
    text = "".join(token for token, _ in tokens)
    span = _string_value_span(text)
    if span is None:
        return None
    start, end = span
    total, offset = 0.0, 0
    for token, logprob in tokens:
        token_start, offset = offset, offset + len(token)
        if offset > start and token_start < end:
            total += logprob
    return math.exp(total)


def missing_logprobs(detail: str) -> ConfigurationError:
    """The error of a ``min_confidence`` agent whose model returns no log-probabilities (``detail``: what
    happened), naming the fix."""
    return ConfigurationError(f"{detail}, so min_confidence cannot be applied. Fix: build the agent with "
                              "min_confidence=None (eval / ask: leave out --min-confidence), or use a provider "
                              "that returns them (OpenAI, llama.cpp, vLLM).")


def _string_value_span(text: str) -> tuple[int, int] | None:
    """Where the characters of the ``"answer"`` string value are in ``text`` (without its quotes)."""
    found = _ANSWER_VALUE.search(text)
    if found is None:
        return None
    start = found.end()
    try:
        _, end = json.decoder.scanstring(text, start)  # type: ignore[attr-defined]
    except ValueError:
        return None
    return start, end - 1


def _field(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)

