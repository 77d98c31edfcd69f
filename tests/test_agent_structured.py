"""Structured drafting of the reference agent (scripted chat model, real embedded graph): the JSON draft, its
rendering and check, the repair by the check's rule, "not in evidence", the text fallback and reader-sized
evidence."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import TEXT as ACME
from acme_corpus import acme_and_globex_graph
from fake_chat import ScriptedChatModel, evidence_number, last_tool_text, tool_call
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from graphrag_agents.agent import (
    NOT_IN_EVIDENCE,
    REFUSAL,
    AgentOptions,
    GroundedAnswer,
    ReaderView,
    StructuredDraft,
    parse_draft,
    reader_evidence,
    render_draft,
)
from graphrag_agents.agent import build_grounded_agent as build_agent
from graphrag_agents.agent.structured import refuses_response_format
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

QUESTION = "Where does Alice Smith work?"



def build_grounded_agent(model: Any, toolkit: GraphRAGToolkit, *, mode: str = "tools", **options: Any) -> Any:
    """The agent on the single-retrieve path these tests cover (the hop chain and the choice check have their own
    tests, ``test_agent_hops.py``), with ``options`` as its :class:`AgentOptions`."""
    return build_agent(model, toolkit, mode=mode,  # type: ignore[arg-type]
                       options=AgentOptions(**{"hops": False, "choice_check": False, **options}))


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    """Two small documents written directly (no extractor) and finalized, once per module; the tests only read."""
    async with acme_and_globex_graph(data_dir, embedder, "structured") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    return GraphRAGToolkit(acme_kg, read_only=True)


def reply(answer: str, claim: str | None = None, *, extra: str = "") -> Callable[[list[BaseMessage]], AIMessage]:
    """A JSON reply answering ``answer`` and citing the prompt's item that says ``claim`` (none when None)."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        text = "\n".join(m.text for m in messages if isinstance(m, HumanMessage))
        try:
            text += "\n" + last_tool_text(messages)
        except AssertionError:
            pass
        numbers = [evidence_number(text, claim)] if claim else []
        return AIMessage(extra + json.dumps({"answer": answer, "evidence": numbers}))

    return step


def result_of(state: dict[str, Any]) -> GroundedAnswer:
    return GroundedAnswer.from_state(state)


# -- retrieve_first: the default drafting is structured ------------------------------------------------------


async def test_structured_draft_is_rendered_checked_and_served(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply("Acme Corp", "works at Acme Corp")])
    state = await build_grounded_agent(model, toolkit,
                                       mode="retrieve_first", confirm=False).ainvoke({"question": QUESTION})
    result = result_of(state)
    n = evidence_number(model.calls[0][-1].text, "works at Acme Corp")
    assert not result.abstained and result.answer == f"Answer: Acme Corp [{n}]." and result.short_answer == "Acme Corp"
    assert result.check is not None and result.check.cited == [n] and not result.repaired
    assert result.llm_calls == 1 and [s.n for s in result.sources] == [n]
    # The reply format went to the model as a JSON Schema, and the conversation ends with the served answer.
    fmt = model.call_kwargs[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["required"] == ["answer", "evidence"]
    assert state["messages"][-1].text == result.answer


async def test_the_drafting_turn_reads_passages_first_and_no_entity_cards(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply("Acme Corp", "works at Acme Corp")])
    state = await build_grounded_agent(model, toolkit,
                                       mode="retrieve_first", confirm=False).ainvoke({"question": QUESTION})
    prompt = model.calls[0][-1].text
    evidence = prompt.split("Evidence:\n", 1)[1].split("\n\nQuestion:", 1)[0]
    first = re.match(r"\[\d+\] \((\w+)\) ", evidence)
    assert first is not None and first.group(1) in {"Acme", "Globex"}  # a passage, with its document's title
    assert "(Person)" not in evidence and "(Company)" not in evidence  # entity cards are left out
    assert evidence == state["context"] and len(evidence) <= ReaderView().max_chars
    # The full retrieve (what text drafting shows) has the entity cards.
    full = await toolkit.new_session().retrieve(question=QUESTION)
    assert full.entities and "Alice Smith (Person" in full.to_llm_text()


