"""Why a run ended in the fixed refusal, in words: read off the update of the node that refused.

The answer of every abstention stays the fixed refusal text; the trace step of the node that refused carries these
words (``why``), and :class:`~graphrag_agents.agent.GroundedAnswer` ``reason``, ``graphrag-agents ask`` and its
``--json`` show them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..tools.citations import CitationCheck
from .drafting import answer_words

__all__ = ["refusal_words"]

Update = Mapping[str, Any]


def _low_score(update: Update) -> str:
    best = update.get("best_score")
    score = f" scores {best:.3f}," if isinstance(best, float) else ""
    return f"the best evidence retrieve found{score} under the min_score gate; the model was not asked"


def _retrieve_failed(update: Update) -> str:
    calls = update.get("tool_calls") or []
    error = calls[-1].get("error") if calls else None
    failed = f"the agent's retrieve failed: {error}" if error else "the agent's retrieve failed"
    return f"{failed}; the model was not asked"


def _not_in_evidence(update: Update) -> str:
    # An answer with no word in it (":", "-") is no answer, not a statement about the evidence.
    if not answer_words(str(update.get("short_answer") or "")):
        return "the model answered nothing"
    return "the model answered that the evidence does not say"


def _ungrounded(update: Update) -> str:
    raw = update.get("citation_check")
    if not raw:
        return "no draft passed the citation check"
    check = CitationCheck.model_validate(raw)
    return f"no draft passed the citation check: {check.to_llm_text(300).splitlines()[0]}"


def _off_question(update: Update) -> str:
    found = "; ".join(update.get("fit") or [])
    return "the draft answered another question" + (f": {found}" if found else "")


def _not_confirmed(update: Update) -> str:
    answer = update.get("short_answer")
    about = f" {answer!r}" if answer else " the answer"
    return f"asked whether the evidence it cited states{about}, the model said no"


def _low_confidence(update: Update) -> str:
    confidence = update.get("confidence")
    said = f" {confidence:.2f}" if isinstance(confidence, float) else ""
    return f"the model's own probability of its answer{said} is under min_confidence"


def _missing_hop(update: Update) -> str:
    hop = update.get("missing_hop")
    if not hop:
        return "a step of the question had no evidence stating its answer"
    return f"hop {hop['index']} unanswered: {hop['question']} - no evidence states its answer ({hop['reason']})"


def _not_chosen(update: Update) -> str:
    choice = update.get("choice") or {}
    picked = choice.get("picked")
    other = "no option its reply names" if picked is None else repr(picked)
    draft = choice.get("draft")
    return (f"shown its answer{f' {draft!r}' if draft else ''} among alternatives from its evidence, the model "
            f"picked {other}")


_WORDS: dict[str, Callable[[Update], str]] = {
    "low_score": _low_score,
    "no_evidence": lambda update: "retrieve found no evidence for the question; the model was not asked",
    "retrieve_failed": _retrieve_failed,
    "not_in_evidence": _not_in_evidence,
    "ungrounded": _ungrounded,
    "off_question": _off_question,
    "not_confirmed": _not_confirmed,
    "low_confidence": _low_confidence,
    "missing_hop": _missing_hop,
    "not_chosen": _not_chosen,
}


def refusal_words(reason: str | None, update: Update) -> str:
    """Why the run refused (``reason`` is its ``abstain_reason``), in words, from the refusing node's update (or
    the final state): which step found no evidence, what the draft answered instead, what the model said."""
    words = _WORDS.get(reason or "")
    return words(update) if words is not None else f"refused ({reason})"
