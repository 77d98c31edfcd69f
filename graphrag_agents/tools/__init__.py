"""The framework-neutral tools: ``ToolSpec``, typed results, the toolkit.

The write tools live in :mod:`.write`; ``check_citations`` in :mod:`graphrag_agents.citations`; the evidence ledger
and the ``ToolResult`` base in :mod:`graphrag_agents.evidence`. All are exported here too."""

from ..citations import CitationCheck, CitationSuggestion, CitedSource, UnsupportedClaim, check_citations
from ..evidence import Evidence, EvidenceLedger
from .results import EntityItem, OntologyResult, PassageItem, RelationItem, RetrieveResult, StatusResult, ToolResult
from .spec import ToolAnnotations, ToolSpec
from .toolkit import GraphRAGToolkit
from .write import (
    CHEAP_PLAN_LIMITS,
    AddFactsResult,
    FinalizeResult,
    IngestResult,
    PlanLimits,
    PreviewFilesResult,
    RuleBasedIngestionPlanner,
    SetOntologyResult,
)

__all__ = [
    "CHEAP_PLAN_LIMITS",
    "AddFactsResult",
    "CitationCheck",
    "CitationSuggestion",
    "CitedSource",
    "EntityItem",
    "Evidence",
    "EvidenceLedger",
    "FinalizeResult",
    "GraphRAGToolkit",
    "IngestResult",
    "OntologyResult",
    "PassageItem",
    "PlanLimits",
    "PreviewFilesResult",
    "RelationItem",
    "RetrieveResult",
    "RuleBasedIngestionPlanner",
    "SetOntologyResult",
    "StatusResult",
    "ToolAnnotations",
    "ToolResult",
    "ToolSpec",
    "UnsupportedClaim",
    "check_citations",
]
