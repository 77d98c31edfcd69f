"""The resumable evaluation loop: build (or reuse) the graph, measure each question, append its record, report.

``--out`` holds ``config.json`` (the settings the records were made with), ``results.jsonl`` (one record per
finished question, appended as each finishes), ``runs.jsonl`` (how long each run took) and the reports.
Running again with the same settings skips the questions already in ``results.jsonl``: no retrieval and no
model call is repeated for them. A record cut short by an interruption is dropped and its question asked again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..agent.mode import ModeChoice, choose_mode
from ..agent.options import AgentOptions
from ..errors import ConfigurationError
from ..ingest.plan import ExtractorName
from ..ingest.progress import Progress, want_progress
from ..kg import KnowledgeGraph
from .build import BuildInfo, ensure_built, open_eval_graph
from .dataset import Question, corpus_digest, load_dataset
from .measure import PATHS, measure_question
from .report import write_reports

__all__ = ["Answerer", "AnswererFactory", "EvalOptions", "EvalRun", "parse_ks", "read_records", "run_eval"]

RESULTS = "results.jsonl"
CONFIG = "config.json"
RUNS = "runs.jsonl"

Answerer = Callable[[Question], Awaitable[dict[str, Any]]]
"""Answers one question; returns the record's ``agent`` part (see :mod:`.answer`)."""
AnswererFactory = Callable[[KnowledgeGraph], Answerer]


@dataclass
class EvalOptions:
    """Settings of an evaluation run (the CLI flags of ``graphrag-agents eval``)."""

    out: Path = Path("eval-out")
    """Folder of the records and reports; also of the embedded FalkorDB unless ``data_dir`` is given."""
    extractor: ExtractorName = "ner"
    ks: tuple[int, ...] = (5, 10)
    limit: int | None = None
    """Only the first N questions."""
    data_dir: Path | None = None
    """Embedded FalkorDB folder holding the cached graph (default ``<out>/falkordb``)."""
    url: str | None = None
    """An external FalkorDB instead of the embedded one."""
    graph: str | None = None
    """Graph name (default: derived from the corpus digest and the extractor)."""
    model: str | None = None
    """litellm model name of the reference agent (and the llm extractor); None: retrieval only."""
    agent_mode: str = "auto"
    """``auto`` (``tools`` for a model litellm lists with native tool calling, else ``retrieve_first``; see
    :meth:`mode_used`), ``tools`` or ``retrieve_first``."""
    max_tokens: int = 256
    """Cap on each answer the model writes (the prompts ask for one or two sentences; a small model that starts
    repeating itself would otherwise write until its context is full)."""
    agent: AgentOptions = field(default_factory=AgentOptions)
    """The reference agent's options (``build_grounded_agent(options=...)``); the CLI builds them from the
    drafting flags."""
    paths: tuple[str, ...] = PATHS
    progress: bool | None = None
    """Progress bars (None: when stderr is a terminal)."""

    def settings(self, digest: str, embed_model: str) -> dict[str, Any]:
        """What the records depend on; a resumed run must have the same."""
        return {"corpus_digest": digest, "extractor": self.extractor, "ks": list(self.ks), "paths": list(self.paths),
                "embed_model": embed_model, "model": self.model,
                "agent_mode": self.mode_used() if self.model else None,
                "max_tokens": self.max_tokens if self.model else None,
                # Only when on, so folders made before the option existed still resume.
                **(self._agent_settings() if self.model else {})}

    def _agent_settings(self) -> dict[str, Any]:
        agent = self.agent
        return {**({"repair_citations": True} if agent.repair_citations else {}),
                "drafting": self.drafting_used(),
                **({"answer_fit": False} if not agent.answer_fit else {}),
                **({"confirm": True} if agent.confirm else {}),
                **({"supporting_sentence": True} if agent.supporting_sentence else {}),
                **({"min_confidence": agent.min_confidence} if agent.min_confidence is not None else {}),
                # Only when on: a folder recorded without hops resumes with --no-hops, one recorded with the
                # multiple-choice check (the default before it was turned off) with --choice-check.
                **({"hops": True} if self.hops_used() else {}),
                **({"choice_check": True} if self.choice_used() else {})}

    def mode_choice(self) -> ModeChoice:
        """The mode the agent runs in, and how it was chosen: ``agent_mode``, or for ``auto`` the one litellm's
        capability table gives ``model`` (``retrieve_first`` without a model: an answerer passed in is scored as
        the previous default ran)."""
        if self.agent_mode == "auto" and not self.model:
            return ModeChoice(mode="retrieve_first", auto=True, why="no model named")
        return choose_mode(self.agent_mode, self.model)

    def mode_used(self) -> str:
        """The mode the agent runs in (``agent_mode``, ``auto`` resolved)."""
        return self.mode_choice().mode

    def hops_used(self) -> bool:
        """Whether the agent walks hop chains (``retrieve_first`` with structured drafting only)."""
        return self.agent.for_mode(self.mode_used()).hops

    def choice_used(self) -> bool:
        """Whether the agent runs the multiple-choice check (``retrieve_first`` with structured drafting only)."""
        return self.agent.for_mode(self.mode_used()).choice_check

    def drafting_used(self) -> str:
        """The drafting the agent runs with: ``drafting``, or the agent's default for the mode it runs in."""
        return self.agent.drafting_for(self.mode_used())


