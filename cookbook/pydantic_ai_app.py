"""A pydantic-ai app with graph tools and a citation check on every answer.

    python cookbook/pydantic_ai_app.py ["Who founded Acme Corp?"]

The agent gets the graph tools as one toolset (``GraphRAGToolset``); an output validator checks the draft's [n]
citations against the evidence the run's tools returned and sends the findings back to the model when the draft is
not grounded; after one failed revision the app abstains.

Without GRAPHRAG_MODEL it runs offline: a tiny graph on the embedded FalkorDB in a temporary folder and pydantic-ai's
FunctionModel standing in for the model. With GRAPHRAG_MODEL it uses that model: with OPENAI_API_BASE, an
OpenAI-compatible server (``openai/<name>`` or ``<name>``; key from OPENAI_API_KEY); otherwise the litellm name is
mapped to pydantic-ai's (``openai/gpt-4o-mini`` -> ``openai:gpt-4o-mini``).
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile

from pydantic_ai import Agent, RunContext
from pydantic_ai.exceptions import ModelRetry, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from graphrag_agents import KnowledgeGraph
from graphrag_agents.adapters.pydantic_ai import GraphRAGToolset
from graphrag_agents.tools.toolkit import GraphRAGToolkit

QUESTION = "Who founded Acme Corp?"
DOCUMENTS = {
    "acme": "Acme Corp was founded in 1999 by Alice Smith in Berlin. It makes industrial sensors.",
    "alice": "Alice Smith studied physics in Munich before she moved to Berlin.",
    "globex": "Globex bought a minority stake in Acme Corp in 2015.",
}
INSTRUCTIONS = ("Answer from the knowledge graph tools only. Call retrieve with the user's question first and cite "
                "every claim with the evidence number [n] the tools returned. If the graph does not have the answer, "
                "say so.")
REFUSAL = "The graph does not support an answer to that question."


def build_agent(model: Model | str, toolset: GraphRAGToolset) -> Agent[None, str]:
    """The app's agent: graph tools plus an output validator that only lets grounded answers through."""
    agent = Agent(model, toolsets=[toolset], instructions=INSTRUCTIONS, retries={"output": 1})

    @agent.output_validator
    async def cited(ctx: RunContext[None], answer: str) -> str:
        check = await toolset.session_for(ctx).check_citations(answer)  # this run's evidence numbering
        if not check.grounded or check.uncited or check.unsupported:
            raise ModelRetry(check.to_llm_text())
        return check.answer

    return agent


def offline_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A FunctionModel stand-in: retrieve the question, then quote the best passage with its [n]."""
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        prompt = next(p.content for p in messages[0].parts if p.part_kind == "user-prompt")
        return ModelResponse(parts=[ToolCallPart("retrieve", {"question": str(prompt), "min_score": 0.3})])
    text = returns[-1].model_response_str()
    best = re.search(r"^\[(\d+)\] \(.*\)\n(.+?)(?:\. |\.?$)", text, re.MULTILINE)
    if best is None:
        return ModelResponse(parts=[TextPart("The graph does not have the answer.")])
    return ModelResponse(parts=[TextPart(f"{best.group(2).rstrip('.')} [{best.group(1)}].")])


def real_model(name: str) -> Model | str:
    """GRAPHRAG_MODEL as a pydantic-ai model: an OpenAI-compatible server with OPENAI_API_BASE, else by name."""
    base_url = os.environ.get("OPENAI_API_BASE")
    if base_url:
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider = OpenAIProvider(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY") or "not-needed")
        return OpenAIChatModel(name.removeprefix("openai/"), provider=provider)
    return name.replace("/", ":", 1)


async def build_demo_graph(kg: KnowledgeGraph) -> None:
    """A three-document graph, ingested with the default plan (the LLM extractor only with GRAPHRAG_MODEL)."""
    for doc_id, text in DOCUMENTS.items():
        await kg.ingest(text=text, document_id=doc_id, title=doc_id.title())
    await kg.finalize()


async def main(question: str = QUESTION) -> str:
    """Build the demo graph, answer ``question`` with the graph tools, and show the cited evidence."""
    with tempfile.TemporaryDirectory(prefix="graphrag-cookbook-") as data_dir:
        kg = await KnowledgeGraph.open(graph="cookbook", data_dir=data_dir)
        try:
            await build_demo_graph(kg)
            toolset = GraphRAGToolset(GraphRAGToolkit(kg, read_only=True))  # one evidence session per run
            name = os.environ.get("GRAPHRAG_MODEL")
            agent = build_agent(real_model(name) if name else FunctionModel(offline_model), toolset)
            try:
                result = await agent.run(question)
            except UnexpectedModelBehavior:  # still not grounded after the revision: abstain
                print(f"Q: {question}\nA: {REFUSAL}")
                return REFUSAL
            check = await toolset.session_for(result.run_id).check_citations(result.output)
            print(f"Q: {question}\nA: {result.output}\ngrounded: {check.grounded} (it cites real evidence); "
                  f"verified: {check.verified} (every claim checked out)")
            for source in check.sources:
                print(f"  [{source.n}] {source.kind}: {source.content[:100]}")
            return result.output
        finally:
            await kg.close()


if __name__ == "__main__":
    asyncio.run(main(" ".join(sys.argv[1:]) or QUESTION))
