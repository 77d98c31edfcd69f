"""The framework-neutral tools: ``ToolSpec``, the evidence ledger, typed results, ``check_citations``, the toolkit."""

from .citations import CitationCheck, CitationSuggestion, CitedSource, UnsupportedClaim, check_citations
from .evidence import Evidence, EvidenceLedger
from .plan import CHEAP_PLAN_LIMITS, PlanLimits, RuleBasedIngestionPlanner
from .results import EntityItem, OntologyResult, PassageItem, RelationItem, RetrieveResult, StatusResult, ToolResult
from .spec import ToolAnnotations, ToolSpec
from .toolkit import GraphRAGToolkit
from .write_results import AddFactsResult, FinalizeResult, IngestResult, PreviewFilesResult, SetOntologyResult

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
