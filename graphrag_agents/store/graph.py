"""One FalkorDB graph behind a small async API that turns driver failures into errors naming the fix."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import re
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from .._keys import check_params
from ..errors import ConfigurationError, GraphLoading, StoreUnavailable
from ._compact import read_rows
from .connection import (
    StoreAddress,
    check_tls_handshake,
    client_kwargs,
    mask_secrets,
    not_redis,
    remote_fix,
    resolve_address,
)
from .durability import durability_warning, effects_threshold
from .embedded import EmbeddedServer, acquire_server, release_server
from .log_rewrite import rewrite_append_only_file
from .routing import Routes, WriteMark, detect_cluster, make_routes, primary_reads
from .vector_searches import searched_indexes, vector_search_turn
from .write_lock import FolderWriteLock

__all__ = ["GraphStore", "Row"]

Row = list[Any]
T = TypeVar("T")
_log = logging.getLogger(__name__)
# A read that fails while an index is under construction waits this long for it before answering "retry in N s".
_INDEX_WAIT_S = 15.0
_INDEX_REFUSAL = "Invalid arguments"  # how FalkorDB refuses a query on an index it is building
_PROGRESS = re.compile(r"\[Indexing\]\s*(\d+)\s*/\s*(\d+)")
_INDEXES_QUERY = "CALL db.indexes() YIELD label, properties, status RETURN label, properties, status"
# Per graph name, the writes this process has finished on it, through any GraphStore (see GraphStore.writes).
_writes: collections.Counter[str] = collections.Counter()
# The remote servers whose durability setting this process has checked (one warning per server).
_durability_checked: set[str] = set()


class _StoreClient:
    """FalkorDB clients (one per event loop) and, for the embedded default, the server. Shared by tenant graphs.

    An asyncio redis connection belongs to the loop that opened it, so a graph used from a second loop (a sync
    tool path on a worker thread, say) gets its own client instead of failing with "attached to a different loop".
    """

    def __init__(self, address: StoreAddress) -> None:
        self.address = address
        self.server: EmbeddedServer | None = None
        if address.url is None:
            self.server = acquire_server(address.data_dir)
        check_tls_handshake(address)
        self.cluster: bool | None = None
        """Whether the remote server is a Redis Cluster (probed once)."""
        self.mark = WriteMark()
        """This process's last write's replication offset, for read-your-writes on every loop's clients."""
        self._unbound: Routes | None = self._first_routes()  # built off-loop; the first loop that queries adopts it
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Routes] = weakref.WeakKeyDictionary()
        self.refs = 1
        self.failing_over_since: float | None = None
        """When a Sentinel-managed primary stopped answering (None: it answers)."""
        self.answered = False
        """Whether the server has answered a query of this process (a later failure is then no set-up mistake)."""

    def _first_routes(self) -> Routes:
        """The first clients; an embedded server that was attached to just as its owner exited (it answered
        PING, then stopped with its owner) is started again here, as a lost connection later would be."""
        try:
            return self._make()
        except Exception as exc:
            if self.server is None or not _is_connection_error(exc):
                raise
            self.server.ensure_running()
            _log.warning("The embedded FalkorDB at %s stopped as this process attached to it (its owner exited); "
                         "it was started again (pid %s).", self.server.socket_path, self.server.pid)
            return self._make()

    def _make(self) -> Routes:
        if self.server is not None:
            from falkordb.asyncio import FalkorDB

            db = FalkorDB(unix_socket_path=str(self.server.socket_path), **client_kwargs(self.address))
            return Routes(db.connection, self.address.topology)
        if self.cluster is None:
            self.cluster = detect_cluster(self.address)  # a blocking probe: the first client is built off-loop
        return make_routes(self.address, self.cluster, self.mark)

    def db(self) -> Routes:
        """The clients for the running event loop."""
        self.ensure_open()
        loop = asyncio.get_running_loop()
        client = self._by_loop.get(loop)
        if client is None:
            client, self._unbound = (self._unbound or self._make()), None
            self._by_loop[loop] = client
        return client

    def ensure_open(self) -> None:
        """Raise a ConfigurationError naming the fix once the last graph on this client was closed."""
        if self.refs <= 0:
            raise ConfigurationError(
                "The knowledge graph was closed (kg.close(), toolkit.aclose() or the end of its `async with` block) "
                "and cannot run queries any more. Fix: keep the graph open while the agent or server uses it "
                "(close it after the last run), or open it again with KnowledgeGraph.open(...).")

    def where(self) -> str:
        if self.server is not None:
            return f"embedded FalkorDB on socket {self.server.socket_path}"
        return mask_secrets(self.address.url or "") + (" (cluster)" if self.cluster else "")

    async def close(self) -> None:
        self.refs -= 1
        if self.refs > 0:
            return
        current = self._by_loop.pop(asyncio.get_running_loop(), None)
        if current is not None:
            await current.aclose()
        # Clients of other loops cannot be awaited from here; their sockets close when they are collected.
        self._by_loop.clear()
        if self.server is not None:
            server, self.server = self.server, None
            release_server(server)


