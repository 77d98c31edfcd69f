"""Evaluation: metrics, dataset validation, and the resumable runner end to end on a tiny HotpotQA slice.

The slice is the sample's first 3 questions and their 30 context paragraphs (HotpotQA, CC BY-SA 4.0), built
once with the offline ner extractor on the session's embedded FalkorDB.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from graphrag_agents.agent.options import AgentOptions
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.evaluation import DatasetError, EvalOptions, load_corpus, load_dataset, run_eval
from graphrag_agents.evaluation.answer import split_evidence
from graphrag_agents.evaluation.html_report import render_report
from graphrag_agents.evaluation.metrics import (
    all_gold_at_k,
    answer_in_prediction,
    exact_match,
    normalize_answer,
    percentile,
    recall_at_k,
    strip_markers,
    token_f1,
    unique,
)
from graphrag_agents.evaluation.runner import read_records
from graphrag_agents.kg import KnowledgeGraph

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
if not (EVAL / "hotpotqa.questions.jsonl").exists():
    EVAL = Path("/work/shared/eval")
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'

# -- metrics ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("The Beatles", "beatles"),
    ("  an   Apple, a day!  ", "apple day"),
    ("Rush.", "rush"),
    ("U.S.A.", "usa"),
    ("Theatre of the Absurd", "theatre of absurd"),   # "the" inside a word stays
    ("A", ""),
])
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def test_exact_match_and_f1() -> None:
    assert exact_match("the Rush", ["Rush"]) == 1.0
    assert exact_match("Rush band", ["Rush"]) == 0.0
    assert exact_match("Spurs", ["Tottenham", "spurs!"]) == 1.0   # best over aliases
    assert token_f1("Rush band", ["Rush"]) == pytest.approx(2 / 3)
    assert token_f1("completely different", ["Rush"]) == 0.0
    assert token_f1("yes", ["no"]) == 0.0 and token_f1("yes it is", ["yes"]) == 0.0  # yes/no only exactly
    assert token_f1("", ["Rush"]) == 0.0
    assert answer_in_prediction("The band was Rush [3].", ["Rush"]) == 1.0
    assert answer_in_prediction("Rushmore", ["Rush"]) == 0.0


def test_recall_all_gold_unique_percentile() -> None:
    ranked = unique(["p3", "p3", "p1", "p9", "p2"])
    assert ranked == ["p3", "p1", "p9", "p2"]
    assert recall_at_k(ranked, {"p1", "p2"}, 1) == 0.0
    assert recall_at_k(ranked, {"p1", "p2"}, 2) == 0.5
    assert recall_at_k(ranked, {"p1", "p2"}, 4) == 1.0
    assert all_gold_at_k(ranked, ["p1", "p2"], 3) is False
    assert all_gold_at_k(ranked, ["p1", "p2"], 4) is True
    with pytest.raises(ValueError):
        recall_at_k(ranked, {"p1"}, 0)
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert percentile(range(1, 101), 0.95) == 95
    assert percentile([], 0.5) == 0.0


def test_answer_helpers() -> None:
    assert strip_markers("Rush [1, 3] played it [2-4].") == "Rush played it."
    text = ("retrieve: 'q'\n\nFacts:\n[1] a -[R]-> b: x\n…(3 more omitted)\n\n"
            "Passages:\n[2] (A, score 0.5)\nalpha\n[3] beta\n")
    items = split_evidence(text, {3})
    assert [(i["n"], i["text"], i["cited"]) for i in items] == [(1, "a -[R]-> b: x", False),
                                                               (2, "(A, score 0.5)\nalpha", False), (3, "beta", True)]


# -- dataset validation -------------------------------------------------------------------------------------------

_Q = {"id": "q1", "question": "Who?", "answer": "A", "supporting_paragraph_ids": ["p1"], "type": "bridge"}
_P = {"id": "p1", "title": "T", "text": "A paragraph."}


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(("rows", "message"), [
    ([_Q, "{not json"], r"q\.jsonl:2: not valid JSON"),
    ([_Q, [1, 2]], r"q\.jsonl:2: expected a JSON object, got list"),
    ([{k: v for k, v in _Q.items() if k != "question"}], r"q\.jsonl:1: missing field 'question'"),
    ([{**_Q, "answerable": "yes"}], r"q\.jsonl:1: field 'answerable' must be true or false"),
    ([{**_Q, "supporting_paragraph_ids": "p1"}], r"q\.jsonl:1: field 'supporting_paragraph_ids' must be a list"),
    ([_Q, "", {**_Q}], r"q\.jsonl:3: duplicate id 'q1' \(first on line 1\)"),
    ([{**_Q, "supporting_paragraph_ids": ["p7"]}], r"q\.jsonl:1: question 'q1' names supporting paragraphs .*p7"),
    ([], r"no questions in the file"),
])
def test_dataset_errors_name_the_line(tmp_path: Path, rows: list[Any], message: str) -> None:
    questions = _write(tmp_path / "q.jsonl", rows)
    corpus = _write(tmp_path / "c.jsonl", [_P])
    with pytest.raises(DatasetError, match=message):
        load_dataset(questions, corpus)


def test_dataset_corpus_errors_and_success(tmp_path: Path) -> None:
    bad = _write(tmp_path / "c.jsonl", [_P, {"id": "p2", "title": "T", "text": "  "}, {"id": 3, "text": "x"}])
    with pytest.raises(DatasetError) as err:
        load_corpus(bad)
    assert "c.jsonl:2: field 'text' is empty" in str(err.value)
    assert "c.jsonl:3: field 'id' must be a string" in str(err.value)
    assert isinstance(err.value, ConfigurationError)
    questions, corpus = load_dataset(_write(tmp_path / "q.jsonl", [_Q]), _write(tmp_path / "ok.jsonl", [_P]))
    assert questions[0].answers == ["A"] and questions[0].answerable and corpus[0].title == "T"


# -- the runner on a tiny slice -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The first 3 questions and their 30 paragraphs; one gold paragraph carries hostile HTML."""
    folder = tmp_path_factory.mktemp("tiny_eval")
    lines = (EVAL / "hotpotqa.questions.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    questions = [json.loads(line) for line in lines]
    questions[2]["type"] = "comparison"  # two types, so the per-type breakdown has something to split
    wanted = {pid for q in questions for pid in q["paragraph_ids"]}
    corpus = [json.loads(line) for line in (EVAL / "hotpotqa.corpus.jsonl").read_text(encoding="utf-8").splitlines()
              if json.loads(line)["id"] in wanted]
    assert len(corpus) == 30
    gold = questions[0]["supporting_paragraph_ids"][0]
    for row in corpus:
        if row["id"] == gold:
            row["text"] += " " + HOSTILE
    return _write(folder / "questions.jsonl", questions), _write(folder / "corpus.jsonl", corpus)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def first_run(tiny: tuple[Path, Path], data_dir: Path,
                    tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Path, Any]]:
    out = tmp_path_factory.mktemp("eval_out")
    options = EvalOptions(out=out, data_dir=data_dir, progress=False)
    run = await run_eval(*tiny, options)
    yield out, run
    async with await KnowledgeGraph.open(graph=run.build.graph, data_dir=str(data_dir)) as kg:
        await kg.store.delete()


