"""The LangChain adapter: StructuredTools over the core specs, in ToolNode, create_react_agent and a StateGraph."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import QUESTION, TEXT, cite, write_acme
from fake_chat import tool_call
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, BaseToolkit, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition
from script_module import load_script
from snapshot import assert_snapshot

from graphrag_agents.adapters import langchain as langchain_adapter
from graphrag_agents.adapters.langchain import GraphRAGLangChainToolkit, as_langchain_tools, run_sync
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.citations import CitationCheck
from graphrag_agents.tools.results import RetrieveResult
from graphrag_agents.tools.toolkit import READ_TOOLS, GraphRAGToolkit


class ScriptedChatModel(BaseChatModel):
    """A chat model whose every reply is computed by ``script`` from the conversation so far."""

    script: Callable[[list[BaseMessage]], AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script(messages))])

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


def retrieve_then_check(messages: list[BaseMessage]) -> AIMessage:
    """retrieve the question, cite the first evidence number the tool returned, check, then answer."""
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if not results:
        return AIMessage("", tool_calls=[tool_call("retrieve", {"question": QUESTION})])
    last = results[-1]
    if last.name == "retrieve":
        answer = f"Alice Smith works at Acme Corp [{cite(str(last.content))}]."
        return AIMessage("", tool_calls=[tool_call("check_citations", {"answer": answer})])
    return AIMessage(f"Checked: {str(last.content).splitlines()[0]}")


def _tool_messages(state: dict[str, Any]) -> dict[str, ToolMessage]:
    return {m.name: m for m in state["messages"] if isinstance(m, ToolMessage) and m.name}


def _assert_grounded_run(state: dict[str, Any]) -> None:
    found = _tool_messages(state)
    retrieved = found["retrieve"]
    assert isinstance(retrieved.artifact, RetrieveResult)
    assert retrieved.content == retrieved.artifact.to_llm_text()
    n = cite(str(retrieved.content))
    assert n in retrieved.artifact.evidence_numbers() and retrieved.artifact.passages[0].text == TEXT
    check = found["check_citations"]
    assert isinstance(check.artifact, CitationCheck)
    assert check.artifact.grounded and check.artifact.cited == [n] and not check.artifact.unsupported
    assert check.artifact.sources[0].tool == "retrieve"
    # the artifact carries each sentence's verdict and the span of its evidence behind it
    (claim,) = check.artifact.claims
    span = claim.support[0]
    assert claim.verdict == "verified" and TEXT[span.start:span.end] == "Alice Smith works at Acme Corp in Berlin."
    assert "grounded" in str(check.content) and check.status == "success"
    assert str(state["messages"][-1].content).startswith("Checked: Citation check: grounded")


def _hand_built_graph(tools: Sequence[BaseTool], checkpointer: Any = None) -> Any:
    model = ScriptedChatModel(script=retrieve_then_check).bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(list(tools)))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer)


# -- shape --------------------------------------------------------------------------------------------------


_IMPORT_CHECK = """
import sys, graphrag_agents, graphrag_agents.adapters, graphrag_agents.tools.toolkit
print(sorted(m for m in sys.modules if m.split(".")[0] in ("langchain_core", "langgraph", "pydantic_ai")))
for framework, adapter in (("langchain_core", "langchain"), ("pydantic_ai", "pydantic_ai")):
    sys.modules[framework] = None  # as if the extra were not installed
    try:
        __import__("graphrag_agents.adapters." + adapter)
    except graphrag_agents.ConfigurationError as exc:
        print(exc)
"""


def test_the_core_imports_no_framework_and_a_missing_extra_names_the_install() -> None:
    out = subprocess.run([sys.executable, "-c", _IMPORT_CHECK], capture_output=True, text=True, check=True).stdout
    loaded, langchain, pydantic_ai = out.strip().splitlines()
    assert loaded == "[]"
    assert "pip install '.[langchain]' in the graphrag-agents source folder" in langchain
    assert "pip install '.[pydantic-ai]' in the graphrag-agents source folder" in pydantic_ai


async def test_tools_mirror_every_spec(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg)  # read and write tools: whatever tool_specs() offers
    specs = toolkit.tool_specs()
    tools = as_langchain_tools(toolkit)
    assert [t.name for t in tools] == [s.name for s in specs]
    for tool, spec in zip(tools, specs, strict=True):
        assert isinstance(tool, StructuredTool)
        assert tool.description == spec.description
        assert tool.args_schema == spec.input_schema, "LangChain holds the core's schema, unchanged"
        assert tool.response_format == "content_and_artifact"
        assert tool.metadata == {"annotations": spec.annotations.as_mcp()}
        assert tool.coroutine is not None and tool.func is not None
        sent = convert_to_openai_tool(tool)["function"]
        assert sent["name"] == spec.name and sent["description"] == spec.description
        assert sent["parameters"] == _as_langchain_sends(spec.input_schema), spec.name


def _as_langchain_sends(schema: dict[str, Any]) -> dict[str, Any]:
    """The core schema after LangChain's cosmetic rewrite: $refs inlined, `title`s and the top description dropped."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk({**defs[node["$ref"].split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}})
        return {k: walk(v) for k, v in node.items() if k != "$defs" and not (k == "title" and isinstance(v, str))}

    out = walk(schema)
    out.pop("description", None)
    return out  # type: ignore[no-any-return]


