"""The serving checks of ``verify``: one function each, run in the order of ``SERVING_CHECKS``; a check added to
the list runs on a real agent without touching ``verify``."""

from __future__ import annotations

import inspect
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import QUESTION, acme_and_globex_graph
from fake_chat import ScriptedChatModel, acme_reply, evidence_number
from langchain_core.messages import AIMessage, BaseMessage

import graphrag_agents.agent.nodes as nodes_module
from graphrag_agents.agent import AgentOptions, GroundedAnswer, build_grounded_agent
from graphrag_agents.agent.checks import SERVING_CHECKS, CheckContext, Rejection
from graphrag_agents.agent.drafting import StructuredDraft
from graphrag_agents.agent.gate import Verdict
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SINGLE = AgentOptions(hops=False, choice_check=False)


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    async with acme_and_globex_graph(data_dir, embedder, "agent_checks") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    return GraphRAGToolkit(acme_kg, read_only=True)


def test_each_check_is_one_function_of_context_draft_and_verdict() -> None:
    for check in SERVING_CHECKS:
        assert list(inspect.signature(check).parameters) == ["context", "draft", "verdict"], check.__name__
        module = inspect.getmodule(check)
        own = [name for name, value in vars(module).items()
               if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")]
        assert own == [check.__name__], module.__name__


async def test_a_check_added_to_the_list_runs_after_the_citation_check(toolkit: GraphRAGToolkit,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, list[int]]] = []

    async def names_no_company(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
        seen.append((draft.answer, verdict.check.cited))
        context.update["fit"] = ["the answer names a company"]
        return Rejection("off_question")

    monkeypatch.setattr(nodes_module, "SERVING_CHECKS", (*SERVING_CHECKS, names_no_company))
    model = ScriptedChatModel(steps=[acme_reply])
    state = await build_grounded_agent(model, toolkit, mode="retrieve_first", options=SINGLE).ainvoke(
        {"question": QUESTION})
    result = GroundedAnswer.from_state(state)
    assert result.abstained and result.abstain_reason == "off_question" and result.revisions == 0
    assert result.fit == ["the answer names a company"] and result.short_answer == "Acme Corp"
    assert len(seen) == 1 and seen[0][0] == "Acme Corp" and seen[0][1]


async def test_a_revising_check_gets_a_revision_turn_first(toolkit: GraphRAGToolkit,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    async def first_draft_only(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
        if context.state.get("revisions", 0):
            return None
        context.update["fit"] = ["try again"]
        return Rejection("off_question", revise=True)

    monkeypatch.setattr(nodes_module, "SERVING_CHECKS", (first_draft_only, *SERVING_CHECKS))
    model = ScriptedChatModel(steps=[acme_reply, acme_reply])
    result = GroundedAnswer.from_state(await build_grounded_agent(
        model, toolkit, mode="retrieve_first", options=SINGLE).ainvoke({"question": QUESTION}))
    assert not result.abstained and result.revisions == 1 and result.llm_calls == 2
    assert "try again" in model.calls[1][-1].text


async def test_the_first_rejection_decides_and_later_checks_do_not_run(toolkit: GraphRAGToolkit) -> None:
    # min_confidence comes before confirm in the list: a low-confidence answer costs no confirmation call.
    def unsure(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number(messages[-1].text, "works at Acme Corp")
        pieces = [('{"answer": "', 0.9), ("Acme", 0.5), (" Corp", 0.5), (f'", "evidence": [{n}]', 0.5), ("}", 1.0)]
        content = [{"token": token, "logprob": math.log(p), "top_logprobs": []} for token, p in pieces]
        return AIMessage("".join(t for t, _ in pieces), response_metadata={"logprobs": {"content": content}})

    model = ScriptedChatModel(steps=[unsure])
    options = AgentOptions(hops=False, choice_check=False, min_confidence=0.5, confirm=True)
    result = GroundedAnswer.from_state(await build_grounded_agent(
        model, toolkit, mode="retrieve_first", options=options).ainvoke({"question": QUESTION}))
    assert result.abstain_reason == "low_confidence" and result.llm_calls == 1 and result.confirmed is None
