"""``GraphRAGToolkit.for_tenant`` in its three call shapes, and the toolkit's typed ``retrieve`` signature."""

from __future__ import annotations

import inspect
import uuid
from pathlib import Path
from typing import Any

import pytest

from graphrag_agents.errors import ConfigurationError, ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit


def _base() -> str:
    return f"t_{uuid.uuid4().hex[:10]}"


async def test_base_and_tenant_with_llm_and_embedder(data_dir: Path, embedder: Any) -> None:
    base = _base()
    # Before: TypeError (llm= went to the toolkit), with the tenant graph left open.
    toolkit = await GraphRAGToolkit.for_tenant(base, "acme", data_dir=str(data_dir), embedder=embedder,
                                               llm="openai/gpt-4o-mini", read_only=True)
    async with toolkit:
        assert toolkit.kg.name == f"{base}__acme" and toolkit.read_only
        assert toolkit.kg.embedder is embedder and toolkit.kg.llm is not None
        assert not await toolkit.kg.store.exists(), "opening creates nothing"
    with pytest.raises(ConfigurationError, match="was closed"):
        await toolkit.kg.status()


async def test_a_graph_or_toolkit_as_the_base_lends_its_store_and_models(kg: KnowledgeGraph) -> None:
    for base in (kg, GraphRAGToolkit(kg)):
        async with await GraphRAGToolkit.for_tenant(base, "globex") as toolkit:
            assert toolkit.kg.name == f"{kg.name}__globex" and toolkit.kg.embedder is kg.embedder
            assert toolkit.kg.store.address == kg.store.address
    async with await GraphRAGToolkit.for_tenant("initech", base_graph=kg.name, data_dir=kg.store.address.data_dir,
                                                embedder=kg.embedder) as toolkit:
        assert toolkit.kg.name == f"{kg.name}__initech", "the older one-argument form"


async def test_a_bad_option_closes_the_graph_it_opened(data_dir: Path, embedder: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[KnowledgeGraph] = []
    real_open = KnowledgeGraph.open

    async def spy(*args: Any, **kwargs: Any) -> KnowledgeGraph:
        opened.append(await real_open(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(KnowledgeGraph, "open", spy)
    with pytest.raises(ValueError, match="finalize_policy"):
        await GraphRAGToolkit.for_tenant(_base(), "acme", data_dir=str(data_dir), embedder=embedder,
                                         finalize_policy="sometimes")  # type: ignore[arg-type]
    (kg,) = opened
    with pytest.raises(ConfigurationError, match="was closed"):
        await kg.status()
    with pytest.raises(ToolError, match="Invalid tenant"):
        await GraphRAGToolkit.for_tenant(_base(), "no spaces")
    assert len(opened) == 1, "an invalid tenant opens nothing"


def test_retrieve_names_its_arguments() -> None:
    params = inspect.signature(GraphRAGToolkit.retrieve).parameters
    # Before: retrieve(question, **options: Any), which IDEs and type checkers cannot complete or check.
    assert list(params) == ["self", "question", "paths", "top_k", "expand_hops", "document_ids", "min_score"]
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in params.values())


async def test_retrieve_keywords_reach_the_core(acme_read_toolkit: GraphRAGToolkit) -> None:
    found = await acme_read_toolkit.retrieve("Where does Alice Smith work?", paths=["passages"], top_k=1,
                                             document_ids=["acme"], min_score=0.0)
    assert found.paths == ["passages"] and len(found.passages) == 1
    with pytest.raises(ToolError, match="top_k"):
        await acme_read_toolkit.retrieve("x", top_k=0)
