"""The plan check (``hops.certain``), the chain's evidence check (``hops.links``) and the answer-fit echo rule with
the real local model, replayed from cassettes.

Recorded with vcrpy (``record_mode="once"``) against Qwen2.5-Coder-1.5B (Q4) served by ``tools/local-llm``
(``LOCAL_LLM_MODEL=1.5b``, llama.cpp, port 8089, temperature 0), in ``retrieve_first`` mode. Replaying needs no
server. The questions are written for these tests: one on the five ``commands/npm-version.md`` sections of the
shared ``techdocs_a`` corpus (``tests/data/npm_version_sections.jsonl``), two on the Blue Harbour passages of
``test_agent_hops``. What the recorded model did is asserted only on replay (``cassette.rewound``); a new
recording may differ, and then the test says how. A replay depends on the evidence numbers retrieve issues: when
retrieval or ingest changes them, delete the cassette and run the test with the server up to record it again.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import vcr
from section_rows import read_rows
from test_agent_hops import graphs  # noqa: F401  (the module's graphs fixture)

from graphrag_agents.agent import AgentOptions, GroundedAnswer, build_grounded_agent
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.langchain_model import langchain_chat_model
from graphrag_agents.tools.toolkit import GraphRAGToolkit

CASSETTES = Path(__file__).parent / "cassettes" / "agent"
SERVER = "http://127.0.0.1:8089/v1"
ROWS = read_rows("npm_version_sections.jsonl")
# One hop (the Description section: "`patch` will simply remove the prerelease suffix"), worded as the
# techdocs_a questions the 1.5B model split in two: a condition, then the question.
SINGLE = "If my current version is a prerelease, what does `npm version patch` do to the prerelease suffix?"
# The question offers its answer after the colon; the Description section states it.
OFFERS = "Which `npm version` argument reads the latest git tag as the new version: `from-git`?"
# Two hops on the Blue Harbour passages (the rules plan them), and the same asked of a Blue Harbour from Norway,
# which no passage is about.
CHAIN = "Where was the director of film Blue Harbour born?"
GAP = "Where was the director of film Blue Harbour (Norway) born?"
# A replay takes seconds; recording against the local model on a busy 2-core machine takes minutes a question.
pytestmark = pytest.mark.timeout(2400)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The local model through litellm's OpenAI-compatible client, as ``GRAPHRAG_MODEL=openai/local`` makes it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cassette-not-a-key")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return langchain_chat_model("openai/local", api_base=SERVER, timeout=900)


@pytest.fixture(scope="module")
async def npm(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    """The five sections, one document each, as the eval builds them."""
    kg = await KnowledgeGraph.open(graph="real_model_npm", data_dir=str(data_dir), embedder=embedder)
    await kg.ingest_documents([SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in ROWS],
                              IngestPlan(extractor="ner"), progress=False)
    await kg.finalize(progress=False)
    yield kg
    await kg.store.delete()
    await kg.close()


@pytest.fixture
def recorder() -> Iterator[vcr.VCR]:
    yield vcr.VCR(record_mode="once", filter_headers=["authorization", "api-key", "x-api-key"],
                  match_on=["method", "scheme", "host", "port", "path"])


async def _ask(recorder: vcr.VCR, name: str, model: Any, kg: KnowledgeGraph, question: str,
               options: AgentOptions | None = None) -> tuple[dict[str, Any], Any]:
    """The agent's final state for ``question`` with the recorded (or, when absent, live) model, and the cassette."""
    with recorder.use_cassette(str(CASSETTES / name)) as cassette:
        agent = build_grounded_agent(model, GraphRAGToolkit(kg, read_only=True), mode="retrieve_first",
                                     options=options)
        state = await agent.ainvoke({"question": question})
    if cassette.rewound:
        assert cassette.all_played, "the run made fewer model calls than the recording"
    assert all("authorization" not in {k.lower() for k in r.headers} for r in cassette.requests)
    assert state["llm_calls"] == len(cassette.requests)
    return state, cassette


