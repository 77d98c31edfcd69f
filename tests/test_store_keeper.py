"""A server kept warm across client processes (``GRAPHRAG_SERVER_IDLE``): it outlives the process that started
it, a second process attaches to it, and it stops once no process has held it for the idle time; no stray server
when its keeper dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from graphrag_agents.errors import ConfigurationError
from graphrag_agents.store.embedded import _alive, _ping, acquire_server, idle_timeout_from_env, release_server

_CLIENT = textwrap.dedent(
    """
    import sys
    from graphrag_agents.store.embedded import acquire_server, release_server
    server = acquire_server(sys.argv[1], idle_timeout=float(sys.argv[2]))
    print(server.pid, flush=True)
    if sys.argv[3] == "hold":
        sys.stdin.readline()
    release_server(server)
    """
)


def _client(folder: Path, idle: float, hold: bool = False) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-c", _CLIENT, str(folder), str(idle), "hold" if hold else "go"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    return not _alive(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_kept_server_outlives_its_starter_serves_the_next_process_then_stops_when_idle(tmp_path: Path) -> None:
    first, server_pid = _client(tmp_path, idle=1.5)
    first.wait(timeout=10)
    keeper = _parent(server_pid)
    assert keeper != first.pid and _alive(server_pid)
    time.sleep(0.5)
    assert _alive(server_pid), "the server must outlive the process that started it"

    attached = acquire_server(tmp_path)  # this process has no idle timeout: it attaches to the warm server
    try:
        assert attached.pid == server_pid and not attached.owned and _ping(attached.socket_path)
        time.sleep(2.5)
        assert _alive(server_pid), "a server with a client must not stop"
    finally:
        release_server(attached)
    assert _wait_gone(server_pid, timeout=10), "idle for longer than the timeout: the keeper stops it"
    assert _wait_gone(keeper, timeout=5)
    assert not (tmp_path / "falkordb.pid").exists()
    restarted = acquire_server(tmp_path)  # and the next process starts a new one from the same folder
    try:
        assert restarted.owned and restarted.pid != server_pid
    finally:
        release_server(restarted)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sigkilled_client_does_not_keep_the_server_alive(tmp_path: Path) -> None:
    client, server_pid = _client(tmp_path, idle=1.0, hold=True)
    time.sleep(1.5)
    assert _alive(server_pid)
    os.kill(client.pid, signal.SIGKILL)
    client.wait(timeout=10)
    assert _wait_gone(server_pid, timeout=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_no_stray_server_when_its_keeper_is_killed(tmp_path: Path) -> None:
    client, server_pid = _client(tmp_path, idle=600)
    client.wait(timeout=10)
    keeper = _parent(server_pid)
    os.kill(keeper, signal.SIGKILL)
    assert _wait_gone(server_pid, timeout=10), "the server dies with its keeper"


def test_the_idle_timeout_setting_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHRAG_SERVER_IDLE", raising=False)
    assert idle_timeout_from_env() == 0.0
    monkeypatch.setenv("GRAPHRAG_SERVER_IDLE", "600")
    assert idle_timeout_from_env() == 600.0
    for bad in ("ten minutes", "-5", "inf", "nan"):
        monkeypatch.setenv("GRAPHRAG_SERVER_IDLE", bad)
        with pytest.raises(ConfigurationError, match="GRAPHRAG_SERVER_IDLE.*Fix: set it"):
            idle_timeout_from_env()
