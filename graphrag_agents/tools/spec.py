"""``ToolSpec``: one tool, framework-neutral — name, description, input model (-> JSON Schema), annotations, handler.

Adapters (LangChain, pydantic-ai, MCP) are thin wrappers over this: validation, limits and evidence numbering
happen here once, because some frameworks pass raw JSON straight through.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import ToolError
from ..evidence import ToolResult

__all__ = ["ToolAnnotations", "ToolSpec", "validation_error"]


@dataclass(frozen=True)
class ToolAnnotations:
    """The four MCP tool annotations, always set explicitly."""

    read_only: bool
    """The tool does not modify the graph (``readOnlyHint``)."""
    destructive: bool
    """The tool may change or replace existing data (``destructiveHint``); clients ask the user first."""
    idempotent: bool
    """Calling it twice with the same arguments has no further effect (``idempotentHint``)."""
    open_world: bool
    """The tool reaches outside the graph, e.g. an LLM provider (``openWorldHint``)."""

    def as_mcp(self) -> dict[str, bool]:
        """The annotations under their MCP names."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Close every object schema (``additionalProperties: false``) and drop pydantic's titles noise."""
    out = copy.deepcopy(schema)

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node.setdefault("additionalProperties", False)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(out)
    return out


def validation_error(tool: str, error: ValidationError, model: type[BaseModel]) -> ToolError:
    """A readable ToolError for bad arguments, naming each field and what it accepts."""
    problems: list[str] = []
    fields = model.model_fields
    hints: list[str] = []
    for item in error.errors(include_url=False, include_input=False)[:6]:
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
        top = str(item["loc"][0]) if item["loc"] else ""
        description = fields[top].description if top in fields else None
        if description:
            hints.append(f"'{top}' is {description[0].lower()}{description[1:]}")
        elif item["type"] == "extra_forbidden":
            hints.append(f"accepted arguments: {', '.join(fields)}" if fields else f"{tool} takes no arguments")
    hint = "; ".join(dict.fromkeys(hints)) or f"Call {tool} with the arguments its schema lists."
    return ToolError(f"Invalid arguments for {tool}: " + "; ".join(problems) + ".", hint)


@dataclass(frozen=True)
class ToolSpec:
    """A tool any agent framework can register."""

    name: str
    description: str
    input_model: type[BaseModel]
    """Pydantic model of the arguments; its JSON Schema is what frameworks show the model."""
    output_model: type[ToolResult]
    annotations: ToolAnnotations
    handler: Callable[[Any], Awaitable[ToolResult]]
    """Receives a validated ``input_model`` instance."""

    @property
    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, with ``additionalProperties: false`` on every object."""
        return _strict(self.input_model.model_json_schema())

    @property
    def output_schema(self) -> dict[str, Any]:
        """JSON Schema of the result."""
        return self.output_model.model_json_schema()

    def validate(self, args: Mapping[str, Any] | BaseModel | None) -> BaseModel:
        """Validate raw arguments (JSON-like mapping) through the input model; ToolError when they do not fit."""
        if isinstance(args, self.input_model):
            return args
        if args is not None and not isinstance(args, Mapping):
            raise ToolError(f"Arguments for {self.name} must be a JSON object, got {type(args).__name__}.",
                            f"Pass an object with the fields: {', '.join(self.input_model.model_fields)}.")
        try:
            return self.input_model.model_validate(dict(args or {}))
        except ValidationError as exc:
            raise validation_error(self.name, exc, self.input_model) from None

    async def run(self, args: Mapping[str, Any] | BaseModel | None) -> ToolResult:
        """Validate ``args`` and run the handler."""
        return await self.handler(self.validate(args))
