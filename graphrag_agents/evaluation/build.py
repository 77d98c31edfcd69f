"""Build the evaluation graph from a corpus once, and reuse it while the corpus and the extractor stay the same.

The graph is named after the corpus digest and the extractor (``eval-<digest>-<extractor>``), so another
corpus gets another graph in the same data folder. A marker file written after ``finalize`` records what was
built; when it matches, the graph is reused as is. Without it (first run, or a build that was interrupted),
every paragraph is ingested, which skips the paragraphs an interrupted build had already written, then
``finalize`` embeds and indexes what is missing.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..ingest.plan import ExtractorName, IngestPlan, SourceDocument
from ..kg import KnowledgeGraph
from ..models.chat import ChatModel
from .dataset import Paragraph, corpus_digest

__all__ = ["BuildInfo", "graph_name", "open_eval_graph"]


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


async def open_eval_graph(corpus: list[Paragraph], *, extractor: ExtractorName, data_dir: Path,
                          url: str | None = None, graph: str | None = None, llm: ChatModel | str | None = None,
                          progress: bool | None = None) -> tuple[KnowledgeGraph, BuildInfo]:
    """Open the graph of ``corpus`` (building it when needed) and say how it was obtained.

    Args:
        corpus: the paragraphs; each becomes one document (id = paragraph id, title = paragraph title).
        extractor: ``ner`` (offline) or ``llm`` (needs ``llm``).
        data_dir: folder of the embedded FalkorDB, and of the marker that says the graph is complete.
        url: an external FalkorDB instead of the embedded one.
        graph: graph name (default :func:`graph_name`).
        llm: chat model for the ``llm`` extractor.
        progress: progress bars (None: when stderr is a terminal).
    """
    digest = corpus_digest(corpus)
    name = graph or graph_name(digest, extractor)
    data_dir.mkdir(parents=True, exist_ok=True)
    kg = await KnowledgeGraph.open(url=url, graph=name, data_dir=str(data_dir), llm=llm)
    try:
        info = await _ensure_built(kg, corpus, digest, extractor, data_dir, progress)
    except BaseException:
        await kg.close()
        raise
    return kg, info


async def _ensure_built(kg: KnowledgeGraph, corpus: list[Paragraph], digest: str, extractor: ExtractorName,
                        data_dir: Path, progress: bool | None) -> BuildInfo:
    marker = _marker(data_dir, kg.name)
    if marker.exists() and await kg.store.exists():
        try:
            info = BuildInfo(**json.loads(marker.read_text(encoding="utf-8")))
        except (ValueError, TypeError):
            info = None
        if info is not None and (info.corpus_digest, info.extractor, info.embed_model) == (
                digest, extractor, kg.embedder.model_name):
            info.reused = True
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
