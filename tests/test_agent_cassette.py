"""``graphrag-agents ask`` runs of the reference agent against the real local model, replayed from cassettes.

The cassettes were recorded with vcrpy (``record_mode="once"``) against the servers of ``tools/local-llm``, in
``retrieve_first`` mode: text drafting with Qwen2.5-Coder-0.5B (``serve.sh 8090``), and structured drafting
(the JSON Schema ``response_format``) with Qwen2.5-Coder-1.5B (``LOCAL_LLM_MODEL=1.5b serve.sh 8091``).
Replaying them needs no server. A replay depends on the evidence numbers retrieve issues (the recorded reply
cites them): when retrieval or ingest changes the numbering, delete the cassette and run its test with the server
up to record it again.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
import vcr

from graphrag_agents.agent import REFUSAL
from graphrag_agents.cli import main
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph

CASSETTES = Path(__file__).parent / "cassettes" / "agent"
CASSETTE = CASSETTES / "ask_retrieve_first_local.yaml"
SERVER = "http://127.0.0.1:8090/v1"
STRUCTURED_CASSETTE = CASSETTES / "ask_structured_local_1.5b.yaml"
STRUCTURED_SERVER = "http://127.0.0.1:8091/v1"
CONFIDENCE_CASSETTE = CASSETTES / "ask_confidence_local_1.5b.yaml"
QUESTION = ('Which Canadian rock band released a song called "Counterparts" and had a drummer who was inducted '
            "into the Modern Drummer Hall of Fame?")
# The two supporting paragraphs of the question and four distractors from the bundled demo corpus.
TITLES = {"Neil Peart", "Nobody's Hero", "Jeff Porcaro", "Keith Moon", "Mike Portnoy", "Steve Smith (musician)"}


@pytest.fixture
def model_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The environment of the recorded run: the local model through litellm's OpenAI-compatible client."""
    monkeypatch.setenv("GRAPHRAG_MODEL", "openai/local")
    monkeypatch.setenv("OPENAI_API_BASE", SERVER)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cassette-not-a-key")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("GRAPHRAG_MODEL_TIMEOUT", "900")  # recording on a busy 2-core machine
    monkeypatch.delenv("GRAPHRAG_AGENT_MODE", raising=False)
    monkeypatch.delenv("GRAPHRAG_API_BASE", raising=False)
    yield


async def _build(data_dir: Path) -> None:
    rows = [json.loads(line) for line in resources.files("graphrag_agents.data").joinpath("demo_corpus.jsonl")
            .read_text(encoding="utf-8").splitlines() if line.strip()]
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows if r["title"] in TITLES]
    assert len(sources) == len(TITLES)
    async with await KnowledgeGraph.open(graph="cassette", data_dir=str(data_dir)) as kg:
        await kg.ingest_documents(sources, IngestPlan(extractor="ner"), progress=False)
        await kg.finalize(progress=False)


def _recorder() -> vcr.VCR:
    return vcr.VCR(record_mode="once", filter_headers=["authorization", "api-key", "x-api-key"],
                   match_on=["method", "scheme", "host", "port", "path"])


def test_ask_replays_the_local_model(tmp_path: Path, model_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_build(tmp_path))
    with _recorder().use_cassette(str(CASSETTE)) as cassette:
        code = main(["ask", QUESTION, "--data-dir", str(tmp_path), "--graph", "cassette", "--mode", "retrieve_first",
                     "--drafting", "text"])
    out = capsys.readouterr().out
    if cassette.rewound:  # replayed (not being recorded): every recorded model call was made again
        assert cassette.all_played, "the run made fewer model calls than the recording"
    calls = len(cassette.requests)
    assert all(r.path.endswith("/chat/completions") for r in cassette.requests)
    assert all("authorization" not in {k.lower() for k in r.headers} for r in cassette.requests)

    # What the recorded run did, end to end: the agent's own retrieve, 1-2 model calls, the check, the verdict.
    assert "retrieve: " in out and "evidence items" in out and "verify: Citation check" in out
    answer = re.search(r"^Answer: (.*)$", out, re.M)
    assert answer is not None
    summary = re.search(r"\((\d+) LLM calls, (\d+) tokens, tool calls: retrieve", out)
    assert summary is not None and int(summary.group(1)) == calls and int(summary.group(2)) > 0
    if code == 0:
        assert "Sources:" in out and re.search(r"\[\d+\]", answer.group(1))
    else:
        assert code == 1 and answer.group(1) == REFUSAL and calls == 2  # a draft and its revision
    request = json.loads(cassette.requests[0].body)
    prompt = request["messages"][-1]["content"]
    assert prompt.startswith(f"Question: {QUESTION}") and "Evidence:" in prompt and "[1]" in prompt
    assert os.environ["OPENAI_API_KEY"] not in CASSETTE.read_text(encoding="utf-8")


