"""What the framework adapters share: evidence sessions per conversation, and the wrong-event-loop error.

Imports no framework.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from ..errors import ConfigurationError
from ..tools.toolkit import GraphRAGToolkit

__all__ = ["DEFAULT_MAX_SESSIONS", "SessionPool", "wrong_loop_error"]

DEFAULT_MAX_SESSIONS = 64
"""Conversations whose evidence an adapter keeps; the least recently used one is forgotten first."""

_LOOP_MESSAGES = ("attached to a different loop", "Event loop is closed")


@dataclass
class SessionPool:
    """Hands out one :class:`GraphRAGToolkit` session per key (a run, thread or conversation id).

    A ``None`` key, or a pool built with ``per_key=False``, always gets ``base``: one numbering shared by every
    caller. A forgotten conversation loses its evidence; citing it then checks as invalid.
    """

    base: GraphRAGToolkit
    """The session every caller without a key shares."""
    per_key: bool
    """Give each key its own session (``base.new_session()``)."""
    capacity: int = DEFAULT_MAX_SESSIONS
    """Keyed sessions kept; the least recently used is dropped first."""
    _sessions: OrderedDict[str, GraphRAGToolkit] = field(default_factory=OrderedDict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.capacity < 1:
            raise ValueError(f"max_sessions must be at least 1, not {self.capacity}")

    def get(self, key: str | None) -> GraphRAGToolkit:
        """The session of ``key``, made on first use."""
        if not self.per_key or key is None:
            return self.base
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = self.base.new_session()
            while len(self._sessions) > self.capacity:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(key)
        return session

    def peek(self, key: str | None) -> GraphRAGToolkit | None:
        """The session of ``key`` if there is one (``base`` without a key or per-key sessions); makes none."""
        if not self.per_key or key is None:
            return self.base
        return self._sessions.get(key)


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
