"""The write side of the tools: ``preview_files``, ``set_ontology``, ``ingest``, ``finalize`` and ``add_facts``.

``tools`` builds their specs over a knowledge graph and a shared :class:`~.tools.WriteState`; ``inputs`` and
``results`` are their models; ``plan`` chooses each file's strategies; ``sandbox`` is the files root they read.
Nothing here imports the toolkit: the toolkit imports this package.
"""

from .plan import CHEAP_PLAN_LIMITS, PlanLimits, RuleBasedIngestionPlanner
from .results import AddFactsResult, FinalizeResult, IngestResult, PreviewFilesResult, SetOntologyResult
from .sandbox import DEFAULT_MAX_FILE_BYTES, FilesRoot
from .tools import FinalizePolicy, WriteState, finalize_pending, make_write_state, write_specs

__all__ = [
    "CHEAP_PLAN_LIMITS",
    "DEFAULT_MAX_FILE_BYTES",
    "AddFactsResult",
    "FilesRoot",
    "FinalizePolicy",
    "FinalizeResult",
    "IngestResult",
    "PlanLimits",
    "PreviewFilesResult",
    "RuleBasedIngestionPlanner",
    "SetOntologyResult",
    "WriteState",
    "finalize_pending",
    "make_write_state",
    "write_specs",
]
