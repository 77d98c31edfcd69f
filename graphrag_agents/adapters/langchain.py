"""The graph tools as LangChain ``StructuredTool`` s, for ``langchain.agents.create_agent``, LangGraph's ``ToolNode``
and ``create_react_agent``, and your own ``StateGraph``.

Each tool is a thin wrapper over one :class:`~graphrag_agents.tools.spec.ToolSpec`:

* ``args_schema`` is the core's JSON Schema (a dict), so the model sees exactly the core's schema and LangChain
  neither validates nor coerces the arguments; the tool also hands the argument mapping to the core whole, so keys
  LangChain reserves for itself (``config``, ``run_manager``, ``callbacks``) are not swallowed either. The core's
  input model validates every call (``ToolSpec.validate``).
* ``response_format="content_and_artifact"``: the ``ToolMessage`` content is ``to_llm_text()``, its ``artifact`` the
  typed result with its numbered evidence (``RetrieveResult``, ``CitationCheck``, ...). A checkpointer may store the
  artifact as its JSON data; ``RetrieveResult.model_validate(message.artifact)`` restores it.
* Failures come back as error ``ToolMessage`` s (``status="error"``, LangChain's ``handle_tool_error``
  convention), so the run goes on and the model can read them: a :class:`~graphrag_agents.errors.ToolError` with
  its hint; any other failure (the database down, the graph closed, ...) with its real cause, its ``Fix:`` and
  what the model should do (the traceback goes to the ``graphrag_agents.adapters`` log). ``handle_errors=False``
  lets those other failures propagate instead.
* ``prefix="kg_"`` names the tools ``kg_retrieve``, ``kg_status``, ... next to other tools of those names;
  ``alongside=[...]`` returns your other tools with the graph tools and refuses a name used twice (LangChain and
  LangGraph would silently keep one).
* ``metadata["annotations"]`` holds the four MCP annotations (``readOnlyHint``, ...).
* One evidence numbering per conversation: every tool of one call shares the session it was given
  (``scope="shared"``), or each LangGraph thread (``config["configurable"]["thread_id"]``) gets its own
  (``scope="per_thread"``), so ``check_citations`` checks citations from any earlier call of that conversation.

The sync path (``tool.invoke``, a sync ``graph.invoke``) runs the coroutine on the event loop that owns the graph's
connection when that loop is running in another thread (the tools remember the loop they were made or last awaited
on), otherwise on a private background loop; it never calls ``asyncio.run`` inside a running loop. A fully
synchronous app opens its graph with :func:`run_sync` so both share that background loop.

Example (``langchain.agents.create_agent``, LangChain 1.x; ``langgraph.prebuilt.create_react_agent`` takes the
same tools)::

    tools = as_langchain_tools(toolkit.new_session(), prefix="kg_")
    agent = create_agent(model, tools)
    await agent.ainvoke({"messages": [("user", "Where does Alice work?")]})
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, PrivateAttr

from .._install import pip_extra
from ..errors import ConfigurationError, ToolError
from ..tools.results import ToolResult, llm_text
from ..tools.spec import ToolSpec
from ..tools.toolkit import GraphRAGToolkit
from ._shared import (
    DEFAULT_MAX_SESSIONS,
    SessionPool,
    call_tool,
    check_prefix,
    failure_text,
    refuse_duplicate_names,
)

try:
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, BaseToolkit, StructuredTool, ToolException
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    raise ConfigurationError(
        "The LangChain adapter needs langchain-core and langgraph. Fix: " + pip_extra("langchain")
    ) from _exc

__all__ = ["GraphRAGLangChainToolkit", "LangChainScope", "as_langchain_tools", "run_sync"]

T = TypeVar("T")
LangChainScope = Literal["shared", "per_thread"]
"""``shared``: one evidence numbering for every call; ``per_thread``: one per LangGraph ``thread_id``."""

LOOP_PICKUP_SECONDS = 30.0
"""How long the sync path waits for a busy owner loop to start the call before it reports a blocked loop."""


# -- running coroutines from the sync path -------------------------------------------------------------------

_background: asyncio.AbstractEventLoop | None = None
_background_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    global _background
    with _background_lock:
        if _background is None or _background.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="graphrag-agents-loop", daemon=True).start()
            _background = loop
        return _background


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _submit(factory: Callable[[], Awaitable[T]], loop: asyncio.AbstractEventLoop) -> T:
    """Run ``factory()`` on ``loop`` (running in another thread) and wait for its result."""
    if loop is _running_loop():
        raise ConfigurationError(
            "A graph tool (or run_sync) was called synchronously on the very event loop that must run it, which "
            "would block that loop forever. Fix: await the async API there (tool.ainvoke, graph.ainvoke / astream)."
        )
    started = threading.Event()

    async def job() -> T:
        started.set()
        return await factory()

    future = asyncio.run_coroutine_threadsafe(job(), loop)
    if not started.wait(LOOP_PICKUP_SECONDS):
        future.cancel()
        raise ConfigurationError(
            f"The event loop that owns the graph's connection did not start the tool call within "
            f"{LOOP_PICKUP_SECONDS:g} s: it is blocked, probably by a synchronous call such as graph.invoke() made "
            "from async code. Fix: use the async API there (graph.ainvoke / astream)."
        )
    return future.result()


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run ``awaitable`` on the background event loop that the tools' sync path uses, and return its result.

    For fully synchronous apps: open the graph with it so its connection lives on the loop the tools run on.

    Example::

        kg = run_sync(KnowledgeGraph.open(graph="notes"))
        tools = as_langchain_tools(GraphRAGToolkit(kg, read_only=True))
        graph.invoke(...)        # a sync LangGraph app
    """

    async def wait() -> T:
        return await awaitable

    return _submit(wait, _background_loop())


