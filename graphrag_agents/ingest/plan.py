"""What to ingest (``SourceDocument``) and how (``IngestPlan``): chunker, extractor, resolver, budgets."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from .chunkers import AUTO, CHUNKERS, get_chunker

__all__ = ["EXTRACTORS", "RESOLVERS", "ExtractorName", "IngestPlan", "ResolverName", "SourceDocument"]

ExtractorName = Literal["auto", "ner", "llm", "none"]
ResolverName = Literal["exact", "llm_verified"]
EXTRACTORS: tuple[str, ...] = ("auto", "ner", "llm", "none")
RESOLVERS: tuple[str, ...] = ("exact", "llm_verified")


@dataclass
class IngestPlan:
    """How one document is chunked, extracted and resolved.

    Example: ``IngestPlan(chunker="sentence", extractor="ner")``.
    """

    chunker: str = AUTO
    """``auto`` (``structural`` for Markdown / reST files, ``sentence`` for the rest), ``sentence``, ``fixed`` or
    ``structural`` (see :mod:`graphrag_agents.ingest.chunkers`)."""
    chunk_params: dict[str, Any] = field(default_factory=dict)
    """Chunker parameters, e.g. ``{"size": 500, "overlap": 50}`` for ``fixed``."""
    extractor: ExtractorName = "auto"
    """``llm`` (one model call per chunk), ``ner`` (offline spaCy), ``none`` (chunks only), or ``auto``: llm
    when the knowledge graph has a chat model, else ner when spaCy is installed, else none."""
    resolver: ResolverName = "exact"
    """``exact``: same normalised name and type = one entity. ``llm_verified``: also merge near-duplicate
    names the chat model confirms, up to ``max_llm_pairs`` checks per document."""
    max_llm_pairs: int = 0
    """Budget of LLM pair checks per document for ``llm_verified`` (0 = no checks)."""
    max_chunks: int | None = None
    """Refuse (fail) a document with more chunks than this before extracting it; None = no limit."""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``ValueError`` naming the valid choices when a field is out of range."""
        if self.chunker not in CHUNKERS and self.chunker != AUTO:
            raise ValueError(f"unknown chunker {self.chunker!r}; valid chunkers are: "
                             f"{', '.join(sorted([*CHUNKERS, AUTO]))}")
        get_chunker("sentence" if self.chunker == AUTO else self.chunker, **self.chunk_params)  # checks them
        if self.extractor not in EXTRACTORS:
            raise ValueError(f"unknown extractor {self.extractor!r}; valid extractors are: {', '.join(EXTRACTORS)}")
        if self.resolver not in RESOLVERS:
            raise ValueError(f"unknown resolver {self.resolver!r}; valid resolvers are: {', '.join(RESOLVERS)}")
        if isinstance(self.max_llm_pairs, bool) or not isinstance(self.max_llm_pairs, int) or self.max_llm_pairs < 0:
            raise ValueError(f"max_llm_pairs must be a non-negative integer, got {self.max_llm_pairs!r}")
        if self.max_chunks is not None and (not isinstance(self.max_chunks, int) or self.max_chunks < 1):
            raise ValueError(f"max_chunks must be a positive integer or None, got {self.max_chunks!r}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy (stored on the document, shown in results)."""
        return asdict(self)


@dataclass
class SourceDocument:
    """One document to ingest: a file's bytes (``data``) or plain ``text``.

    Example: ``SourceDocument("file:notes/a.md", "a.md", data=b"# A\\n...", path="notes/a.md", from_file=True)``.
    """

    document_id: str
    """The id the document is stored under (``file:`` + path relative to the files root for files)."""
    name: str
    """File name (or path); its suffix picks the loader. Any name works for ``text``."""
    data: bytes | None = None
    """The file's bytes, loaded by the loader its ``name`` picks."""
    text: str | None = None
    """Plain text, used when ``data`` is None."""
    path: str | None = None
    """The path shown to users (default: the document id)."""
    from_file: bool = False
    """True when the document was read from a file (its loader and path are stored)."""
    title: str | None = None
    """Title override; default: the loader's title (first heading, PDF title, file stem) or the id."""
