"""``mode="auto"``, the default of ``build_grounded_agent``, ``ask`` and ``eval --agent-mode``: ``tools`` for a
model with native tool calling, ``retrieve_first`` otherwise, and the run says which it used and why.

Scripted chat models (``tests/fake_chat.py``) on the real embedded graph; litellm's capability table is its bundled
copy (no network).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import QUESTION, acme_and_globex_graph
from fake_chat import ScriptedChatModel, acme_reply, evidence_number
from langchain_core.messages import AIMessage, BaseMessage
from section_rows import read_rows

import graphrag_agents.agent.graph as agent_graph
import graphrag_agents.cli.commands as cli
from graphrag_agents.agent import AgentOptions, GroundedAnswer, build_grounded_agent, choose_mode
from graphrag_agents.cli import evaluate
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.evaluation.runner import EvalOptions
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

SINGLE = AgentOptions(hops=False, choice_check=False)


class NoToolsChatModel(ScriptedChatModel):
    """A scripted model without tool calling: LangChain's own ``bind_tools``, which raises NotImplementedError."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    async with acme_and_globex_graph(data_dir, embedder, "agent_mode") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    return GraphRAGToolkit(acme_kg, read_only=True)


async def test_auto_runs_retrieve_first_for_a_model_without_tool_calling(toolkit: GraphRAGToolkit) -> None:
    model = NoToolsChatModel(steps=[acme_reply])
    state = await build_grounded_agent(model, toolkit, options=SINGLE).ainvoke({"question": QUESTION})
    result = GroundedAnswer.from_state(state)
    assert not result.abstained and result.short_answer == "Acme Corp" and len(model.calls) == 1
    assert result.mode == "retrieve_first" and result.mode_reason == "NoToolsChatModel: bind_tools is not implemented"
    assert state["trace"][0] == {"node": "prepare", "outcome": "mode", "reason": None, "why": None,
                                 "detail": "mode auto → retrieve_first: NoToolsChatModel: bind_tools is not "
                                           "implemented"}


async def test_the_old_default_is_reached_by_naming_it(toolkit: GraphRAGToolkit) -> None:
    with pytest.raises(ConfigurationError, match="mode='retrieve_first'"):
        build_grounded_agent(NoToolsChatModel(), toolkit, mode="tools")
    state = await build_grounded_agent(ScriptedChatModel(steps=[acme_reply]), toolkit, mode="retrieve_first",
                                       options=SINGLE).ainvoke({"question": QUESTION})
    assert state["mode"] == "retrieve_first" and state["mode_reason"] is None
    assert state["trace"][0]["node"] == "retrieve"  # a named mode is no step


def test_a_model_profile_decides_before_bind_tools() -> None:
    profiled = ScriptedChatModel(profile={"tool_calling": False})
    assert choose_mode("auto", profiled).mode == "retrieve_first"
    assert choose_mode("auto", ScriptedChatModel()).mode == "tools"  # no profile: bind_tools is implemented


def test_a_model_named_by_string_is_looked_up_in_litellm(capsys: pytest.CaptureFixture[str]) -> None:
    assert choose_mode("auto", "openai/gpt-4o-mini").mode == "tools"
    local = choose_mode("auto", "openai/local")
    assert local.mode == "retrieve_first" and local.why == "openai/local: no native tool calling (litellm)"
    assert choose_mode("auto", "no-such-provider/model-x").mode == "retrieve_first"
    assert capsys.readouterr().out == ""  # litellm's provider list for an unknown name is not printed


def test_a_litellm_chat_model_is_looked_up_by_its_name() -> None:
    from graphrag_agents.models.langchain_model import langchain_chat_model

    # ChatLiteLLM's bind_tools takes tools for any model; its name decides.
    assert choose_mode("auto", langchain_chat_model("openai/local")).mode == "retrieve_first"


def test_an_unknown_mode_names_the_three() -> None:
    with pytest.raises(ConfigurationError, match="'auto', 'tools' or 'retrieve_first'"):
        choose_mode("tool", None)


@pytest.fixture(scope="module")
def npm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedded FalkorDB folder holding the graph ``npm``: five sections of ``commands/npm-version.md`` from the
    shared ``techdocs_a`` corpus (``tests/data/npm_version_sections.jsonl``), one document each."""
    data_dir = tmp_path_factory.mktemp("mode")

    async def build() -> None:
        async with await KnowledgeGraph.open(graph="npm", data_dir=str(data_dir)) as kg:
            await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"])
                                       for r in read_rows("npm_version_sections.jsonl")],
                                      IngestPlan(extractor="ner"), progress=False)
            await kg.finalize(progress=False)

    asyncio.run(build())
    return data_dir


@pytest.fixture
def scripted_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[ScriptedChatModel], None]:
    """Point ``ask`` at a scripted model (GRAPHRAG_MODEL set, the model factory replaced)."""
    for name in ("GRAPHRAG_AGENT_MODE", "GRAPHRAG_MODEL_TIMEOUT", "GRAPHRAG_API_BASE", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRAPHRAG_MODEL", "scripted/test")

    def use(model: ScriptedChatModel) -> None:
        monkeypatch.setattr(agent_graph, "langchain_chat_model", lambda name=None: model)

    return use


def test_ask_says_which_mode_auto_picked(npm_dir: Path, scripted_env: Callable[[ScriptedChatModel], None],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    def draft(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number("\n".join(m.text for m in messages), "becomes `1.2.0`")
        return AIMessage(json.dumps({"answer": "1.2.0", "evidence": [n]}))

    scripted_env(NoToolsChatModel(steps=[draft]))
    # techdocs_a row s14 (line 13 of the questions file).
    code = cli.main(["ask", "My package is at 1.2.0-5. Which version do I get after `npm version patch`?",
                     "--data-dir", str(npm_dir), "--graph", "npm", "--no-hops", "--no-choice-check", "--json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0 and result["mode"] == "retrieve_first" and result["short_answer"] == "1.2.0"
    assert result["mode_reason"] == "NoToolsChatModel: bind_tools is not implemented"
    assert "Agent (retrieve_first mode, model scripted/test):" in captured.err
    assert "· mode auto → retrieve_first: NoToolsChatModel: bind_tools is not implemented" in captured.err


def test_a_timeout_in_tools_mode_names_retrieve_first(npm_dir: Path, scripted_env: Callable[[ScriptedChatModel], None],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def slow(messages: list[BaseMessage]) -> AIMessage:
        raise TimeoutError("the request timed out after 120 s")

    scripted_env(ScriptedChatModel(steps=[slow]))
    code = cli.main(["ask", "Which prerelease identifier does npm version use?", "--data-dir", str(npm_dir),
                     "--graph", "npm", "--mode", "tools"])
    err = capsys.readouterr().err
    assert code == 2 and "error: the chat model failed: TimeoutError" in err
    assert "hint: the model timed out in tools mode" in err and "--mode retrieve_first" in err


def test_eval_resolves_auto_for_its_model(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    evaluate.add_arguments(parser)
    assert parser.parse_args(["q.jsonl", "c.jsonl"]).agent_mode == "auto"
    options = EvalOptions(out=tmp_path, model="openai/local")
    # A folder recorded with --agent-mode retrieve_first resumes under auto on the same local model.
    assert options.settings("digest", "minilm") == EvalOptions(
        out=tmp_path, model="openai/local", agent_mode="retrieve_first").settings("digest", "minilm")
    assert options.mode_used() == "retrieve_first" and options.drafting_used() == "structured"
    assert EvalOptions(out=tmp_path, model="openai/gpt-4o-mini").mode_used() == "tools"