def _schemas(cassette: Any) -> list[str | None]:
    return [json.loads(r.body).get("response_format", {}).get("json_schema", {}).get("name")
            for r in cassette.requests]


async def test_a_single_hop_question_the_model_splits_is_not_walked(
        recorder: vcr.VCR, model: Any, npm: KnowledgeGraph) -> None:
    state, cassette = await _ask(recorder, "real_single_hop_split_1.5b.yaml", model, npm, SINGLE)
    assert _schemas(cassette)[0] == "hop_plan"
    plan = json.loads(json.loads(cassette.responses[0]["body"]["string"])["choices"][0]["message"]["content"])
    if state["hops"] == []:  # read as one hop: one retrieve of the whole question, no hop drafts
        assert [c["args"]["question"] for c in state["tool_calls"] if c["name"] == "retrieve"] == [SINGLE]
        assert state["chain"] == [] and _schemas(cassette).count("grounded_answer") == 1
    if cassette.rewound:
        # The recording: the model split the one-hop question into three steps, none naming an earlier answer
        # ("What is the current version of npm?", ...); no step depends on another, so it is no chain, and the
        # question took the single path: one retrieve, one draft (no choice call by default); served right.
        assert len(plan["steps"]) == 3 and not any("#" in step for step in plan["steps"]), plan
        assert state["hops"] == [] and state["plan_by"] == "model"
        assert state["short_answer"] == "removes the prerelease suffix" and not state["abstained"]
        assert _schemas(cassette) == ["hop_plan", "grounded_answer"]


async def test_a_chain_whose_evidence_misses_a_name_of_the_question_is_refused_saying_which(
        recorder: vcr.VCR, model: Any, graphs: dict[str, KnowledgeGraph]) -> None:  # noqa: F811
    state, cassette = await _ask(recorder, "real_chain_gap_1.5b.yaml", model, graphs["full"], GAP)
    result = GroundedAnswer.from_state(state)
    assert state["plan_by"] == "rules" and "hop_plan" not in _schemas(cassette)  # rule-planned: no planning call
    if len(state["chain"]) == 2:  # both hops answered: the chain's evidence check reads it
        assert state["chain_gap"] is not None and "'Norway'" in state["chain_gap"]
        assert result.abstained and result.abstain_reason == "off_question"
        assert "Norway" in (result.reason or "")
    if cassette.rewound:
        assert [step["answer"] for step in state["chain"]] == ["Mara Lind", "Uppsala"], state["chain"]


async def test_a_right_chain_is_served_with_every_hop_cited(
        recorder: vcr.VCR, model: Any, graphs: dict[str, KnowledgeGraph]) -> None:  # noqa: F811
    state, cassette = await _ask(recorder, "real_chain_1.5b.yaml", model, graphs["full"], CHAIN)
    result = GroundedAnswer.from_state(state)
    if not result.abstained:
        assert state["chain_gap"] is None and all(step["evidence"] for step in state["chain"])
        cited = {source["n"] for source in state["sources"]}
        assert all(step["evidence"][0] in cited for step in state["chain"])
        assert result.answer.endswith(f"({result.chain_text}).")
    if cassette.rewound:
        assert not result.abstained and result.short_answer == "Uppsala", (result.abstain_reason, result.reason)
        assert [step["answer"] for step in state["chain"]] == ["Mara Lind", "Uppsala"]


async def test_an_answer_the_question_offers_is_served_from_the_real_model(
        recorder: vcr.VCR, model: Any, npm: KnowledgeGraph) -> None:
    options = AgentOptions(hops=False, choice_check=False)
    state, cassette = await _ask(recorder, "real_offered_answer_1.5b.yaml", model, npm, OFFERS, options)
    result = GroundedAnswer.from_state(state)
    assert _schemas(cassette)[0] == "grounded_answer"
    if "from-git" in result.short_answer:  # the question's own answer span is not an echo
        assert not any("only repeats the question" in finding for finding in state.get("fit") or [])
    if cassette.rewound:
        assert not result.abstained and result.short_answer.strip("`") == "from-git", (result.abstain_reason,
                                                                                      result.reason)
