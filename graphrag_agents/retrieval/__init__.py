"""Retrieval: the five search paths of ``retrieve``, their fusion and scoring (see ``docs/retrieval.md``)."""

from .hits import EntityHit, PassageHit, RelationHit, RetrievalHits
from .retriever import ALL_PATHS, retrieve

__all__ = ["ALL_PATHS", "EntityHit", "PassageHit", "RelationHit", "RetrievalHits", "retrieve"]
