"""Toolkit sessions of an MCP server: one per client connection, at most ``capacity`` kept (least recent out).

Each session is a :meth:`GraphRAGToolkit.new_session` copy, so its evidence numbering is its own. A server over
HTTP sees many clients; without a bound, a flood of new clients would keep a ledger each until memory runs out.
When the store is full, the least recently used session that never issued evidence goes first (a client that
connected and did nothing, or a flood of one-request clients), then the least recently used one.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from ..tools.toolkit import GraphRAGToolkit

__all__ = ["ConnectionSession", "SessionStore"]


class SessionStore:
    """Toolkit sessions by client key, most recently used last.

    Args:
        toolkit: the toolkit sessions are made from (``new_session()``).
        capacity: sessions kept at most.
    """

    def __init__(self, toolkit: GraphRAGToolkit, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("max_sessions must be at least 1")
        self.toolkit = toolkit
        self.capacity = capacity
        self._sessions: OrderedDict[str, GraphRAGToolkit] = OrderedDict()

    def __contains__(self, key: object) -> bool:
        return key in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, key: str) -> GraphRAGToolkit:
        """The session of ``key`` (created when new), marked as most recently used."""
        session = self._sessions.get(key)
        if session is not None:
            self._sessions.move_to_end(key)
            return session
        session = self.toolkit.new_session()
        self._sessions[key] = session
        while len(self._sessions) > self.capacity:
            self._evict(keep=key)
        return session

    def _evict(self, keep: str) -> None:
        # Sessions that never issued evidence cost a client nothing to lose: they go first.
        victim = next((k for k, s in self._sessions.items() if k != keep and len(s.ledger) == 0), None)
        if victim is None:
            victim = next(k for k in self._sessions if k != keep)
        del self._sessions[victim]


@dataclass
class ConnectionSession:
    """The one session of a connection that has its own server loop (stdio, SSE, in-process clients)."""

    toolkit: GraphRAGToolkit
    session: GraphRAGToolkit | None = field(default=None)

    def get(self) -> GraphRAGToolkit:
        """This connection's session, made on first use."""
        if self.session is None:
            self.session = self.toolkit.new_session()
        return self.session
