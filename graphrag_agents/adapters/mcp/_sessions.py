"""Toolkit sessions of an MCP server: one per client connection, or per HTTP client in a bounded store.

Each session is a :meth:`GraphRAGToolkit.new_session` copy, so its evidence numbering is its own. A server over
HTTP sees many clients; without a bound, a flood of new clients would keep a ledger each until memory runs out,
and with only a bound, a flood (300 retrieves under fresh ``X-GraphRAG-Client`` ids, no token needed on loopback)
pushed out another client's numbering, whose check of its own citations then said "not grounded". So
:class:`SessionStore`, the adapters' :class:`~graphrag_agents.adapters._shared.SessionPool` with three changes:

- **a rate per peer** (the request's address): a peer may create an eighth of the capacity at once (32 of the
  default 256), then a 128th of it a second (2), so one peer needs about two minutes to refill the store. A
  request over it is served in a session of its own that is not kept (its result says so), so it evicts nobody;
- **eviction order**: when the store is full, the least recently used session that never issued evidence goes
  first (a client that connected and did nothing), then the least recently used session of the peer holding the
  most sessions (a flood loses its own sessions first), then the least recently used one;
- **expiry is said**: a client whose session was evicted gets a new one marked ``expired``, and its check of old
  numbers says "this session's evidence expired; call retrieve again" instead of "not grounded".
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Literal

from ...tools.toolkit import GraphRAGToolkit
from .._shared import SessionPool

__all__ = ["ConnectionSession", "SessionState", "SessionStore"]

SessionState = Literal["kept", "expired", "throttled"]
"""``kept``: the client's session (made now or earlier); ``expired``: made now for a client whose session was
evicted; ``throttled``: a session for this request only, because its peer creates sessions too fast."""


@dataclass
class _Bucket:
    tokens: float
    at: float


class SessionStore(SessionPool):
    """HTTP client sessions by client key, most recently used last.

    Args:
        toolkit: the toolkit sessions are made from (``new_session()``).
        capacity: sessions kept at most.
        burst: new sessions one peer may create at once (default: an eighth of ``capacity``).
        per_second: new sessions one peer may create per second after the burst (default: ``capacity / 128``;
            a client that keeps its id, cookie or MCP session creates one in all).
    """

    def __init__(self, toolkit: GraphRAGToolkit, capacity: int, *, burst: int | None = None,
                 per_second: float | None = None) -> None:
        super().__init__(toolkit, per_key=True, capacity=capacity)
        self.burst = max(1, capacity // 8) if burst is None else burst
        self.per_second = capacity / 128 if per_second is None else per_second
        self._peers: dict[str, _Bucket] = {}
        self._peer_of: dict[str, str] = {}
        self._gone: OrderedDict[str, None] = OrderedDict()  # evicted keys, to say "expired" (bounded)

    def known(self, key: str) -> bool:
        """Whether ``key`` has a session here, or had one that was evicted."""
        return key in self or key in self._gone

    def lookup(self, key: str, peer: str | None = None) -> tuple[GraphRAGToolkit, SessionState]:
        """The session of ``key`` and its state; a new key counts against ``peer``'s rate."""
        if key in self:
            return self.get(key), "kept"
        if peer is not None and not self._take(peer):
            return self.base.new_session(), "throttled"
        expired = key in self._gone
        self._gone.pop(key, None)
        if peer is not None:
            self._peer_of[key] = peer
        return self.get(key), "expired" if expired else "kept"

    def _take(self, peer: str) -> bool:
        now = time.monotonic()
        bucket = self._peers.get(peer)
        if bucket is None:
            if len(self._peers) >= 4 * self.capacity:  # forget the peers that have refilled: bounded memory
                self._peers = {p: b for p, b in self._peers.items()
                               if b.tokens + (now - b.at) * self.per_second < self.burst}
            bucket = self._peers[peer] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.per_second)
        bucket.at = now
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def get(self, key: str) -> GraphRAGToolkit:
        before = set(self._sessions) if len(self._sessions) >= self.capacity and key not in self else None
        session = super().get(key)
        for gone in (before or set()) - set(self._sessions):
            self._peer_of.pop(gone, None)
            self._gone[gone] = None
            while len(self._gone) > 16 * self.capacity:
                self._gone.popitem(last=False)
        return session

    def _victim(self, keep: str) -> str:
        # Sessions that never issued evidence cost a client nothing to lose: they go first.
        idle = next((k for k, s in self._sessions.items() if k != keep and len(s.ledger) == 0), None)
        if idle is not None:
            return idle
        held = Counter(self._peer_of.get(k) for k in self._sessions if k != keep and k in self._peer_of)
        if held:
            heaviest = held.most_common(1)[0][0]
            return next(k for k in self._sessions if k != keep and self._peer_of.get(k) == heaviest)
        return super()._victim(keep)


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
