"""The reference agent with a scripted chat model on a real embedded graph: every way a run can end."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import acme_and_globex_graph
from fake_chat import ScriptedChatModel, evidence_number, last_tool_text, tool_call
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

import graphrag_agents.agent as agent_pkg
from graphrag_agents.adapters.langchain import GraphRAGLangChainToolkit
from graphrag_agents.agent import (
    REFUSAL,
    AgentOptions,
    CitationGateState,
    GroundedAnswer,
    build_grounded_agent,
    citation_gate,
    cites_evidence,
    strictly_grounded,
)
from graphrag_agents.agent._text_tool_calls import salvage_text_tool_calls
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.citations import CitationCheck
from graphrag_agents.tools.toolkit import READ_TOOLS, GraphRAGToolkit

QUESTION = "Where does Alice Smith work?"
TEXT = AgentOptions(drafting="text")
TEXT_REPAIRED = AgentOptions(drafting="text", repair_citations=True)
GATED = AgentOptions(min_score=0.3)


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    """Two small documents written directly (no extractor) and finalized, once per module; the tests only read."""
    async with acme_and_globex_graph(data_dir, embedder, "agent") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    """A writable toolkit (the agent must still bind only the read tools) with a fresh evidence ledger."""
    return GraphRAGToolkit(acme_kg)


def retrieve_call(question: str = QUESTION, **extra: Any) -> AIMessage:
    return AIMessage("", tool_calls=[tool_call("retrieve", {"question": question, **extra})])


def cite(sentence: str, claim: str = "works at Acme Corp") -> Callable[[list[BaseMessage]], AIMessage]:
    """A step answering ``sentence`` with the number of the retrieved evidence that says ``claim``."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        return AIMessage(sentence.format(n=evidence_number(last_tool_text(messages), claim)))

    return step


def result_of(state: dict[str, Any]) -> GroundedAnswer:
    return GroundedAnswer.from_state(state)


# -- tools mode ----------------------------------------------------------------------------------------------


async def test_grounded_answer_is_served_with_its_sources(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[retrieve_call(), cite("Alice Smith works at Acme Corp [{n}].")])
    agent = build_grounded_agent(model, toolkit)
    state = await agent.ainvoke({"question": QUESTION})
    result = result_of(state)

    assert not result.abstained and result.abstain_reason is None
    n = evidence_number(last_tool_text(model.calls[-1]), "works at Acme Corp")
    assert result.answer == f"Alice Smith works at Acme Corp [{n}]."
    assert [s.n for s in result.sources] == [n] and "Alice Smith works at Acme Corp" in result.sources[0].content
    assert result.check is not None and result.check.grounded and result.check.cited == [n]
    assert [(c["name"], c["ok"], c["by"]) for c in result.tool_calls] == [("retrieve", True, "model")]
    assert n in result.tool_calls[0]["evidence"]
    assert result.llm_calls == 2 and result.tokens == {"input": 200, "output": 40, "total": 240}
    assert result.revisions == 0 and state["verdict"] == "accepted"
    # Only the read tools are bound, though the toolkit can write; the system prompt asks for [n] citations.
    assert sorted(model.bound_tools) == sorted(READ_TOOLS)
    system = model.calls[0][0]
    assert isinstance(system, SystemMessage) and "[3]" in system.text and "retrieve" in system.text
    assert isinstance(state["messages"][-1], AIMessage) and state["messages"][-1].text == result.answer
    assert "Sources:" in result.to_text() and f"[{n}]" in result.to_text()