def test_ask_replays_the_structured_path(tmp_path: Path, model_env: None, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_BASE", STRUCTURED_SERVER)
    asyncio.run(_build(tmp_path))
    with _recorder().use_cassette(str(STRUCTURED_CASSETTE)) as cassette:
        code = main(["ask", QUESTION, "--data-dir", str(tmp_path), "--graph", "cassette", "--mode", "retrieve_first",
                     "--confirm", "--json", "--no-hops", "--no-choice-check"])
    out = capsys.readouterr().out
    if cassette.rewound:
        assert cassette.all_played, "the run made fewer model calls than the recording"
    assert all("authorization" not in {k.lower() for k in r.headers} for r in cassette.requests)
    request = json.loads(cassette.requests[0].body)
    # The structured path: the draft's JSON Schema went to the server, with reader-sized evidence.
    schema = request["response_format"]["json_schema"]["schema"]
    assert request["response_format"]["type"] == "json_schema" and schema["required"] == ["answer", "evidence"]
    prompt = request["messages"][-1]["content"]
    assert prompt.startswith(f"Question: {QUESTION}") and "Reply with JSON only" in prompt
    assert "(Person)" not in prompt and len(prompt) < 6000
    reply = json.loads(cassette.responses[0]["body"]["string"])["choices"][0]["message"]["content"]
    assert "answer" in json.loads(reply)
    result = json.loads(out)
    assert result["llm_calls"] == len(cassette.requests) and result["tokens"]["total"] > 0
    if code == 0:  # served: the rendered short answer, checked, citing real evidence, and confirmed
        cited = ", ".join(map(str, result["citation_check"]["cited"]))
        assert result["answer"] == f"Answer: {result['short_answer']} [{cited}]."
        assert result["sources"] and not result["abstained"] and result["confirmed"] is True
    else:
        assert code == 1 and result["answer"] == REFUSAL
        assert result["abstain_reason"] in ("not_in_evidence", "ungrounded", "off_question", "not_confirmed")
    if result["confirmed"] is not None:  # the confirmation turn (--confirm) went out in its own schema
        last = json.loads(cassette.requests[-1].body)
        assert last["response_format"]["json_schema"]["schema"]["required"] == ["supported"]
        assert "Proposed answer: " in last["messages"][-1]["content"]
    assert os.environ["OPENAI_API_KEY"] not in STRUCTURED_CASSETTE.read_text(encoding="utf-8")


def test_ask_replays_the_models_confidence(tmp_path: Path, model_env: None, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``--min-confidence``: the request asks for log-probabilities, and the real server's reply carries them in
    the form litellm passes on, from which the agent reads the short answer's probability."""
    monkeypatch.setenv("OPENAI_API_BASE", STRUCTURED_SERVER)
    asyncio.run(_build(tmp_path))
    with _recorder().use_cassette(str(CONFIDENCE_CASSETTE)) as cassette:
        code = main(["ask", QUESTION, "--data-dir", str(tmp_path), "--graph", "cassette", "--mode", "retrieve_first",
                     "--confirm", "--min-confidence", "0.3", "--json", "--no-hops", "--no-choice-check"])
    out = capsys.readouterr().out
    if cassette.rewound:
        assert cassette.all_played, "the run made fewer model calls than the recording"
    request = json.loads(cassette.requests[0].body)
    assert request["logprobs"] is True and request["response_format"]["type"] == "json_schema"
    reply = json.loads(cassette.responses[0]["body"]["string"])["choices"][0]
    tokens = reply["logprobs"]["content"]
    assert "".join(t["token"] for t in tokens).strip().startswith(("{", "```"))
    result = json.loads(out)
    assert isinstance(result["confidence"], float) and 0.0 < result["confidence"] <= 1.0
    assert result["short_answer"]
    if result["confidence"] < 0.3:
        assert code == 1 and result["abstain_reason"] == "low_confidence"
    else:
        assert result["abstain_reason"] != "low_confidence"
    assert os.environ["OPENAI_API_KEY"] not in CONFIDENCE_CASSETTE.read_text(encoding="utf-8")


HOPS_CASSETTE = CASSETTES / "ask_hops_local_1.5b.yaml"


def test_ask_replays_the_hop_chain(tmp_path: Path, model_env: None, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The ``retrieve_first`` path with ``--choice-check`` on a question the relative-phrase rules leave to the
    model: the planning call in its own schema, then per hop a retrieve and a structured draft, then the choice
    check; the run serves the chain's answer, or names the hop no evidence answered."""
    monkeypatch.setenv("OPENAI_API_BASE", STRUCTURED_SERVER)
    asyncio.run(_build(tmp_path))
    with _recorder().use_cassette(str(HOPS_CASSETTE)) as cassette:
        code = main(["ask", QUESTION, "--data-dir", str(tmp_path), "--graph", "cassette", "--mode", "retrieve_first",
                     "--choice-check", "--json"])
    out = capsys.readouterr().out
    if cassette.rewound:
        assert cassette.all_played, "the run made fewer model calls than the recording"
    bodies = [json.loads(r.body) for r in cassette.requests]
    names = [b.get("response_format", {}).get("json_schema", {}).get("name") for b in bodies]
    assert names[0] == "hop_plan" and bodies[0]["messages"][-1]["content"].endswith(
        'Reply with JSON only: {"steps": [<the single-hop questions, in order>]}.')
    result = json.loads(out)
    assert result["llm_calls"] == len(cassette.requests) and result["tokens"]["total"] > 0
    if cassette.rewound:
        # The recording: the model planned the question's two conditions as a chain (the band, then its drummer),
        # both hops checked, but the chain ends in the drummer while the question asks for the band; the choice
        # check, shown Rush, Hero, Neil Peart and "none of these", picked Rush, so the chain's answer is refused.
        assert [step["answer"] for step in result["chain"]] == ["Rush", "Neil Peart"], out
        assert result["choice"]["draft"] == "Neil Peart" and result["choice"]["picked"] == "Rush", out
        assert code == 1 and result["abstain_reason"] == "not_chosen", out
    retrieves = [c for c in result["tool_calls"] if c["name"] == "retrieve"]
    if result["chain"] or result["abstain_reason"] == "missing_hop":  # the model planned a chain
        drafts = [n for n in names if n == "grounded_answer"]
        assert len(retrieves) == len(drafts) and all(c["by"] == "agent" for c in retrieves)
        assert retrieves[0]["args"]["question"] != QUESTION  # each hop retrieves its own sub-question
    if code == 0 and result["chain"]:  # served: every hop cited, the chain in the answer
        assert all(step["evidence"] for step in result["chain"])
        cited = {s["n"] for s in result["sources"]}
        assert all(step["evidence"][0] in cited for step in result["chain"])
        assert result["answer"].endswith(f"({result['chain_text']}).") and names[-1] in ("answer_choice",
                                                                                       "grounded_answer")
    elif code == 1:
        assert result["answer"] == REFUSAL
        if result["abstain_reason"] == "missing_hop":
            assert result["missing_hop"]["question"] and result["missing_hop"]["index"] >= 1
    assert len(cassette.requests) <= 2 + 2 * len(retrieves)
    assert os.environ["OPENAI_API_KEY"] not in HOPS_CASSETTE.read_text(encoding="utf-8")


COMPARE_CASSETTE = CASSETTES / "ask_compare_local_1.5b.yaml"
COMPARE_QUESTION = "Who was born first, Neil Peart or Mike Portnoy?"


def test_ask_replays_a_comparison_decided_by_rule(tmp_path: Path, model_env: None, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The default ``retrieve_first`` path on an order comparison: no planning call, one retrieve and one structured
    draft per side (each side's date checked with that side), and the earlier date picked by rule, not by a
    choice call."""
    monkeypatch.setenv("OPENAI_API_BASE", STRUCTURED_SERVER)
    asyncio.run(_build(tmp_path))
    with _recorder().use_cassette(str(COMPARE_CASSETTE)) as cassette:
        code = main(["ask", COMPARE_QUESTION, "--data-dir", str(tmp_path), "--graph", "cassette", "--mode",
                     "retrieve_first", "--json"])
    out = capsys.readouterr().out
    if cassette.rewound:
        assert cassette.all_played, "the run made fewer model calls than the recording"
    bodies = [json.loads(r.body) for r in cassette.requests]
    names = [b.get("response_format", {}).get("json_schema", {}).get("name") for b in bodies]
    assert names == ["grounded_answer", "grounded_answer"]  # one draft per side; no plan, no choice call
    result = json.loads(out)
    retrieves = [c["args"]["question"] for c in result["tool_calls"] if c["name"] == "retrieve"]
    assert retrieves[0] == "When was Neil Peart born?"
    if cassette.rewound:
        # The recording: each side's birth date drafted and checked with its side; 1952 comes before 1967.
        assert code == 0 and result["short_answer"] == "Neil Peart", out
        assert [step["subject"] for step in result["chain"]] == ["Neil Peart", "Mike Portnoy"], out
        assert "; Mike Portnoy -> " in result["chain_text"], out
    if code == 0:
        cited = {s["n"] for s in result["sources"]}
        assert all(step["evidence"][0] in cited for step in result["chain"])
    else:
        assert result["abstain_reason"] in ("missing_hop", "off_question"), out
    assert os.environ["OPENAI_API_KEY"] not in COMPARE_CASSETTE.read_text(encoding="utf-8")