async def test_not_in_evidence_is_the_fixed_refusal(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply(NOT_IN_EVIDENCE)])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False).ainvoke(
        {"question": QUESTION}))
    assert result.abstained and result.answer == REFUSAL and result.abstain_reason == "not_in_evidence"
    assert result.llm_calls == 1 and result.revisions == 0


async def test_low_score_gate_refuses_before_the_model(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[])
    result = result_of(await build_grounded_agent(model, toolkit,
                                                  mode="retrieve_first", confirm=False, min_score=0.99).ainvoke(
        {"question": QUESTION}))
    assert result.abstained and result.answer == REFUSAL and result.abstain_reason == "low_score"
    assert model.calls == []


async def test_a_wrong_citation_is_repaired_by_the_checks_rule(toolkit: GraphRAGToolkit) -> None:
    # The model cites the Globex passage for "Acme Corp": the check finds the name in another item and cites it.
    model = ScriptedChatModel(steps=[reply("Acme Corp", "Bob Jones founded Globex")])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False,
                                                  repair_citations=True).ainvoke({"question": QUESTION}))
    assert not result.abstained and result.repaired and result.llm_calls == 1
    assert result.check is not None and not result.check.unsupported
    assert all("Acme Corp" in s.content for s in result.sources) and result.sources


async def test_without_repair_the_revision_gets_the_findings_in_the_same_structure(
        toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply("Acme Corp", "Bob Jones founded Globex"),
                                     reply("Acme Corp", "works at Acme Corp")])
    agent = build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False)  # repair is off by default
    result = result_of(await agent.ainvoke({"question": QUESTION}))
    assert not result.abstained and not result.repaired and result.revisions == 1 and result.llm_calls == 2
    turn = model.calls[1][-1].text
    findings = json.loads(turn.split("\n")[1])
    assert findings["your_reply"]["answer"] == "Acme Corp"
    holder = evidence_number(model.calls[0][-1].text, "works at Acme Corp")
    assert any("does not contain 'Acme Corp'" in p for p in findings["problems"])
    assert any(p.startswith("your answer is in evidence") and f"[{holder}]" in p for p in findings["problems"])
    assert model.call_kwargs[1]["response_format"]["type"] == "json_schema"


async def test_an_answer_echoing_the_question_gets_a_revision_turn_naming_why(toolkit: GraphRAGToolkit) -> None:
    # "Alice Smith" is in the cited passage, so the citation check passes; it only repeats the question.
    model = ScriptedChatModel(steps=[reply("Alice Smith", "works at Acme Corp"),
                                     reply("Acme Corp", "works at Acme Corp")])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False).ainvoke(
        {"question": QUESTION}))
    assert not result.abstained and result.short_answer == "Acme Corp" and result.revisions == 1
    turn = model.calls[1][-1].text
    assert turn.startswith("The answer check rejected your reply") and "only repeats the question" in turn
    assert result.fit == []


async def test_an_answer_from_evidence_unrelated_to_the_question_is_refused(toolkit: GraphRAGToolkit) -> None:
    # The Globex passage states "Globex" (the check passes) but never names Alice Smith, and nothing links it.
    steps = [reply("Globex", "Bob Jones founded Globex")] * 2
    result = result_of(await build_grounded_agent(ScriptedChatModel(steps=list(steps)), toolkit,
                                                  mode="retrieve_first", confirm=False).ainvoke({"question": QUESTION}))
    assert result.abstained and result.answer == REFUSAL and result.abstain_reason == "off_question"
    assert result.check is not None and result.check.cited and not result.check.unsupported
    assert result.fit and "'Alice Smith'" in result.fit[0] and result.llm_calls == 2
    # The rules off: the same draft is served, so it is the answer-fit rule that refused it.
    served = result_of(await build_grounded_agent(ScriptedChatModel(steps=list(steps)), toolkit,
                                                  mode="retrieve_first", confirm=False, answer_fit=False).ainvoke(
        {"question": QUESTION}))
    assert not served.abstained and served.short_answer == "Globex"


