"""The citation check's public import path kept from before it became :mod:`graphrag_agents.citations`."""

from ..citations import (
    CitationCheck,
    CitationSuggestion,
    CitedSource,
    ClaimConflict,
    EntailmentJudge,
    UnsupportedClaim,
    check_citations,
)

__all__ = ["CitationCheck", "CitationSuggestion", "CitedSource", "ClaimConflict", "EntailmentJudge",
           "UnsupportedClaim", "check_citations"]
