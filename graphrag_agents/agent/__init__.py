"""The reference LangGraph agent: answers with ``[n]`` citations, checked by ``check_citations``, or abstains.

Needs the ``langchain`` extra: ``pip install '.[langchain]'`` in the source folder. :class:`AgentOptions` and the
accept rules import without it (the command line builds options before it knows whether the agent runs), so the
other names are imported when first used.

* :func:`build_grounded_agent` builds the whole graph (``tools`` or ``retrieve_first`` mode, or ``auto``: the
  one :func:`choose_mode` picks for the model) with its :class:`AgentOptions`.
* :func:`citation_gate` is its check as a node for your own graph; :func:`verify_draft` the check alone.
* :class:`GroundedAnswer` types a finished run's state.
* :func:`parse_draft` / :func:`render_draft` read and render a structured draft; :class:`ReaderView` sizes the
  evidence of the drafting turn.
* :func:`answer_fit` is the agent's check that a short answer fits its question (not an echo of it, evidence
  about each side of a comparison, cited evidence tied to its names).
* :func:`answer_confidence` reads the model's probability of its short answer from the reply's log-probabilities
  (``min_confidence``).
"""

from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from .accept import REFUSAL, AcceptRule, cites_evidence, strictly_grounded
from .mode import ModeChoice, ModeSetting, choose_mode
from .options import AgentMode, AgentOptions, Drafting
from .reader import ReaderView, reader_evidence

if _TYPE_CHECKING:
    from .confidence import answer_confidence
    from .drafting import DRAFT_SCHEMA, NOT_IN_EVIDENCE, StructuredDraft, parse_draft, render_draft
    from .fit import FitProblem, ShownItem, answer_fit
    from .gate import CitationGateState, Verdict, add_suggested_citations, citation_gate, verify_draft
    from .graph import build_grounded_agent
    from .prompts import RETRIEVE_FIRST_SYSTEM_PROMPT, STRUCTURED_SYSTEM_PROMPT, TOOLS_SYSTEM_PROMPT
    from .state import GroundedAgentInput, GroundedAgentState, GroundedAnswer, TokenUsage, ToolCallRecord

_LAZY = {
    **dict.fromkeys(["answer_confidence"], ".confidence"),
    **dict.fromkeys(["DRAFT_SCHEMA", "NOT_IN_EVIDENCE", "StructuredDraft", "parse_draft", "render_draft"], ".drafting"),
    **dict.fromkeys(["FitProblem", "ShownItem", "answer_fit"], ".fit"),
    **dict.fromkeys(["CitationGateState", "Verdict", "add_suggested_citations", "citation_gate", "verify_draft"],
                    ".gate"),
    **dict.fromkeys(["build_grounded_agent"], ".graph"),
    **dict.fromkeys(["RETRIEVE_FIRST_SYSTEM_PROMPT", "STRUCTURED_SYSTEM_PROMPT", "TOOLS_SYSTEM_PROMPT"], ".prompts"),
    **dict.fromkeys(["GroundedAgentInput", "GroundedAgentState", "GroundedAnswer", "TokenUsage", "ToolCallRecord"],
                    ".state"),
}


def __getattr__(name: str) -> _Any:
    """The names that need LangChain, imported on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "DRAFT_SCHEMA",
    "NOT_IN_EVIDENCE",
    "REFUSAL",
    "RETRIEVE_FIRST_SYSTEM_PROMPT",
    "STRUCTURED_SYSTEM_PROMPT",
    "TOOLS_SYSTEM_PROMPT",
    "AcceptRule",
    "AgentMode",
    "AgentOptions",
    "CitationGateState",
    "Drafting",
    "FitProblem",
    "GroundedAgentInput",
    "GroundedAgentState",
    "GroundedAnswer",
    "ModeChoice",
    "ModeSetting",
    "ReaderView",
    "ShownItem",
    "StructuredDraft",
    "TokenUsage",
    "ToolCallRecord",
    "Verdict",
    "add_suggested_citations",
    "answer_confidence",
    "answer_fit",
    "build_grounded_agent",
    "choose_mode",
    "citation_gate",
    "cites_evidence",
    "parse_draft",
    "reader_evidence",
    "render_draft",
    "strictly_grounded",
    "verify_draft",
]
