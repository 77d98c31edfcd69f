"""The citation check's public import path kept from before it became :mod:`graphrag_agents.citations`."""

from ..citations import (
    CheckedClaim,
    CitationCheck,
    CitationSuggestion,
    CitedSource,
    ClaimConflict,
    ClaimVerdict,
    EntailmentJudge,
    EvidenceSpan,
    UnsupportedClaim,
    check_citations,
)

__all__ = ["CheckedClaim", "CitationCheck", "CitationSuggestion", "CitedSource", "ClaimConflict", "ClaimVerdict",
           "EntailmentJudge", "EvidenceSpan", "UnsupportedClaim", "check_citations"]