@dataclass
class EvalRun:
    """What a run did, and where its outputs are."""

    out: Path
    summary: dict[str, Any]
    asked: int
    """Questions measured in this run."""
    reused: int
    """Questions whose records an earlier run had already written."""
    build: BuildInfo
    files: dict[str, Path] = field(default_factory=dict)


def read_records(path: Path, key: str = "id") -> list[dict[str, Any]]:
    """The complete records (objects with ``key``) of a JSONL file; a torn last line (an interrupted write) is
    cut off the file."""
    if not path.exists():
        return []
    records: list[dict[str, Any]] = []
    good = 0
    with path.open("rb") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                break
            if not line.endswith(b"\n") or not isinstance(record, dict) or key not in record:
                break
            records.append(record)
            good += len(line)
    if good < path.stat().st_size:
        with path.open("r+b") as handle:
            handle.truncate(good)
    return records


def _check_config(out: Path, settings: dict[str, Any], have_records: bool) -> None:
    path = out / CONFIG
    if path.exists() and have_records:
        stored = json.loads(path.read_text(encoding="utf-8"))
        differs = sorted(k for k in set(stored) | set(settings) if stored.get(k) != settings.get(k))
        if differs:
            raise ConfigurationError(
                f"{out} holds results made with other settings (differing: {', '.join(differs)}). Pick another "
                f"--out, or delete {out / RESULTS} to start over.")
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def _log_run(out: Path, run: dict[str, Any]) -> list[dict[str, Any]]:
    """Append ``run`` to ``runs.jsonl`` when it asked anything; every logged run of ``out`` (a resumed evaluation
    took the sum of their times; a run that only rewrote the reports is not logged)."""
    path = out / RUNS
    if run["asked"]:
        with path.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(run) + "\n")
    return read_records(path, key="asked")


def _base_record(question: Question) -> dict[str, Any]:
    return {"id": question.id, "question": question.question, "type": question.type, "level": question.level,
            "answerable": question.answerable, "answers": question.answers,
            "gold": list(question.supporting_paragraph_ids)}