async def test_ungrounded_draft_gets_one_revision_with_the_findings(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[
        retrieve_call(),
        AIMessage("Alice Smith works at Acme Corp."),
        cite("Alice Smith works at Acme Corp [{n}]."),
    ])
    state = await build_grounded_agent(model, toolkit).ainvoke({"question": QUESTION})
    result = result_of(state)

    assert not result.abstained and result.revisions == 1 and result.llm_calls == 3
    feedback = model.calls[2][-1]
    assert isinstance(feedback, HumanMessage)
    assert "NOT grounded" in feedback.text and '"Alice Smith works at Acme Corp."' in feedback.text
    n = evidence_number(last_tool_text(model.calls[1]), "works at Acme Corp")
    # The check names the evidence that holds the uncited sentence, so the model knows what to cite.
    named = re.search(r"\(evidence \[([\d, ]+)\] holds its figures and names\)", feedback.text)
    assert named is not None and str(n) in named.group(1).split(", ")
    assert result.check is not None and result.check.uncited == []


async def test_ungrounded_twice_ends_in_the_fixed_refusal(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[
        retrieve_call(),
        AIMessage("Alice Smith works at Acme Corp [99]."),
        cite("Acme Corp was founded in 2001 [{n}].", claim="founded in 1999"),
    ])
    state = await build_grounded_agent(model, toolkit).ainvoke({"question": QUESTION})
    result = result_of(state)

    assert result.abstained and result.abstain_reason == "ungrounded" and result.answer == REFUSAL
    assert result.sources == [] and result.revisions == 1 and result.llm_calls == 3 and state["verdict"] == "refused"
    assert "[99]" in model.calls[2][-1].text  # the invalid number was reported in the revision turn
    assert result.check is not None and result.check.unsupported[0].missing_figures == ["2001"]
    last = state["messages"][-1]
    assert isinstance(last, AIMessage) and last.text == REFUSAL


async def test_max_revisions_zero_refuses_at_once_and_lenient_rule_accepts(toolkit: GraphRAGToolkit) -> None:
    unsupported = cite("Alice Smith works at Acme Corp [{n}]. Acme Corp was founded in 2001 [{n}].",
                       claim="founded in 1999")
    strict = await build_grounded_agent(ScriptedChatModel(steps=[retrieve_call(), unsupported]), toolkit,
                                        options=AgentOptions(max_revisions=0, refusal="No answer.")).ainvoke(
        {"question": QUESTION})
    assert strict["abstained"] and strict["answer"] == "No answer." and strict["llm_calls"] == 2
    lenient = await build_grounded_agent(ScriptedChatModel(steps=[retrieve_call(), unsupported]), toolkit,
                                         options=AgentOptions(max_revisions=0, accept=cites_evidence)).ainvoke(
        {"question": QUESTION})
    assert not lenient["abstained"] and "2001" in lenient["answer"]


async def test_tool_error_reaches_the_model_and_it_recovers(toolkit: GraphRAGToolkit) -> None:
    def retry(messages: list[BaseMessage]) -> AIMessage:
        error = messages[-1]
        assert isinstance(error, ToolMessage) and error.status == "error" and "Hint" in error.text
        return retrieve_call()

    model = ScriptedChatModel(steps=[retrieve_call(top_k=0), retry, cite("Alice Smith works at Acme Corp [{n}].")])
    result = result_of(await build_grounded_agent(model, toolkit).ainvoke({"question": QUESTION}))

    assert not result.abstained
    first, second = result.tool_calls
    assert not first["ok"] and first["error"] and "top_k" in first["error"] and first["evidence"] == []
    assert second["ok"] and second["evidence"]


async def test_tool_calls_written_as_json_text_are_run(toolkit: GraphRAGToolkit) -> None:
    as_text = AIMessage(json.dumps({"name": "retrieve", "arguments": {"question": QUESTION}}))
    model = ScriptedChatModel(steps=[as_text, cite("Alice Smith works at Acme Corp [{n}].")])
    result = result_of(await build_grounded_agent(model, toolkit).ainvoke({"question": QUESTION}))
    assert not result.abstained and result.tool_calls[0]["name"] == "retrieve" and result.tool_calls[0]["ok"]


