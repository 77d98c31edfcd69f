"""Rows of the shared ``techdocs_a`` corpus copied to ``tests/data/`` (license in ``tests/data/NOTICE.md``), and the
graph the eval builds from them: one document per section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph

DATA = Path(__file__).parent / "data"


def read_rows(name: str) -> list[dict[str, Any]]:
    """The rows of ``tests/data/<name>`` (JSON lines: ``id``, ``title``, ``text``)."""
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


async def ingest_sections(kg: KnowledgeGraph, rows: list[dict[str, Any]], extractor: str) -> KnowledgeGraph:
    """Ingest each row as one document with ``extractor``, then finalize; returns ``kg``."""
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows]
    await kg.ingest_documents(sources, IngestPlan(extractor=extractor))
    await kg.finalize()
    return kg
