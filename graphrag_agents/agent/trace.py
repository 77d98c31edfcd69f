"""What each node of the reference agent did, as data: the ``trace`` key of the state.

Every node's update is described by the function the graph wires beside it (:func:`traced`), one
:class:`TraceStep` per thing it did: the agent's own retrieve and an early abstention, each tool call and draft of
the model, each tool result, the hop plan, each hop, the conclusion of a chain, and the verdict of ``verify``.
``graphrag-agents ask`` prints the steps' ``detail`` as the run streams; a program reads ``outcome`` and
``reason`` instead of parsing text.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from typing_extensions import TypedDict

from ..tools.citations import CitationCheck
from .refusal import refusal_words

__all__ = ["TraceStep", "add_trace", "describe_conclude", "describe_hop", "describe_model", "describe_plan",
           "describe_prepare", "describe_retrieve", "describe_tools", "describe_verify", "refusal_reason", "traced"]

Update = dict[str, Any]


class TraceStep(TypedDict):
    """One thing a node did."""

    node: str
    """The graph node (``retrieve``, ``agent``, ``tools``, ``hop``, ``verify``, ...)."""
    outcome: str
    """What came of it: ``mode`` (``auto`` picked the run's mode), ``found``, ``failed``, ``abstained``,
    ``tool_call``, ``draft``, ``result``, ``error``, ``planned``, ``one_hop``, ``answered``, ``missing``,
    ``served``, ``revise`` or ``refused``."""
    reason: str | None
    """The ``abstain_reason`` of an abstention or refusal; None otherwise."""
    detail: str
    """One line for a person (what ``graphrag-agents ask`` prints)."""
    why: str | None
    """An abstention or refusal's reason in words (:func:`~graphrag_agents.agent.refusal.refusal_words`: which
    step found no evidence, what the draft answered instead, what the model said); None otherwise."""


def add_trace(left: list[TraceStep] | None, right: list[TraceStep]) -> list[TraceStep]:
    """The state's reducer: steps append; an empty list (``prepare``) starts the run's trace afresh, so a thread
    with a checkpointer keeps the steps of its last run only."""
    return [*(left or []), *right] if right else []


def traced(node: Callable[..., Awaitable[Update]], name: str,
           describe: Callable[[str, Update], list[TraceStep]]) -> Callable[[Any, RunnableConfig], Awaitable[Update]]:
    """``node`` with the steps ``describe`` reads off its update added to it (``trace``)."""
    takes_config = "config" in inspect.signature(node).parameters

    async def run(state: Any, config: RunnableConfig) -> Update:
        update = await (node(state, config) if takes_config else node(state))
        steps = describe(name, update)
        return {**update, "trace": steps} if steps else update

    return run


def _step(node: str, outcome: str, detail: str, reason: str | None = None, why: str | None = None) -> TraceStep:
    return TraceStep(node=node, outcome=outcome, reason=reason, detail=detail, why=why)


def _refused(node: str, outcome: str, update: Update, lead: str, end: str = "refusal") -> TraceStep:
    """The step of an abstention or refusal: ``lead``, the reason in words, and the reason's code."""
    reason = update.get("abstain_reason")
    why = refusal_words(reason, update)
    return _step(node, outcome, f"{lead}{why} → {end} ({reason})", reason, why)


def refusal_reason(trace: list[TraceStep] | None) -> str | None:
    """The words of the run's refusal: the ``why`` of the last step that refused; None when none did."""
    return next((step.get("why") for step in reversed(trace or []) if step.get("why")), None)


def describe_prepare(node: str, update: Update) -> list[TraceStep]:
    """The run's mode, when ``auto`` picked it (a mode the caller named is no step)."""
    why = update.get("mode_reason")
    return [_step(node, "mode", f"mode auto → {update.get('mode')}: {why}")] if why else []


def _clip(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 1] + "…"


def describe_retrieve(node: str, update: Update) -> list[TraceStep]:
    """The agent's own retrieve (``gate``, ``retrieve``): what it found, and an abstention before any model call."""
    calls = update.get("tool_calls") or []
    steps = []
    if calls:
        last = calls[-1]
        found = f"{len(last['evidence'])} evidence items" if last["ok"] else f"error: {last['error']}"
        best = update.get("best_score")
        steps.append(_step(node, "found" if last["ok"] else "failed",
                           f"retrieve: {found}" + (f", best score {best:.3f}" if best is not None else "")))
    if update.get("abstained"):
        steps.append(_refused(node, "abstained", update, "", "abstain"))
    return steps


