"""A scripted LangChain chat model for agent-loop tests: each reply is computed from the conversation so far.

Steps are AIMessages (served as they are) or functions of the messages the model was sent, so a later step can
cite evidence numbers the tools really returned. Every call is recorded; running out of steps fails the test.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

Step = AIMessage | Callable[[list[BaseMessage]], AIMessage]


class ScriptedChatModel(BaseChatModel):
    """Replies with ``steps`` in order; ``calls`` holds what it was sent, ``bound_tools`` what was bound."""

    steps: list[Any] = Field(default_factory=list)
    """The replies, in order: :data:`Step` values (pydantic would coerce a function into an AIMessage)."""
    usage: tuple[int, int] = (100, 20)
    """Input and output tokens reported per reply."""
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _bound: list[str] = PrivateAttr(default_factory=list)
    _kwargs: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        return self._calls

    @property
    def bound_tools(self) -> list[str]:
        return self._bound

    @property
    def call_kwargs(self) -> list[dict[str, Any]]:
        """The extra arguments of each call (``response_format`` bound with ``model.bind``)."""
        return self._kwargs

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self._calls.append(list(messages))
        self._kwargs.append(dict(kwargs))
        if len(self._calls) > len(self.steps):
            raise AssertionError(f"the script has {len(self.steps)} steps; call {len(self._calls)} was not planned")
        step = self.steps[len(self._calls) - 1]
        message = step if isinstance(step, AIMessage) else step(list(messages))
        message = message.model_copy(update={"usage_metadata": {
            "input_tokens": self.usage[0], "output_tokens": self.usage[1], "total_tokens": sum(self.usage)}})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        self._bound[:] = [getattr(tool, "name", str(tool)) for tool in tools]
        return self


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool call dict for ``AIMessage(tool_calls=[...])``."""
    return {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:8]}", "type": "tool_call"}


def evidence_number(text: str, claim: str) -> int:
    """The number of the first evidence item in a tool's (or prompt's) text that contains ``claim``."""
    number = None
    for line in text.splitlines():
        marker = re.match(r"\s*\[(\d+)\]", line)
        number = int(marker.group(1)) if marker else number
        if claim in line and number is not None:
            return number
    raise AssertionError(f"no evidence says {claim!r}:\n{text}")


def last_tool_text(messages: list[BaseMessage], name: str = "retrieve") -> str:
    """The text of the last ``name`` tool result the model was sent."""
    for message in reversed(messages):
        if isinstance(message, ToolMessage) and message.name == name:
            return message.text
    raise AssertionError(f"the model was sent no {name} result")


def acme_reply(messages: list[BaseMessage]) -> AIMessage:
    """A structured draft answering the Acme question right: "Acme Corp", citing the item that says who works there."""
    n = evidence_number("\n".join(m.text for m in messages), "works at Acme Corp")
    return AIMessage(json.dumps({"answer": "Acme Corp", "evidence": [n]}))
