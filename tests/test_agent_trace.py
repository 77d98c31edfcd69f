"""The run's ``trace``: what each node did, as data (node, outcome, reason, detail), in the final state."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import QUESTION, acme_and_globex_graph
from fake_chat import ScriptedChatModel, evidence_number
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver

from graphrag_agents.agent import AgentOptions, build_grounded_agent
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SINGLE = AgentOptions(hops=False, choice_check=False)


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    async with acme_and_globex_graph(data_dir, embedder, "agent_trace") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    return GraphRAGToolkit(acme_kg, read_only=True)


def reply(answer: str) -> Any:
    def step(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number("\n".join(m.text for m in messages), "works at Acme Corp")
        return AIMessage(json.dumps({"answer": answer, "evidence": [n]}))

    return step


def shape(state: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(s["node"], s["outcome"], s["reason"]) for s in state["trace"]]


async def test_a_served_answer_is_traced_node_by_node(toolkit: GraphRAGToolkit) -> None:
    agent = build_grounded_agent(ScriptedChatModel(steps=[reply("Acme Corp")]), toolkit, mode="retrieve_first",
                                 options=SINGLE)
    state = await agent.ainvoke({"question": QUESTION})
    assert shape(state) == [("retrieve", "found", None), ("agent", "draft", None), ("verify", "served", None)]
    assert state["trace"][1]["detail"].startswith('model drafts: {"answer": "Acme Corp"')
    assert state["trace"][2]["detail"].endswith("→ answer")


async def test_an_abstention_carries_its_reason_in_words(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[])  # the default mode, auto: the scripted model implements bind_tools
    state = await build_grounded_agent(model, toolkit, options=AgentOptions(min_score=0.99)).ainvoke(
        {"question": "What is the capital of Peru?"})
    assert shape(state) == [("prepare", "mode", None), ("gate", "found", None), ("gate", "abstained", "low_score")]
    assert state["trace"][0]["detail"] == "mode auto → tools: ScriptedChatModel: bind_tools is implemented"
    abstained = state["trace"][2]
    assert abstained["why"] is not None and abstained["why"].startswith("the best evidence retrieve found scores 0.")
    assert abstained["detail"] == f"{abstained['why']} → abstain (low_score)" and "min_score" in abstained["why"]


async def test_a_revision_then_a_refusal(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply("Globex"), reply("Globex")])
    state = await build_grounded_agent(model, toolkit, mode="retrieve_first", options=SINGLE).ainvoke(
        {"question": QUESTION})
    outcomes = shape(state)
    assert outcomes[0] == ("retrieve", "found", None) and outcomes[2] == ("verify", "revise", None)
    assert outcomes[-1] == ("verify", "refused", state["abstain_reason"]) and state["abstained"]


async def test_a_thread_keeps_the_trace_of_its_last_run_only(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply("Acme Corp"), reply("Acme Corp")])
    agent = build_grounded_agent(model, toolkit, mode="retrieve_first", options=SINGLE,
                                 checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "trace-thread"}}
    first = await agent.ainvoke({"question": QUESTION}, config)
    second = await agent.ainvoke({"question": QUESTION}, config)
    assert len(first["trace"]) == len(second["trace"]) == 3
