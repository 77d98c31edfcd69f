"""Deprecated: the evidence ledger is :mod:`graphrag_agents.evidence` (``Evidence``, ``EvidenceKind``,
``EvidenceLedger``); this module goes in the next release. ``graphrag_agents.tools.Evidence`` and
``graphrag_agents.tools.EvidenceLedger`` stay."""

import warnings

from ..evidence.ledger import Evidence, EvidenceKind, EvidenceLedger

__all__ = ["Evidence", "EvidenceKind", "EvidenceLedger"]

warnings.warn("graphrag_agents.tools.evidence is deprecated: import Evidence, EvidenceKind and EvidenceLedger from "
              "graphrag_agents.evidence instead", DeprecationWarning, stacklevel=2)
