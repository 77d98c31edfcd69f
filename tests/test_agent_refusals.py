"""Refusals that say what happened, and a draft that restates a span of its question served when that span is not
the question's own words.

The answer of every refusal stays the fixed text; why, in words, comes from the trace (``TraceStep.why``) into
``GroundedAnswer.reason``, its ``to_text`` and ``graphrag-agents ask`` (its ``Why:`` line and ``--json``'s
``reason``).

The spans are real: five sections of ``commands/npm-version.md`` from the shared ``techdocs_a`` corpus (npm CLI
11.19.1, copied to ``tests/data/npm_version_sections.jsonl``; license in ``tests/data/NOTICE.md``), one document
each, as the eval builds them. The question is ``techdocs_a`` row s14 (line 13 of the questions file, the half the
rules are tuned on).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from fake_chat import ScriptedChatModel, evidence_number
from langchain_core.messages import AIMessage, BaseMessage
from section_rows import read_rows

import graphrag_agents.agent.graph as agent_graph
import graphrag_agents.cli.commands as cli
from graphrag_agents.agent import REFUSAL, AgentOptions, GroundedAnswer, build_grounded_agent
from graphrag_agents.agent.fit import ShownItem, answer_fit
from graphrag_agents.agent.refusal import refusal_words
from graphrag_agents.agent.state import AbstainReason
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

ROWS = read_rows("npm_version_sections.jsonl")
DESCRIPTION = next(row for row in ROWS if row["title"] == "commands/npm-version.md › Description")
# techdocs_a row s14: the gold answer is the version the question writes, without its prerelease suffix.
S14 = "My package is at 1.2.0-5. Which version do I get after `npm version patch`?"
S14_ANSWER = "1.2.0"
SINGLE = AgentOptions(hops=False, choice_check=False)
STATES = "becomes `1.2.0`"


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedded FalkorDB folder holding the graph ``npm`` built from the five sections (once per module)."""
    data_dir = tmp_path_factory.mktemp("refusals")

    async def build() -> None:
        async with await KnowledgeGraph.open(graph="npm", data_dir=str(data_dir)) as kg:
            await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"])
                                       for r in ROWS], IngestPlan(extractor="ner"), progress=False)
            await kg.finalize(progress=False)

    asyncio.run(build())
    return data_dir


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GRAPHRAG_MODEL", "GRAPHRAG_AGENT_MODE", "GRAPHRAG_MODEL_TIMEOUT", "GRAPHRAG_API_BASE",
                 "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)


def _scripted(monkeypatch: pytest.MonkeyPatch, *steps: Any) -> ScriptedChatModel:
    model = ScriptedChatModel(steps=list(steps))
    monkeypatch.setenv("GRAPHRAG_MODEL", "scripted/test")
    monkeypatch.setattr(agent_graph, "langchain_chat_model", lambda name=None: model)
    return model