def describe_model(node: str, update: Update) -> list[TraceStep]:
    """A model turn (``agent``, ``final``): each tool call it made, or its draft."""
    steps = []
    for message in update.get("messages") or []:
        if isinstance(message, AIMessage) and message.tool_calls:
            steps += [_step(node, "tool_call",
                            f"model calls {c['name']}({_clip(json.dumps(c['args'], ensure_ascii=False), 240)})")
                      for c in message.tool_calls]
        elif isinstance(message, AIMessage):
            confidence = update.get("confidence")
            sure = f" (confidence {confidence:.2f})" if isinstance(confidence, float) else ""
            steps.append(_step(node, "draft", f"model drafts{sure}: {_clip(message.text, 200)}"))
    return steps


def describe_tools(node: str, update: Update) -> list[TraceStep]:
    """The model's tool calls run: each result (its evidence count) or error."""
    steps = []
    for message in update.get("messages") or []:
        if not isinstance(message, ToolMessage):
            continue
        if message.status == "error":
            steps.append(_step(node, "error", f"{message.name} → {_clip(message.text, 160)}"))
            continue
        numbers = message.artifact.evidence_numbers() if hasattr(message.artifact, "evidence_numbers") else []
        said = f"{len(numbers)} evidence items" if numbers else _clip(message.text, 160)
        steps.append(_step(node, "result", f"{message.name} → {said}"))
    return steps


def describe_plan(node: str, update: Update) -> list[TraceStep]:
    """The hop plan: its hops and who read them, or the single-retrieve path."""
    hops = update.get("hops") or []
    if not hops:
        note = f" ({update['plan_note']})" if update.get("plan_note") else ""
        return [_step(node, "one_hop", f"plan: one hop (the single-retrieve path){note}")]
    by = "rules" if update.get("plan_by") == "rules" else "the model"
    return [_step(node, "planned", f"plan ({by}): {len(hops)} hops: " + " | ".join(hops))]


def describe_hop(node: str, update: Update) -> list[TraceStep]:
    """One hop: its checked answer, or why none was found (the ``missing_hop`` refusal)."""
    missing = update.get("missing_hop")
    if missing:
        return [_step(node, "missing", f"hop {missing['index']}: {missing['question']} -> no answer "
                                       f"({missing['reason']}) → refusal (missing_hop)", "missing_hop",
                      refusal_words("missing_hop", update))]
    chain = update.get("chain") or []
    if not chain:
        return []
    step = chain[-1]
    return [_step(node, "answered", f"hop {step['index']}: {step['question']} -> {step['answer']} "
                                    f"{''.join(f'[{n}]' for n in step['evidence'])}")]


def describe_conclude(node: str, update: Update) -> list[TraceStep]:
    """The chain's conclusion: served, or refused with the finding."""
    if update.get("abstained"):
        return [_refused(node, "refused", update, "conclude: ")]
    return [_step(node, "served", "conclude: the chain's answer fits the question → answer")]


def describe_verify(node: str, update: Update) -> list[TraceStep]:
    """``verify``'s verdict on the draft: served, a revision turn, or the refusal."""
    reason = update.get("abstain_reason")
    if reason == "not_in_evidence":
        return [_refused(node, "refused", update, "verify: ")]
    check = CitationCheck.model_validate(update["citation_check"])
    verdict = check.to_llm_text(400).splitlines()[0]
    if update.get("answer") and not update.get("abstained"):
        return [_step(node, "served", f"verify: {verdict} → answer")]
    if update.get("abstained"):
        # The citation check's verdict comes first: a serving check may refuse a draft the check verified.
        return [_refused(node, "refused", update, f"verify: {verdict.rstrip('.')}, but ")] \
            if reason != "ungrounded" else [_refused(node, "refused", update, "verify: ")]
    if update.get("fit"):
        return [_step(node, "revise", f"verify: {verdict.rstrip('.')}, but the draft answered another question: "
                                      f"{'; '.join(update['fit'])} → revision turn")]
    findings = len(check.invalid) + len(check.uncited) + len(check.unsupported)
    return [_step(node, "revise", f"verify: {verdict} ({findings} findings) → revision turn")]