def _is_connection_error(exc: BaseException) -> bool:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return isinstance(exc, (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError))


def _cluster_failing_over(exc: BaseException) -> bool:
    """Whether ``exc`` is a cluster refusing a command while a shard fails over: CLUSTERDOWN (every node answers
    it while a slot has no primary), TRYAGAIN, or a slot the client's map has no node for."""
    from redis.exceptions import ClusterDownError, SlotNotCoveredError, TryAgainError

    return isinstance(exc, (ClusterDownError, TryAgainError, SlotNotCoveredError))


def _never_ran(exc: BaseException) -> bool:
    """Whether ``exc`` proves the command never ran: the connection was refused, no primary was found, the server
    refused it as a replica (READONLY: an old primary that was demoted), or the cluster refused it while failing
    over (:func:`_cluster_failing_over`)."""
    from redis.asyncio.sentinel import MasterNotFoundError
    from redis.exceptions import ClusterDownError, ReadOnlyError, SlotNotCoveredError, TryAgainError

    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return any(isinstance(c, (ConnectionRefusedError, MasterNotFoundError, ReadOnlyError, ClusterDownError,
                              TryAgainError, SlotNotCoveredError)) for c in chain)


def _progress(states: list[str]) -> tuple[int, int]:
    done = total = 0
    for state in states:
        match = _PROGRESS.search(state)
        if match:
            done, total = done + int(match[1]), total + int(match[2])
    return done, total


def _retry_after(first: list[str], now: list[str], seconds: float) -> float:
    """Seconds until the pending indexes are built, from their progress over the last ``seconds``."""
    done0, _ = _progress(first)
    done, total = _progress(now)
    if seconds <= 0 or done <= done0 or total <= done:
        return 5.0
    return float(max(1, math.ceil((total - done) * seconds / (done - done0))))


