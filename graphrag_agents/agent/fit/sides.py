"""Comparison sides: the options of "A or B?" and the two names of "Are A and B both ...?", and the rule that
evidence about each side was shown.

Case: when the paragraph about one side of a comparison is missing (the mixed HotpotQA set), the 1.5B model still
picks a side from the other. Each side must be the subject of a shown item: a passage titled with it, or an item
whose text opens with it. Options keep their joining words and commas ("Craig v. Boren or United States v.
Paramount Pictures, Inc.": read as "Boren", the passage titled "Craig v. Boren" did not count; 0.5B runs), and a
yes / no comparison's sides are the two names it joins ("ESA" in "Were both Ernst Messerschmid and Reinhold
Ewald ESA astronauts?" is not one).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...text.names import Name
from .names import QUESTION_OPENERS, letters, subject_item, words
from .shown import FitProblem, ShownItem

__all__ = ["BOTH", "both_sides", "choice_options", "is_option", "missing_sides", "sides_problem"]

_TOKEN = re.compile(r"[^\W_][\w'’.&-]*|,")
# Lowercase words inside a name ("Craig v. Boren", "Bank of America").
_JOINERS = frozenset({"v.", "v", "vs.", "vs", "of", "the", "and", "&", "de", "da", "di", "del", "der", "van", "von",
                      "la", "le", "du", "y"})
# A question's options: "..., A or B?" (the last " or " before the question mark).
_OR = re.compile(r"\s+or\s+", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
BOTH = re.compile(r"^\s*(?:are|were|is|was|do|does|did|have|has)\b.*\b(?:and|or)\b", re.IGNORECASE)
"""A yes / no question joining two names ("Are A and B both ...?")."""


def choice_options(question: str) -> list[Name]:
    """The two options of an "A or B?" question (the capitalised phrases just before and after its last " or ",
    joining words such as "v." and "of" included: "Craig v. Boren or United States v. Paramount Pictures, Inc."),
    or []."""
    return _joined(question, _OR)


def both_sides(question: str) -> list[Name]:
    """The two names a yes / no comparison joins ("Are Sutera and Rhodotypos both shrubs?"), or []."""
    return _joined(question, _AND)


def is_option(answer_words: frozenset[str], options: Sequence[Name]) -> bool:
    """Whether an answer (its folded words) is one of ``options``."""
    return any(set(option.words) <= answer_words or answer_words <= words(option.text) for option in options)


def missing_sides(sides: Sequence[Name], shown: Sequence[ShownItem]) -> list[str]:
    """The sides no shown item is about."""
    return [side.text for side in sides if subject_item(side, shown) is None]


def sides_problem(missing: Sequence[str]) -> FitProblem | None:
    """The choice finding for the sides no shown item is about, or None."""
    if not missing:
        return None
    return FitProblem("choice", "a comparison needs evidence about each side: no evidence is about "
                                f"{', '.join(repr(m) for m in missing)}")


def _joined(question: str, join_word: re.Pattern[str]) -> list[Name]:
    """The phrases on either side of the last ``join_word`` of ``question``, or [] when one side has none."""
    joins = list(join_word.finditer(question))
    if not joins:
        return []
    join = joins[-1]
    left = _option(list(reversed(_TOKEN.findall(question[:join.start()]))), backwards=True)
    right = _option(_TOKEN.findall(question[join.end():]), backwards=False)
    return [left, right] if left and right else []


def _option(tokens: list[str], *, backwards: bool) -> Name | None:
    """The capitalised phrase at the start of ``tokens`` (read from the joining word outwards), or None."""
    kept: list[str] = []
    reached_end = True
    for i, token in enumerate(tokens):
        reached_end = False
        if token == ",":
            if not kept:
                continue  # "DC Talk, or ..."
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if backwards or not nxt[:1].isupper():  # ", Inc." continues a name read forwards
                break
        elif not (token[:1].isupper() or token[:1].isdigit() or token.lower() in _JOINERS):
            break
        kept.append(token)
        reached_end = i == len(tokens) - 1
    if backwards:
        kept.reverse()
        if reached_end and kept and kept[0].lower() in QUESTION_OPENERS:
            kept.pop(0)  # the question's own first word: "Is Japan or China bigger?"
    while kept and (kept[-1] == "," or kept[-1] in _JOINERS):
        kept.pop()
    while kept and kept[0] in _JOINERS:
        kept.pop(0)
    text = " ".join(kept).replace(" ,", ",")
    found = tuple(w for w in letters(text) if w not in _JOINERS)
    return Name(text=text, words=found) if found else None
