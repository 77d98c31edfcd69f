"""The reference agent on a multi-hop question: cited, checked, or the fixed refusal.

    python cookbook/multihop_qa/agent.py ["question"] [--mode tools|retrieve_first] [--min-score 0.3]

It builds (or reuses) the graph ``demo`` from the 30 bundled HotpotQA paragraphs on the embedded FalkorDB in
``./.graphrag`` (``graphrag-agents demo`` builds the same graph), then runs
``build_grounded_agent``: the model answers with ``[n]`` citations and the last step always runs
``check_citations``; a draft that fails gets one revision turn, then the fixed refusal.

With GRAPHRAG_MODEL (a litellm model name such as ``openai/gpt-4o-mini``; ``openai/local`` with OPENAI_API_BASE
for a local OpenAI-compatible server, best with ``--mode retrieve_first``) the agent runs on that model.
Without it, an offline stand-in "model" quotes the first sentence of the top passage with its number, so the
loop runs end to end with no key (the quote is evidence, not an answer).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from importlib import resources
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from graphrag_agents import KnowledgeGraph
from graphrag_agents.agent import GroundedAnswer, build_grounded_agent
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.models.langchain_model import configured_model_name, langchain_chat_model
from graphrag_agents.tools.toolkit import GraphRAGToolkit


class QuoteTopPassage(BaseChatModel):
    """Offline stand-in for a chat model (``retrieve_first`` mode): quotes the first passage of its prompt."""

    @property
    def _llm_type(self) -> str:
        return "quote-top-passage"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        prompt = messages[-1].text
        passage = re.search(r"^\[(\d+)\] \(.*\)\n(.+?)(?:\. |\.?$)", prompt.split("Passages:", 1)[-1], re.M)
        reply = f"{passage.group(2)} [{passage.group(1)}]." if passage else "The knowledge graph does not say."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def bundled(name: str) -> list[dict[str, Any]]:
    """Rows of a bundled JSONL file (HotpotQA, CC BY-SA 4.0)."""
    text = resources.files("graphrag_agents.data").joinpath(name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def build_graph(kg: KnowledgeGraph) -> None:
    """Ingest the bundled paragraphs (unchanged ones are skipped) and finalize."""
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in bundled("demo_corpus.jsonl")]
    await kg.ingest_documents(sources, IngestPlan(), progress=False)
    await kg.finalize(progress=False)


async def main(question: str, mode: str, min_score: float | None) -> GroundedAnswer:
    """Answer ``question`` with the reference agent and print each step, the answer, its sources and its cost."""
    async with await KnowledgeGraph.open(graph="demo") as kg:
        await build_graph(kg)
        if configured_model_name():
            model: BaseChatModel = langchain_chat_model()
        else:
            print("GRAPHRAG_MODEL is not set: an offline stand-in quotes the top passage (retrieve_first mode).")
            model, mode = QuoteTopPassage(), "retrieve_first"
        agent = build_grounded_agent(model, GraphRAGToolkit(kg, read_only=True), mode=mode,  # type: ignore[arg-type]
                                     min_score=min_score)
        print(f"Q: {question}")
        state: dict[str, Any] = {}
        async for kind, data in agent.astream({"question": question}, stream_mode=["updates", "values"]):
            if isinstance(data, dict) and kind == "values":
                state = data
            elif isinstance(data, dict):
                print("  step:", ", ".join(data))
        result = GroundedAnswer.from_state(state)
        print(f"A: {result.to_text()}")
        abstained = f", abstained: {result.abstain_reason}" if result.abstained else ""
        print(f"({result.llm_calls} LLM calls, {result.tokens['total']} tokens, {len(result.tool_calls)} tool calls, "
              f"{result.revisions} revisions{abstained})")
        return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question", nargs="?", default=bundled("demo_questions.jsonl")[0]["question"])
    parser.add_argument("--mode", choices=["tools", "retrieve_first"], default="tools")
    parser.add_argument("--min-score", type=float, default=None)
    args = parser.parse_args()
    asyncio.run(main(args.question, args.mode, args.min_score))