async def test_confirm_asks_about_the_cited_evidence_and_refuses_on_no(toolkit: GraphRAGToolkit) -> None:
    for verdict, refused in ((True, False), (False, True)):
        model = ScriptedChatModel(steps=[reply("Acme Corp", "works at Acme Corp"),
                                         AIMessage(json.dumps({"supported": verdict}))])
        state = await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=True).ainvoke(
            {"question": QUESTION})
        result = result_of(state)
        assert result.abstained is refused and result.llm_calls == 2 and state["confirmed"] is verdict
        assert result.confirmed is verdict
        assert result.abstain_reason == ("not_confirmed" if refused else None)
        # The confirmation turn shows the question, the answer and only the cited item, in its own schema.
        n = evidence_number(model.calls[0][-1].text, "works at Acme Corp")
        turn = model.calls[1][-1].text
        assert turn.startswith(f"Evidence:\n[{n}] {ACME}") and "Bob Jones" not in turn
        assert "Proposed answer: Acme Corp" in turn and QUESTION in turn
        assert model.call_kwargs[1]["response_format"]["json_schema"]["schema"]["required"] == ["supported"]
    # Off by default: one call, served.
    model = ScriptedChatModel(steps=[reply("Acme Corp", "works at Acme Corp")])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first").ainvoke(
        {"question": QUESTION}))
    assert not result.abstained and result.llm_calls == 1 and result.confirmed is None


async def test_an_answer_no_evidence_holds_is_refused_even_with_repair(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[reply("Initech", "works at Acme Corp")] * 2)
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False,
                                                  repair_citations=True).ainvoke({"question": QUESTION}))
    assert result.abstained and result.abstain_reason == "ungrounded" and not result.repaired
    assert result.short_answer == "Initech" and result.llm_calls == 2


async def test_a_reply_without_json_is_checked_as_free_text(toolkit: GraphRAGToolkit) -> None:
    def free_text(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number(messages[-1].text, "works at Acme Corp")
        return AIMessage(f"Alice Smith works at Acme Corp [{n}].")

    model = ScriptedChatModel(steps=[free_text])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False).ainvoke(
        {"question": QUESTION}))
    assert not result.abstained and result.answer.startswith("Alice Smith works at Acme Corp [")
    assert result.short_answer == ""


class NoStructuredOutput(ScriptedChatModel):
    """A model whose provider refuses ``response_format``, as litellm reports it."""

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:
        if "response_format" in kwargs:
            raise ValueError("UnsupportedParamsError: this model does not support parameters: ['response_format']")
        return super()._generate(messages, stop, run_manager, **kwargs)


async def test_a_model_without_structured_output_gets_the_format_in_words(toolkit: GraphRAGToolkit) -> None:
    model = NoStructuredOutput(steps=[reply("Acme Corp", "works at Acme Corp", extra="Here you go: ")])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False).ainvoke(
        {"question": QUESTION}))
    assert not result.abstained and result.short_answer == "Acme Corp" and result.llm_calls == 1
    assert model.call_kwargs == [{}] and '"answer"' in model.calls[0][-1].text


async def test_a_transient_error_is_not_taken_for_missing_structured_output() -> None:
    assert refuses_response_format(ValueError("litellm.BadRequestError: response_format is not supported"))
    assert not refuses_response_format(TimeoutError("Request timed out"))


# -- tools mode: structured final answer (an option) ----------------------------------------------------------


async def test_tools_mode_structured_final_answer(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[
        AIMessage("", tool_calls=[tool_call("retrieve", {"question": QUESTION})]),
        AIMessage("Alice works at Acme."),  # the model's own text is replaced by the structured final answer
        reply("Acme Corp", "works at Acme Corp"),
    ])
    agent = build_grounded_agent(model, toolkit, drafting="structured")
    result = result_of(await agent.ainvoke({"question": QUESTION}))
    assert not result.abstained and result.short_answer == "Acme Corp" and result.llm_calls == 3
    assert "Now answer the question" in model.calls[2][-1].text
    assert "response_format" in model.call_kwargs[2] and "response_format" not in model.call_kwargs[0]


