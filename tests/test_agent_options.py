"""``AgentOptions``: one object for every agent setting, its validation, the old keywords it replaces, and the
command-line and evaluation options built on it."""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import acme_and_globex_graph
from fake_chat import ScriptedChatModel

from graphrag_agents.agent import AgentOptions, GroundedAnswer, build_grounded_agent
from graphrag_agents.agent.options import option_names
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit


@pytest.fixture(scope="module")
async def acme_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    async with acme_and_globex_graph(data_dir, embedder, "agent_options") as kg:
        yield kg


@pytest.fixture
def toolkit(acme_kg: KnowledgeGraph) -> GraphRAGToolkit:
    return GraphRAGToolkit(acme_kg, read_only=True)


def test_build_grounded_agent_takes_at_most_eight_parameters() -> None:
    assert len(inspect.signature(build_grounded_agent).parameters) <= 8


def test_every_field_has_a_docstring() -> None:
    source = inspect.getsource(AgentOptions)
    for field in fields(AgentOptions):
        after = source.split(f"\n    {field.name}: ", 1)[1].split("\n", 2)[1]
        assert after.strip().startswith('"""'), field.name


@pytest.mark.parametrize("name", option_names())
def test_each_old_keyword_still_works_with_a_warning_naming_its_field(toolkit: GraphRAGToolkit, name: str) -> None:
    value = getattr(AgentOptions(), name)
    with pytest.warns(DeprecationWarning, match=rf"build_grounded_agent\({name}=\.\.\.\).*AgentOptions\({name}="):
        build_grounded_agent(ScriptedChatModel(), toolkit, **{name: value})


async def test_an_old_keyword_is_applied(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[])
    with pytest.warns(DeprecationWarning, match=r"AgentOptions\(min_score="):
        agent = build_grounded_agent(model, toolkit, min_score=0.99)
    result = GroundedAnswer.from_state(await agent.ainvoke({"question": "Where does Alice Smith work?"}))
    assert result.abstained and result.abstain_reason == "low_score" and model.calls == []


async def test_an_old_keyword_overrides_the_options_object(toolkit: GraphRAGToolkit) -> None:
    model = ScriptedChatModel(steps=[])
    with pytest.warns(DeprecationWarning):
        agent = build_grounded_agent(model, toolkit, options=AgentOptions(min_score=0.0), min_score=0.99)
    assert "gate" in agent.get_graph().nodes
    state = await agent.ainvoke({"question": "Where does Alice Smith work?"})
    assert state["abstain_reason"] == "low_score"


def test_the_options_object_warns_of_nothing(toolkit: GraphRAGToolkit) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        build_grounded_agent(ScriptedChatModel(), toolkit, mode="retrieve_first",
                             options=AgentOptions(min_score=0.2, confirm=True))


def test_an_unknown_keyword_is_a_type_error_naming_it(toolkit: GraphRAGToolkit) -> None:
    with pytest.raises(TypeError, match="'min_scor'.*AgentOptions"):
        build_grounded_agent(ScriptedChatModel(), toolkit, min_scor=0.3)


@pytest.mark.parametrize(("mode", "options", "named", "fix"), [
    ("chat", AgentOptions(), "'chat'", "retrieve_first"),
    ("tools", AgentOptions(max_revisions=-1), "max_revisions must be >= 0, not -1", "pass 0"),
    ("tools", AgentOptions(max_tool_rounds=0), "max_tool_rounds must be >= 1, not 0", "pass 1"),
    ("tools", AgentOptions(drafting="json"), "'json'", "'structured' or 'text'"),  # type: ignore[arg-type]
    ("retrieve_first", AgentOptions(min_confidence=1.5), "not 1.5", "such as 0.3"),
    ("retrieve_first", AgentOptions(min_confidence=float("nan")), "not nan", "such as 0.3"),
    ("tools", AgentOptions(min_confidence=0.3), "structured draft", "drafting='structured'"),
    ("tools", AgentOptions(retrieve_options={"topk": 5}), "'topk'", "top_k"),
])
def test_validate_names_the_bad_value_and_the_fix(mode: str, options: AgentOptions, named: str, fix: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        options.validate(mode)
    assert named in str(raised.value) and "Fix:" in str(raised.value) and fix in str(raised.value)


def test_for_mode_fills_in_drafting_and_turns_off_what_does_not_run() -> None:
    default = AgentOptions()
    assert default.for_mode("retrieve_first") == AgentOptions(drafting="structured")
    assert default.for_mode("tools") == AgentOptions(drafting="text", hops=False, choice_check=False)
    text = AgentOptions(drafting="text", choice_check=True).for_mode("retrieve_first")
    assert not text.hops and not text.choice_check


def test_the_cli_builds_options_from_its_flags() -> None:
    from graphrag_agents.cli.agent_options import add_drafting_arguments, agent_options

    parser = argparse.ArgumentParser()
    add_drafting_arguments(parser)
    args = parser.parse_args(["--confirm", "--no-hops", "--drafting", "text", "--min-confidence", "0.3"])
    assert agent_options(args, min_score=0.2) == AgentOptions(confirm=True, hops=False, drafting="text",
                                                              min_confidence=0.3, min_score=0.2)
    assert agent_options(parser.parse_args([])) == AgentOptions()
    # The multiple-choice check is off unless asked for; --no-choice-check (the previous way off) still parses.
    assert not AgentOptions().choice_check and agent_options(parser.parse_args(["--choice-check"])).choice_check
    assert not agent_options(parser.parse_args(["--no-choice-check"])).choice_check


def test_options_import_without_langchain() -> None:
    code = ("import sys\n"
            "for name in ('langchain_core', 'langgraph', 'langchain_litellm'):\n"
            "    sys.modules[name] = None\n"
            "from graphrag_agents.agent import AgentOptions\n"
            "from graphrag_agents.cli.agent_options import agent_options\n"
            "from graphrag_agents.evaluation.runner import EvalOptions\n"
            "print(EvalOptions(agent=AgentOptions(confirm=True)).agent.confirm)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"
