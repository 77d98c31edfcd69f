"""The model's confidence in its short answer (``min_confidence``): read from token log-probabilities, applied by
the reference agent before it serves."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from acme_corpus import acme_and_globex_graph
from fake_chat import ScriptedChatModel, evidence_number
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from graphrag_agents.agent import AgentOptions, GroundedAnswer, answer_confidence
from graphrag_agents.agent import build_grounded_agent as build_agent
from graphrag_agents.agent.confidence import token_logprobs
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

QUESTION = "Where does Alice Smith work?"


def with_logprobs(pieces: list[tuple[str, float]]) -> AIMessage:
    """A reply made of ``pieces`` (token, probability), its log-probabilities in OpenAI's dict form."""
    content = [{"token": token, "logprob": math.log(p), "top_logprobs": []} for token, p in pieces]
    return AIMessage("".join(token for token, _ in pieces), response_metadata={"logprobs": {"content": content}})


def draft_pieces(answer_tokens: list[tuple[str, float]], number: int) -> list[tuple[str, float]]:
    return [('{"answer": "', 0.9), *answer_tokens, (f'", "evidence": [{number}]', 0.5), ("}", 1.0)]


def test_the_confidence_is_the_probability_of_the_answers_tokens_only() -> None:
    message = with_logprobs(draft_pieces([("Acme", 0.8), (" Corp", 0.5)], 1))
    assert json.loads(message.text)["answer"] == "Acme Corp"
    assert answer_confidence(message) == pytest.approx(0.4)


def test_a_token_holding_the_opening_quote_and_the_answer_counts() -> None:
    message = with_logprobs([('{"answer', 0.9), ('": "Ac', 0.5), ("me", 0.5), ('"}', 0.1)])
    assert answer_confidence(message) == pytest.approx(0.25)


def test_an_escaped_quote_does_not_end_the_answer() -> None:
    message = with_logprobs([('{"answer": "', 1.0), ('The \\"Rock', 0.5), ('\\" Band', 0.5), ('"}', 0.1)])
    assert json.loads(message.text)["answer"] == 'The "Rock" Band'
    assert answer_confidence(message) == pytest.approx(0.25)


def test_litellms_object_form_is_read_too() -> None:
    tokens = [SimpleNamespace(token=t, logprob=math.log(p), top_logprobs=[])
              for t, p in draft_pieces([("Globex", 0.7)], 2)]
    message = AIMessage("", response_metadata={"logprobs": SimpleNamespace(content=tokens)})
    assert answer_confidence(message) == pytest.approx(0.7)


@pytest.mark.parametrize("metadata", [{}, {"logprobs": None}, {"logprobs": {"content": []}},
                                      {"logprobs": {"content": [{"token": 3, "logprob": "x"}]}}])
def test_no_readable_logprobs_is_no_confidence(metadata: dict[str, Any]) -> None:
    message = AIMessage('{"answer": "Acme"}', response_metadata=metadata)
    assert token_logprobs(message) is None and answer_confidence(message) is None


def test_a_reply_without_an_answer_string_has_no_confidence() -> None:
    assert answer_confidence(with_logprobs([('{"answer": 42}', 0.9)])) is None
    assert answer_confidence(with_logprobs([('{"answer": "unterminated', 0.9)])) is None


# -- the agent applies it ----------------------------------------------------------------------------------------


def build_grounded_agent(model: Any, toolkit: GraphRAGToolkit, *, mode: str = "tools", **options: Any) -> Any:
    """The agent on the single-retrieve path these tests cover (the hop chain and the choice check have their own
    tests, ``test_agent_hops.py``), with ``options`` as its :class:`AgentOptions`."""
    return build_agent(model, toolkit, mode=mode,  # type: ignore[arg-type]
                       options=AgentOptions(**{"hops": False, "choice_check": False, **options}))


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    async with acme_and_globex_graph(data_dir, embedder, "confidence") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    return GraphRAGToolkit(acme_kg, read_only=True)


