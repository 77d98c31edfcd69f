"""The echo rule: the short answer is a phrase of the question itself.

Case: with the paragraph holding the answer missing, the 1.5B model answered "Tottenham Hotspur" for "What was
the English football club Tottenham Hotspur ... commonly referred to as?" (the previous release's runs on the
mixed HotpotQA set). Choice questions, whose options are answers, and yes / no answers are not echoes, nor is a
name the question only spells apart ("Indooroopilly Shopping Centre" for "which shopping centre in ...
Indooroopilly").

Words are compared whole, and an identifier (a word holding a digit, or a ``.``, ``_``, ``/``, ``@`` or ``:``
inside it: a version, a file name, a package) is one word: an answer that is part of one restates nothing the
question says. Case: techdocs_a row s14 (line 13 of the questions) asks what ``npm version patch`` makes of a
version the question writes with a prerelease suffix; the gold answer is that version without the suffix, which
the folded words of the question held.
"""

from __future__ import annotations

import re

from ...text.words import fold
from .shown import FitProblem

__all__ = ["echo_problem", "question_units"]

_TOKEN = re.compile(r"\S+")
_EDGE = ".,;:!?()[]{}<>\"'`“”‘’«»*"
_POSSESSIVE = re.compile(r"['’]s$")
_WORD = re.compile(r"[^\W_]+")
# A digit anywhere, or a joiner of code and versions between two characters.
_IDENTIFIER = re.compile(r"\d|\w[._/@:]\w")


def question_units(text: str) -> tuple[str, ...]:
    """The folded words of ``text`` in order, an identifier kept as one word ("1.2.0-5", "package.json")."""
    units: list[str] = []
    for raw in _TOKEN.findall(text):
        token = _POSSESSIVE.sub("", raw.strip(_EDGE)).strip(_EDGE)
        if not token:
            continue
        if _IDENTIFIER.search(token):
            units.append(fold(token))
        else:
            units.extend(fold(word) for word in _WORD.findall(token))
    return tuple(units)


def _inside(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    size = len(part)
    return any(whole[i:i + size] == part for i in range(len(whole) - size + 1))


def echo_problem(question: str, answer: str) -> FitProblem | None:
    """The echo finding when ``answer`` is a phrase of ``question``, else None (the caller skips choice
    questions and yes / no answers)."""
    said = question_units(answer)
    if said and _inside(said, question_units(question)):
        return FitProblem("echo", f"the answer {answer!r} only repeats the question; it asks for something the "
                                  "question does not say")
    return None
