"""``graphrag-agents ask`` and ``demo``, and the chat model from GRAPHRAG_MODEL."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_chat import ScriptedChatModel, evidence_number, last_tool_text, tool_call
from langchain_core.messages import AIMessage, BaseMessage

import graphrag_agents.agent.graph as agent_graph
import graphrag_agents.cli.commands as cli
from graphrag_agents.agent import REFUSAL
from graphrag_agents.cli.ask import altered_draft, extractive_draft
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.evidence import Evidence
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.langchain_model import langchain_chat_model
from graphrag_agents.tools.citations import check_citations
from graphrag_agents.tools.results import PassageItem, RetrieveResult

QUESTION = ('Which Canadian rock band released a song called "Counterparts" and had a drummer who was inducted '
            "into the Modern Drummer Hall of Fame?")
TITLES = {"Neil Peart", "Nobody's Hero", "Jeff Porcaro", "Keith Moon"}


def _rows() -> list[dict[str, str]]:
    """Four paragraphs of the bundled demo corpus: the question's two and two distractors."""
    return [row for row in cli._demo_corpus() if row["title"] in TITLES]


@pytest.fixture
def small_corpus(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """The demo command on the four paragraphs only, to keep it fast."""
    rows = _rows()
    monkeypatch.setattr(cli, "_demo_corpus", lambda: rows)
    return rows


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedded FalkorDB folder holding the graph ``demo`` built from the four paragraphs (once per module)."""
    data_dir = tmp_path_factory.mktemp("ask")
    _build(data_dir, _rows())
    return data_dir


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GRAPHRAG_MODEL", "GRAPHRAG_AGENT_MODE", "GRAPHRAG_MODEL_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


def _build(data_dir: Path, rows: list[dict[str, str]]) -> None:
    async def build() -> None:
        async with await KnowledgeGraph.open(graph="demo", data_dir=str(data_dir)) as kg:
            await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"])
                                       for r in rows], IngestPlan(extractor="ner"), progress=False)
            await kg.finalize(progress=False)

    asyncio.run(build())


def test_demo_without_a_model_prints_evidence_and_a_real_check(
        tmp_path: Path, small_corpus: list[dict[str, str]], no_model: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "graph demo: 4 documents" in out and f"Question: {QUESTION}" in out
    assert "Passages (" in out and re.search(r"^\s+\[\d+\] Neil Peart \(score 0\.\d+\)$", out, re.M)
    draft = re.search(r"^Extractive draft \(NOT an answer.*\n  (.+)$", out, re.M)
    assert draft is not None and re.search(r"\[\d+\]\.", draft.group(1))
    assert "check_citations on it (deterministic, no LLM):\n  Citation check: grounded and verified (cites [" in out
    assert "→ the reference agent's verify step would accept it" in out
    if "first figure changed" in out:  # the altered copy must be caught
        assert "lacks figures" in out and "verify step would reject it" in out
    assert "No chat model is configured" in out and "GRAPHRAG_MODEL=openai/gpt-4o-mini" in out


def _scripted(monkeypatch: pytest.MonkeyPatch, *steps: Any) -> ScriptedChatModel:
    model = ScriptedChatModel(steps=list(steps))
    monkeypatch.setenv("GRAPHRAG_MODEL", "scripted/test")
    monkeypatch.setattr(agent_graph, "langchain_chat_model", lambda name=None: model)
    return model


def _answer(messages: list[BaseMessage]) -> AIMessage:
    n = evidence_number(last_tool_text(messages), "drummer and primary lyricist for the rock band Rush")
    return AIMessage(f"Neil Peart was the drummer of the rock band Rush [{n}].")


def test_ask_streams_steps_and_prints_the_answer_with_sources(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _scripted(monkeypatch, AIMessage("", tool_calls=[tool_call("retrieve", {"question": QUESTION})]), _answer)
    assert cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo"]) == 0
    out = capsys.readouterr().out
    assert "Agent (tools mode, model scripted/test):" in out
    assert "· model calls retrieve(" in out and "· retrieve → " in out
    assert "· verify: Citation check: grounded" in out and "→ answer" in out
    assert re.search(r"^Answer: Neil Peart was the drummer of the rock band Rush \[\d+\]\.$", out, re.M)
    source = re.search(r"^Sources:\n  \[\d+\] (entity|relation|fact|passage)\b.*$", out, re.M)
    assert source is not None and "primary lyr" in source.group(0)
    assert "(2 LLM calls, 240 tokens, tool calls: retrieve)" in out


def test_demo_with_a_model_runs_the_agent(
        graph_dir: Path, small_corpus: list[dict[str, str]], no_model: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def draft(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number(messages[-1].text, "progressive rock band Rush")
        return AIMessage(f"The band is Rush, whose album Counterparts came out in 1993 [{n}].")

    _scripted(monkeypatch, draft)
    code = cli.main(["demo", "--data-dir", str(graph_dir), "--extractor", "ner", "--mode", "retrieve_first",
                     "--no-hops", "--no-choice-check"])
    out = capsys.readouterr().out
    assert code == 0 and "Agent (retrieve_first mode, model scripted/test):" in out
    assert re.search(r"^Answer: The band is Rush, whose album Counterparts came out in 1993 \[\d+\]\.$", out, re.M)
    assert "(1 LLM calls, 120 tokens, tool calls: retrieve)" in out


def test_ask_json_and_refusal_exit_code(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _scripted(monkeypatch, AIMessage("Rush."), AIMessage("Rush, I think."))
    code = cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo", "--mode", "retrieve_first",
                     "--drafting", "text", "--json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 1 and result["abstained"] and result["answer"] == REFUSAL
    assert result["abstain_reason"] == "ungrounded" and result["llm_calls"] == 2 and result["revisions"] == 1
    assert "→ revision turn" in captured.err and "→ refusal" in captured.err


def test_ask_without_a_model_names_the_fix(
        graph_dir: Path, no_model: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo"]) == 2
    assert "GRAPHRAG_MODEL" in capsys.readouterr().err


def test_ask_on_a_missing_graph_names_it(tmp_path: Path, no_model: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ask", QUESTION, "--data-dir", str(tmp_path), "--graph", "nothing_here"]) == 2
    assert "nothing_here" in capsys.readouterr().err


def test_extractive_draft_quotes_one_sentence_per_document() -> None:
    passages = [
        PassageItem(n=4, document_id="a", file="A", text="Acme Corp was founded in 1999. It makes sensors.", score=.9),
        PassageItem(n=5, document_id="a", file="A", text="Acme Corp has 40 staff.", score=.8),
        PassageItem(n=7, document_id="b", file="B", text="Bob Jones [2] founded Globex in 2005", score=.7),
    ]
    result = RetrieveResult(question="q", paths=["passages"], passages=passages)
    draft = extractive_draft(result)
    assert draft == "Acme Corp was founded in 1999 [4]. Bob Jones founded Globex in 2005 [7]."
    evidence = [Evidence(n=p.n, tool="retrieve", kind="passage", content=p.text) for p in passages]
    check = check_citations(draft, evidence)
    assert check.grounded and not check.uncited and not check.unsupported
    assert extractive_draft(RetrieveResult(question="q", paths=[])) == ""


def test_altered_draft_changes_the_first_figure_only() -> None:
    draft = "Rush released Counterparts in 1993 [4]. Peart was born in 1952 [5]."
    assert altered_draft(draft) == "Rush released Counterparts in 1994 [4]. Peart was born in 1952 [5]."
    assert altered_draft("No figure here [12].") is None
    # a one-digit figure changed would often still be in the evidence ("'1': x, '2': y"); a year is not
    assert altered_draft("Peart, {'1': a, '2': b}, born 1952 [3].") == "Peart, {'1': a, '2': b}, born 1953 [3]."
    assert altered_draft("Rush had 3 members [1].") == "Rush had 4 members [1]."


def test_chat_model_from_the_environment(no_model: None, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="GRAPHRAG_MODEL"):
        langchain_chat_model()
    monkeypatch.setenv("GRAPHRAG_MODEL", "openai/local")
    monkeypatch.setenv("GRAPHRAG_MODEL_TIMEOUT", "300")
    model: Any = langchain_chat_model(api_base="http://127.0.0.1:1/v1")
    assert type(model).__name__ == "ChatLiteLLM" and model.model == "openai/local"
    assert model.request_timeout == 300 and model.api_base == "http://127.0.0.1:1/v1" and model.temperature == 0
    monkeypatch.setenv("GRAPHRAG_MODEL_TIMEOUT", "soon")
    with pytest.raises(ConfigurationError, match="GRAPHRAG_MODEL_TIMEOUT"):
        langchain_chat_model()


def test_ask_structured_prints_the_short_answer_and_the_refusal(
        graph_dir: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def draft(messages: list[BaseMessage]) -> AIMessage:
        n = evidence_number(messages[-1].text, "progressive rock band Rush")
        return AIMessage(json.dumps({"answer": "Rush", "evidence": [n]}))

    # With --confirm the model is asked whether its evidence states the answer: it says yes, then no.
    model = _scripted(monkeypatch, draft, AIMessage('{"supported": true}'))
    code = cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo", "--mode", "retrieve_first",
                     "--confirm", "--json", "--no-hops", "--no-choice-check"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0 and result["short_answer"] == "Rush" and re.fullmatch(r"Answer: Rush \[\d+\]\.", result["answer"])
    assert '· model drafts: {"answer": "Rush"' in captured.err
    assert result["confirmed"] is True and result["llm_calls"] == 2 and len(model.calls) == 2
    _scripted(monkeypatch, draft, AIMessage('{"supported": false}'))
    code = cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo", "--mode", "retrieve_first",
                     "--confirm", "--json", "--no-hops", "--no-choice-check"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 1 and result["abstain_reason"] == "not_confirmed" and "→ refusal (not_confirmed)" in captured.err
    model = _scripted(monkeypatch, draft)
    code = cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo", "--mode", "retrieve_first",
                     "--json", "--no-hops", "--no-choice-check"])
    assert code == 0 and json.loads(capsys.readouterr().out)["confirmed"] is None and len(model.calls) == 1

    _scripted(monkeypatch, AIMessage('{"answer": "not in evidence", "evidence": []}'))
    code = cli.main(["ask", QUESTION, "--data-dir", str(graph_dir), "--graph", "demo", "--mode", "retrieve_first",
                     "--no-hops"])
    out = capsys.readouterr().out
    assert code == 1 and f"Answer: {REFUSAL}" in out and "abstained: not_in_evidence" in out
    assert "the model answered that the evidence does not say → refusal" in out
