"""Toolkit sessions of an MCP server: one per client connection, or per HTTP client in a bounded store.

Each session is a :meth:`GraphRAGToolkit.new_session` copy, so its evidence numbering is its own. A server over
HTTP sees many clients, so :class:`SessionStore` (the adapters' :class:`~graphrag_agents.adapters._shared.SessionPool`)
bounds them, fairly between clients:

- **a rate of new sessions per address** (the request's address, see ``_peers``; an IPv6 address's whole /64): a
  token bucket holding an eighth of the capacity (32 of the default 256), refilled at a 128th of it a second (2),
  so one address needs about two minutes to replace every session. A call that would need a new session past the
  rate is refused with :class:`SessionRefused` ("Too many new sessions from your address (...): retry in N s"); it
  runs nowhere, so it evicts nobody and its client never sees "not grounded" for evidence it was never given. A
  client that keeps its id, cookie or MCP session needs one new session in all;
- **eviction by idleness**: when the store is full, a session that never issued evidence goes first (its client
  loses nothing), then the least recently used one, whatever its address, so clients behind one address (a NAT,
  an office proxy) keep their sessions while they work;
- **expiry is said**: a client whose session was evicted gets a new one marked ``expired``, and its check of old
  numbers says "this session's evidence expired; call retrieve again" instead of "not grounded".
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

from ...errors import SessionRefused
from ...tools.toolkit import GraphRAGToolkit
from .._shared import SessionPool
from ._peers import rate_key

__all__ = ["ConnectionSession", "SessionRefused", "SessionState", "SessionStore"]

SessionState = Literal["kept", "expired"]
"""``kept``: the client's session (made now or earlier); ``expired``: made now for a client whose session was
evicted."""


@dataclass
class _Bucket:
    tokens: float
    at: float


class SessionStore(SessionPool):
    """HTTP client sessions by client key, most recently used last.

    Args:
        toolkit: the toolkit sessions are made from (``new_session()``).
        capacity: sessions kept at most.
        burst: new sessions one address may create at once (default: an eighth of ``capacity``).
        per_second: new sessions one address may create per second after the burst (default: ``capacity / 128``).
    """

    def __init__(self, toolkit: GraphRAGToolkit, capacity: int, *, burst: int | None = None,
                 per_second: float | None = None) -> None:
        super().__init__(toolkit, per_key=True, capacity=capacity)
        self.burst = max(1, capacity // 8) if burst is None else burst
        self.per_second = capacity / 128 if per_second is None else per_second
        self._buckets: dict[str, _Bucket] = {}
        self._gone: OrderedDict[str, None] = OrderedDict()  # evicted keys, to say "expired" (bounded)

    def lookup(self, key: str, peer: str | None = None) -> tuple[GraphRAGToolkit, SessionState]:
        """The session of ``key`` and its state; a new key counts against ``peer``'s rate (:class:`SessionRefused`
        past it)."""
        if key in self:
            return self.get(key), "kept"
        if peer is not None:
            self._take(rate_key(peer))
        expired = key in self._gone
        self._gone.pop(key, None)
        return self.get(key), "expired" if expired else "kept"

    def _take(self, address: str) -> None:
        now = time.monotonic()
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= 4 * self.capacity:  # forget the addresses that have refilled: bounded memory
                self._buckets = {a: b for a, b in self._buckets.items()
                                 if b.tokens + (now - b.at) * self.per_second < self.burst}
            bucket = self._buckets[address] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.per_second)
        bucket.at = now
        if bucket.tokens < 1:
            wait = math.ceil((1 - bucket.tokens) / self.per_second) if self.per_second > 0 else 3600
            raise SessionRefused(address, max(1, wait), self.burst, self.per_second)
        bucket.tokens -= 1

    def get(self, key: str) -> GraphRAGToolkit:
        before = set(self._sessions) if len(self._sessions) >= self.capacity and key not in self else None
        session = super().get(key)
        for gone in (before or set()) - set(self._sessions):
            self._gone[gone] = None
            while len(self._gone) > 16 * self.capacity:
                self._gone.popitem(last=False)
        return session

    def _victim(self, keep: str) -> str:
        # A session that never issued evidence costs its client nothing to lose; otherwise the longest idle goes.
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
