"""Deprecated: the renderer is :mod:`graphrag_agents.evidence.render`; this module goes in the next release."""

import warnings

from ..evidence.render import Section, fmt_number, left_out_note, render_sections, shorten

__all__ = ["Section", "fmt_number", "left_out_note", "render_sections", "shorten"]

warnings.warn("graphrag_agents.tools.render is deprecated: import from graphrag_agents.evidence.render instead",
              DeprecationWarning, stacklevel=2)
