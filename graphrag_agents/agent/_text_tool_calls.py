"""Tool calls a model wrote as bare JSON text instead of real tool calls (small local models do this).

``{"name": "retrieve", "arguments": {"question": "..."}}`` in ``content``, possibly fenced (```json) or inside
``<tool_call>`` tags, possibly several. A message is converted only when its whole text is such calls and at
least one names a bound tool, or names something else with the arguments of exactly one bound tool (every
required argument, no unknown one: Qwen2.5-0.5B writes ``{"name": "Canadian rock band", "arguments":
{"question": ...}}``); other calls are dropped. Anything else is left alone.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from langchain_core.messages import AIMessage, ToolCall

__all__ = ["salvage_text_tool_calls"]

_WRAPPERS = re.compile(r"```(?:json)?|</?tool_call>", re.IGNORECASE)
_ARG_KEYS = ("arguments", "parameters", "args")
_MAX_CHARS = 20_000


Tools = Mapping[str, Mapping[str, Any]] | Collection[str]
"""Tool names, or tool names with the JSON Schema of their arguments (to recognise a call by its arguments)."""


def salvage_text_tool_calls(message: AIMessage, tools: Tools) -> AIMessage:
    """``message`` with the tool calls its text spells out, or ``message`` itself when it spells none."""
    if message.tool_calls:
        return message
    text = message.text.strip()
    if not text.startswith(("{", "[", "`", "<")) or len(text) > _MAX_CHARS:
        return message
    values = _json_values(_WRAPPERS.sub(" ", text))
    if values is None:
        return message
    calls = [call for value in values for call in _calls(value, tools)]
    if not calls:
        return message
    return message.model_copy(update={"content": "", "tool_calls": calls})


def _json_values(text: str) -> list[Any] | None:
    """Every JSON value of ``text`` when it holds nothing else, else None."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos == len(text):
            return values or None
        try:
            value, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return None
        values.append(value)


def _calls(value: Any, tools: Tools) -> Iterator[ToolCall]:
    if isinstance(value, list):
        for item in value:
            yield from _calls(item, tools)
        return
    if not isinstance(value, dict):
        return
    if isinstance(value.get("function"), dict):  # {"type": "function", "function": {...}}
        yield from _calls(value["function"], tools)
        return
    name = value.get("name")
    if not isinstance(name, str):
        return
    args: Any = next((value[k] for k in _ARG_KEYS if k in value), {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return
    if not isinstance(args, dict):
        return
    if name not in tools:
        matches = [tool for tool, schema in tools.items() if _fits(args, schema)] if isinstance(tools, Mapping) else []
        if len(matches) != 1:
            return
        name = matches[0]
    yield ToolCall(name=name, args=args, id=f"call_{uuid.uuid4().hex[:12]}", type="tool_call")


def _fits(args: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """Whether ``args`` has every required argument of ``schema`` (at least one) and no unknown one."""
    required = set(schema.get("required") or ())
    known = set(schema.get("properties") or {})
    return bool(required) and required <= set(args) <= known