class GraphStore:
    """Queries against one named graph. Values always travel as parameters, never inside the query text."""

    def __init__(self, client: _StoreClient, name: str) -> None:
        self._client = client
        self.name = name
        self._graphs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, Any]] = (
            weakref.WeakKeyDictionary())

    @property
    def address(self) -> StoreAddress:
        """Where the store is (``describe()`` it for messages: passwords masked)."""
        return self._client.address

    def _graph(self, server: Any = None) -> Any:
        """This graph's handle on ``server`` (default: the primary) of the running loop's clients (handles keep
        a per-graph schema cache)."""
        from falkordb.asyncio.graph import AsyncGraph

        routes = self._client.db()
        server = routes.primary if server is None else server
        handles = self._graphs.setdefault(asyncio.get_running_loop(), {})
        graph = handles.get(id(server))
        if graph is None:
            graph = handles[id(server)] = AsyncGraph(routes.commands(server), self.name)
        return graph

    @classmethod
    async def connect(cls, name: str, url: str | None = None, data_dir: str | None = None) -> GraphStore:
        """Connect to graph ``name`` on the store at ``url`` / FALKOR_* / the embedded default, and check it."""
        address = resolve_address(url, data_dir)
        try:
            client = await asyncio.to_thread(_StoreClient, address)
        except Exception as exc:
            foreign = not_redis(address, exc)
            if foreign is not None:
                raise StoreUnavailable(foreign) from exc
            if not _is_connection_error(exc):
                raise
            raise StoreUnavailable(f"Could not reach the graph store at {address.describe()}: "
                                   f"{mask_secrets(str(exc)).rstrip('.')}. {remote_fix(address, exc)}") from exc
        store = cls(client, name)
        await store.ping()
        if client.server is None:
            await store._warn_if_not_durable()
        return store

    async def _warn_if_not_durable(self) -> None:
        """Once per server and process: warn, with the fix, when its writes can be logged in a form that may not
        replay (:mod:`.durability`)."""
        where = self.location
        if where in _durability_checked:
            return
        _durability_checked.add(where)
        threshold = await effects_threshold(self._client.db().primary)
        warning = durability_warning(where, threshold)
        if warning is not None:
            _log.warning("%s", warning)

    def sibling(self, name: str) -> GraphStore:
        """Another graph on the same connection (tenants); close each one."""
        self._client.refs += 1
        return GraphStore(self._client, name)

    def write_lock(self) -> AbstractAsyncContextManager[None]:
        """Hold around "check what is stored, then write": excludes other writers of this graph in the embedded
        server's data folder, in this process and in others (:mod:`.write_lock`; none for a remote server), and
        sends the reads inside it to the primary (:func:`~.routing.primary_reads`)."""
        return self._write_locked()

    @contextlib.asynccontextmanager
    async def _write_locked(self) -> AsyncIterator[None]:
        with primary_reads():
            server = self._client.server
            if server is None:
                yield
                return
            async with FolderWriteLock.for_graph(server.data_dir, self.name).hold():
                yield

    @property
    def writes(self) -> int:
        """How many writes (read-write queries, a delete) this process has finished on a graph of this name.

        A cache of what a read saw stores this number with it and is out of date once it has changed; writes
        made by other processes are not counted (such a cache must also expire by time).
        """
        return _writes[self.name]

    @property
    def location(self) -> str:
        """Where the store is, passwords masked."""
        return self._client.where()

    def _unavailable(self, exc: BaseException) -> StoreUnavailable:
        if self._client.server is not None:
            fix = "Fix: check that the data folder is writable and not on a network share, then retry."
        elif self._client.answered:
            # The address, TLS and password worked for earlier queries: the server stopped or the network broke.
            fix = ("Fix: the server answered earlier and now does not: check that FalkorDB is still running there "
                   "(restart it) and reachable, then retry.")
        else:
            fix = remote_fix(self._client.address, exc)
        return StoreUnavailable(f"Could not reach the graph store at {self.location}: "
                                f"{mask_secrets(str(exc)).rstrip('.') or type(exc).__name__}. {fix}")

    async def _call(self, operation: Callable[[], Awaitable[T]], *, retry: bool = True) -> T:
        """Run ``operation``; after a lost connection to the embedded server, restart it (logged) and retry
        once only when ``retry`` (reads, idempotent writes): a write whose reply was lost may be committed."""
        self._client.ensure_open()
        try:
            answer = await operation()
            self._client.answered = True
            return answer
        except Exception as exc:
            if not (_is_connection_error(exc) or _cluster_failing_over(exc)):
                raise
            server = self._client.server
            if server is None:
                if self._client.address.topology.sentinels or self._client.cluster:
                    return await self._after_failover(operation, exc, retry or _never_ran(exc))
                raise self._unavailable(exc) from exc
            failure = exc
        # The embedded server can vanish when the process that started it exits, or crash; the data is in the
        # append-only file, so start it again here, and say so: a crash must not pass unnoticed.
        pid = server.pid
        await asyncio.to_thread(server.ensure_running)
        restarted = server.pid != pid
        _log.warning("The embedded FalkorDB at %s stopped answering (%s: %s); %s.%s", server.socket_path,
                     type(failure).__name__, mask_secrets(str(failure)) or "no message",
                     f"it was restarted (pid {pid} -> {server.pid})" if restarted else "it is running",
                     " Retrying once." if retry else " Not retrying: the write may have been committed.")
        if not retry:
            raise StoreUnavailable(
                f"The connection to the graph store at {self.location} was lost during a write "
                f"({type(failure).__name__}: {mask_secrets(str(failure)).rstrip('.')}); the server "
                f"{'was restarted' if restarted else 'is running'}, but whether that write was stored is unknown. "
                "Fix: check the graph (status) and repeat the call: ingest skips documents stored unchanged."
            ) from failure
        try:
            return await operation()
        except Exception as exc:
            if not _is_connection_error(exc):
                raise
            raise self._unavailable(exc) from exc

    async def _after_failover(self, operation: Callable[[], Awaitable[T]], failure: BaseException,
                              retry: bool) -> T:
        """After a lost connection to a Sentinel-managed primary or a cluster node, or a cluster refusing commands
        while a shard fails over: retry ``operation`` (a read, an idempotent write, or a command that never
        reached the server) until a primary answers, within ``failover_timeout``; any other write is reported,
        since whether it was stored is unknown."""
        where = self.location
        if not retry:
            raise StoreUnavailable(
                f"The connection to the primary of {where} was lost during a write ({type(failure).__name__}: "
                f"{mask_secrets(str(failure)).rstrip('.')}); it may be failing over, and whether that write was "
                "stored is unknown. Fix: check the graph (status) and repeat the call: ingest skips documents "
                "stored unchanged.") from failure
        limit = self._client.address.topology.failover_timeout_s
        sentinel = bool(self._client.address.topology.sentinels)
        started = time.monotonic()
        client = self._client
        if client.failing_over_since is None:  # one warning per failover, not one per call waiting on it
            client.failing_over_since = started
            _log.warning("The primary of %s stopped answering (%s: %s); retrying reads and idempotent writes while "
                         "%s fails over (up to %g s).", where, type(failure).__name__,
                         mask_secrets(str(failure)) or "no message", "Sentinel" if sentinel else "the cluster", limit)
        delay = 0.05
        while True:
            await asyncio.sleep(min(delay, max(0.0, limit - (time.monotonic() - started))))
            try:
                answer = await operation()
            except Exception as exc:
                if not (_is_connection_error(exc) or _cluster_failing_over(exc)):
                    raise
                if time.monotonic() - started >= limit:
                    check = ("check that the sentinels can elect a new primary (a quorum of them running, a replica "
                             "in sync)" if sentinel else "check the cluster (CLUSTER INFO on a node: cluster_state "
                             "must be ok; a failed primary needs a replica to promote, or to be started again)")
                    raise StoreUnavailable(
                        f"Could not reach the primary of {where} for {limit:g} s after it stopped answering "
                        f"({type(exc).__name__}: {mask_secrets(str(exc)).rstrip('.')}). Fix: {check}, or raise "
                        "failover_timeout (?failover_timeout=SECONDS or FALKOR_FAILOVER_TIMEOUT).") from exc
                delay = min(delay * 2, 0.5)
                continue
            if client.failing_over_since is not None:
                _log.warning("%s answers again, %.1f s after the first call that failed over.", where,
                             time.monotonic() - client.failing_over_since)
                client.failing_over_since = None
            return answer

    async def _replica(self) -> Any:
        """The replica client to read from (``read_from=replicas`` and one has this process's writes), else None."""
        routes = self._client.db()
        if not routes.topology.read_from_replicas:
            return None
        try:
            server = await routes.read_client()
        except Exception as exc:
            if not _is_connection_error(exc):
                raise
            return None  # replicas could not be listed: the primary answers (or reports) the read
        return None if server is routes.primary else server

    def _replica_failed(self, replica: Any, exc: BaseException) -> None:
        """A read on ``replica`` failed: re-raise a query's own error, else skip that replica for a while."""
        from redis.exceptions import ResponseError

        if not (_is_connection_error(exc) or isinstance(exc, ResponseError)):
            raise exc
        # A replica down, or still building an index: the primary answers this read instead.
        _log.info("A replica of %s failed a read (%s); reading from the primary.", self.location, exc)
        self._client.db().pause(replica)

    async def _run(self, read_only: bool, query: str, params: dict[str, Any] | None,
                   timeout_ms: int | None, idempotent: bool) -> list[Row]:
        check_params(params)
        indexes = searched_indexes(query)
        if not indexes:
            return await self._run_now(read_only, query, params, timeout_ms, idempotent)
        async with vector_search_turn(f"{self.location}/{self.name}", indexes):
            return await self._run_now(read_only, query, params, timeout_ms, idempotent)

    async def _run_now(self, read_only: bool, query: str, params: dict[str, Any] | None,
                       timeout_ms: int | None, idempotent: bool) -> list[Row]:
        if not read_only:
            graph = self._graph()

            async def write() -> list[Row]:
                try:
                    return list((await graph.query(query, params=params, timeout=timeout_ms)).result_set)
                finally:  # also when it failed: part of it may be stored
                    _writes[self.name] += 1

            return await self._call(write, retry=idempotent)
        from redis.exceptions import ResponseError

        async def run_on(server: Any) -> list[Row]:
            return await read_rows(self._graph(server), query, params, timeout_ms)

        replica = await self._replica()
        if replica is not None:
            try:
                return await run_on(replica)
            except Exception as exc:
                self._replica_failed(replica, exc)

        async def run() -> list[Row]:
            return await run_on(None)

        try:
            return await self._call(run)
        except ResponseError as exc:
            refused = exc
        # FalkorDB refuses a query on an index it is still building (after a restart replayed an index
        # creation, an upgrade added one, or finalize rebuilt one), with a bare "Invalid arguments" error.
        for attempt in range(2):
            try:
                building = await self.pending_indexes()
            except ResponseError:
                building = []
            if building:
                await self.wait_for_indexes(_INDEX_WAIT_S)
            elif attempt or _INDEX_REFUSAL not in str(refused):
                raise refused from None
            # else the build finished between the refusal and the check: run the query again
            try:
                return await self._call(run)
            except ResponseError as exc:
                refused = exc
        raise refused from None

    async def pending_indexes(self) -> list[str]:
        """The indexes FalkorDB is still building, as ``Label(properties): status``; empty when all are ready."""
        graph = self._graph()

        async def run() -> list[Row]:
            return list((await graph.ro_query(_INDEXES_QUERY)).result_set)

        rows = await self._call(run)
        return [f"{label}({', '.join(map(str, props))}): {status}" for label, props, status in rows
                if status != "OPERATIONAL"]

    async def wait_for_indexes(self, timeout_s: float) -> None:
        """Wait until every index of the graph is built (FalkorDB builds them in the background).

        Raises:
            GraphLoading: still building after ``timeout_s``; its ``retry_after`` estimates when it will be done,
                from the progress FalkorDB reports.
        """
        started = time.monotonic()
        first = await self.pending_indexes()
        pending, delay = first, 0.01
        while pending:
            if time.monotonic() - started >= timeout_s:
                retry = _retry_after(first, pending, time.monotonic() - started)
                raise GraphLoading(
                    f"Graph '{self.name}' is loaded but FalkorDB is still building its indexes ({'; '.join(pending)}).",
                    hint=f"Retry this call in about {retry:.0f} s; nothing is lost, the index is being rebuilt.",
                    retry_after=retry,
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.25)
            pending = await self.pending_indexes()

    async def query(self, query: str, params: dict[str, Any] | None = None,
                    timeout_ms: int | None = None, *, idempotent: bool = False) -> list[Row]:
        """Run a read-write query and return its rows.

        ``idempotent=True`` says running it twice stores what running it once does (MERGE on ids, SET of the
        same values): only then is it retried after a lost connection; otherwise a lost reply raises
        :class:`StoreUnavailable` saying the outcome is unknown, because the write may have been committed.
        """
        return await self._run(False, query, params, timeout_ms, idempotent)

    async def ro_query(self, query: str, params: dict[str, Any] | None = None,
                       timeout_ms: int | None = None) -> list[Row]:
        """Run a query through GRAPH.RO_QUERY: the database refuses any write in it."""
        return await self._run(True, query, params, timeout_ms, True)

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` when the server does not answer."""
        await self._call(lambda: self._client.db().ping())

    async def exists(self) -> bool:
        """Whether the graph exists on the server (read-only: creates nothing; on a cluster, asks its shard)."""
        replica = await self._replica()
        if replica is not None:
            try:
                return bool(await replica.execute_command("EXISTS", self.name))
            except Exception as exc:
                self._replica_failed(replica, exc)
        return bool(await self._call(lambda: self._client.db().primary.execute_command("EXISTS", self.name)))

    async def compact_log(self) -> bool:
        """On the embedded server, rewrite its append-only file into a snapshot and wait for it (why:
        :mod:`.log_rewrite`); True when done. A server reached by URL is left alone (False)."""
        if self._client.server is None:
            return False
        await self._call(lambda: rewrite_append_only_file(self._client.db().primary))
        return True

    async def graph_names(self) -> list[str]:
        """Every graph on the server (each primary of a cluster), sorted (this one only once it was written)."""
        return sorted(await self._call(lambda: self._client.db().list_graphs()))

    async def delete(self) -> None:
        """Delete the whole graph (used by tests and ``graphrag-agents`` maintenance)."""
        if await self.exists():
            try:
                await self._graph().delete()
            finally:
                _writes[self.name] += 1

    async def close(self) -> None:
        """Close the connection; the last graph closed on an embedded server this process started stops it."""
        await self._client.close()