async def test_tool_rounds_are_capped(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[retrieve_call()] * 4)
    agent = build_grounded_agent(model, toolkit, options=AgentOptions(max_tool_rounds=2))
    result = result_of(await agent.ainvoke({"question": QUESTION}))
    assert result.abstained and result.abstain_reason == "ungrounded"
    assert result.llm_calls == 3 and len(result.tool_calls) == 3
    assert "did not write an answer" in model.calls[2][-1].text


# -- the pre-generation gate ---------------------------------------------------------------------------------


async def test_gate_abstains_without_calling_the_model(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[])
    off_topic = "What is the capital of Peru?"
    state = await build_grounded_agent(model, toolkit, options=GATED).ainvoke({"question": off_topic})
    result = result_of(state)

    assert result.abstained and result.abstain_reason == "low_score" and result.answer == REFUSAL
    assert model.calls == [] and result.llm_calls == 0 and result.tokens["total"] == 0
    assert [(c["name"], c["by"], c["ok"]) for c in result.tool_calls] == [("retrieve", "agent", True)]
    assert result.tool_calls[0]["evidence"]  # retrieve found items, just none scoring 0.3
    assert state["best_score"] is not None and 0 < state["best_score"] < 0.3


async def test_gate_passes_the_evidence_to_the_model(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[cite("Alice Smith works at Acme Corp [{n}].")])
    state = await build_grounded_agent(model, toolkit, options=GATED).ainvoke({"question": QUESTION})
    result = result_of(state)
    assert not result.abstained and result.llm_calls == 1 and state["best_score"] >= 0.3
    assert isinstance(model.calls[0][-1], ToolMessage)  # the gate's retrieve, shown as the model's own call


# -- retrieve_first mode -------------------------------------------------------------------------------------


async def test_retrieve_first_drafts_from_the_numbered_evidence(toolkit: GraphRAGToolkit) -> None:
    def draft(messages: list[BaseMessage]) -> AIMessage:
        prompt = messages[-1]
        assert isinstance(prompt, HumanMessage) and prompt.text.startswith(f"Question: {QUESTION}\n\nEvidence:\n")
        assert f'Answer the question "{QUESTION}"' in prompt.text
        return AIMessage(f"Alice Smith works at Acme Corp [{evidence_number(prompt.text, 'works at Acme Corp')}].")

    model = ScriptedChatModel(steps=[draft])
    state = await build_grounded_agent(model, toolkit, mode="retrieve_first", options=TEXT).ainvoke(
        {"messages": [("user", QUESTION)]})
    result = result_of(state)
    assert not result.abstained and result.llm_calls == 1 and model.bound_tools == []
    assert [(c["name"], c["by"]) for c in result.tool_calls] == [("retrieve", "agent")]
    # The user's question stays as they wrote it in the conversation; only the prompt carries the evidence.
    assert [m.text for m in state["messages"] if isinstance(m, HumanMessage)] == [QUESTION]


async def test_retrieve_first_revises_then_refuses(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[AIMessage("[1]"), AIMessage("The knowledge graph does not say.")])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", options=TEXT).ainvoke(
        {"question": QUESTION}))
    assert result.abstained and result.abstain_reason == "ungrounded" and result.llm_calls == 2
    assert "failed the citation check" in model.calls[1][-1].text
    assert "Evidence:" in model.calls[1][1].text  # the evidence is still in the revision's prompt


async def test_retrieve_first_abstains_when_nothing_is_found(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first",
                                                  options=AgentOptions(drafting="text",
                                                                       retrieve_options={"min_score": 0.5})).ainvoke(
        {"question": "What is the capital of Peru?"}))
    assert result.abstained and result.abstain_reason == "no_evidence" and model.calls == []


def test_an_unknown_retrieve_option_is_refused_when_the_agent_is_built(toolkit: GraphRAGToolkit) -> None:
    # Before: the typed retrieve raised TypeError at the first question, inside the run.
    with pytest.raises(ConfigurationError, match=r"no option 'topk'.*top_k"):
        build_grounded_agent(ScriptedChatModel(steps=[]), toolkit, mode="retrieve_first",
                             options=AgentOptions(retrieve_options={"topk": 5}))


