"""Where each command goes on a remote topology: one server, a Redis Cluster, a primary with replicas, Sentinel.

A FalkorDB graph is one key, so a cluster client sends every query of a graph to the shard holding its slot;
commands that name no key are routed here: ``GRAPH.LIST`` goes to every primary and the names are merged. With
``read_from=replicas``, read-only queries go to a replica that has replayed this process's last write (its
``ROLE`` offset at least the primary's offset right after that write), else to the primary: a session reads its
own writes. Reads that decide a write (inside :func:`primary_reads`, a method marked :func:`decides_writes`, or
the write lock) go to the primary whatever ``read_from`` says: another process's writes may not have reached a
replica yet. With ``wait=N`` each write is followed, on the same connection, by ``WAIT N timeout``, and a write
fewer replicas confirmed is not acknowledged.

Every client here is built without redis-py's own retries: a command resent after a lost reply may be a write
that was committed, so whether to retry is decided once, in :mod:`.graph`, by what the command is.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar
from urllib.parse import unquote, urlsplit

from ..errors import ConfigurationError, NotAcknowledged
from .connection import StoreAddress, Topology, client_kwargs, mask_secrets

__all__ = ["NotAcknowledged", "Routes", "WriteMark", "decides_writes", "detect_cluster", "make_routes",
           "primary_reads"]

P = ParamSpec("P")
T = TypeVar("T")

_REPLICA_PAUSE_S = 5.0
"""A replica that failed a read is skipped for this long (its reads go to the primary)."""
_REDISCOVER_S = 30.0
"""The replicas are listed again this often (one that joined, or a failover that changed them)."""


_DECIDING: contextvars.ContextVar[bool] = contextvars.ContextVar("graphrag_reads_on_primary", default=False)
"""True while the running task's reads decide a write (the tasks it starts inherit it)."""


@contextlib.contextmanager
def primary_reads() -> Iterator[None]:
    """Send every read of this block, and of the tasks it starts, to the primary, whatever ``read_from`` says.

    For the reads whose answer decides a write (is the document stored, at which version, which entity to merge
    into): a replica may not have another process's latest writes yet, and a write decided on it would be wrong.
    """
    token = _DECIDING.set(True)
    try:
        yield
    finally:
        _DECIDING.reset(token)


