"""The ``ask`` command and the evidence / agent part of ``demo`` (private; the CLI calls these).

Printing only: the agent lives in :mod:`graphrag_agents.agent`, imported when a run needs it, so the demo's
offline part (retrieve, an extractive draft, the citation check) needs no LangChain.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import IO, Any

from ..agent.mode import MODE_SETTINGS, ModeSetting
from ..errors import ConfigurationError
from ..models.langchain_model import MODEL_ENV, configured_model_name
from ..store.connection import mask_secrets
from ..text.sentences import MARKER_RE, split_sentences
from ..tools.citations import CitationCheck
from ..tools.results import PassageItem, RetrieveResult
from ..tools.toolkit import GraphRAGToolkit
from .agent_options import add_drafting_arguments, agent_options
from .first_run import model_down_hint

__all__ = ["add_agent_arguments", "altered_draft", "extractive_draft", "print_evidence", "run_agent"]

MODE_ENV = "GRAPHRAG_AGENT_MODE"
_FIGURE = re.compile(r"(?<![\w.,])\d{1,6}(?![\w.,]\d)")
_LINE = 110


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a reference-agent run (``ask``, and ``demo`` when a model is configured)."""
    parser.add_argument("--mode", choices=["auto", "tools", "retrieve_first"], default=None,
                        help=f"tools: the model calls retrieve itself; retrieve_first: for models without reliable "
                             f"tool calling; auto: tools when the model has native tool calling, else "
                             f"retrieve_first (default: {MODE_ENV} or auto)")
    parser.add_argument("--min-score", type=float, default=None,
                        help="abstain without calling the model when retrieve's best score is under this")
    parser.add_argument("--max-revisions", type=int, default=1, help="revision turns before the refusal")
    add_drafting_arguments(parser)
    parser.add_argument("--top-k", type=int, default=None, help="items per retrieve path (the agent's own retrieve)")


def _clip(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 1] + "…"


def print_evidence(result: RetrieveResult, *, per_section: int = 5, passages: int = 8,
                   out: IO[str] | None = None) -> None:
    """The numbered evidence of a retrieve: ``per_section`` items per section (``passages`` passages), one or
    two lines each."""
    out = out or sys.stdout
    sections: list[tuple[str, list[str]]] = [
        ("Entities", [f"[{e.n}] {e.name} ({e.label}, score {e.score:.3f})" for e in result.entities]),
        ("Facts", [f"[{f.n}] {_clip(f'{f.ends()}: {f.fact}', _LINE)}" for f in result.facts]),
        ("Relations", [f"[{r.n}] {_clip(f'{r.ends()}: {r.fact}', _LINE)}" for r in result.relations]),
        ("Passages", [f"[{p.n}] {p.file} (score {p.score:.3f})\n      {_clip(p.text, 2 * _LINE)}"
                      for p in result.passages]),
    ]
    sections = sections[3:] + sections[1:3] + sections[:1]  # the order retrieve shows them in
    for title, lines in sections:
        if not lines:
            continue
        shown = passages if title == "Passages" else per_section
        more = f", {len(lines) - shown} more not shown" if len(lines) > shown else ""
        print(f"  {title} ({len(lines)}{more}):", file=out)
        for line in lines[:shown]:
            print(f"    {line}", file=out)


def extractive_draft(result: RetrieveResult, passages: int = 2) -> str:
    """A deterministic stand-in for a model's answer: the first sentence of the top passages of different
    documents, each with its ``[n]``. It quotes evidence; it does not answer the question."""
    picked: list[PassageItem] = []
    for passage in result.passages:
        if all(p.document_id != passage.document_id for p in picked):
            picked.append(passage)
        if len(picked) == passages:
            break
    sentences = []
    for passage in picked:
        text = " ".join(MARKER_RE.sub(" ", passage.text).split())
        spans = [s for s in split_sentences(text) if s.checked]
        first = text[spans[0].start:spans[0].end].strip() if spans else text
        body, stop = (first[:-1], first[-1]) if first[-1:] in ".!?" else (first, ".")
        sentences.append(f"{body} [{passage.n}]{stop}")
    return " ".join(sentences)


def altered_draft(draft: str) -> str | None:
    """``draft`` with its first figure changed (1993 -> 1994), to show what the check catches; None without one.

    A figure of three digits or more (a year, an amount) is preferred: a one-digit one changed often gives a
    number the same evidence holds elsewhere ("1" -> "2" in a list), which the check rightly accepts.
    """
    figures = list(_FIGURE.finditer(MARKER_RE.sub(lambda m: " " * len(m.group()), draft)))
    figure = next((f for f in figures if len(f.group()) >= 3), figures[0] if figures else None)
    if figure is None:
        return None
    return draft[:figure.start()] + str(int(figure.group()) + 1) + draft[figure.end():]


def print_check(check: CitationCheck, out: IO[str] | None = None) -> None:
    """The citation check's summary, indented, and what the reference agent's ``verify`` would do with it."""
    out = out or sys.stdout
    for line in check.to_llm_text(3000).splitlines():
        print(f"  {line}", file=out)
    try:
        from ..agent.gate import strictly_grounded
    except (ImportError, ConfigurationError):  # the agent needs the langchain extra; the check does not
        return
    verdict = "accept it" if strictly_grounded(check) else "reject it (a revision turn; the refusal if that fails too)"
    print(f"  → the reference agent's verify step would {verdict}", file=out)


