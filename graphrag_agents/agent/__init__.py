"""The reference LangGraph agent: answers with ``[n]`` citations, checked by ``check_citations``, or abstains.

Needs the ``langchain`` extra: ``pip install 'graphrag-agents[langchain]'``.

* :func:`build_grounded_agent` builds the whole graph (``tools`` or ``retrieve_first`` mode).
* :func:`citation_gate` is its check as a node for your own graph; :func:`verify_draft` the check alone.
* :class:`GroundedAnswer` types a finished run's state.
"""

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
from .graph import AgentMode, build_grounded_agent
from .prompts import RETRIEVE_FIRST_SYSTEM_PROMPT, TOOLS_SYSTEM_PROMPT
from .state import GroundedAgentInput, GroundedAgentState, GroundedAnswer, TokenUsage, ToolCallRecord

__all__ = [
    "REFUSAL",
    "RETRIEVE_FIRST_SYSTEM_PROMPT",
    "TOOLS_SYSTEM_PROMPT",
    "AcceptRule",
    "AgentMode",
    "CitationGateState",
    "GroundedAgentInput",
    "GroundedAgentState",
    "GroundedAnswer",
    "TokenUsage",
    "ToolCallRecord",
    "Verdict",
    "add_suggested_citations",
    "build_grounded_agent",
    "citation_gate",
    "cites_evidence",
    "strictly_grounded",
    "verify_draft",
]