async def test_runner_end_to_end(first_run: tuple[Path, Any]) -> None:
    out, run = first_run
    assert run.asked == 3 and run.reused == 0
    assert run.build.documents == 30 and run.build.entities > 0 and run.build.relations > 0
    records = read_records(out / "results.jsonl")
    assert [r["type"] for r in records] == ["bridge", "bridge", "comparison"]
    for record in records:
        assert set(record["paths"]) == {"passages", "facts", "exact_names", "fuzzy_names", "links"}
        for m in (record["retrieve"], record["dense"], *record["paths"].values()):
            assert set(m["recall"]) == {"5", "10"} and 0.0 <= m["recall"]["10"] <= 1.0
            assert m["recall"]["5"] <= m["recall"]["10"] and len(m["docs"]) == len(set(m["docs"])) <= 10
        assert record["retrieve"]["items"] >= 1 and record["retrieve"]["llm_chars"] > 0
        assert record["agent"] is None
        assert any(item["gold"] for item in record["evidence"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["questions"] == 3 and summary["types"] == {"bridge": 2, "comparison": 1}
    assert list(summary["methods"])[:2] == ["dense", "retrieve"]
    assert summary["methods"]["dense"]["recall"]["10"] > 0
    assert set(summary["methods"]["retrieve"]["by_type"]) == {"bridge", "comparison"}
    assert summary["answers"] is None and "Answer metrics skipped" in summary["notes"][0]
    markdown = (out / "summary.md").read_text(encoding="utf-8")
    assert "dense-only (baseline)" in markdown and "recall@10" in markdown
    assert (out / "recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


async def test_rerun_does_no_retrieval_for_finished_questions(first_run: tuple[Path, Any], tiny: tuple[Path, Path],
                                                              data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = first_run
    before = (out / "results.jsonl").read_bytes()

    async def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("retrieve ran for a finished question")

    monkeypatch.setattr(KnowledgeGraph, "retrieve", forbidden)
    run = await run_eval(*tiny, EvalOptions(out=out, data_dir=data_dir, progress=False))
    assert (run.asked, run.reused, run.build.reused) == (0, 3, True)
    assert (out / "results.jsonl").read_bytes() == before
    assert [r["asked"] for r in read_records(out / "runs.jsonl", key="asked")] == [3]  # a report-only run: no entry
    assert "Time: 3 questions asked in one run" in (out / "summary.md").read_text(encoding="utf-8")
    with pytest.raises(ConfigurationError, match="--extractor llm needs a chat model"):
        await run_eval(*tiny, EvalOptions(out=out, data_dir=data_dir, extractor="llm", progress=False))
    with pytest.raises(ConfigurationError, match="differing: ks"):
        await run_eval(*tiny, EvalOptions(out=out, data_dir=data_dir, ks=(3,), progress=False))


async def test_torn_record_is_asked_again(first_run: tuple[Path, Any], tiny: tuple[Path, Path], data_dir: Path,
                                          tmp_path: Path) -> None:
    out, _ = first_run
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "config.json").write_bytes((out / "config.json").read_bytes())
    (tmp_path / "results.jsonl").write_text(lines[0] + lines[1][:40], encoding="utf-8")  # interrupted write
    run = await run_eval(*tiny, EvalOptions(out=tmp_path, data_dir=data_dir, limit=2, progress=False))
    assert (run.asked, run.reused) == (1, 1)
    assert [r["id"] for r in read_records(tmp_path / "results.jsonl")] == [json.loads(lines[0])["id"],
                                                                            json.loads(lines[1])["id"]]


async def test_html_report_escapes_hostile_text(first_run: tuple[Path, Any]) -> None:
    out, _ = first_run
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page    # the paragraph was retrieved, escaped
    assert "<script" not in page.lower() and "<img src=x" not in page
    assert 'id="q0"' in page and 'href="#q2"' in page and "data:image/png;base64," in page


def test_render_report_escapes_every_field() -> None:
    measurement = {"docs": [HOSTILE], "ms": 1.0, "items": 1, "chars": 5, "recall": {"5": 1.0}, "all_gold": {"5": True}}
    record = {"id": HOSTILE, "question": HOSTILE, "type": HOSTILE, "answers": [HOSTILE], "gold": [HOSTILE],
              "retrieve": measurement, "dense": measurement, "paths": {},
              "evidence": [{"n": 1, "kind": "passage", "title": HOSTILE, "score": 0.5, "gold": True, "text": HOSTILE}],
              "evidence_text": f"Passages:\n[1] ({HOSTILE})\n{HOSTILE}",
              "agent": {"answer": HOSTILE + " [1]", "abstained": False, "grounded": True, "cited": [1], "em": 0.0,
                        "f1": 0.0, "llm_calls": 1, "tokens": 9, "ms": 3, "abstain_reason": None,
                        "draft": HOSTILE, "uncited": [HOSTILE], "evidence": [{"n": 1, "text": HOSTILE, "cited": True}]}}
    summary = {"ks": [5], "questions": 1, "corpus_paragraphs": 1, "notes": [HOSTILE], "answers": None,
               "methods": {"dense": {"recall": {"5": 1.0}, "all_gold": {"5": 1.0}, "ms_p50": 1, "ms_p95": 1,
                                     "items": 1, "chars": 1}}}
    page = render_report([record], summary, {HOSTILE: HOSTILE})
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert page.count("&lt;script&gt;") >= 8
    assert 'class="ev cited"' in page and 'class="ev gold"' in page


# -- the agent's answers, with a scripted model --------------------------------------------------------------------


async def test_runner_with_agent_scores_answers(tiny: tuple[Path, Path], data_dir: Path, tmp_path: Path,
                                                first_run: tuple[Path, Any]) -> None:
    pytest.importorskip("langgraph")
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from graphrag_agents.evaluation.answer import agent_answerer

    gold = {json.loads(line)["question"]: json.loads(line)["answer"]
            for line in tiny[0].read_text(encoding="utf-8").splitlines()}

    class Scripted(BaseChatModel):
        """Answers with the gold answer, citing the first evidence item that contains it; else declines. In
        JSON for the structured drafting turn, in a cited sentence for text drafting."""

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            prompt = str(messages[-1].content)
            answer = gold.get(prompt.split("\n", 1)[0].removeprefix("Question: ").strip(), "")
            hit = next((i["n"] for i in split_evidence(prompt, set()) if answer and answer in i["text"]), None)
            if kwargs.get("response_format", {}).get("json_schema", {}).get("name") == "answer_check":
                text = json.dumps({"supported": True})  # the confirmation turn, when it is asked
            elif "response_format" in kwargs:
                text = json.dumps({"answer": answer if hit else "not in evidence", "evidence": [hit] if hit else []})
            else:
                text = f"{answer} [{hit}]." if hit else "The knowledge graph does not say."
            usage = {"input_tokens": 100, "output_tokens": 5, "total_tokens": 105}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))])

    for drafting in ("structured", "text"):
        out = tmp_path / drafting
        agent = AgentOptions(drafting=drafting, hops=False, choice_check=False)  # type: ignore[arg-type]
        run = await run_eval(*tiny, EvalOptions(out=out, data_dir=data_dir, limit=2, progress=False,
                                                agent_mode="retrieve_first", agent=agent),
                             answerer=lambda kg, a=agent: agent_answerer(kg, Scripted(), "retrieve_first", options=a))
        records = read_records(out / "results.jsonl")
        agents = [r["agent"] for r in records]
        assert all(a["llm_calls"] >= 1 and a["tokens"] >= 105 and a["evidence"] for a in agents)
        for record, a in zip(records, agents, strict=True):
            if a["grounded"]:
                assert a["em"] == 1.0 and a["cited"] and any(i["cited"] for i in a["evidence"])
                assert a["served_right"]
                # Structured: EM scores the short answer (the served text is "Answer: <gold> [n].").
                assert (a["short_answer"] == record["answers"][0]) is (drafting == "structured")
            else:
                assert a["abstained"] and a["em"] == 0.0 and not a["served_right"]
        answers = run.summary["answers"]
        assert answers["questions"] == 2 and answers["tokens"] >= 105 and run.summary["drafting"] == drafting
        assert answers["em"] == pytest.approx(sum(a["em"] for a in agents) / 2)
        assert answers["answerable_served_right"] == pytest.approx(sum(a["served_right"] for a in agents) / 2)
        assert answers["unanswerable_accuracy"] is None and answers["draft_contains"] >= answers["contains"]
        assert "cited items highlighted" in (out / "report.html").read_text(encoding="utf-8")
        assert "answerable served right" in (out / "summary.md").read_text(encoding="utf-8")
        assert any(a["grounded"] for a in agents)


