"""graphrag-agents: bounded, verifiable knowledge-graph tools over FalkorDB for the agents you already run."""

from .errors import (
    ConfigurationError,
    EmbeddingMismatch,
    GraphNotFound,
    GraphRAGError,
    ReadOnlyViolation,
    StoreUnavailable,
    ToolError,
)
from .kg import FinalizeReport, GraphStatus, KnowledgeGraph
from .tools.evidence import Evidence

__all__ = [
    "ConfigurationError",
    "EmbeddingMismatch",
    "Evidence",
    "FinalizeReport",
    "GraphNotFound",
    "GraphRAGError",
    "GraphStatus",
    "KnowledgeGraph",
    "ReadOnlyViolation",
    "StoreUnavailable",
    "ToolError",
]
