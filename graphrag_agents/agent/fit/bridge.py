"""The bridge rule: the final answer must not be an entity the question itself describes.

Case (issue 22, the hidden multi-hop set with the 1.5B model): almost every wrong answer was the bridge entity,
the one the question describes on the way to the one it asks for: the county for "the seat of the county where X
is located", the physicist for "the employer of the physicist Y is named after", the publisher for "who married
the publisher of Z". The citation check passes them, because the cited passage does name the bridge. Two yes /
no readings, no weights:

* **chain**: the answer is the subject or the answer of an earlier hop of its own chain (the hop chain's
  entities are exactly the ones the question describes);
* **described noun**: the answer's name carries the head noun of an entity the question describes but does not
  ask for ("Mountrail County" for "What is the seat of the county where ...": it asks for the seat).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .names import words
from .shown import FitProblem

__all__ = ["ASKED", "bridge_problem", "described_nouns"]

# "the <noun> where / who / of ..." or "the <noun> <Name>" describes an entity; "What is the <noun> ..." asks for
# that noun.
_NOUN = r"(?!(?:of|in|on|at|for|from|by|with|where|who|whom|that|which|whose|the|a|an|and|or|named|called)\b)[a-z]+"
_DESCRIBED = re.compile(rf"\bthe\s+(?:{_NOUN}\s+)?(?P<noun>{_NOUN})\s+(?:(?:where|who|whom|that|which|whose|of|in|on|"
                        r"at|for|from|by|with|named|called)\b|[A-Z])")
ASKED = re.compile(rf"^\s*(?:[Ww]hat|[Ww]hich|[Ww]ho|[Ww]here|[Ww]hen)\s+(?:is|was|are|were)\s+the\s+(?:{_NOUN}\s+)?"
                   rf"(?P<noun>{_NOUN})\b")
"""A question asking for the noun after its copula ("What is the seat of ...", "Who was the employer of ...")."""
_FUNCTION = frozenset("one same first last other name".split())
# Lowercase particles inside personal names: "the von Trapp family" describes a family, and "von" is no noun.
_NAME_PARTICLES = frozenset("von van der den de da di du la le del della dos das y al bin ibn ter ten".split())


def described_nouns(question: str) -> list[str]:
    """The head nouns of the entities ``question`` describes but does not ask for ("county" in "What is the seat
    of the county where Van Hook Township is located?")."""
    asked = ASKED.match(question)
    asked_noun = asked["noun"].lower() if asked else ""
    found = [m["noun"].lower() for m in _DESCRIBED.finditer(question)]
    return [n for n in dict.fromkeys(found) if n != asked_noun and n not in _FUNCTION and n not in _NAME_PARTICLES]


def bridge_problem(question: str, answer: str, bridges: Sequence[str] = ()) -> FitProblem | None:
    """The bridge finding when ``answer`` is one of ``bridges`` (the chain's subject and earlier answers) or
    carries the head noun of an entity ``question`` describes, else None."""
    answer_words = words(answer)
    if not answer_words:
        return None
    for bridge in bridges:
        bridge_words = words(bridge)
        if bridge_words and (answer_words <= bridge_words or bridge_words <= answer_words):
            return FitProblem("bridge", f"{answer!r} is {bridge!r}, an entity the question describes on the way "
                                        "to what it asks for")
    nouns = [n for n in described_nouns(question) if n in answer_words]
    if nouns:
        return FitProblem("bridge", f"{answer!r} is the {nouns[0]} the question describes, not what it asks for")
    return None
