"""Errors raised by graphrag-agents.

The tree, by who must act::

    GraphRAGError                 root: catch this to catch everything we raise
    ├── ToolError                 a tool call cannot run; the model (or user) acts on ``hint``
    │   ├── ReadOnlyViolation     a write tool was called on a read-only toolkit
    │   ├── GraphNotFound         the graph was never written or was deleted
    │   └── GraphLoading          the store is still building an index the query needs: retry in N s
    ├── StoreUnavailable          FalkorDB cannot be reached or started
    ├── ConfigurationError        the developer misconfigured something (URL, model, extras)
    └── EmbeddingMismatch         the graph was built with another embedder
"""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "EmbeddingMismatch",
    "GraphLoading",
    "GraphNotFound",
    "GraphRAGError",
    "ReadOnlyViolation",
    "StoreUnavailable",
    "ToolError",
]


class GraphRAGError(Exception):
    """Root of every error this package raises."""


class ToolError(GraphRAGError):
    """A tool call that cannot run, with a hint that names the next step.

    ``str(error)`` is ``"<message> Hint: <hint>"`` so a model reading only the text still sees the fix.
    """

    def __init__(self, message: str, hint: str = "") -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message} Hint: {hint}" if hint else message)


class ReadOnlyViolation(ToolError):
    """A write tool was called on a read-only toolkit. Fix: build the toolkit with ``read_only=False``."""


class GraphNotFound(ToolError):
    """The graph does not exist. Fix: ingest documents (and finalize) first, or check the graph name."""


class GraphLoading(ToolError):
    """FalkorDB is still building an index (after a restart, an upgrade or a rebuild). Fix: retry in
    ``retry_after`` seconds; the data is there, the index is not ready yet."""

    def __init__(self, message: str, hint: str = "", retry_after: float = 5.0) -> None:
        super().__init__(message, hint)
        self.retry_after = retry_after
        """Estimated seconds until the index is ready."""


class StoreUnavailable(GraphRAGError):
    """FalkorDB could not be reached or started; the message names the address and the fix."""


class ConfigurationError(GraphRAGError):
    """A setting, URL, model name or missing extra; the message names the fix."""


class EmbeddingMismatch(ConfigurationError):
    """The graph stores vectors of another model or dimension than the embedder it was opened with."""