def decides_writes(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Run the coroutine ``method`` inside :func:`primary_reads` (a write operation: every read it makes decides
    what it writes)."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with primary_reads():
            return await method(*args, **kwargs)

    return wrapper


@dataclass
class WriteMark:
    """The primary's replication offset right after this process's last write, shared by the clients of every
    event loop (a write on one loop is read back on another); 0: nothing written, nothing to wait for."""

    offset: int = 0


def _no_retry() -> Any:
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return Retry(NoBackoff(), 0)


def detect_cluster(address: StoreAddress) -> bool:
    """Whether the server at ``address`` is a Redis Cluster node (``INFO server``), checked against ``cluster=``."""
    import redis

    wanted = address.topology.cluster
    if address.topology.sentinels:
        return False
    client = redis.Redis.from_url(address.client_url, decode_responses=True, **client_kwargs(address))
    try:
        mode = str(client.info(section="server").get("redis_mode", "standalone"))
    finally:
        client.close()
    if wanted and mode != "cluster":
        raise ConfigurationError(
            f"cluster=yes (or FALKOR_CLUSTER=1) is set, but {mask_secrets(address.url or '')} is a {mode} server. "
            "Fix: point the URL at a node of the cluster, or drop the cluster option.")
    if wanted is False and mode == "cluster":
        raise ConfigurationError(
            f"cluster=no (or FALKOR_CLUSTER=0) is set, but {mask_secrets(address.url or '')} is a cluster node. "
            "Fix: drop the cluster option (a cluster is detected).")
    if mode == "cluster" and (address.topology.read_from_replicas or address.topology.wait_replicas):
        raise ConfigurationError(
            f"{mask_secrets(address.url or '')} is a cluster node: read_from=replicas and wait= are for a primary "
            "with replicas (falkor:// or sentinel://), not yet for a cluster. Fix: drop them (FALKOR_READ_FROM, "
            "FALKOR_WAIT_REPLICAS) for the cluster URL.")
    return mode == "cluster"


class _Commands:
    """What ``falkordb``'s graph handle needs of a client: ``execute_command``, here bound to one server."""

    def __init__(self, routes: Routes, client: Any, primary: bool) -> None:
        self._routes = routes
        self._client = client
        self._primary = primary

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        if self._primary and args and args[0] == "GRAPH.QUERY" and self._routes.confirms_writes:
            return await self._routes.confirmed_write(args)
        return await self._client.execute_command(*args, **options)


@dataclass
class _Replica:
    client: Any
    name: str
    offset: int = 0
    """The replication offset it last reported."""
    paused_until: float = 0.0


@dataclass
class Routes:
    """The clients of one topology on one event loop, and the choice of server for each command."""

    primary: Any
    """The client of the primary (a cluster client, or a Sentinel-managed one, for those topologies)."""
    topology: Topology
    cluster: bool = False
    sentinel: Any = None
    """The Sentinel client (``sentinel://`` only)."""
    replicas: list[_Replica] = field(default_factory=list)
    replica_kwargs: dict[str, Any] = field(default_factory=dict)
    """Connection options for a replica's client (timeouts, TLS, password: those of the primary)."""
    mark: WriteMark = field(default_factory=WriteMark)
    """Where this process's last write left the primary's replication offset."""
    discovered_at: float | None = None

    @property
    def confirms_writes(self) -> bool:
        """Whether a write is followed by ``WAIT`` or an offset read (replicas in use)."""
        return not self.cluster and (self.topology.wait_replicas > 0 or self.topology.read_from_replicas)

    def commands(self, server: Any) -> Any:
        """The ``execute_command`` holder for a graph handle on ``server`` (the primary or a replica)."""
        return _Commands(self, server, primary=server is self.primary)

    async def confirmed_write(self, args: tuple[Any, ...]) -> Any:
        """Run a write; then, on the same connection, WAIT for replicas and/or read the offset it reached."""
        wait = self.topology.wait_replicas
        pipe = self.primary.pipeline(transaction=False)
        pipe.execute_command(*args)
        if wait:
            pipe.execute_command("WAIT", wait, self.topology.wait_timeout_ms)
        pipe.execute_command("ROLE")
        replies = await pipe.execute()
        role = replies[-1]
        if isinstance(role, (list, tuple)) and role and role[0] == "master":
            self.mark.offset = max(self.mark.offset, int(role[1]))
        if wait and int(replies[1]) < wait:
            raise NotAcknowledged(
                f"The write ran on the primary, but only {int(replies[1])} of the {wait} replicas that wait= asks "
                f"for confirmed it within {self.topology.wait_timeout_ms} ms, so it is not acknowledged: a "
                "failover now could lose it. Fix: check the replicas (ROLE on the primary), raise wait_timeout_ms, "
                "or repeat the call (ingest skips documents stored unchanged).")
        return replies[0]

    async def read_client(self) -> Any:
        """A replica that has this process's writes, else the primary (never a replica without the option, nor for
        a read that decides a write: :func:`primary_reads`)."""
        if not self.topology.read_from_replicas or self.cluster or _DECIDING.get():
            return self.primary
        now = time.monotonic()
        if self.discovered_at is None or now - self.discovered_at > _REDISCOVER_S:
            await self._discover()
        live = [r for r in self.replicas if r.paused_until <= now]
        if not live:
            return self.primary
        written = self.mark.offset
        if max(r.offset for r in live) < written:
            for replica in live:
                await self._refresh_offset(replica)
            if max(r.offset for r in live) < written:
                return self.primary  # read-your-writes: no replica has replayed our last write yet
        # Spread reads over every caught-up replica.
        fresh = [r for r in live if r.offset >= written]
        chosen = fresh[int(now * 1000) % len(fresh)]
        return chosen.client

    async def _refresh_offset(self, replica: _Replica) -> None:
        try:
            role = await replica.client.execute_command("ROLE")
            replica.offset = int(role[4]) if role and role[0] == "slave" else -1
        except Exception:
            self.pause(replica.client)

    def pause(self, client: Any) -> None:
        """Skip the replica behind ``client`` for a while (it failed a read); a no-op for the primary."""
        for replica in self.replicas:
            if replica.client is client:
                replica.paused_until = time.monotonic() + _REPLICA_PAUSE_S
                replica.offset = 0

    async def _discover(self) -> None:
        """Find the replicas: from Sentinel, or from ``ROLE`` on the primary."""
        import redis.asyncio as aredis

        self.discovered_at = time.monotonic()
        if self.sentinel is not None:
            found = [(str(h), int(p)) for h, p in await self.sentinel.discover_slaves(self.topology.service)]
        else:
            role = await self.primary.execute_command("ROLE")
            found = [(str(item[0]), int(item[1])) for item in role[2]] if role and role[0] == "master" else []
        known = {r.name: r for r in self.replicas}
        replicas: list[_Replica] = []
        for host, port in found:
            name = f"{host}:{port}"
            replica = known.pop(name) if name in known else None
            replicas.append(replica or _Replica(aredis.Redis(host=host, port=port, **self.replica_kwargs), name))
        for gone in known.values():
            await gone.client.aclose()
        self.replicas = replicas

    async def list_graphs(self) -> list[str]:
        """Every graph name: from each primary of a cluster (merged), else from the primary."""
        if not self.cluster:
            return [str(name) for name in await self.primary.execute_command("GRAPH.LIST")]
        await self.primary.initialize()
        names: set[str] = set()
        for node in self.primary.get_primaries():
            names.update(str(n) for n in await self.primary.execute_command("GRAPH.LIST", target_nodes=node))
        return sorted(names)

    async def ping(self) -> None:
        """One round trip to the primary (each primary of a cluster)."""
        await self.primary.ping()

    async def aclose(self) -> None:
        """Close every client."""
        for replica in self.replicas:
            await replica.client.aclose()
        await self.primary.aclose()
        if self.sentinel is not None:
            for client in self.sentinel.sentinels:
                await client.aclose()


def make_routes(address: StoreAddress, cluster: bool, mark: WriteMark | None = None) -> Routes:
    """The clients for ``address`` (built off any loop; they connect on first use), sharing ``mark``."""
    import redis.asyncio as aredis

    kwargs = client_kwargs(address) | {"decode_responses": True, "retry": _no_retry()}
    parts = urlsplit(address.url or "")
    auth = {k: unquote(v) for k, v in (("username", parts.username), ("password", parts.password)) if v}
    replica_kwargs = kwargs | auth | ({"ssl": True} if address.tls else {})
    topology = address.topology
    if topology.sentinels:
        from redis.asyncio.sentinel import Sentinel

        timeouts = {k: v for k, v in kwargs.items() if k.startswith("socket_")}
        connection: dict[str, Any] = kwargs | auth  # typed as Any: redis 8 types Sentinel's own keywords
        sentinel = Sentinel(list(topology.sentinels), sentinel_kwargs=timeouts | {"decode_responses": True},
                            **connection)
        primary = sentinel.master_for(topology.service)
        return Routes(primary, topology, sentinel=sentinel, replica_kwargs=replica_kwargs, mark=mark or WriteMark())
    if cluster:
        from redis.asyncio.cluster import RedisCluster

        return Routes(RedisCluster.from_url(address.client_url, require_full_coverage=True, **kwargs), topology,
                      cluster=True)
    return Routes(aredis.from_url(address.client_url, **kwargs), topology, replica_kwargs=replica_kwargs,
                  mark=mark or WriteMark())
