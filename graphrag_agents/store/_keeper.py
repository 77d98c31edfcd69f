"""The keeper of a shared embedded server: runs redis-server as its child and stops it after an idle time.

Started (detached, in its own session) by :mod:`.embedded` when ``GRAPHRAG_SERVER_IDLE`` (or
``idle_timeout=``) is above zero, so the server outlives the client process that started it and the next
process (the next MCP conversation, say) attaches to a warm server instead of loading the graph again.

A client is any process that holds a shared ``flock`` on ``falkordb.clients`` in the data folder (taken when it
acquires the server, dropped when it releases it; the kernel drops it when the process dies, even by SIGKILL).
The keeper polls for an exclusive lock: once it has been free for ``idle`` seconds in a row, it takes the folder's
startup lock (so no client attaches meanwhile), checks once more, stops the server with SIGTERM (the
append-only file is flushed) and exits. The server gets a parent-death signal bound to the keeper, so killing
the keeper stops the server too; the keeper exits when the server does. Standard library only: it runs as a
script (``python _keeper.py SPEC``) without importing the package.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["CLIENTS_NAME", "KEEPER_SCRIPT", "main", "pdeathsig_preexec", "spawn_keeper", "stop_server"]

CLIENTS_NAME = "falkordb.clients"
KEEPER_SCRIPT = Path(__file__)
_POLL_S = 0.5
_STOP_TIMEOUT_S = 10.0
_PR_SET_PDEATHSIG = 1


def pdeathsig_preexec(parent_pid: int) -> Callable[[], None]:
    """A ``preexec_fn`` binding the child to ``parent_pid``: its own session (no terminal signals from the
    parent's process group: Ctrl-C goes to Python only), and SIGTERM when the parent dies (Linux)."""
    def preexec() -> None:
        os.setsid()
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
            if os.getppid() != parent_pid:  # the parent died before prctl took effect
                os._exit(1)

    return preexec


def _no_clients(handle: int) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    fcntl.flock(handle, fcntl.LOCK_UN)
    return True


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM ``server`` and wait for it; SIGKILL it if it is still running after the stop timeout."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _watch(server: subprocess.Popen[bytes], data_dir: Path, pid_file: Path, lock_file: Path, idle: float) -> None:
    clients = os.open(data_dir / CLIENTS_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    idle_since: float | None = None
    while server.poll() is None:
        time.sleep(_POLL_S)
        if not _no_clients(clients):
            idle_since = None
            continue
        now = time.monotonic()
        idle_since = idle_since if idle_since is not None else now
        if now - idle_since < idle:
            continue
        with open(lock_file, "a+") as startup:
            fcntl.flock(startup, fcntl.LOCK_EX)  # no client attaches while the server stops
            if not _no_clients(clients):
                idle_since = None
                continue
            stop_server(server)
            if pid_file.exists() and pid_file.read_text().strip() == str(server.pid):
                pid_file.unlink(missing_ok=True)
        return


def main(spec_json: str) -> None:
    """Daemonise, start the server described by ``spec_json``, report its pid on fd ``report``, keep it."""
    spec = json.loads(spec_json)
    if os.fork() > 0:  # the starting client reaps this parent at once; init adopts the keeper
        os._exit(0)
    os.setsid()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    data_dir = Path(spec["data_dir"])
    server = subprocess.Popen(spec["argv"], cwd=data_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, preexec_fn=pdeathsig_preexec(os.getpid()), close_fds=True)
    pid_file = data_dir / spec["pid_name"]
    pid_file.write_text(str(server.pid))
    os.write(spec["report"], f"{server.pid}\n".encode())
    os.close(spec["report"])
    try:
        _watch(server, data_dir, pid_file, data_dir / spec["lock_name"], float(spec["idle"]))
    finally:
        stop_server(server)


def spawn_keeper(data_dir: Path, argv: list[str], idle: float, pid_name: str, lock_name: str,
                 timeout: float) -> int | None:
    """Start a detached keeper running the server ``argv`` in ``data_dir``; the server's pid, None on failure."""
    read_end, write_end = os.pipe()
    spec = {"data_dir": str(data_dir), "argv": argv, "idle": idle, "report": write_end, "pid_name": pid_name,
            "lock_name": lock_name}
    try:
        launcher = subprocess.Popen(
            [sys.executable, str(KEEPER_SCRIPT), json.dumps(spec)], cwd=data_dir, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_end,), close_fds=True,
            start_new_session=True,
        )
        os.close(write_end)
        write_end = -1
        launcher.wait(timeout=timeout)  # it forks the keeper and exits at once
        ready, _, _ = select.select([read_end], [], [], timeout)
        line = os.read(read_end, 64) if ready else b""
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    return int(line) if line.strip().isdigit() else None


if __name__ == "__main__":
    main(sys.argv[1])