async def run_eval(questions_path: str | Path, corpus_path: str | Path, options: EvalOptions,
                   answerer: AnswererFactory | None = None) -> EvalRun:
    """Evaluate retrieval (and, with ``options.model`` or ``answerer``, the reference agent) and write reports.

    Args:
        questions_path: questions JSONL (format of ``shared/eval/``).
        corpus_path: corpus JSONL; each paragraph becomes one document.
        options: settings; ``options.out`` receives ``results.jsonl``, ``summary.json``, ``summary.md``,
            ``recall.png`` (with matplotlib) and ``report.html``.
        answerer: builds the per-question answerer from the graph (tests pass a fake); default: the reference
            agent with ``options.model`` when one is set.

    Raises:
        DatasetError: a file is malformed (the message names the line).
        ConfigurationError: ``out`` holds records made with other settings.
    """
    started, cpu_started = time.perf_counter(), time.process_time()
    if any(k < 1 for k in options.ks) or not options.ks:
        raise ConfigurationError(f"--k needs positive integers, got {list(options.ks)}")
    if options.extractor == "llm" and not options.model:
        raise ConfigurationError("--extractor llm needs a chat model: pass --model or set GRAPHRAG_MODEL, or use "
                                 "--extractor ner (offline).")
    unknown = sorted(set(options.paths) - set(PATHS))
    if unknown:
        raise ConfigurationError(f"unknown retrieve paths {unknown}; known paths: {', '.join(PATHS)}")
    questions, corpus = load_dataset(questions_path, corpus_path)
    if options.limit is not None:
        questions = questions[:options.limit]
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / RESULTS
    done = {r["id"]: r for r in read_records(results_path)}
    data_dir = options.data_dir or out / "falkordb"
    kg = await open_eval_graph(corpus, extractor=options.extractor, data_dir=data_dir, url=options.url,
                               graph=options.graph, llm=options.model if options.extractor == "llm" else None)
    try:
        _check_config(out, options.settings(corpus_digest(corpus), kg.embedder.model_name), bool(done))
        build = await ensure_built(kg, corpus, extractor=options.extractor, data_dir=data_dir,
                                   progress=options.progress)
        factory = answerer or (_agent_factory(options.model, options) if options.model else None)
        answer = factory(kg) if factory is not None else None
        todo = [q for q in questions if q.id not in done]
        if todo:
            await kg.retrieve(todo[0].question, top_k=max(options.ks))  # warm the embedder and caches
        with Progress(want_progress(options.progress)) as bars, results_path.open("a", encoding="utf-8") as sink:
            bars.add("eval", "Questions", total=len(questions))
            bars.update("eval", completed=len(questions) - len(todo))
            for question in todo:
                record = _base_record(question)
                record.update(await measure_question(kg, question, options.ks, options.paths))
                record["agent"] = await answer(question) if answer is not None else None
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
                done[question.id] = record
                bars.advance("eval")
    finally:
        await kg.close()
    records = [done[q.id] for q in questions if q.id in done]
    meta = {"questions_file": os.fspath(questions_path), "corpus_file": os.fspath(corpus_path),
            "corpus_paragraphs": len(corpus), "build": asdict(build), "ks": list(options.ks),
            "paths": list(options.paths), "model": options.model,
            **_agent_meta(options, bool(options.model or answerer)),
            "runs": _log_run(out, {"asked": len(todo), "seconds": round(time.perf_counter() - started, 1),
                                   "cpu_seconds": round(time.process_time() - cpu_started, 1),
                                   "graph_reused": build.reused})}
    summary, files = write_reports(out, records, meta, {p.id: p.title for p in corpus})
    return EvalRun(out=out, summary=summary, asked=len(todo), reused=len(questions) - len(todo), build=build,
                   files=files)


def _agent_meta(options: EvalOptions, ran: bool) -> dict[str, Any]:
    """The agent's settings in the summary: the mode it ran in (and what ``auto`` read), its drafting and checks;
    None each when no agent ran."""
    choice = options.mode_choice() if ran else None
    agent = options.agent
    return {"agent_mode": choice.mode if choice else None,
            "agent_mode_auto": choice.why if choice and choice.auto else None,
            **{key: value if ran else None for key, value in (
                ("repair_citations", agent.repair_citations), ("drafting", options.drafting_used()),
                ("answer_fit", agent.answer_fit), ("confirm", agent.confirm),
                ("min_confidence", agent.min_confidence), ("hops", options.hops_used()),
                ("choice_check", options.choice_used()))}}


def _agent_factory(model: str, options: EvalOptions) -> AnswererFactory:
    """The reference agent on ``model`` (a litellm name), each answer capped at ``options.max_tokens``."""
    from ..models.langchain_model import langchain_chat_model
    from .answer import agent_answerer

    def make(kg: KnowledgeGraph) -> Answerer:
        chat = langchain_chat_model(model, max_tokens=options.max_tokens)
        return agent_answerer(kg, chat, options.mode_used(), options=options.agent)

    return make


def parse_ks(text: str) -> tuple[int, ...]:
    """``"5,10"`` -> ``(5, 10)`` (sorted, distinct); raises ConfigurationError on anything else."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        ks = []
    if not ks or ks[0] < 1:
        raise ConfigurationError(f"--k takes positive integers separated by commas, like 5,10; got {text!r}")
    return tuple(ks)
