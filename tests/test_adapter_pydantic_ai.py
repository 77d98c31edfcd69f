"""The pydantic-ai adapter: GraphRAGToolset through an Agent driven by FunctionModel and TestModel."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from acme_corpus import QUESTION, TEXT, cite
from pydantic_ai import Agent, capture_run_messages
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from script_module import load_script
from snapshot import assert_snapshot

from graphrag_agents.adapters.pydantic_ai import GraphRAGToolset
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.citations import CitationCheck
from graphrag_agents.tools.results import RetrieveResult
from graphrag_agents.tools.toolkit import READ_TOOLS, GraphRAGToolkit


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def _retries(messages: list[ModelMessage]) -> list[str]:
    """What the model was told to fix, whichever part pydantic-ai uses for a retry."""
    parts = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]
    retried = [p.model_response_str() for p in parts if isinstance(p, ToolReturnPart) and p.outcome == "retried"]
    return retried + [p.model_response() for p in parts if isinstance(p, RetryPromptPart)]


seen_tools: list[ToolDefinition] = []


def retrieve_then_check(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """retrieve the question, cite what the tool returned, check the draft, then answer with it."""
    seen_tools[:] = info.function_tools
    returns = _returns(messages)
    if not returns:
        return ModelResponse(parts=[ToolCallPart("retrieve", {"question": QUESTION})])
    answer = f"Alice Smith works at Acme Corp [{cite(_first(returns, 'retrieve').model_response_str())}]."
    if returns[-1].tool_name == "retrieve":
        return ModelResponse(parts=[ToolCallPart("check_citations", {"answer": answer})])
    return ModelResponse(parts=[TextPart(answer)])


def _first(returns: list[ToolReturnPart], name: str) -> ToolReturnPart:
    return next(p for p in returns if p.tool_name == name)


async def test_function_model_retrieves_then_checks_citations(acme_read_toolkit: GraphRAGToolkit) -> None:
    toolset = GraphRAGToolset(acme_read_toolkit)
    agent = Agent(FunctionModel(retrieve_then_check), toolsets=[toolset])
    result = await agent.run(QUESTION)
    returns = _returns(result.all_messages())
    retrieved, checked = _first(returns, "retrieve"), _first(returns, "check_citations")
    assert isinstance(retrieved.metadata, RetrieveResult) and retrieved.content == retrieved.metadata.to_llm_text()
    n = cite(str(retrieved.content))
    assert n in retrieved.metadata.evidence_numbers() and retrieved.metadata.passages[0].text == TEXT
    assert isinstance(checked.metadata, CitationCheck)
    assert checked.metadata.grounded and checked.metadata.cited == [n] and not checked.metadata.unsupported
    # the metadata carries each sentence's verdict and the span of its evidence behind it
    (claim,) = checked.metadata.claims
    span = claim.support[0]
    assert claim.verdict == "verified" and TEXT[span.start:span.end] == "Alice Smith works at Acme Corp in Berlin."
    assert str(checked.content).startswith("Citation check: grounded")
    # the app checks the final answer against the run's own evidence
    session = toolset.session_for(result.run_id)
    assert session is not toolset.toolkit and (await session.check_citations(result.output)).grounded
    assert len(toolset.toolkit.ledger) == 0, "per_run: the toolkit's own session stays untouched"


async def test_the_model_sees_the_core_schemas(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg)  # read and write tools: whatever tool_specs() offers
    await Agent(FunctionModel(lambda m, i: _seen(i)), toolsets=[GraphRAGToolset(toolkit)]).run("hi")
    specs = toolkit.tool_specs()
    assert [t.name for t in seen_tools] == [s.name for s in specs]
    for tool, spec in zip(seen_tools, specs, strict=True):
        assert tool.parameters_json_schema == spec.input_schema, spec.name
        assert tool.description == spec.description
        assert tool.metadata == {"annotations": spec.annotations.as_mcp()}


def _seen(info: AgentInfo) -> ModelResponse:
    seen_tools[:] = info.function_tools
    return ModelResponse(parts=[TextPart("ok")])


async def test_schemas_match_the_snapshot(kg: KnowledgeGraph) -> None:
    await Agent(FunctionModel(lambda m, i: _seen(i)),
                toolsets=[GraphRAGToolset(GraphRAGToolkit(kg, read_only=True))]).run("hi")
    seen = {t.name: {"description": t.description, "parameters": t.parameters_json_schema} for t in seen_tools}
    assert set(seen) == set(READ_TOOLS)
    text = json.dumps(seen, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert_snapshot("pydantic_ai_read_tools.json", text)


async def test_test_model_calls_every_tool_without_an_unhandled_error(acme_corpus_kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(acme_corpus_kg)  # read and write tools
    names = {s.name for s in toolkit.tool_specs()}
    agent = Agent(TestModel(), toolsets=[GraphRAGToolset(toolkit, max_retries=1)])
    with capture_run_messages() as messages:
        try:
            await agent.run("Use every tool.")
        except UnexpectedModelBehavior as exc:
            # Schema-valid arguments the core refuses (e.g. a write the graph cannot take) come back as retries
            # with a hint; TestModel repeats the same arguments, so the run may end here, never elsewhere.
            assert "exceeded max retries" in str(exc)
    called = {p.tool_name for m in messages if isinstance(m, ModelResponse) for p in m.parts
              if isinstance(p, ToolCallPart)}
    assert called == names
    retries = _retries(messages)
    assert all("Hint:" in r for r in retries), retries
    answered = {p.tool_name for p in _returns(messages) if p.outcome == "success"}
    assert set(READ_TOOLS) <= answered, "the read tools work with generated arguments"
    for part in _returns(messages):
        if part.outcome == "success":
            assert part.metadata is not None and part.content == part.metadata.to_llm_text()


async def test_tool_errors_become_retries_with_the_hint(acme_read_toolkit: GraphRAGToolkit) -> None:

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:  # only the prompt: a call the core refuses, then one it accepts
            return ModelResponse(parts=[ToolCallPart("retrieve", {"question": "ok", "top_k": 0, "ctx": 1})])
        if _returns(messages)[-1].outcome == "retried" and len(_retries(messages)) == 1:
            return ModelResponse(parts=[ToolCallPart("retrieve", {"question": QUESTION, "top_k": 3})])
        return ModelResponse(parts=[TextPart("done")])

    toolset = GraphRAGToolset(acme_read_toolkit, max_retries=2)
    with capture_run_messages() as messages:
        result = await Agent(FunctionModel(model), toolsets=[toolset]).run(QUESTION)
    assert result.output == "done"
    (retry,) = _retries(messages)
    assert "top_k" in retry and "ctx" in retry and "Hint: 'top_k' is items per path" in retry
    ok = [p for p in _returns(messages) if p.outcome == "success"]
    assert len(ok) == 1 and isinstance(ok[0].metadata, RetrieveResult)


async def test_missing_graph_is_a_retry_naming_the_fix(kg: KnowledgeGraph) -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("status", {})])
        return ModelResponse(parts=[TextPart("The graph is empty.")])

    with capture_run_messages() as messages:
        await Agent(FunctionModel(model), toolsets=[GraphRAGToolset(GraphRAGToolkit(kg))]).run("status?")
    (retry,) = _retries(messages)
    assert f"Graph '{kg.name}' does not exist." in retry and "Hint: Ingest documents" in retry


# -- evidence scope -----------------------------------------------------------------------------------------


def _cite_prior_then_ontology(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Each run: check a citation of [1] (evidence from an earlier run, if any), then issue evidence, then stop."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    if any(isinstance(p, UserPromptPart) for p in last.parts):
        return ModelResponse(parts=[ToolCallPart("check_citations", {"answer": "Alice Smith works at Acme [1]."})])
    if any(isinstance(p, ToolReturnPart) and p.tool_name == "check_citations" for p in last.parts):
        return ModelResponse(parts=[ToolCallPart("get_ontology", {})])
    return ModelResponse(parts=[TextPart("ok")])


async def _checks(toolset: GraphRAGToolset, runs: int, conversation: bool = False) -> list[bool]:
    """Run the agent ``runs`` times; each run first checks a citation of [1], then issues evidence."""
    agent = Agent(FunctionModel(_cite_prior_then_ontology), toolsets=[toolset])
    history: list[ModelMessage] | None = None
    grounded: list[bool] = []
    for _ in range(runs):
        result = await agent.run("go", message_history=history)
        history = result.all_messages() if conversation else None
        checks = [p.metadata for p in _returns(result.new_messages()) if p.tool_name == "check_citations"]
        grounded.append(bool(checks) and checks[0].grounded)
    return grounded


async def test_scope_per_run_per_conversation_and_shared(acme_read_toolkit: GraphRAGToolkit) -> None:
    toolkit = acme_read_toolkit
    assert await _checks(GraphRAGToolset(toolkit.new_session()), 2) == [False, False], "per_run: a fresh numbering"
    conv = GraphRAGToolset(toolkit.new_session(), scope="per_conversation")
    assert await _checks(conv, 2, conversation=True) == [False, True], "a continued conversation keeps its numbers"
    assert await _checks(conv, 1) == [False], "a new conversation starts afresh"
    shared = toolkit.new_session()
    assert await _checks(GraphRAGToolset(shared, scope="shared"), 2) == [False, True]
    assert len(shared.ledger) == 1
    with pytest.raises(ValueError, match="scope"):
        GraphRAGToolset(toolkit, scope="per_thread")  # type: ignore[arg-type]


def test_is_a_pydantic_ai_toolset(kg: KnowledgeGraph) -> None:
    toolset = GraphRAGToolset(GraphRAGToolkit(kg), id="graph")
    assert isinstance(toolset, AbstractToolset) and toolset.id == "graph"
    assert toolset.session_for(None) is toolset.toolkit


async def test_cookbook_runs_offline_and_abstains_without_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).parents[1] / "cookbook" / "pydantic_ai_app.py"
    cookbook = load_script(path)
    answer = await cookbook.main()
    assert re.fullmatch(r"Acme Corp was founded in 1999 by Alice Smith in Berlin \[\d+\]\.", answer), answer
    assert "grounded: True" in capsys.readouterr().out
    assert await cookbook.main("What is the capital of Peru?") == cookbook.REFUSAL


async def test_a_prefix_lets_the_toolset_sit_next_to_another_retrieve(acme_read_toolkit: GraphRAGToolkit) -> None:
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.toolsets import FunctionToolset

    def retrieve(question: str) -> str:
        """Another tool called retrieve (a web search, say)."""
        return "web"

    others = FunctionToolset([retrieve])
    with pytest.raises(UserError, match="retrieve"):  # pydantic-ai refuses the clash itself
        await Agent(TestModel(), toolsets=[others, GraphRAGToolset(acme_read_toolkit)]).run(QUESTION)

    def call_ours(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen_tools[:] = info.function_tools
        returns = _returns(messages)
        if not returns:
            return ModelResponse(parts=[ToolCallPart("kg_retrieve", {"question": QUESTION})])
        return ModelResponse(parts=[TextPart(returns[-1].model_response_str())])

    toolset = GraphRAGToolset(acme_read_toolkit, prefix="kg_")
    result = await Agent(FunctionModel(call_ours), toolsets=[others, toolset]).run(QUESTION)
    assert sorted(t.name for t in seen_tools) == sorted(["retrieve", *(f"kg_{n}" for n in READ_TOOLS)])
    assert "Alice Smith" in result.output
    (returned,) = _returns(result.all_messages())
    assert returned.tool_name == "kg_retrieve" and isinstance(returned.metadata, RetrieveResult)
    with pytest.raises(ValueError, match="prefix"):
        GraphRAGToolset(acme_read_toolkit, prefix="kg prefix")
