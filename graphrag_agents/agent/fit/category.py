"""The category rule: "What kind of university ...?" asks for a kind of university, not for one university by name.

"What kind / type / sort of N" asks which category of N something belongs to ("a land-grant university", "a
public research university"). An answer that is the proper name of one N, its head noun written as part of the
name ("Rutgers University"), names an instance: the entity the question describes, not the category it asks for.

Case (a MuSiQue train-split mix built for tuning, 1.5B model): "What kind of university did #1 attend?" was
answered "Rutgers University", the university itself, where the evidence calls it a land-grant university.

A yes / no reading of the question's wording and the answer's capitals, with no weights, like the other
answer-fit rules. Not read: an answer whose head noun is written lowercase ("Land-grant university", a category
written in sentence case) or that does not end in the asked noun ("Boeing B-29 Superfortress bomber" for "What
kind of plane").
"""

from __future__ import annotations

import re

__all__ = ["category_problem"]

_ASKS_CATEGORY = re.compile(r"\b(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\s+(?P<noun>[a-z][a-z-]*)",
                            re.IGNORECASE)


def _singular(word: str) -> str:
    lowered = word.casefold()
    if lowered.endswith("ies") and len(lowered) > 4:
        return lowered[:-3] + "y"
    if lowered.endswith("s") and not lowered.endswith("ss") and len(lowered) > 3:
        return lowered[:-1]
    return lowered


def category_problem(question: str, answer: str) -> str | None:
    """Why ``answer`` names one thing where ``question`` asks for a kind of thing, or None.

    The finding holds when the question asks "what / which kind (type, sort) of N" and the answer is a name of two
    or more words, each capitalised, whose last word is N ("Rutgers University" for "What kind of university")."""
    asked = _ASKS_CATEGORY.search(question)
    if asked is None:
        return None
    words = answer.strip().split()
    if len(words) < 2 or not all(w[:1].isupper() or w[:1].isdigit() for w in words):
        return None
    if _singular(words[-1].strip(".,;:!?\"'’”)")) != _singular(asked["noun"]):
        return None
    return (f"the question asks what kind of {asked['noun']}, and {answer!r} names one {asked['noun']}, "
            "not a kind of it")
