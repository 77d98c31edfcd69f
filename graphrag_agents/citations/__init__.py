"""``check_citations``: the deterministic check of a draft answer's ``[n]`` markers against a session's evidence.

``check`` runs the check and ``result`` defines what it returns. One private module per rule family:
``_markers`` (citation markers) and ``_sentences`` (the splitter); ``_figures`` and ``_names`` (the literal
rules); ``_lack`` (sentences saying the graph lacks something); ``_together``, ``_polarity`` and ``_opposites``
(the meaning rules, run clause by clause by ``_meaning`` against ``_evidence``'s sentences); ``_support``
(claim support, by ``_lemmas``' word keys), ``_direction`` (relation roles), ``_acronyms`` and ``_prose`` (the
rules for real answers: acronyms, step numbers, instructions, a sentence's first capital); ``_cache`` (a
session's evidence indexes); ``_suggest`` (citations for uncited sentences). The same names stay importable
from ``graphrag_agents.tools`` and ``graphrag_agents.tools.citations``.
"""

from .check import EntailmentJudge, check_citations
from .result import CitationCheck, CitationSuggestion, CitedSource, ClaimConflict, UnsupportedClaim

__all__ = ["CitationCheck", "CitationSuggestion", "CitedSource", "ClaimConflict", "EntailmentJudge",
           "UnsupportedClaim", "check_citations"]