def reply(answer: str, claim: str = STATES) -> Any:
    """A structured draft of ``answer`` citing the shown item that holds ``claim``."""
    def step(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number("\n".join(m.text for m in messages), claim)
        return AIMessage(json.dumps({"answer": answer, "evidence": [n]}))

    return step


def ask(graph_dir: Path, *flags: str) -> int:
    return cli.main(["ask", S14, "--data-dir", str(graph_dir), "--graph", "npm", "--mode", "retrieve_first",
                     "--no-hops", "--no-choice-check", *flags])


def test_an_answer_inside_an_identifier_of_the_question_is_no_echo() -> None:
    shown = [ShownItem(1, DESCRIPTION["title"], DESCRIPTION["text"])]
    assert answer_fit(S14, S14_ANSWER, [1], shown) == []
    # Words the question writes whole are still an echo.
    assert [p.rule for p in answer_fit(S14, "npm version patch", [1], shown)] == ["echo"]


def test_the_draft_restating_a_version_the_question_writes_is_served(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    model = _scripted(monkeypatch, reply(S14_ANSWER))
    code = ask(graph_dir, "--json")
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["short_answer"] == S14_ANSWER and result["abstain_reason"] is None
    assert result["reason"] is None and len(model.calls) == 1


# Our own question on the same sections: it offers its answer after the colon, and the Description section states
# it ("`from-git` will try to read the latest git tag").
OFFERS = "Which `npm version` argument reads the latest git tag as the new version: `from-git`?"


def test_an_answer_the_question_offers_after_its_colon_is_no_echo() -> None:
    shown = [ShownItem(1, DESCRIPTION["title"], DESCRIPTION["text"])]
    assert answer_fit(OFFERS, "from-git", [1], shown) == []
    # The same words elsewhere in the question are still an echo.
    assert [p.rule for p in answer_fit(OFFERS, "npm version", [1], shown)] == ["echo"]


def test_the_draft_restating_the_answer_the_question_offers_is_served(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _scripted(monkeypatch, reply("from-git", "`from-git` will try to read the latest git tag"))
    code = cli.main(["ask", OFFERS, "--data-dir", str(graph_dir), "--graph", "npm", "--mode", "retrieve_first",
                     "--no-hops", "--no-choice-check", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["short_answer"] == "from-git" and result["abstain_reason"] is None


def test_an_off_question_refusal_says_why(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _scripted(monkeypatch, reply("npm version patch"), reply("npm version patch"))
    code = ask(graph_dir)
    captured = capsys.readouterr()
    why = ("the draft answered another question: the answer 'npm version patch' only repeats the question; it asks "
           "for something the question does not say")
    assert code == 1 and f"\nAnswer: {REFUSAL}\nWhy: {why}\n" in captured.out
    # The step says the citation check verified the draft, and why it was refused anyway.
    assert re.search(r"· verify: Citation check: grounded and verified \(cites \[\d+\]\): .*, but "
                     + re.escape(why) + r" → refusal \(off_question\)", captured.out)


@pytest.mark.parametrize("answer", ["", ":", " - ."])
def test_a_model_that_answers_nothing_is_said_to(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        answer: str) -> None:
    # An answer of punctuation only (":") is no answer either, not a statement that the evidence does not say.
    _scripted(monkeypatch, AIMessage(json.dumps({"answer": answer, "evidence": []})))
    code = ask(graph_dir, "--json")
    result = json.loads(capsys.readouterr().out)
    assert code == 1 and result["answer"] == REFUSAL and result["abstain_reason"] == "not_in_evidence"
    assert result["reason"] == "the model answered nothing"


def test_a_served_answer_is_printed_with_one_answer_label(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The model's short answer carries the label too: neither it nor the rendered draft's is printed twice.
    _scripted(monkeypatch, reply(f"Answer: {S14_ANSWER}"))
    assert ask(graph_dir) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Answer: 1\.2\.0 \[\d+\]\.$", out, re.M) and "Answer: Answer:" not in out


async def test_to_text_gives_the_refusal_and_why(graph_dir: Path, no_model: None) -> None:
    async with await KnowledgeGraph.open(graph="npm", data_dir=str(graph_dir)) as kg:
        model = ScriptedChatModel(steps=[AIMessage(json.dumps({"answer": "not in evidence", "evidence": []}))])
        agent = build_grounded_agent(model, GraphRAGToolkit(kg, read_only=True), mode="retrieve_first",
                                     options=SINGLE)
        result = GroundedAnswer.from_state(await agent.ainvoke({"question": S14}))
    assert result.reason == "the model answered that the evidence does not say"
    assert result.to_text() == f"{REFUSAL}\n(the model answered that the evidence does not say)"


@pytest.mark.parametrize("reason", get_args(AbstainReason))
def test_every_refusal_reason_has_words(reason: str) -> None:
    assert not refusal_words(reason, {}).startswith("refused (")


def test_a_missing_hop_names_its_step() -> None:
    hop = {"index": 2, "question": "Which tag does npm version create?", "reason": "no shown sentence states it"}
    assert refusal_words("missing_hop", {"missing_hop": hop}) == (
        "hop 2 unanswered: Which tag does npm version create? - no evidence states its answer (no shown sentence "
        "states it)")