def how_to_configure() -> str:
    """What to set to run the full agent."""
    return (f"No chat model is configured, so the agent itself did not run. To run it, set {MODEL_ENV} to any "
            f"litellm model name, e.g.\n  {MODEL_ENV}=openai/gpt-4o-mini OPENAI_API_KEY=... graphrag-agents demo\n"
            f"or a local OpenAI-compatible server (the agent runs retrieve_first for a model litellm does not list "
            f"with tool calling):\n"
            f"  {MODEL_ENV}=openai/local OPENAI_API_BASE=http://127.0.0.1:8089/v1 OPENAI_API_KEY=unused "
            f"graphrag-agents demo")


def _mode(args: argparse.Namespace) -> ModeSetting:
    """The mode asked for: ``--mode``, else ``GRAPHRAG_AGENT_MODE``, else ``auto`` (the agent resolves it for the
    model it builds)."""
    mode = str(args.mode or os.environ.get(MODE_ENV, "").strip() or "auto")
    if mode not in MODE_SETTINGS:
        raise ConfigurationError(f"{MODE_ENV} must be 'auto', 'tools' or 'retrieve_first', not {mode!r}. Fix: set "
                                 f"it to one of them, or unset it for auto.")
    return mode


def _timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` (or an error it was raised from) is a timeout of the model's request."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TimeoutError) or "timeout" in type(seen).__name__.lower() or \
                "timed out" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _failure_hint(exc: BaseException, mode: str) -> str:
    """The hint under a failed model call: in ``tools`` mode a timeout names the mode that needs fewer calls."""
    if mode == "tools" and _timed_out(exc):
        return ("the model timed out in tools mode, where it calls the tools itself over several turns. Fix: "
                "run with --mode retrieve_first (the agent retrieves once and the model only drafts; small local "
                f"models need it), or raise GRAPHRAG_MODEL_TIMEOUT. Then: {model_down_hint()}")
    return model_down_hint()


async def run_agent(toolkit: GraphRAGToolkit, question: str, args: argparse.Namespace, *,
                    out: IO[str] | None = None, steps: IO[str] | None = None, as_json: bool = False) -> int:
    """Run the reference agent on ``question``, printing each step to ``steps`` and the answer to ``out``.

    Returns the exit code: 0 answered, 1 abstained, 2 the model failed.
    """
    from ..agent import GroundedAnswer, build_grounded_agent

    out = out or sys.stdout
    steps = steps or out
    options = agent_options(args, min_score=args.min_score, max_revisions=args.max_revisions,
                            retrieve_options={"top_k": args.top_k} if args.top_k else {})
    agent = build_grounded_agent(None, toolkit.new_session(), mode=_mode(args), options=options)
    state: dict[str, Any] = {}
    mode = ""
    try:
        async for kind, data in agent.astream({"question": question}, stream_mode=["updates", "values"]):
            if not isinstance(data, dict):
                continue
            if kind == "values":
                state = data
                continue
            for update in data.values():
                if not mode and (update or {}).get("mode"):  # the run's first update: the mode it uses
                    mode = update["mode"]
                    print(f"Agent ({mode} mode, model {configured_model_name()}):", file=steps)
                for step in (update or {}).get("trace") or []:
                    print(f"  · {step['detail']}", file=steps, flush=True)
    except ConfigurationError:
        raise
    except Exception as exc:  # a provider, network or timeout error of the chat model
        print(f"error: the chat model failed: {mask_secrets(f'{type(exc).__name__}: {exc}')[:600]}",
              file=sys.stderr)
        print(f"hint: {_failure_hint(exc, mode)}", file=sys.stderr)
        return 2
    result = GroundedAnswer.from_state(state)
    if as_json:
        print(json.dumps(_json(result), ensure_ascii=False, indent=2), file=out)
    else:
        _print_answer(result, out)
    return 1 if result.abstained else 0


def _print_answer(result: Any, out: IO[str]) -> None:
    """The answer (or refusal), its chain or the unanswered hop, its sources and what the run cost."""
    from ..agent.drafting import strip_answer_label
    from ..agent.state import format_sources

    print(f"\nAnswer: {strip_answer_label(result.answer)}", file=out)
    if result.abstained and result.reason:
        print(f"Why: {result.reason}", file=out)
    if result.chain:
        print("Chain:\n" + "\n".join(f"  {step['index']}. {step['question']} -> {step['answer']}"
                                      f"{''.join(f' [{n}]' for n in step['evidence'])}" for step in result.chain),
              file=out)
    if result.sources:
        print("Sources:\n" + "\n".join(f"  {line}" for line in format_sources(result.sources).splitlines()),
              file=out)
    tools = ", ".join(f"{c['name']}{'' if c['ok'] else ' (error)'}" for c in result.tool_calls) or "none"
    print(f"({result.llm_calls} LLM calls, {result.tokens['total']} tokens, tool calls: {tools}"
          f"{', citations added by the check' if result.repaired else ''}"
          f"{', abstained: ' + str(result.abstain_reason) if result.abstained else ''})", file=out)


def _json(result: Any) -> dict[str, Any]:
    return {
        "question": result.question, "answer": result.answer, "abstained": result.abstained,
        "abstain_reason": result.abstain_reason, "reason": result.reason, "mode": result.mode,
        "mode_reason": result.mode_reason,
        "citation_check": result.check.model_dump(mode="json") if result.check else None,
        "sources": [s.model_dump(mode="json") for s in result.sources], "tool_calls": result.tool_calls,
        "llm_calls": result.llm_calls, "tokens": result.tokens, "revisions": result.revisions,
        "repaired": result.repaired, "short_answer": result.short_answer, "fit": result.fit,
        "confirmed": result.confirmed, "confidence": result.confidence, "chain": result.chain,
        "chain_text": result.chain_text, "missing_hop": result.missing_hop, "choice": result.choice,
    }