# -- parsing and rendering ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "answer", "evidence"), [
    ('{"answer": "Stanley", "evidence": [34]}', "Stanley", [34]),
    ('```json\n{"answer": "Stanley [34].", "evidence": []}\n```', "Stanley", [34]),
    ('Sure: {"answer": "1993", "evidence": ["[2]", "5"]}', "1993", [2, 5]),
    ('{"answer": "Rush", "evidence": 3}', "Rush", [3]),
    ('{"answer": "yes", "evidence": [0, -1, true, [4]]}', "yes", []),
])
def test_parse_draft(text: str, answer: str, evidence: list[int]) -> None:
    draft = parse_draft(text)
    assert draft is not None and draft.answer == answer and draft.evidence == evidence


@pytest.mark.parametrize("text", ["Rush [3].", '{"evidence": [3]}', "{" * 5000, '{"answer": {"x": 1}}', ""])
def test_parse_draft_leaves_other_text_alone(text: str) -> None:
    assert parse_draft(text) is None


def test_parse_draft_is_bounded_on_hostile_input() -> None:
    hostile = '{"a": 1} ' * 50_000 + '{"answer": "late", "evidence": [1]}'
    assert parse_draft(hostile) is None  # searched only in the first characters and objects
    long = parse_draft(json.dumps({"answer": "x" * 10_000, "evidence": list(range(1, 1000))}))
    assert long is not None and len(long.answer) <= 300 and len(long.evidence) <= 8


@pytest.mark.parametrize(("answer", "declines"), [
    ("not in evidence", True), ("Not in the evidence.", True), ("", True), ("unknown", True),
    ("The knowledge graph does not say", True), ("Stanley", False), ("no", False),
])
def test_declines(answer: str, declines: bool) -> None:
    assert StructuredDraft(answer=answer).declines is declines


def test_render_draft() -> None:
    draft = StructuredDraft(answer="Stanley", evidence=[34, 2])
    assert render_draft(draft) == "Answer: Stanley [34, 2]." and render_draft(draft, []) == "Answer: Stanley."


async def test_reader_view_limits_items_and_characters(toolkit: GraphRAGToolkit) -> None:
    result = await toolkit.new_session().retrieve(question=QUESTION)
    text, shown = reader_evidence(result, ReaderView(passages=1, facts=0))
    assert len(shown) == 1 and shown[0] == result.passages[0].n and text.startswith(f"[{shown[0]}] (")
    text, shown = reader_evidence(result, ReaderView(passages=5, facts=5, entities=5, max_chars=200))
    assert len(text) <= 200 and shown
    with_cards, _ = reader_evidence(result, ReaderView(entities=5))
    assert "(Person)" in with_cards
    with pytest.raises(ValueError, match="passages"):
        ReaderView(passages=-1)


@pytest.mark.parametrize(("reply_text", "verdict"), [
    ('{"supported": true}', True), ('{"supported": false}', False), ('Sure: {"supported": "yes"}', True),
    ("false", False), ("Yes, it does.", True), ('{"supported": 1}', None), ("maybe", None),
])
def test_confirmation_replies_are_read_strictly(reply_text: str, verdict: bool | None) -> None:
    from graphrag_agents.agent.confirm import parse_confirm

    assert parse_confirm(reply_text) is verdict


async def test_supporting_sentence_asks_for_the_sentence_before_the_answer(toolkit: GraphRAGToolkit) -> None:
    def with_sentence(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number(messages[-1].text, "works at Acme Corp")
        return AIMessage(json.dumps({"sentence": "Alice Smith works at Acme Corp in Berlin.", "answer": "Acme Corp",
                                     "evidence": [n]}))

    model = ScriptedChatModel(steps=[with_sentence])
    result = result_of(await build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False,
                                                  supporting_sentence=True).ainvoke({"question": QUESTION}))
    assert not result.abstained and result.short_answer == "Acme Corp"
    schema = model.call_kwargs[0]["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"])[:2] == ["sentence", "answer"] and schema["required"][0] == "sentence"
    assert '{"sentence": "<the sentence of the evidence' in model.calls[0][-1].text
    # The default format has no sentence.
    plain = ScriptedChatModel(steps=[reply("Acme Corp", "works at Acme Corp")])
    await build_grounded_agent(plain, toolkit, mode="retrieve_first", confirm=False).ainvoke({"question": QUESTION})
    assert "sentence" not in plain.call_kwargs[0]["response_format"]["json_schema"]["schema"]["properties"]
