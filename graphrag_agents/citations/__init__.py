"""``check_citations``: the deterministic check of a draft answer's ``[n]`` markers against a session's evidence.

``check`` runs the check and defines its result; ``_sentences`` splits an answer into sentences and markers;
``_claims`` finds the figures and names a sentence states and whether the cited evidence holds them.
The same names stay importable from ``graphrag_agents.tools`` and ``graphrag_agents.tools.citations``.
"""

from .check import CitationCheck, CitationSuggestion, CitedSource, UnsupportedClaim, check_citations

__all__ = ["CitationCheck", "CitationSuggestion", "CitedSource", "UnsupportedClaim", "check_citations"]
