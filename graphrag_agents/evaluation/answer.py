"""Run the reference agent on one question and score its answer (needs the ``langchain`` extra).

The record's ``agent`` part: the answer; whether the agent abstained (and why); whether the answer passed the
citation check, with the last draft the check read and its findings (uncited sentences, unsupported claims);
EM / F1 / answer-in-prediction against the gold answers (of the structured draft's short answer when the agent
drafted one, else of the answer with its citation markers removed; an abstention scores 0 on an answerable
question); ``served_right`` (answered, and the gold answer is in the answer); the hop plan, the chain of a
chained answer (``chain``, ``chain_text``), the hop a ``missing_hop`` refusal names, the multiple-choice check's
options and pick; LLM calls, tokens, tool calls and wall time; and the evidence the model read, split
into its numbered items, each flagged ``cited`` when the answer cites it.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from ..kg import KnowledgeGraph
from ..tools.toolkit import GraphRAGToolkit
from .dataset import Question
from .metrics import answer_in_prediction, exact_match, strip_markers, token_f1

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .runner import Answerer

__all__ = ["agent_answerer", "score_answer", "split_evidence"]

_ITEM_START = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


def split_evidence(text: str, cited: set[int]) -> list[dict[str, Any]]:
    """The numbered items of a rendered evidence text (``[n] ...`` at a line start), each with ``cited``.

    An item ends at the next item, at a blank line (the next section's title follows) or at a
    ``…(N more omitted)`` line.
    """
    starts = list(_ITEM_START.finditer(text))
    items: list[dict[str, Any]] = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[match.end():end].split("\n\n", 1)[0].strip()
        lines = [line for line in body.splitlines() if not line.startswith("…(")]
        n = int(match.group(1))
        items.append({"n": n, "text": "\n".join(lines), "cited": n in cited})
    return items


def _read_text(state: dict[str, Any]) -> str:
    """The evidence text the model read: the ``retrieve_first`` context, or the tool results of ``tools`` mode."""
    if state.get("context"):
        return str(state["context"])
    from langchain_core.messages import ToolMessage

    return "\n".join(m.text for m in state.get("messages", []) if isinstance(m, ToolMessage))


# The record of a question whose run failed: every key score_answer writes, empty (em, f1, contains, ms and error
# are set per question).
_NO_ANSWER: dict[str, Any] = {
    "answer": "", "abstained": False, "abstain_reason": None, "grounded": False, "cited": [], "invalid": [],
    "draft": "", "uncited": [], "unsupported": [], "claims": [], "sources": [], "llm_calls": 0, "tokens": 0,
    "tool_calls": 0, "revisions": 0, "repaired": False, "evidence": [], "short_answer": "", "served_right": False,
    "fit": [], "confirmed": None, "confidence": None, "chain": [], "chain_text": "", "missing_hop": None,
    "choice": None, "hops": [], "plan_by": None, "plan_note": None, "hop_retried": False, "chain_gap": None,
}


def score_answer(question: Question, state: dict[str, Any], ms: float) -> dict[str, Any]:
    """The record's ``agent`` part from a final state of the reference agent."""
    from ..agent import GroundedAnswer

    result = GroundedAnswer.from_state(state)
    check = result.check
    cited = set(check.cited) if check is not None and not result.abstained else set()
    prediction = "" if result.abstained else (result.short_answer or strip_markers(result.answer))
    answers = question.answers
    return {
        "answer": result.answer, "short_answer": result.short_answer, "abstained": result.abstained,
        "abstain_reason": result.abstain_reason,
        "served_right": bool(question.answerable and not result.abstained
                             and answer_in_prediction(prediction, answers)),
        "grounded": bool(check is not None and check.grounded and not result.abstained),
        "cited": sorted(cited), "invalid": list(check.invalid) if check else [],
        "draft": str(state.get("draft", "")),
        "uncited": list(check.uncited) if check else [],
        "unsupported": [c.model_dump() for c in check.unsupported] if check else [],
        # each sentence's verdict and the spans behind it, over the cited items' content: the HTML report's claims
        "claims": [c.model_dump() for c in check.claims] if check else [],
        "sources": [s.model_dump() for s in check.sources] if check else [],
        "em": exact_match(prediction, answers) if question.answerable else None,
        "f1": round(token_f1(prediction, answers), 4) if question.answerable else None,
        "contains": answer_in_prediction(prediction, answers) if question.answerable else None,
        "llm_calls": result.llm_calls, "tokens": int(result.tokens.get("total", 0)),
        "tool_calls": sum(1 for call in result.tool_calls if call.get("by") == "model"),
        "revisions": result.revisions, "repaired": result.repaired, "fit": result.fit,
        "confirmed": result.confirmed, "confidence": _rounded(result.confidence),
        "chain": result.chain, "chain_text": result.chain_text, "missing_hop": result.missing_hop,
        "choice": result.choice, "hops": list(state.get("hops") or []), "plan_by": state.get("plan_by"),
        "plan_note": state.get("plan_note"),
        "hop_retried": bool(state.get("hop_retried")), "chain_gap": state.get("chain_gap"),
        "ms": round(ms), "error": None,
        "evidence": split_evidence(_read_text(state), cited),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def agent_answerer(kg: KnowledgeGraph, model: str | BaseChatModel, mode: str = "retrieve_first",
                   **agent_options: Any) -> Answerer:
    """An answerer running :func:`~graphrag_agents.agent.build_grounded_agent` (read-only tools), one evidence
    session per question.

    Args:
        kg: the evaluation graph.
        model: a litellm model name or a LangChain chat model.
        mode: ``retrieve_first`` (small local models), ``tools``, or ``auto`` (the one
            :func:`~graphrag_agents.agent.choose_mode` picks for ``model``).
        agent_options: further ``build_grounded_agent`` options (``min_score``, ``max_revisions``, ...).
    """
    from ..agent import build_grounded_agent
    from ..agent.mode import MODE_SETTINGS

    if mode not in MODE_SETTINGS:
        from ..errors import ConfigurationError

        raise ConfigurationError(f"--agent-mode must be 'auto', 'tools' or 'retrieve_first', not {mode!r}. Fix: "
                                 "pass one of them.")
    agent = build_grounded_agent(model, GraphRAGToolkit(kg, read_only=True), mode=mode,
                                 **agent_options)

    async def answer(question: Question) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            state = await agent.ainvoke({"question": question.question})
        except Exception as exc:  # a provider failure costs this question, not the run
            zero = 0.0 if question.answerable else None
            return {**_NO_ANSWER, "em": zero, "f1": zero, "contains": zero,
                    "ms": round((time.perf_counter() - started) * 1000), "error": f"{type(exc).__name__}: {exc}"}
        return score_answer(question, dict(state), (time.perf_counter() - started) * 1000)

    return answer
