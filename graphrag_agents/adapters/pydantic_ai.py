"""The graph tools as a pydantic-ai (>= 2) toolset: :class:`GraphRAGToolset`.

A thin wrapper over the toolkit's :class:`~graphrag_agents.tools.spec.ToolSpec` s:

* The model sees each tool's core JSON Schema unchanged (``ToolDefinition.parameters_json_schema``).
* pydantic-ai's own argument validator only parses the call into a JSON object; the core's input model validates
  it (``ToolSpec.validate``) in the tool's ``args_validator_func``, before approval hooks and execution, and again
  when the tool runs. A :class:`~graphrag_agents.errors.ToolError` becomes ``ModelRetry`` with the hint.
* Results come back as ``ToolReturn``: the model reads ``to_llm_text()``, ``metadata`` holds the typed result with
  its numbered evidence (``RetrieveResult``, ``CitationCheck``, ...).
* ``ToolDefinition.metadata["annotations"]`` holds the four MCP annotations.
* ``prefix="kg_"`` names the tools ``kg_retrieve``, ... (pydantic-ai refuses two toolsets offering one name).
* Evidence numbering: one session per agent run by default (``scope="per_run"``), one per conversation
  (``"per_conversation"``, keyed by ``RunContext.conversation_id`` so runs continuing a ``message_history`` can
  cite earlier evidence), or the toolkit's own session for every run (``"shared"``).

Example::

    toolset = GraphRAGToolset(GraphRAGToolkit(kg, read_only=True))
    agent = Agent("openai:gpt-4o-mini", toolsets=[toolset])
    result = await agent.run("Where does Alice work?")
    check = await toolset.session_for(result.run_id).check_citations(result.output)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic_core import SchemaValidator, core_schema

from .._install import pip_extra
from ..errors import ConfigurationError, ToolError
from ..tools.results import llm_text
from ..tools.spec import ToolSpec
from ..tools.toolkit import GraphRAGToolkit
from ._shared import DEFAULT_MAX_SESSIONS, SessionPool, call_tool, check_prefix, refuse_duplicate_names

try:
    from pydantic_ai import RunContext, ToolReturn
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    raise ConfigurationError(
        "The pydantic-ai adapter needs pydantic-ai-slim >= 2. Fix: " + pip_extra("pydantic-ai")
    ) from _exc

__all__ = ["GraphRAGToolset", "PydanticAIScope"]

PydanticAIScope = Literal["per_run", "per_conversation", "shared"]
"""Which calls share one evidence numbering: an agent run, a conversation, or every call."""

# Parses the call into a JSON object and nothing more: the core validates the arguments.
_JSON_OBJECT = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


def _validator(spec: ToolSpec) -> Any:
    # `ctx` is positional-only, so a model-sent argument named "ctx" lands in `args` (and is refused by the core).
    def validate(ctx: RunContext[Any], /, **args: Any) -> None:
        try:
            spec.validate(args)
        except ToolError as err:
            raise ModelRetry(str(err)) from err

    return validate


class GraphRAGToolset(AbstractToolset[Any]):
    """The tools a :class:`GraphRAGToolkit` offers (``tool_specs()``), as one pydantic-ai toolset.

    Args:
        toolkit: the graph toolkit (or a session of it).
        scope: ``"per_run"`` (default): each agent run gets its own evidence session; ``"per_conversation"``: runs
            sharing a ``conversation_id`` share one; ``"shared"``: every run uses ``toolkit``'s own session.
        max_retries: retries a tool gets after a ToolError (default: the agent's).
        max_chars: the size of the text each result shows the model (None: each result's default, 4,400
            characters for ``retrieve`` and 8,000 for the others).
        max_sessions: run or conversation sessions kept, least recently used forgotten first.
        id: the toolset's id (needed for durable execution such as Temporal).
        prefix: put before every tool name (``"kg_"`` gives ``kg_retrieve``, ...); 1-32 letters, digits, ``_``
            or ``-``.

    Example::

        agent = Agent(model, toolsets=[GraphRAGToolset(toolkit)])
    """

    def __init__(self, toolkit: GraphRAGToolkit, *, scope: PydanticAIScope = "per_run", max_retries: int | None = None,
                 max_chars: int | None = None, max_sessions: int = DEFAULT_MAX_SESSIONS, id: str | None = None,
                 prefix: str = "") -> None:
        if scope not in ("per_run", "per_conversation", "shared"):
            raise ValueError(f"scope must be 'per_run', 'per_conversation' or 'shared', not {scope!r}")
        self.toolkit = toolkit
        self.scope: PydanticAIScope = scope
        self.max_retries = max_retries
        self.max_chars = max_chars
        self._id = id
        self.prefix = check_prefix(prefix)
        self._pool = SessionPool(toolkit, per_key=scope != "shared", capacity=max_sessions)

    @property
    def id(self) -> str | None:
        """The id given at construction."""
        return self._id

    def _key(self, ctx: RunContext[Any]) -> str | None:
        return ctx.conversation_id if self.scope == "per_conversation" else ctx.run_id

    def session_for(self, run: RunContext[Any] | str | None) -> GraphRAGToolkit:
        """The evidence session of a run: its ``RunContext``, or its ``run_id`` / ``conversation_id`` (per scope).

        Use it to check an answer against the numbering the run's tools used, e.g. in an output validator or after
        ``agent.run`` (``toolset.session_for(result.run_id)``). A key never seen gets a new, empty session.
        """
        key = self._key(run) if isinstance(run, RunContext) else run
        return self._pool.session_for(key)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """One tool per spec, with the core's JSON Schema and a validator that runs the core's input model."""
        retries = self.max_retries if self.max_retries is not None else ctx.max_retries
        specs = self.toolkit.tool_specs()
        refuse_duplicate_names((self.prefix + spec.name for spec in specs), "the GraphRAGToolset")
        return {
            self.prefix + spec.name: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=self.prefix + spec.name,
                    description=spec.description,
                    parameters_json_schema=spec.input_schema,
                    metadata={"annotations": spec.annotations.as_mcp()},
                ),
                max_retries=retries,
                args_validator=_JSON_OBJECT,
                args_validator_func=_validator(spec),
            )
            for spec in specs
        }

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> ToolReturn[str]:
        """Run the tool in the run's evidence session; the model reads the text, ``metadata`` is the typed result."""
        core_name = name.removeprefix(self.prefix) if self.prefix else name
        result = await call_tool(self.session_for(ctx), core_name, tool_args, lambda err: ModelRetry(str(err)))
        return ToolReturn(return_value=llm_text(result, self.max_chars), metadata=result)
