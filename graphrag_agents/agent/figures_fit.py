"""Deprecated: the answer-fit rules that read figures are :mod:`graphrag_agents.agent.fit.figures`; this module
goes in the next release."""

import warnings

from .fit.figures import MONTHS, Figure, Reader, first_metres, first_year, kind_problem, order_problem

__all__ = ["MONTHS", "Figure", "Reader", "first_metres", "first_year", "kind_problem", "order_problem"]

warnings.warn("graphrag_agents.agent.figures_fit is deprecated: import from graphrag_agents.agent.fit.figures "
              "instead", DeprecationWarning, stacklevel=2)