# -- sessions, checkpointer, streaming ------------------------------------------------------------------------


async def test_each_run_numbers_its_own_evidence(toolkit: GraphRAGToolkit) -> None:
    numbers = []
    for _ in range(2):
        model = ScriptedChatModel(steps=[retrieve_call(), cite("Alice Smith works at Acme Corp [{n}].")])
        result = result_of(await build_grounded_agent(model, toolkit).ainvoke({"question": QUESTION}))
        numbers.append(result.tool_calls[0]["evidence"])
    assert numbers[0] == numbers[1] and min(numbers[0]) == 1
    assert len(toolkit.ledger) == 0  # runs never number evidence in the toolkit's own session


async def test_a_thread_keeps_its_conversation_and_evidence(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[
        retrieve_call(), cite("Alice Smith works at Acme Corp [{n}]."),
        cite("Acme Corp is in Berlin [{n}].", claim="Acme Corp in Berlin"),  # cites turn 1's evidence
    ])
    agent = build_grounded_agent(model, toolkit, checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1"}}
    first = await agent.ainvoke({"question": QUESTION}, config)
    second = await agent.ainvoke({"messages": [("user", "Which city is Acme Corp in?")]}, config)
    assert not first["abstained"] and not second["abstained"]
    assert second["question"] == "Which city is Acme Corp in?" and second["tool_calls"] == []
    assert second["llm_calls"] == 1 and "Berlin" in second["answer"]
    assert [m.text for m in second["messages"] if isinstance(m, HumanMessage)] == [
        QUESTION, "Which city is Acme Corp in?"]
    stored = await agent.aget_state(config)
    assert stored.values["answer"] == second["answer"]


async def test_streams_each_step(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[retrieve_call(), cite("Alice Smith works at Acme Corp [{n}].")])
    agent = build_grounded_agent(model, toolkit)
    steps = [node async for update in agent.astream({"question": QUESTION}, stream_mode="updates")
             for node in update]
    assert steps == ["prepare", "agent", "tools", "agent", "verify"]


async def test_missing_question_is_a_clear_error(toolkit: GraphRAGToolkit) -> None:
    agent = build_grounded_agent(ScriptedChatModel(), toolkit)
    with pytest.raises(ConfigurationError, match="needs a question"):
        await agent.ainvoke({"question": "  "})


def test_bad_options_are_refused(kg: KnowledgeGraph) -> None:
    with pytest.raises(ConfigurationError, match="mode"):
        build_grounded_agent(ScriptedChatModel(), GraphRAGToolkit(kg), mode="chat")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_revisions"):
        build_grounded_agent(ScriptedChatModel(), GraphRAGToolkit(kg), options=AgentOptions(max_revisions=-1))


# -- citation_gate in your own graph --------------------------------------------------------------------------


async def test_citation_gate_as_the_last_node_of_your_graph(toolkit: GraphRAGToolkit) -> None:
    session = toolkit.new_session()
    found = await session.retrieve(QUESTION)
    n = evidence_number(found.to_llm_text(), "works at Acme Corp")

    def build(draft: str) -> Any:
        builder = StateGraph(CitationGateState)
        builder.add_node("agent", lambda state: {"messages": [AIMessage(draft)]})
        builder.add_node("verify", citation_gate(session))
        builder.add_edge(START, "agent")
        builder.add_edge("agent", "verify")
        builder.add_edge("verify", END)
        return builder.compile()

    good = await build(f"Alice Smith works at Acme Corp [{n}].").ainvoke({"messages": [("user", QUESTION)]})
    assert not good["abstained"] and good["sources"][0]["n"] == n
    assert "Alice Smith works at Acme Corp" in good["sources"][0]["content"]
    bad = await build("Alice Smith works at Globex.").ainvoke({"messages": [("user", QUESTION)]})
    assert bad["abstained"] and bad["answer"] == REFUSAL and bad["messages"][-1].text == REFUSAL
    assert CitationCheck.model_validate(bad["citation_check"]).uncited == ["Alice Smith works at Globex."]


async def test_citation_gate_finds_the_thread_session(toolkit: GraphRAGToolkit) -> None:
    lc = GraphRAGLangChainToolkit(toolkit=toolkit, scope="per_thread")
    config: Any = {"configurable": {"thread_id": "a"}}
    found = await lc.session_for(config).retrieve(QUESTION)
    n = evidence_number(found.to_llm_text(), "works at Acme Corp")
    gate = citation_gate(lc, messages_only=True)
    draft = {"messages": [AIMessage(f"Alice Smith works at Acme Corp [{n}].")]}
    assert await gate(draft, config) == {}
    refused = await gate(draft, {"configurable": {"thread_id": "b"}})  # another thread: [n] is not its evidence
    assert refused["messages"][0].text == REFUSAL


def test_accept_rules() -> None:
    clean = CitationCheck(answer="Acme [1].", grounded=True, cited=[1])
    assert strictly_grounded(clean) and cites_evidence(clean)
    for flaw in ({"invalid": [9]}, {"uncited": ["Bob."]}, {"answer": "[1]."}):
        flawed = clean.model_copy(update=flaw)
        assert not strictly_grounded(flawed) and cites_evidence(flawed)
    assert not cites_evidence(CitationCheck(answer="a", grounded=False))


# -- tool calls written as text -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    '{"name": "retrieve", "arguments": {"question": "q"}}',
    '```json\n{"name": "retrieve", "parameters": {"question": "q"}}\n```',
    '<tool_call>\n{"name": "retrieve", "arguments": "{\\"question\\": \\"q\\"}"}\n</tool_call>',
    '{"name": "retrieve", "arguments": {"question": "q"}}\n{"name": "web_search", "arguments": {}}',
    '[{"type": "function", "function": {"name": "retrieve", "arguments": {"question": "q"}}}]',
])
def test_text_tool_calls_are_salvaged(text: str) -> None:
    message = salvage_text_tool_calls(AIMessage(text), {"retrieve", "status"})
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("retrieve", {"question": "q"})]
    assert message.text == ""


