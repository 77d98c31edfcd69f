"""graphrag-agents: bounded, verifiable knowledge-graph tools over FalkorDB for the agents you already run.

Framework adapters live in ``graphrag_agents.adapters.langchain``, ``.pydantic_ai`` and ``.mcp``, the reference
agent in ``graphrag_agents.agent``; importing this package imports none of the frameworks.
"""

from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _version

from .errors import (
    ConfigurationError,
    EmbeddingMismatch,
    GraphLoading,
    GraphNotFound,
    GraphRAGError,
    ReadOnlyViolation,
    StoreUnavailable,
    ToolError,
)
from .ingest import DocumentStatus, IngestPlan, IngestReport, PrunedReport, SourceDocument
from .ingest.ontology import EntityType, Ontology, RelationType
from .kg import FinalizeReport, GraphStatus, KnowledgeGraph
from .tools import (
    CHEAP_PLAN_LIMITS,
    AddFactsResult,
    CitationCheck,
    Evidence,
    FinalizeResult,
    GraphRAGToolkit,
    IngestResult,
    OntologyResult,
    PreviewFilesResult,
    RetrieveResult,
    SetOntologyResult,
    StatusResult,
    ToolResult,
    ToolSpec,
    check_citations,
)

__all__ = [
    "CHEAP_PLAN_LIMITS",
    "AddFactsResult",
    "CitationCheck",
    "ConfigurationError",
    "DocumentStatus",
    "EmbeddingMismatch",
    "EntityType",
    "Evidence",
    "FinalizeReport",
    "FinalizeResult",
    "GraphLoading",
    "GraphNotFound",
    "GraphRAGError",
    "GraphRAGToolkit",
    "GraphStatus",
    "IngestPlan",
    "IngestReport",
    "IngestResult",
    "KnowledgeGraph",
    "Ontology",
    "OntologyResult",
    "PreviewFilesResult",
    "PrunedReport",
    "ReadOnlyViolation",
    "RelationType",
    "RetrieveResult",
    "SetOntologyResult",
    "SourceDocument",
    "StatusResult",
    "StoreUnavailable",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "check_citations",
]

try:
    __version__ = _version("graphrag-agents")
    """The installed distribution's version."""
except _PackageNotFoundError:  # pragma: no cover - a source tree without installed metadata
    __version__ = "0+unknown"
