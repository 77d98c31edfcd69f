"""pydantic-ai's own MCP client (``pydantic_ai.mcp.MCPToolset``, on FastMCP's client) against the server over
streamable HTTP: the model reads each result's text, not the typed JSON, and one run keeps one numbering."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from acme_corpus import QUESTION, cite
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from test_mcp_http import serving
from test_mcp_server import acme_graph

from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.results import llm_text

pytest.importorskip("pydantic_ai.mcp", reason="pydantic-ai's MCP client needs pydantic-ai-slim[mcp]")


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def retrieve_then_check(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returns = _returns(messages)
    if not returns:
        return ModelResponse(parts=[ToolCallPart("retrieve", {"question": QUESTION})])
    if returns[-1].tool_name == "retrieve":
        if not isinstance(returns[-1].content, str):
            return ModelResponse(parts=[TextPart("the tool gave me JSON")])
        answer = f"Alice Smith works at Acme Corp [{cite(returns[-1].model_response_str())}]."
        return ModelResponse(parts=[ToolCallPart("check_citations", {"answer": answer})])
    return ModelResponse(parts=[TextPart("done")])


async def _run(server: GraphRAGMCPServer) -> list[ToolReturnPart]:
    from pydantic_ai.mcp import MCPToolset

    async with serving(server) as url:
        agent = Agent(FunctionModel(retrieve_then_check), toolsets=[MCPToolset(url)])
        result = await agent.run(QUESTION)
    return _returns(result.all_messages())


async def test_mcp_toolset_gives_the_model_the_text_and_checks_in_one_numbering(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True)
    retrieved, checked = await _run(server)
    # Before: the model got retrieve's structuredContent, the whole typed result as JSON (12.4k characters on
    # the demo question against a 7.6k text).
    expected = llm_text(await server.toolkit.new_session().retrieve(QUESTION), server.text_chars)
    assert isinstance(retrieved.content, str) and retrieved.content == expected
    # check_citations keeps its small structured result: the model reads `grounded` and the lists directly.
    assert isinstance(checked.content, dict) and checked.content["grounded"] is True, checked.content


@pytest.mark.parametrize("structured", ["all"])
async def test_structured_all_is_what_such_clients_would_show_the_model(kg: KnowledgeGraph,
                                                                        structured: Literal["all"]) -> None:
    await acme_graph(kg)
    (retrieved,) = await _run(GraphRAGMCPServer(kg, read_only=True, structured=structured))
    data: Any = retrieved.content
    assert isinstance(data, dict) and "passages" in data, "the JSON, not the text: why 'auto' is the default"
