"""``check_citations``: the deterministic check of a draft answer's ``[n]`` markers against a session's evidence.

``check`` runs the check and ``result`` defines what it returns; ``_rules`` holds the claim rules as an ordered
list and ``_packs`` the named rule packs a caller adds (:func:`check_packs` validates their names). The English
reader the rules read sentences, names and words with is :mod:`graphrag_agents.text`. One private module per rule
family: ``_figures`` and ``_literal`` (the literal rules); ``_lack`` (sentences saying the graph lacks something);
``_together``, ``_polarity``, ``_opposites`` and ``_negation`` (the meaning rules, run clause by clause by
``_meaning`` against ``_evidence``'s sentences); ``_support`` (claim support, by ``_lemmas``' word keys),
``_direction`` (relation roles), ``_bound`` (values bound to their subject), ``_record_values`` (a record's
attributes), ``_spans`` and ``_claim_spans`` (the evidence spans behind each sentence's verdict), ``_prose`` (the
rules for real answers: step numbers, instructions, a sentence's first capital); the ``records`` pack
(``_pack_records`` over ``_records``, ``_hours``, ``_amenities``, ``_descriptions``, ``_reviews``); ``_cache`` (a
session's evidence indexes, :class:`IndexCache`); ``_suggest`` (citations for uncited sentences). The same names
stay importable from ``graphrag_agents.tools`` and ``graphrag_agents.tools.citations``.
"""

from ._cache import IndexCache
from ._packs import KNOWN_PACKS, check_packs
from .check import EntailmentJudge, check_citations
from .result import (
    CheckedClaim,
    CitationCheck,
    CitationSuggestion,
    CitedSource,
    ClaimConflict,
    ClaimVerdict,
    EvidenceSpan,
    UnsupportedClaim,
)

__all__ = ["KNOWN_PACKS", "CheckedClaim", "CitationCheck", "CitationSuggestion", "CitedSource", "ClaimConflict",
           "ClaimVerdict", "EntailmentJudge", "EvidenceSpan", "IndexCache", "UnsupportedClaim", "check_citations",
           "check_packs"]
