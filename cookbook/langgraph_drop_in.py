"""Add graph tools to an existing LangGraph agent, then check the answer's citations.

    python cookbook/langgraph_drop_in.py ["Who founded Acme Corp?"]

Without GRAPHRAG_MODEL it runs offline: a tiny graph on the embedded FalkorDB in a temporary folder, and
LangChain's GenericFakeChatModel replaying a tool-calling turn that quotes the best passage with its [n].
With GRAPHRAG_MODEL (a litellm model name such as ``openai/gpt-4o-mini``; ``openai/<name>`` with
OPENAI_API_BASE for a local OpenAI-compatible server) the same agent runs on that model through ChatLiteLLM.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from graphrag_agents import KnowledgeGraph
from graphrag_agents.adapters.langchain import as_langchain_tools
from graphrag_agents.tools.toolkit import GraphRAGToolkit

QUESTION = "Who founded Acme Corp?"
DOCUMENTS = {
    "acme": "Acme Corp was founded in 1999 by Alice Smith in Berlin. It makes industrial sensors.",
    "alice": "Alice Smith studied physics in Munich before she moved to Berlin.",
    "globex": "Globex bought a minority stake in Acme Corp in 2015.",
}
REFUSAL = "The graph does not support an answer to that question."
SYSTEM = ("Answer from the knowledge graph tools only. Call retrieve with the user's question first, cite every "
          "claim with the evidence number [n] the tools returned, and call check_citations on your draft before "
          "you reply. If the graph does not have the answer, say so.")


# -- your existing agent ----------------------------------------------------------------------------------------


@tool
def word_count(text: str) -> int:
    """Count the words in a text (a tool the agent already had)."""
    return len(text.split())


def build_agent(model: BaseChatModel, tools: Sequence[BaseTool]) -> Any:
    """The agent you already run: a model node and a ToolNode in a StateGraph. Nothing here knows about graphs."""
    bound = model.bind_tools(tools)

    async def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await bound.ainvoke([SystemMessage(SYSTEM), *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(list(tools)))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


# -- offline stand-in for a chat model ------------------------------------------------------------------------


class OfflineChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, accepting ``bind_tools`` so it can drive the agent above."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> OfflineChatModel:
        """The replies are scripted: the tools are only called, never chosen."""
        return self


def offline_model(session: GraphRAGToolkit, question: str) -> BaseChatModel:
    """Replies computed lazily, so the answer can quote the best passage ``retrieve`` returned, with its [n]."""

    def call(name: str, args: dict[str, Any]) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:8]}"}])

    def replies() -> Iterator[AIMessage]:
        yield call("retrieve", {"question": question, "min_score": 0.3})
        best = next((e for e in session.ledger.items() if e.kind == "passage"), None)  # retrieve has run by now
        if best is None:
            yield AIMessage("The graph does not have the answer.")
            return
        answer = f"{best.content.split('. ')[0].rstrip('.')} [{best.n}]."
        yield call("check_citations", {"answer": answer})
        yield AIMessage(answer)

    return OfflineChatModel(messages=replies())


def real_model(name: str) -> BaseChatModel:
    """The chat model named by GRAPHRAG_MODEL, through litellm (reads OPENAI_API_BASE / provider keys)."""
    from langchain_litellm import ChatLiteLLM

    return ChatLiteLLM(model=name, temperature=0)


# -- putting it together ----------------------------------------------------------------------------------------


async def build_demo_graph(kg: KnowledgeGraph) -> None:
    """A three-document graph, ingested with the default plan (the LLM extractor only with GRAPHRAG_MODEL)."""
    for doc_id, text in DOCUMENTS.items():
        await kg.ingest(text=text, document_id=doc_id, title=doc_id.title())
    await kg.finalize()


async def main(question: str = QUESTION) -> str:
    """Build the demo graph, add the graph tools to the agent, answer ``question`` and check the citations."""
    with tempfile.TemporaryDirectory(prefix="graphrag-cookbook-") as data_dir:
        kg = await KnowledgeGraph.open(graph="cookbook", data_dir=data_dir)
        try:
            await build_demo_graph(kg)
            session = GraphRAGToolkit(kg, read_only=True).new_session()  # one evidence numbering per conversation
            tools = [word_count, *as_langchain_tools(session)]           # <- the drop-in
            name = os.environ.get("GRAPHRAG_MODEL")
            model = real_model(name) if name else offline_model(session, question)
            state = await build_agent(model, tools).ainvoke({"messages": [HumanMessage(question)]})
            answer = str(state["messages"][-1].content)

            results = [m.artifact for m in state["messages"] if isinstance(m, ToolMessage) and m.artifact]
            check = await session.check_citations(answer)  # the same numbering the tools used
            final = check.answer if check.grounded else REFUSAL
            print(f"Q: {question}\nA: {final}\n(grounded: {check.grounded}, i.e. it cites real evidence; verified: "
                  f"{check.verified}, i.e. every claim checked out; typed tool results: {len(results)})")
            for source in check.sources:
                print(f"  [{source.n}] {source.kind}: {source.content[:100]}")
            for claim in check.unsupported:
                print(f"  unsupported: {claim.sentence} (missing {claim.missing_names + claim.missing_figures})")
            return final
        finally:
            await kg.close()


if __name__ == "__main__":
    asyncio.run(main(" ".join(sys.argv[1:]) or QUESTION))