async def test_auto_agent_mode_is_resolved_for_the_model_and_said(tiny: tuple[Path, Path], data_dir: Path,
                                                                 tmp_path: Path, first_run: tuple[Path, Any]) -> None:
    pytest.importorskip("langgraph")
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from graphrag_agents.evaluation.answer import agent_answerer

    class Declining(BaseChatModel):
        """Says the evidence does not answer; no tool calling (LangChain's own bind_tools)."""

        @property
        def _llm_type(self) -> str:
            return "declining"

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            reply = AIMessage(json.dumps({"answer": "not in evidence", "evidence": []}))
            return ChatResult(generations=[ChatGeneration(message=reply)])

    agent = AgentOptions(hops=False, choice_check=False)
    options = EvalOptions(out=tmp_path, data_dir=data_dir, limit=1, progress=False, model="openai/local", agent=agent)
    assert options.agent_mode == "auto"
    run = await run_eval(*tiny, options, answerer=lambda kg: agent_answerer(kg, Declining(), "auto", options=agent))
    assert run.summary["agent_mode"] == "retrieve_first"
    assert run.summary["agent_mode_auto"] == "openai/local: no native tool calling (litellm)"
    assert ("mode retrieve_first (auto: openai/local: no native tool calling (litellm))"
            in (tmp_path / "summary.md").read_text(encoding="utf-8"))


