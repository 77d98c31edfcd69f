"""Build the evaluation graph from a corpus once, and reuse it while the corpus and the extractor stay the same.

:func:`open_eval_graph` opens it, :func:`ensure_built` builds it. The graph is named after the corpus digest and
the extractor (``eval-<digest>-<extractor>``), so another corpus gets another graph in the same data folder. A
marker file written after ``finalize`` records what was built; when it matches, the graph is reused as is.
Without it (first run, or a build that was interrupted), every paragraph is ingested, which skips the paragraphs
an interrupted build had already written, then ``finalize`` embeds and indexes what is missing.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..ingest.plan import ExtractorName, IngestPlan, SourceDocument
from ..kg import KnowledgeGraph
from ..models.chat import ChatModel
from ..store.stale_vectors import rebuild_stale_vector_indexes
from .dataset import Paragraph, corpus_digest

logger = logging.getLogger("graphrag_agents.evaluation")

__all__ = ["BuildInfo", "ensure_built", "graph_name", "open_eval_graph"]


@dataclass
class BuildInfo:
    """How the evaluation graph came to be (recorded in the summary)."""

    graph: str
    corpus_digest: str
    extractor: str
    embed_model: str
    documents: int
    chunks: int
    entities: int
    relations: int
    ingest_seconds: float
    """Wall time of loading, chunking, extracting and writing (0 when reused)."""
    finalize_seconds: float
    """Wall time of deduplicating, embedding and indexing (0 when reused)."""
    failed: int = 0
    """Paragraphs that could not be ingested (their recall counts as a miss)."""
    unchanged: int = 0
    """Paragraphs already in the graph when this build ran (an interrupted build, or one made elsewhere)."""
    reused: bool = False


def graph_name(digest: str, extractor: str) -> str:
    """The graph name for a corpus digest and an extractor."""
    return f"eval-{digest[:12]}-{extractor}"


def _marker(data_dir: Path, graph: str) -> Path:
    return data_dir / f"{graph}.eval.json"


async def open_eval_graph(corpus: list[Paragraph], *, extractor: str, data_dir: Path, url: str | None = None,
                          graph: str | None = None, llm: ChatModel | str | None = None) -> KnowledgeGraph:
    """Open (not build) the graph of ``corpus``: named by :func:`graph_name` unless ``graph`` is given.

    Args:
        corpus: the paragraphs.
        extractor: the extractor the graph is (or will be) built with; part of its name.
        data_dir: folder of the embedded FalkorDB (created if missing).
        url: an external FalkorDB instead of the embedded one.
        graph: graph name override.
        llm: chat model for the ``llm`` extractor.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    name = graph or graph_name(corpus_digest(corpus), extractor)
    return await KnowledgeGraph.open(url=url, graph=name, data_dir=str(data_dir), llm=llm)


async def ensure_built(kg: KnowledgeGraph, corpus: list[Paragraph], *, extractor: ExtractorName, data_dir: Path,
                       progress: bool | None = None) -> BuildInfo:
    """Build ``kg`` from ``corpus`` unless the marker in ``data_dir`` says it is complete; say how it went.

    A graph reused from the cache has any vector index that holds stale copies rebuilt first
    (:mod:`graphrag_agents.store.stale_vectors`), so the searches measured on it are whole.

    Each paragraph becomes one document (id = paragraph id, title = paragraph title).
    """
    digest = corpus_digest(corpus)
    marker = _marker(data_dir, kg.name)
    if marker.exists() and await kg.store.exists():
        try:
            info = BuildInfo(**json.loads(marker.read_text(encoding="utf-8")))
        except (ValueError, TypeError):
            info = None
        if info is not None and (info.corpus_digest, info.extractor, info.embed_model) == (
                digest, extractor, kg.embedder.model_name):
            info.reused = True
            # a cached graph that a start of an earlier release doubled would measure searches that come back short
            rebuilt = await rebuild_stale_vector_indexes(kg.store, kg.embedder.dimension)
            if rebuilt:
                logger.warning("eval rebuilt the vector indexes of %s in its cached graph %r: they held copies of "
                               "vectors no node has any more", ", ".join(rebuilt), kg.name)
            return info
    started = time.perf_counter()
    sources = [SourceDocument(p.id, p.id, text=p.text, title=p.title or p.id) for p in corpus]
    report = await kg.ingest_documents(sources, IngestPlan(extractor=extractor), progress=progress)
    ingest_seconds = time.perf_counter() - started
    finalized = await kg.finalize(progress=progress)
    status = finalized.status
    info = BuildInfo(
        graph=kg.name, corpus_digest=digest, extractor=extractor, embed_model=kg.embedder.model_name,
        documents=status.documents, chunks=status.chunks, entities=status.entities, relations=status.relations,
        ingest_seconds=round(ingest_seconds, 1), finalize_seconds=round(finalized.seconds, 1),
        failed=sum(1 for d in report.documents if d.status == "failed"),
        unchanged=sum(1 for d in report.documents if d.status == "unchanged"),
    )
    if not info.failed:  # a partial graph is rebuilt (its missing paragraphs retried) next time
        marker.write_text(json.dumps(asdict(info), indent=2), encoding="utf-8")
    return info
