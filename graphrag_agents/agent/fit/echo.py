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

An answer that is the initials of a name the question writes is an echo too: "AIU" for "which member of the
Association of Indian Universities ..." (the HotpotQA mix, the tuning set, where a chain's last hop served it).

A span the question offers as its own answer is not an echo either: up to five words after a colon or a dash
that end the question ("Which argument reads the latest git tag: `from-git`?"), or after a question mark that
does not end it ("... the latest git tag? from-git"). Such a question asks whether that span answers it; the citation
check then decides whether the evidence states it.
"""

from __future__ import annotations

import re

from ...text.names import extract_names
from ...text.words import fold
from .shown import FitProblem

__all__ = ["IDENTIFIER", "echo_problem", "holds", "initials_of", "offered_span", "question_units"]

_TOKEN = re.compile(r"\S+")
_EDGE = ".,;:!?()[]{}<>\"'`“”‘’«»*"
_POSSESSIVE = re.compile(r"['’]s$")
_WORD = re.compile(r"[^\W_]+")
IDENTIFIER = re.compile(r"\d|\w[._/@:]\w")
"""What makes a word an identifier (a version, a file name, a package): a digit anywhere, or a joiner of code and
versions between two characters."""
_ACRONYM = re.compile(r"[A-Z]{2,6}")
# The question's offered answer, at most five words: after its last ": " or " - " / " – " / " — " that follows a
# lowercase word or a code span (a title's own colon, "Superman IV: The Quest for Peace", follows a name), the
# question mark ending it; or after a question mark that does not end the question, with none of its own.
_OFFERED = (re.compile(r"(?:\b[a-z]+|`)(?::|\s[-–—])\s+(?P<span>(?:[^\s:?–—]+\s+){0,4}[^\s:?–—]+)\s*\?\s*$"),
            re.compile(r"\?\s+(?P<span>(?:[^\s?]+\s+){0,4}[^\s?]*[^\s?.])[\s.]*$"))


def question_units(text: str) -> tuple[str, ...]:
    """The folded words of ``text`` in order, an identifier kept as one word ("1.2.0-5", "package.json")."""
    units: list[str] = []
    for raw in _TOKEN.findall(text):
        token = _POSSESSIVE.sub("", raw.strip(_EDGE)).strip(_EDGE)
        if not token:
            continue
        if IDENTIFIER.search(token):
            units.append(fold(token))
        else:
            units.extend(fold(word) for word in _WORD.findall(token))
    return tuple(units)


def holds(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """Whether the folded words ``part`` (:func:`question_units`) stand in ``whole`` as a phrase (never when
    ``part`` is empty)."""
    size = len(part)
    return bool(size) and any(whole[i:i + size] == part for i in range(len(whole) - size + 1))


def offered_span(question: str) -> str:
    """The span ``question`` offers as its own answer (after a closing colon or dash, or after a question mark
    that does not end it), or ''."""
    for pattern in _OFFERED:
        if found := pattern.search(question):
            return found["span"]
    return ""


def initials_of(answer: str, question: str) -> str | None:
    """The name of ``question`` whose initials ``answer`` is ("AIU" for "the Association of Indian Universities":
    the first letters of its capitalised words, the lowercase words inside it skipped), or None. Only an answer of
    two to six capital letters is read."""
    acronym = answer.strip(_EDGE)
    if not _ACRONYM.fullmatch(acronym):
        return None
    for name in extract_names(question):
        capitals = [word for word in name.text.split() if word[:1].isupper()]
        if len(capitals) == len(acronym) and "".join(word[0] for word in capitals) == acronym:
            return name.text
    return None


def echo_problem(question: str, answer: str) -> FitProblem | None:
    """The echo finding when ``answer`` is a phrase of ``question`` outside the span the question offers as its
    answer, or the initials of a name the question writes, else None (the caller skips choice questions and
    yes / no answers)."""
    said = question_units(answer)
    offered = offered_span(question)
    if said and offered and holds(said, question_units(offered)):
        return None
    if said and holds(said, question_units(question)):
        return FitProblem("echo", f"the answer {answer!r} only repeats the question; it asks for something the "
                                  "question does not say")
    if (name := initials_of(answer, question)) is not None:
        return FitProblem("echo", f"the answer {answer!r} is the initials of {name!r}, which the question names; "
                                  "it asks for something the question does not say")
    return None