def test_cli_eval_prints_the_summary(first_run: tuple[Path, Any], tiny: tuple[Path, Path], data_dir: Path,
                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag_agents.cli import main

    args = ["eval", *map(str, tiny), "--out", str(tmp_path), "--data-dir", str(data_dir), "--limit", "1", "-q",
            "--no-agent"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "1 questions evaluated, 0 kept" in out and "graph reused" in out and "dense-only (baseline)" in out
    assert main([*args, "--k", "0,x"]) == 2
    assert "--k takes positive integers" in capsys.readouterr().err


async def test_a_failed_agent_run_records_every_key_of_a_scored_one(kg: KnowledgeGraph) -> None:
    pytest.importorskip("langgraph")
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage
    from langchain_core.outputs import ChatResult

    from graphrag_agents.evaluation.answer import agent_answerer, score_answer
    from graphrag_agents.evaluation.dataset import Question

    class Failing(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "failing"

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            raise RuntimeError("provider down")

    await kg.ingest(text="Ada Lovelace wrote the first program.", document_id="ada")
    await kg.finalize(progress=False)
    question = Question(id="q", question="Who wrote the first program?", answer="Ada Lovelace",
                        supporting_paragraph_ids=("ada",))
    failed = await agent_answerer(kg, Failing(), "retrieve_first")(question)
    assert failed["error"] == "RuntimeError: provider down" and failed["em"] == 0.0
    assert set(failed) == set(score_answer(question, {}, 0.0))


def test_answer_fit_off_is_part_of_the_settings_a_resumed_run_must_match(tmp_path: Path) -> None:
    on = EvalOptions(out=tmp_path, model="openai/local").settings("digest", "minilm")
    off = EvalOptions(out=tmp_path, model="openai/local",
                      agent=AgentOptions(answer_fit=False)).settings("digest", "minilm")
    assert "answer_fit" not in on  # folders written before the option existed still resume
    assert off["answer_fit"] is False and {k: v for k, v in off.items() if k != "answer_fit"} == on
