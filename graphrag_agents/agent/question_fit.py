"""Deprecated: the answer-fit rules are :mod:`graphrag_agents.agent.fit.rules` (``answer_fit`` and
``ShownItem`` also in :mod:`graphrag_agents.agent`); this module goes in the next release."""

import warnings

from .fit.rules import (
    FitProblem,
    FitRule,
    ShownItem,
    answer_fit,
    both_sides,
    choice_options,
    question_names,
    quoted_names,
)

__all__ = ["FitProblem", "FitRule", "ShownItem", "answer_fit", "both_sides", "choice_options", "question_names",
           "quoted_names"]

warnings.warn("graphrag_agents.agent.question_fit is deprecated: import from graphrag_agents.agent.fit.rules "
              "instead", DeprecationWarning, stacklevel=2)