async def test_schemas_langchain_sends_match_the_snapshot(kg: KnowledgeGraph) -> None:
    tools = as_langchain_tools(GraphRAGToolkit(kg, read_only=True))
    sent = {t.name: convert_to_openai_tool(t) for t in tools}
    assert set(sent) == set(READ_TOOLS)
    text = json.dumps(sent, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert_snapshot("langchain_read_tools.json", text)


async def test_base_toolkit(kg: KnowledgeGraph) -> None:
    lc = GraphRAGLangChainToolkit(toolkit=GraphRAGToolkit(kg, read_only=True))
    assert isinstance(lc, BaseToolkit)
    tools = lc.get_tools()
    assert [t.name for t in tools] == list(READ_TOOLS)
    assert tools[0] is lc.get_tools()[0], "one set of tools (and sessions) per toolkit"
    assert lc.session_for({"configurable": {"thread_id": "t1"}}) is lc.toolkit, "shared scope: the given session"
    with pytest.raises(ValueError, match="scope"):
        as_langchain_tools(lc.toolkit, scope="per_run")  # type: ignore[arg-type]


# -- in LangGraph -------------------------------------------------------------------------------------------


async def test_hand_built_state_graph_retrieves_then_checks_citations(acme_read_toolkit: GraphRAGToolkit) -> None:
    lc = GraphRAGLangChainToolkit(toolkit=acme_read_toolkit, scope="per_thread")
    app = _hand_built_graph(lc.get_tools(), InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": "t"}}
    state = await app.ainvoke({"messages": [HumanMessage(QUESTION)]}, config)
    _assert_grounded_run(state)
    assert len(lc.session_for(config).ledger) > 0 and len(lc.toolkit.ledger) == 0, "the thread's own numbering"
    saved = await app.aget_state(config)
    stored = _tool_messages(saved.values)["retrieve"].artifact  # a checkpointer keeps the artifact as its JSON data
    assert RetrieveResult.model_validate(stored) == _tool_messages(state)["retrieve"].artifact


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")  # create_agent needs `langchain`
async def test_create_react_agent(acme_read_toolkit: GraphRAGToolkit) -> None:
    lc = GraphRAGLangChainToolkit(toolkit=acme_read_toolkit)
    agent = create_react_agent(ScriptedChatModel(script=retrieve_then_check), lc.get_tools())
    _assert_grounded_run(await agent.ainvoke({"messages": [HumanMessage(QUESTION)]}))


async def test_tool_errors_reach_the_model_with_their_hint(kg: KnowledgeGraph) -> None:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(as_langchain_tools(GraphRAGToolkit(kg, read_only=True))))
    graph.add_edge(START, "tools")
    node = graph.compile()
    calls = [
        tool_call("retrieve", {"question": QUESTION}),  # the graph does not exist yet
        tool_call("retrieve", {"question": "ok", "top_k": 0}),
        # keys LangChain reserves for itself still reach the core, which refuses them
        tool_call("retrieve", {"question": "ok", "config": {}, "run_manager": 1, "callbacks": 2}),
    ]
    out = (await node.ainvoke({"messages": [AIMessage("", tool_calls=calls)]}))["messages"][1:]
    missing, bounds, reserved = (str(m.content) for m in out)
    assert all(m.status == "error" and m.artifact is None for m in out)
    assert missing.startswith(f"Error: Graph '{kg.name}' does not exist.") and "\nHint: Ingest documents" in missing
    assert "top_k" in bounds and "Hint: 'top_k' is items per path" in bounds
    assert all(key in reserved for key in ("config", "run_manager", "callbacks")), reserved
    assert "Hint: accepted arguments: question" in reserved


async def test_string_input_is_refused_by_the_core(kg: KnowledgeGraph) -> None:
    (retrieve,) = as_langchain_tools(GraphRAGToolkit(kg, include=["retrieve"]))
    text = await retrieve.ainvoke("Where?")
    assert "must be a JSON object" in text and "Hint:" in text


# -- evidence sessions --------------------------------------------------------------------------------------


async def test_numbering_is_per_session_or_per_thread(acme_read_toolkit: GraphRAGToolkit) -> None:
    toolkit = acme_read_toolkit

    async def number(tools: Sequence[BaseTool], name: str, thread: str | None = None) -> int:
        config: RunnableConfig | None = {"configurable": {"thread_id": thread}} if thread else None
        message = await {t.name: t for t in tools}[name].ainvoke(tool_call(name, {}), config)
        assert isinstance(message, ToolMessage)
        return int(message.artifact.n)

    shared = as_langchain_tools(toolkit)
    assert [await number(shared, "status", "a"), await number(shared, "get_ontology", "b")] == [1, 2]
    lc = GraphRAGLangChainToolkit(toolkit=toolkit.new_session(), scope="per_thread", max_sessions=2)
    tools = lc.get_tools()
    assert await number(tools, "status", "a") == 1 and await number(tools, "get_ontology", "a") == 2
    assert await number(tools, "get_ontology", "b") == 1
    assert await number(tools, "get_ontology") == 1 and len(lc.toolkit.ledger) == 1, "no thread id: the session given"
    a = lc.session_for({"configurable": {"thread_id": "a"}})
    assert len(a.ledger) == 2 and (await a.check_citations("Fine [1, 2].")).cited == [1, 2]
    await number(tools, "status", "c")  # max_sessions=2: the least recently used thread, "b", is forgotten
    assert await number(tools, "get_ontology", "a") == 2 and await number(tools, "get_ontology", "b") == 1


# -- the sync path ------------------------------------------------------------------------------------------


async def test_sync_path_from_a_worker_thread_of_the_running_loop(acme_read_toolkit: GraphRAGToolkit) -> None:
    tools = {t.name: t for t in as_langchain_tools(acme_read_toolkit)}
    message = await asyncio.to_thread(tools["retrieve"].invoke, tool_call("retrieve", {"question": QUESTION}))
    assert isinstance(message, ToolMessage) and isinstance(message.artifact, RetrieveResult)
    n = message.artifact.passages[0].n
    text = await asyncio.to_thread(tools["check_citations"].invoke, {"answer": f"Alice Smith works at Acme [{n}]."})
    assert text.startswith("Citation check: grounded")
    app = _hand_built_graph(list(tools.values()))
    _assert_grounded_run(await asyncio.to_thread(app.invoke, {"messages": [HumanMessage(QUESTION)]}))


async def test_sync_call_on_the_owning_loop_is_refused_not_deadlocked(kg: KnowledgeGraph) -> None:
    (status,) = as_langchain_tools(GraphRAGToolkit(kg, include=["status"]))
    with pytest.raises(ConfigurationError, match="ainvoke"):
        status.invoke({})


async def test_a_blocked_owning_loop_is_reported_not_deadlocked(kg: KnowledgeGraph,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langchain_adapter, "LOOP_PICKUP_SECONDS", 0.2)
    (status,) = as_langchain_tools(GraphRAGToolkit(kg, include=["status"]))
    errors: list[Exception] = []

    def worker() -> None:
        try:
            status.invoke({})
        except ConfigurationError as exc:
            errors.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()  # blocks the owning loop, as a sync graph.invoke() inside async code would
    assert len(errors) == 1 and "blocked" in str(errors[0]) and "ainvoke" in str(errors[0])


@pytest.fixture
def sync_kg(data_dir: Path, embedder: Any) -> Iterator[KnowledgeGraph]:
    """A graph opened on the adapter's background loop, as a synchronous app would."""
    kg = run_sync(KnowledgeGraph.open(graph=f"t_{uuid.uuid4().hex[:12]}", data_dir=str(data_dir), embedder=embedder))
    try:
        yield kg
    finally:
        run_sync(kg.store.delete())
        run_sync(kg.close())


def test_fully_synchronous_app(sync_kg: KnowledgeGraph) -> None:
    run_sync(write_acme(sync_kg))
    tools = as_langchain_tools(GraphRAGToolkit(sync_kg, read_only=True))
    _assert_grounded_run(_hand_built_graph(tools).invoke({"messages": [HumanMessage(QUESTION)]}))


def test_a_graph_opened_on_another_loop_works_from_the_sync_path(kg: KnowledgeGraph) -> None:
    # `kg` was opened on the test session's loop, which is idle during a sync test: the call runs on the
    # background loop, where the store opens a client of its own and really queries the (empty) graph.
    (status,) = as_langchain_tools(GraphRAGToolkit(kg, include=["status"]))
    message = status.invoke({"type": "tool_call", "id": "1", "name": "status", "args": {}})
    assert f"Graph '{kg.name}' does not exist" in str(message.content)


async def test_cookbook_runs_offline(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).parents[1] / "cookbook" / "langgraph_drop_in.py"
    cookbook = load_script(path)
    answer = await cookbook.main()
    assert re.fullmatch(r"Acme Corp was founded in 1999 by Alice Smith in Berlin \[\d+\]\.", answer), answer
    assert "grounded: True" in capsys.readouterr().out