class _LoopRouter:
    """Remembers the loop that owns the graph's connection: the one the tools were made or last awaited on."""

    def __init__(self) -> None:
        self.home = _running_loop()

    def remember(self) -> None:
        self.home = _running_loop()

    def run(self, factory: Callable[[], Awaitable[T]]) -> T:
        home = self.home
        if home is not None and home.is_running() and not home.is_closed():
            return _submit(factory, home)
        return _submit(factory, _background_loop())


# -- the tools ----------------------------------------------------------------------------------------------


class _CoreArgsTool(StructuredTool):
    """A StructuredTool whose raw argument mapping goes to the core whole (see the module docstring)."""

    def _to_args_and_kwargs(self, tool_input: str | dict[str, Any],
                            tool_call_id: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # BaseTool would validate against args_schema (a no-op for a dict schema) and spread the mapping as keyword
        # arguments, where its own `config` / `run_manager` then overwrite model-sent keys of those names.
        return (tool_input,), {}


def _thread_id(config: RunnableConfig | None) -> str | None:
    thread = ((config or {}).get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def _error_text(error: ToolError) -> str:
    return f"Error: {error.message}" + (f"\nHint: {error.hint}" if error.hint else "")


def _tool(spec: ToolSpec, pool: SessionPool, router: _LoopRouter, options: _Options) -> StructuredTool:
    name = spec.name
    failure = (lambda exc: ToolException(failure_text(name, exc))) if options.handle_errors else None

    async def acall(args: Any, config: RunnableConfig) -> tuple[str, ToolResult]:
        router.remember()
        result = await call_tool(pool.session_for(_thread_id(config)), name, args,
                                 lambda err: ToolException(_error_text(err)), failure)
        return llm_text(result, options.max_chars), result

    def call(args: Any, config: RunnableConfig) -> tuple[str, ToolResult]:
        return router.run(lambda: acall(args, config))

    return _CoreArgsTool(
        name=options.prefix + name,
        description=spec.description,
        args_schema=spec.input_schema,
        func=call,
        coroutine=acall,
        response_format="content_and_artifact",
        handle_tool_error=True,
        metadata={"annotations": spec.annotations.as_mcp()},
    )


class _Options:
    """How the tools of one :func:`as_langchain_tools` call are built."""

    def __init__(self, prefix: str, max_chars: int | None, handle_errors: bool) -> None:
        self.prefix = check_prefix(prefix)
        self.max_chars = max_chars
        self.handle_errors = handle_errors


def _build(pool: SessionPool, options: _Options) -> list[StructuredTool]:
    router = _LoopRouter()
    return [_tool(spec, pool, router, options) for spec in pool.base.tool_specs()]


def _pool(session: GraphRAGToolkit, scope: LangChainScope, max_sessions: int) -> SessionPool:
    if scope not in ("shared", "per_thread"):
        raise ValueError(f"scope must be 'shared' or 'per_thread', not {scope!r}")
    return SessionPool(session, per_key=scope == "per_thread", capacity=max_sessions)


def as_langchain_tools(session: GraphRAGToolkit, *, prefix: str = "", alongside: Sequence[BaseTool] = (),
                       scope: LangChainScope = "shared", max_sessions: int = DEFAULT_MAX_SESSIONS,
                       max_chars: int | None = None, handle_errors: bool = True) -> list[BaseTool]:
    """The tools ``session.tool_specs()`` offers, as LangChain StructuredTools.

    Args:
        session: a toolkit (it is itself a session) or ``toolkit.new_session()``.
        prefix: put before every tool name (``"kg_"`` gives ``kg_retrieve``, ...) so they cannot collide with
            other tools; 1-32 letters, digits, ``_`` or ``-``.
        alongside: your other tools; they come first in the returned list, and a name used twice raises
            :class:`~graphrag_agents.errors.ConfigurationError` (use ``prefix``).
        scope: ``"shared"`` numbers evidence once for every call of these tools (one conversation);
            ``"per_thread"`` gives each LangGraph thread (``configurable.thread_id``) its own session, calls
            without a thread id use ``session``.
        max_sessions: threads whose evidence ``per_thread`` keeps, least recently used forgotten first.
        max_chars: the size of the text each result shows the model (None: each result's default, 4,400
            characters for ``retrieve`` and 8,000 for the others).
        handle_errors: return failures that are not a ToolError (database down, graph closed) as error
            ToolMessages with their cause and fix (default); False lets them propagate out of the run.

    Returns:
        ``alongside``, then one StructuredTool per graph tool, ``response_format="content_and_artifact"``: the
        content is the result's ``to_llm_text()``, the artifact the typed result.

    Raises:
        ConfigurationError: a tool name occurs twice.

    Example::

        tools = as_langchain_tools(toolkit.new_session(), prefix="kg_", alongside=[web_search])
        graph.add_node("tools", ToolNode(tools))
    """
    ours = _build(_pool(session, scope, max_sessions), _Options(prefix, max_chars, handle_errors))
    tools: list[BaseTool] = [*alongside, *ours]
    refuse_duplicate_names((t.name for t in tools), "the tools for LangChain")
    return tools


class GraphRAGLangChainToolkit(BaseToolkit):
    """A LangChain ``BaseToolkit`` over a graph toolkit: ``get_tools()`` returns :func:`as_langchain_tools`' tools.

    Example::

        lc = GraphRAGLangChainToolkit(toolkit=toolkit, scope="per_thread")
        agent = create_agent(model, lc.get_tools(), checkpointer=InMemorySaver())
        ...
        check = await lc.session_for(config).check_citations(draft)
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    toolkit: GraphRAGToolkit
    """The graph toolkit, or one of its sessions."""
    scope: LangChainScope = "shared"
    """``shared`` or ``per_thread``, as in :func:`as_langchain_tools`."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """Threads whose evidence ``per_thread`` keeps."""
    max_chars: int | None = None
    """The size of the text each result shows the model."""
    prefix: str = ""
    """Put before every tool name, as in :func:`as_langchain_tools`."""
    handle_errors: bool = True
    """Return failures other than ToolErrors as error ToolMessages, as in :func:`as_langchain_tools`."""
    _pool: SessionPool = PrivateAttr()
    _tools: list[StructuredTool] = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Build the tools once, so every ``get_tools()`` call shares one set of sessions."""
        self._pool = _pool(self.toolkit, self.scope, self.max_sessions)
        self._tools = _build(self._pool, _Options(self.prefix, self.max_chars, self.handle_errors))

    def get_tools(self) -> list[BaseTool]:
        """The graph tools, sharing this toolkit's sessions."""
        return list(self._tools)

    def session_for(self, config: RunnableConfig | None = None) -> GraphRAGToolkit:
        """The evidence session the tools use for ``config`` (its ``thread_id`` under ``per_thread``).

        Use it to check a draft against the same numbering: ``await lc.session_for(config).check_citations(text)``.
        """
        return self._pool.session_for(_thread_id(config))

