"""Evidence: what tools return and answers cite, a layer below both the tools and the citation check.

``ledger`` numbers every item a session returns (:class:`Evidence`, :class:`EvidenceLedger`); ``result`` is the
base of every tool result (:class:`ToolResult`, :func:`llm_text`); ``render`` the compact text a model reads
(sections sharing one character budget, tidy numbers).
"""

from .ledger import Evidence, EvidenceKind, EvidenceLedger
from .result import ToolResult, llm_text

__all__ = ["Evidence", "EvidenceKind", "EvidenceLedger", "ToolResult", "llm_text"]
