"""Toolkit sessions of an MCP server: one per client connection, or per HTTP client in a bounded store.

Each session is a :meth:`GraphRAGToolkit.new_session` copy, so its evidence numbering is its own. A server over
HTTP sees many clients; without a bound, a flood of new clients would keep a ledger each until memory runs out.
:class:`SessionStore` is the adapters' :class:`~graphrag_agents.adapters._shared.SessionPool` with another
eviction order: when the store is full, the least recently used session that never issued evidence goes first
(a client that connected and did nothing, or a flood of one-request clients), then the least recently used one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...tools.toolkit import GraphRAGToolkit
from .._shared import SessionPool

__all__ = ["ConnectionSession", "SessionStore"]


class SessionStore(SessionPool):
    """HTTP client sessions by client key, most recently used last.

    Args:
        toolkit: the toolkit sessions are made from (``new_session()``).
        capacity: sessions kept at most.
    """

    def __init__(self, toolkit: GraphRAGToolkit, capacity: int) -> None:
        super().__init__(toolkit, per_key=True, capacity=capacity)

    def _victim(self, keep: str) -> str:
        # Sessions that never issued evidence cost a client nothing to lose: they go first.
        idle = next((k for k, s in self._sessions.items() if k != keep and len(s.ledger) == 0), None)
        return idle if idle is not None else super()._victim(keep)


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
