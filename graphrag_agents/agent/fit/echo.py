"""The echo rule: the short answer is a phrase of the question itself.

Case: with the paragraph holding the answer missing, the 1.5B model answered "Tottenham Hotspur" for "What was
the English football club Tottenham Hotspur ... commonly referred to as?" (the previous release's runs on the
mixed HotpotQA set). Choice questions, whose options are answers, and yes / no answers are not echoes, nor is a
name the question only spells apart ("Indooroopilly Shopping Centre" for "which shopping centre in ...
Indooroopilly").
"""

from __future__ import annotations

from .names import phrase
from .shown import FitProblem

__all__ = ["echo_problem"]


def echo_problem(question: str, answer: str) -> FitProblem | None:
    """The echo finding when ``answer`` is a phrase of ``question``, else None (the caller skips choice
    questions and yes / no answers)."""
    if phrase(answer) in phrase(question):
        return FitProblem("echo", f"the answer {answer!r} only repeats the question; it asks for something the "
                                  "question does not say")
    return None
