"""A hop's answer written as a sentence that restates its question: the answer is what the sentence adds.

Asked "What company is Novair International Airways part of?", the 1.5B model answered "Novair International
Airways is part of the Rank Organisation": the whole sentence became the hop's answer, and the next hop asked "In
what year did Novair International Airways is part of the Rank Organisation dissolve?" (case: a MuSiQue
train-split mix built for tuning). The answer that sentence gives is what follows the restated words: "Rank
Organisation".

Read only when the answer opens with the hop's subject, a lowercase word of the question (or an article, a form of
"be", a preposition) follows it, and what follows those words is a name or a figure: a capitalised word or a digit
first. A name that opens with the subject ("Bob Graham Center for Public Service" for "Where does Bob Graham
work?") is the answer as written.
"""

from __future__ import annotations

import re

from ..fit.echo import question_units
from ..fit.names import words

__all__ = ["restated_answer"]

_GLUE = frozenset("is was are were be been the a an its their in at on of by from for to with".split())
_TOKEN = re.compile(r"\S+")
_EDGE = ".,;:!?\"'“”‘’()"


def restated_answer(question: str, subject: str, answer: str) -> str:
    """``answer`` without the words that restate ``question`` before it, when it opens with ``subject`` and the
    rest starts with a name or a figure; else ``answer`` unchanged."""
    if not subject or not words(subject) or len(answer.split()) < len(subject.split()) + 2:
        return answer
    opening = question_units(subject)
    if question_units(answer)[:len(opening)] != opening:
        return answer
    asked = set(question_units(question)) | _GLUE
    named = words(subject)
    tokens = list(_TOKEN.finditer(answer))
    for k, token in enumerate(tokens):
        units = question_units(token.group())
        if units and all(u in asked for u in units):
            continue
        rest = answer[token.start():].strip().strip(_EDGE).strip()
        # a lowercase word before the rest, not the subject's own, makes it a sentence: "Bob Graham Center for
        # Public Service" is a name that opens with the subject "Bob Graham", not a sentence about him
        restating = [t.group() for t in tokens[:k] if t.group().islower() and not words(t.group()) <= named]
        if k < len(opening) or not restating or not rest or not (rest[0].isupper() or rest[0].isdigit()):
            return answer
        return rest
    return answer