SCHEMAS = {
    "retrieve": {"properties": {"question": {}, "top_k": {}}, "required": ["question"]},
    "check_citations": {"properties": {"answer": {}}, "required": ["answer"]},
    "status": {"properties": {}},
}


def test_a_misnamed_call_is_recognised_by_its_arguments() -> None:
    text = '```json\n{"name": "Canadian rock band", "arguments": {"question": "q"}}\n```'  # seen from Qwen 0.5B
    message = salvage_text_tool_calls(AIMessage(text), SCHEMAS)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("retrieve", {"question": "q"})]
    for args in ('{"question": "q", "answer": "a"}', "{}", '{"top_k": 3}'):
        text = f'{{"name": "search", "arguments": {args}}}'
        assert salvage_text_tool_calls(AIMessage(text), SCHEMAS).tool_calls == []


@pytest.mark.parametrize("text", [
    "Alice works at Acme [1].",
    'Call this: {"name": "retrieve", "arguments": {"question": "q"}}',
    '{"name": "web_search", "arguments": {"q": "x"}}',
    '{"answer": "Acme"}',
    '{"name": "retrieve", "arguments": "not json"}',
])
def test_other_text_is_left_alone(text: str) -> None:
    message = AIMessage(text)
    assert salvage_text_tool_calls(message, {"retrieve"}) is message


