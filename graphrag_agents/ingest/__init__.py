"""Ingestion: loaders, chunkers, extractors, ontology, resolution and the pipeline behind ``KnowledgeGraph.ingest``.

The values callers build and read are re-exported here; see ``docs/ingestion.md`` for the pipeline.
"""

from .plan import IngestPlan, SourceDocument
from .report import DocumentStatus, IngestReport, PrunedReport

__all__ = ["DocumentStatus", "IngestPlan", "IngestReport", "PrunedReport", "SourceDocument"]
