"""The compiled graph of every shape the options give (mode x drafting x hops x gate), as Mermaid text, against
``snapshots/agent_graphs/`` (LangGraph's ``get_graph().draw_mermaid()``; no network)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import acme_and_globex_graph
from fake_chat import ScriptedChatModel
from snapshot import assert_snapshot

from graphrag_agents.agent import AgentOptions, build_grounded_agent
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SHAPES = list(itertools.product(("tools", "retrieve_first"), ("structured", "text"), (True, False), (None, 0.3)))


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    async with acme_and_globex_graph(data_dir, embedder, "graph_shapes") as kg:
        yield kg


@pytest.mark.parametrize(("mode", "drafting", "hops", "min_score"), SHAPES)
def test_graph_shape(acme_kg: KnowledgeGraph, mode: str, drafting: str, hops: bool, min_score: float | None) -> None:
    options = AgentOptions(drafting=drafting, hops=hops, min_score=min_score)  # type: ignore[arg-type]
    agent = build_grounded_agent(ScriptedChatModel(), GraphRAGToolkit(acme_kg, read_only=True),
                                 mode=mode, options=options)  # type: ignore[arg-type]
    name = f"{mode}-{drafting}-{'hops' if hops else 'single'}-{'gate' if min_score else 'nogate'}.mmd"
    assert_snapshot(f"agent_graphs/{name}", agent.get_graph().draw_mermaid())
