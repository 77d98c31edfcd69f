"""What the adapters share: evidence sessions per conversation or client, tool-name prefixes, the wrong-event-loop
error, and the text a model reads when a call fails for a reason that is not a :class:`ToolError`.

Imports no framework.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .._secrets import mask_secrets
from ..errors import ConfigurationError, GraphRAGError, ToolError
from ..tools.results import ToolResult
from ..tools.toolkit import GraphRAGToolkit

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "SessionPool",
    "call_tool",
    "check_prefix",
    "failure_text",
    "refuse_duplicate_names",
    "wrong_loop_error",
]

logger = logging.getLogger("graphrag_agents.adapters")

DEFAULT_MAX_SESSIONS = 64
"""Conversations whose evidence an adapter keeps; the least recently used one is forgotten first."""

_LOOP_MESSAGES = ("attached to a different loop", "Event loop is closed")


@dataclass
class SessionPool:
    """Toolkit sessions by key (a run, thread, conversation or HTTP client), made with ``base.new_session()``.

    Each key gets its own evidence numbering; at most ``capacity`` are kept and, when one more is made, the one
    :meth:`_victim` names is forgotten (here the least recently used). A forgotten key loses its evidence; citing
    it then checks as invalid. :meth:`session_for` gives callers without a key, or a pool built with
    ``per_key=False``, the ``base`` session: one numbering shared by every caller.
    """

    base: GraphRAGToolkit
    """The toolkit sessions are made from, and the session every caller without a key shares."""
    per_key: bool = True
    """Give each key its own session in :meth:`session_for` (otherwise every caller gets ``base``)."""
    capacity: int = DEFAULT_MAX_SESSIONS
    """Keyed sessions kept at most."""
    _sessions: OrderedDict[str, GraphRAGToolkit] = field(default_factory=OrderedDict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.capacity < 1:
            raise ValueError(f"max_sessions must be at least 1, not {self.capacity}")

    def __contains__(self, key: object) -> bool:
        return key in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, key: str) -> GraphRAGToolkit:
        """The session of ``key`` (made on first use), marked as the most recently used."""
        session = self._sessions.get(key)
        if session is not None:
            self._sessions.move_to_end(key)
            return session
        session = self._sessions[key] = self.base.new_session()
        while len(self._sessions) > self.capacity:
            del self._sessions[self._victim(keep=key)]
        return session

    def session_for(self, key: str | None) -> GraphRAGToolkit:
        """The session of ``key``; ``base`` for a ``None`` key or a pool without per-key sessions."""
        if not self.per_key or key is None:
            return self.base
        return self.get(key)

    def _victim(self, keep: str) -> str:
        """The key to forget when the pool is full (never ``keep``, the session just made)."""
        return next(k for k in self._sessions if k != keep)


def wrong_loop_error(exc: BaseException) -> ConfigurationError | None:
    """A ConfigurationError naming the fix when ``exc`` says the graph's connection lives on another event loop.

    The FalkorDB connection belongs to the event loop that opened it; a tool awaited on another loop fails
    deep in asyncio with a message that names neither the graph nor the fix.
    """
    if isinstance(exc, RuntimeError) and any(m in str(exc) for m in _LOOP_MESSAGES):
        return ConfigurationError(
            f"The graph's connection belongs to another event loop ({exc}). Fix: open the KnowledgeGraph on the "
            "event loop that runs the agent (in a synchronous app, open it with "
            "graphrag_agents.adapters.langchain.run_sync(...) so the tools' sync path shares its loop)."
        )
    return None


async def call_tool(session: GraphRAGToolkit, name: str, args: Any,
                    tool_error: Callable[[ToolError], Exception],
                    failure: Callable[[BaseException], Exception] | None = None) -> ToolResult:
    """Run tool ``name`` in ``session``; a :class:`ToolError` becomes the framework's error (``tool_error``), a
    call from the wrong event loop the :func:`wrong_loop_error` that names the fix, and, when ``failure`` is given,
    any other failure (database down, graph closed, ...) becomes ``failure(exc)`` instead of propagating."""
    try:
        return await session.call(name, args)
    except ToolError as err:
        raise tool_error(err) from err
    except Exception as exc:
        cause = wrong_loop_error(exc) if isinstance(exc, RuntimeError) else None
        if failure is None:
            raise (cause or exc) from exc
        logger.error("tool %s failed", name, exc_info=exc)
        raise failure(cause or exc) from exc


# -- what a model reads when a call fails ---------------------------------------------------------------------

_NEXT_STEPS = {
    "timeout": "try again once, or narrow the call (fewer paths, a lower top_k or expand_hops); if it keeps timing "
               "out, tell the user the knowledge graph does not respond.",
    "model provider": "try again in a moment; if it keeps failing, tell the user the model provider behind the "
                      "knowledge graph fails (the developer checks the model name, API key and quota).",
    "database": "try again once; if it keeps failing, tell the user the knowledge graph's database is unavailable "
                "and answer without it (the developer applies the Fix above).",
    "configuration": "do not retry: tell the user the knowledge-graph tool is misconfigured (the developer applies "
                     "the Fix above).",
    "internal": "try again once; if it keeps failing, tell the user the knowledge-graph tool fails (details in "
                "the application log).",
}


def failure_text(tool: str, exc: BaseException) -> str:
    """What a model reads when ``tool`` failed with ``exc`` (not a ToolError): the real cause, with its ``Fix:``
    for our own errors, then a hint naming what the model should do. Secrets are masked."""
    from .mcp._failures import classify  # imports no mcp (the package imports its server lazily)

    kind = classify(exc)
    cause = str(exc) if isinstance(exc, GraphRAGError) else f"{type(exc).__name__}: {exc}"
    return (f"Error: {tool} failed ({kind}): {mask_secrets(cause).strip() or type(exc).__name__}\n"
            f"Hint: {_NEXT_STEPS[kind]}")


# -- tool names -----------------------------------------------------------------------------------------------

_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")


def check_prefix(prefix: str) -> str:
    """``prefix`` when tool names built with it stay valid for every provider (letters, digits, ``_``, ``-``)."""
    if prefix and not _PREFIX.match(prefix):
        raise ValueError(f"Invalid tool-name prefix {prefix!r}: use 1-32 letters, digits, '_' or '-', starting "
                         "with a letter (e.g. 'kg_').")
    return prefix


def refuse_duplicate_names(names: Iterable[str], where: str = "the tool list") -> None:
    """Raise ConfigurationError when a name occurs twice (providers refuse such lists, or silently call one)."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for name in names:
        (repeated if name in seen else seen).add(name)
    twice = sorted(repeated)
    if twice:
        raise ConfigurationError(
            f"Duplicate tool names in {where}: {', '.join(twice)}. Fix: give the graph tools a prefix "
            "(e.g. as_langchain_tools(session, prefix='kg_'), GraphRAGToolset(toolkit, prefix='kg_'), "
            "graphrag-mcp --tool-prefix kg_), or rename the other tool.")
