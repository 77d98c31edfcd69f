"""Which checked drafts the agent may serve, and the fixed refusal it serves otherwise.

Imports no agent framework, so :class:`~graphrag_agents.agent.options.AgentOptions` (whose defaults these are)
is built without LangChain.
"""

from __future__ import annotations

from collections.abc import Callable

from ..text.sentences import MARKER_RE
from ..tools.citations import CitationCheck

__all__ = ["REFUSAL", "AcceptRule", "cites_evidence", "says_something", "strictly_grounded"]

REFUSAL = "I don't have enough evidence in the knowledge graph to answer that question."
"""The fixed refusal: the same text on every abstention, so abstentions stay machine-detectable."""

AcceptRule = Callable[[CitationCheck], bool]
"""Decides whether a checked draft may be served."""


def strictly_grounded(check: CitationCheck) -> bool:
    """The default rule: words besides the markers, grounded, and no invalid number, uncited sentence or
    unsupported claim."""
    return (check.grounded and not check.invalid and not check.uncited and not check.unsupported
            and says_something(check.answer))


def says_something(answer: str) -> bool:
    """Whether ``answer`` has a letter or digit outside its citation markers."""
    return any(ch.isalnum() for ch in MARKER_RE.sub(" ", answer))


def cites_evidence(check: CitationCheck) -> bool:
    """The literal rule: the draft cites at least one real evidence number (``check.grounded``)."""
    return check.grounded
