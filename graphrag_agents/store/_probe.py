"""Is the embedded server up? A one-shot probe, and a waiter that keeps one connection while the server loads.

A server rebuilding its indexes while it loads a large graph accepts no connection for minutes. Each new probe
connection then waits in its listen backlog (511) until that is full, after which every connection fails as if
nothing listened: a waiter that opened a connection per probe took a busy server for a dead one after about 5
minutes, and stopped it. :class:`PingWaiter` asks once and waits for the answer on the same connection.

A server that says nothing is not always loading, though: FalkorDB 4.16 was seen with its main thread blocked on
a lock of its own (``Globals_AddGraph``, after a query created a graph), silent and idle for good. A loading
server works; :class:`IdleWatch` tells the two apart by whether the process's CPU time still moves.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

__all__ = ["IdleWatch", "PingWaiter"]


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


class PingWaiter:
    """Asks PING over one connection and reports, call after call, whether the answer has come."""

    def __init__(self, sock_path: Path, timeout: float = 0.5) -> None:
        self._path = str(sock_path)
        self._timeout = timeout
        self._conn: socket.socket | None = None

    def state(self) -> str:
        """``ready``, ``loading`` (no answer yet, or ``-LOADING``: asked again) or ``down``."""
        if self._conn is None:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.settimeout(self._timeout)
            try:
                conn.connect(self._path)
                conn.sendall(b"PING\r\n")
            except OSError:
                conn.close()
                return "down"
            self._conn = conn
        try:
            reply = self._conn.recv(64)
        except TimeoutError:
            return "loading"
        except OSError:
            reply = b""
        if reply.startswith(b"-LOADING"):
            try:
                self._conn.sendall(b"PING\r\n")
                return "loading"
            except OSError:
                pass
        self.close()
        return "ready" if reply.startswith(b"+PONG") else "down"

    def close(self) -> None:
        """Close the connection, if one is open."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class IdleWatch:
    """How long a process has used no CPU time, read from ``/proc`` (Linux; elsewhere it never reports idle).

    A process waiting on its disk (state ``D``) is not idle: its time restarts when it leaves that state.
    """

    def __init__(self, pid: int) -> None:
        self._stat = Path(f"/proc/{pid}/stat")
        self._cpu: int | None = None
        self._since = time.monotonic()

    def idle_seconds(self) -> float:
        """Seconds since the process's CPU time last moved (0 when it cannot be read, or it waits on I/O)."""
        try:
            fields = self._stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        now, state, cpu = time.monotonic(), fields[0], int(fields[11]) + int(fields[12])
        if cpu != self._cpu or state == "D":
            self._cpu, self._since = cpu, now
        return now - self._since
