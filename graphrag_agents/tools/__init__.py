"""The framework-neutral tools: ``ToolSpec``, the evidence ledger, typed results, ``the toolkit.

The write tools live in :mod:`.write`; ``check_citations`` in :mod:`graphrag_agents.citations`."""

from ..citations import CitationCheck, CitationSuggestion, CitedSource, UnsupportedClaim, check_citations
from .evidence import Evidence, EvidenceLedger
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
