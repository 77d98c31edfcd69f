"""The reference LangGraph agent: answers with ``[n]`` citations, checked by ``check_citations``, or abstains.

Needs the ``langchain`` extra: ``pip install '.[langchain]'`` in the source folder.

* :func:`build_grounded_agent` builds the whole graph (``tools`` or ``retrieve_first`` mode).
* :func:`citation_gate` is its check as a node for your own graph; :func:`verify_draft` the check alone.
* :class:`GroundedAnswer` types a finished run's state.
* :func:`parse_draft` / :func:`render_draft` read and render a structured draft; :class:`ReaderView` sizes the
  evidence of the drafting turn.
* :func:`answer_fit` is the agent's check that a short answer fits its question (not an echo of it, evidence
  about each side of a comparison, cited evidence tied to its names).
* :func:`answer_confidence` reads the model's probability of its short answer from the reply's log-probabilities
  (``min_confidence``).
"""

from .confidence import answer_confidence
from .drafting import DRAFT_SCHEMA, NOT_IN_EVIDENCE, StructuredDraft, parse_draft, render_draft
from .fit import FitProblem, ShownItem, answer_fit
from .gate import (
    REFUSAL,
    AcceptRule,
    CitationGateState,
    Verdict,
    add_suggested_citations,
    citation_gate,
    cites_evidence,
    strictly_grounded,
    verify_draft,
)
from .graph import AgentMode, Drafting, build_grounded_agent
from .prompts import RETRIEVE_FIRST_SYSTEM_PROMPT, STRUCTURED_SYSTEM_PROMPT, TOOLS_SYSTEM_PROMPT
from .reader import ReaderView, reader_evidence
from .state import GroundedAgentInput, GroundedAgentState, GroundedAnswer, TokenUsage, ToolCallRecord

__all__ = [
    "DRAFT_SCHEMA",
    "NOT_IN_EVIDENCE",
    "REFUSAL",
    "RETRIEVE_FIRST_SYSTEM_PROMPT",
    "STRUCTURED_SYSTEM_PROMPT",
    "TOOLS_SYSTEM_PROMPT",
    "AcceptRule",
    "AgentMode",
    "CitationGateState",
    "Drafting",
    "FitProblem",
    "GroundedAgentInput",
    "GroundedAgentState",
    "GroundedAnswer",
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
    "citation_gate",
    "cites_evidence",
    "parse_draft",
    "reader_evidence",
    "render_draft",
    "strictly_grounded",
    "verify_draft",
]