def confident_reply(probability: float) -> Callable[[list[BaseMessage]], AIMessage]:
    """The right answer, cited, given ``probability`` by the model."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        number = evidence_number(messages[-1].text if isinstance(messages[-1], HumanMessage) else "",
                                 "works at Acme Corp")
        return with_logprobs(draft_pieces([("Acme Corp", probability)], number))

    return step


async def test_an_answer_under_min_confidence_is_refused_and_one_over_it_served(toolkit: GraphRAGToolkit) -> None:
    for probability, refused in ((0.3, True), (0.9, False)):
        model = ScriptedChatModel(steps=[confident_reply(probability)])
        state = await build_grounded_agent(model, toolkit,
                                           mode="retrieve_first", confirm=False, min_confidence=0.5).ainvoke(
            {"question": QUESTION})
        result = GroundedAnswer.from_state(state)
        assert result.abstained is refused and result.confidence == pytest.approx(probability)
        assert result.abstain_reason == ("low_confidence" if refused else None)
        assert result.short_answer == "Acme Corp" and result.llm_calls == 1
        # The drafting call asked for log-probabilities, with the draft's schema.
        kwargs = model.call_kwargs[0]
        assert kwargs["logprobs"] is True and kwargs["response_format"]["type"] == "json_schema"


async def test_without_min_confidence_no_logprobs_are_asked_for(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[confident_reply(0.1)])
    result = GroundedAnswer.from_state(await build_grounded_agent(model, toolkit,
                                                                  mode="retrieve_first", confirm=False).ainvoke(
        {"question": QUESTION}))
    assert not result.abstained and result.confidence is None and "logprobs" not in model.call_kwargs[0]


async def test_a_model_returning_no_logprobs_is_a_configuration_error_naming_the_fix(
        toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[AIMessage('{"answer": "Acme Corp", "evidence": [1]}')])
    agent = build_grounded_agent(model, toolkit, mode="retrieve_first", confirm=False, min_confidence=0.5)
    with pytest.raises(ConfigurationError, match="min_confidence=None"):
        await agent.ainvoke({"question": QUESTION})


class NoLogprobs(ScriptedChatModel):
    """A model whose provider refuses ``logprobs``, as litellm reports it."""

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:
        if "logprobs" in kwargs:
            raise ValueError("UnsupportedParamsError: anthropic does not support parameters: ['logprobs']")
        return super()._generate(messages, stop, run_manager, **kwargs)


async def test_a_provider_refusing_logprobs_is_a_configuration_error_not_a_lost_format(
        toolkit: GraphRAGToolkit) -> None:
    agent = build_grounded_agent(NoLogprobs(steps=[confident_reply(0.9)]), toolkit, mode="retrieve_first",
                                 min_confidence=0.5)
    with pytest.raises(ConfigurationError, match="min_confidence=None"):
        await agent.ainvoke({"question": QUESTION})


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_min_confidence_must_be_a_probability(toolkit: GraphRAGToolkit, value: float) -> None:
    with pytest.raises(ConfigurationError, match="probability"):
        build_grounded_agent(ScriptedChatModel(steps=[]), toolkit, mode="retrieve_first", min_confidence=value)


def test_min_confidence_needs_structured_drafting(toolkit: GraphRAGToolkit) -> None:
    with pytest.raises(ConfigurationError, match="drafting='structured'"):
        build_grounded_agent(ScriptedChatModel(steps=[]), toolkit, mode="retrieve_first", drafting="text",
                             min_confidence=0.3)


@pytest.mark.parametrize(("flag", "ok"), [("0.3", True), ("0", True), ("1", True), ("1.2", False), ("-1", False),
                                          ("x", False), ("nan", False)])
def test_the_min_confidence_flag_takes_a_probability(flag: str, ok: bool) -> None:
    import argparse

    from graphrag_agents.cli.agent_options import add_drafting_arguments, agent_options

    parser = argparse.ArgumentParser(exit_on_error=False)
    add_drafting_arguments(parser)
    if ok:
        assert agent_options(parser.parse_args(["--min-confidence", flag])).min_confidence == float(flag)
    else:
        with pytest.raises(argparse.ArgumentError):
            parser.parse_args(["--min-confidence", flag])


def test_min_confidence_is_part_of_the_settings_a_resumed_run_must_match(tmp_path: Path) -> None:
    from graphrag_agents.evaluation.runner import EvalOptions

    base = EvalOptions(out=tmp_path, model="openai/local").settings("digest", "minilm")
    gated = EvalOptions(out=tmp_path, model="openai/local",
                        agent=AgentOptions(min_confidence=0.3)).settings("digest", "minilm")
    assert "min_confidence" not in base  # folders written before the option existed still resume
    assert gated["min_confidence"] == 0.3 and {k: v for k, v in gated.items() if k != "min_confidence"} == base