def test_public_names_match_all() -> None:
    for name in agent_pkg.__all__:  # the names that need LangChain are imported on first use
        getattr(agent_pkg, name)
    public = {name for name in vars(agent_pkg) if not name.startswith("_")}
    modules = {"accept", "checks", "mode", "options", "refusal", "trace", "choice", "confidence", "confirm",
               "drafting", "figures_fit", "fit", "gate", "graph", "hops", "nodes", "prompts", "question_fit", "reader",
               "state", "structured", "structured_gate",
               # the old paths of agent.hops' modules, deprecated
               "chain_nodes", "compare", "compare_plan", "hop_check", "hop_plan", "tools_chain"}
    assert public - modules == set(agent_pkg.__all__)


@pytest.mark.parametrize(
    ("draft", "repaired"),
    [
        ("Globex acquired Initech in 1999.", "Globex acquired Initech in 1999 [2]."),
        ('He said "Globex acquired Initech."', 'He said "Globex acquired Initech [2]."'),
        ("Alice works at Acme Corp [1]. Globex acquired Initech!", "Alice works at Acme Corp [1]. "
                                                                  "Globex acquired Initech [2]!"),
        ("Globex acquired   Initech\nin 1999", "Globex acquired   Initech\nin 1999 [2]"),
        ("Globex acquired Initech in 2001.", None),  # no item holds 2001: nothing to suggest, no repair
        ("Alice works at Acme Corp [1]. Bob left.", None),  # one uncited sentence has no suggestion
        ("Alice works at Acme Corp [1].", None),  # nothing uncited: nothing to repair
    ],
)
def test_add_suggested_citations(draft: str, repaired: str | None) -> None:
    from graphrag_agents.agent import add_suggested_citations
    from graphrag_agents.evidence import Evidence
    from graphrag_agents.tools.citations import check_citations

    evidence = [Evidence(n=1, tool="retrieve", kind="fact", content="Alice works at Acme Corp."),
                Evidence(n=2, tool="retrieve", kind="fact", content="Globex acquired Initech in 1999.")]
    assert add_suggested_citations(check_citations(draft, evidence)) == repaired


async def test_repair_citations_serves_a_draft_the_check_can_cite(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[AIMessage("Alice Smith works at Acme Corp.")])
    agent = build_grounded_agent(model, toolkit, mode="retrieve_first", options=TEXT_REPAIRED)
    result = result_of(await agent.ainvoke({"question": QUESTION}))
    assert not result.abstained and result.repaired and result.llm_calls == 1 and result.revisions == 0
    assert result.answer.startswith("Alice Smith works at Acme Corp [") and result.check is not None
    assert result.check.uncited == [] and [s.n for s in result.sources] == result.check.cited
    # The added number is evidence that holds the sentence's names, as the check requires of any citation.
    assert all("Alice Smith" in s.content and "Acme Corp" in s.content for s in result.sources)

    # Off (the default), the same draft gets the revision turn, then the refusal.
    model = ScriptedChatModel(steps=[AIMessage("Alice Smith works at Acme Corp.")] * 2)
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", options=TEXT).ainvoke(
        {"question": QUESTION}))
    assert result.abstained and not result.repaired and result.llm_calls == 2


async def test_repair_never_serves_an_unsupported_claim(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[AIMessage("Alice Smith works at Initech.")] * 2)
    agent = build_grounded_agent(model, toolkit, mode="retrieve_first", options=TEXT_REPAIRED)
    result = result_of(await agent.ainvoke({"question": QUESTION}))
    assert result.abstained and not result.repaired


async def test_a_draft_too_long_to_check_is_refused_not_raised(toolkit: GraphRAGToolkit) -> None:
    # The check refuses drafts over its length limit with a ToolError; the agent must abstain, not crash.
    long_draft = "Alice Smith works at Acme Corp [{n}]. " * 2_000
    model = ScriptedChatModel(steps=[retrieve_call(), cite(long_draft), cite(long_draft)])
    state = await build_grounded_agent(model, toolkit).ainvoke({"question": QUESTION})
    result = result_of(state)

    assert result.abstained and result.abstain_reason == "ungrounded" and result.answer == REFUSAL
    assert result.check is not None and not result.check.grounded and "characters" in (result.check.hint or "")
