"""A hop that asks when or where someone was born, or died, must be answered by a sentence that says so.

The hop check's co-occurrence rule passes any sentence that names the subject and the answer together. For "When
was Brad Booth born?" the 1.5B model cited "In 2012, Brad Booth by his own admission failed to repay $28,000
...", and the comparison it fed ("Who was born first, Patrik Lácha or Brad Booth?") was served wrong (2Wiki
mixed). "Where was Fridrikh Ermler born?" was answered from "the house in Leningrad where he lived". So a birth
or death hop also needs the event's word in a sentence stating the answer ("born", "death", "died", ...), or the
answer inside a parenthesis of the passage's opening, where biographies write the life span ("Frank Borzage (April
23, 1894 – June 19, 1962)").
"""

from __future__ import annotations

import re

from .names import sentences_stating

__all__ = ["asked_event", "states_event"]

_ASKED = (("born", re.compile(r"\b(?:born|birth(?:place|date)?|birthday)\b", re.IGNORECASE)),
          ("died", re.compile(r"\b(?:die|died|dies|death|pass(?:ed)? away)\b", re.IGNORECASE)))
_CUES = {
    "born": re.compile(r"\b(?:born|birth|birthplace|née|b\.)", re.IGNORECASE),
    "died": re.compile(r"\b(?:died|dies|death|dead|d\.|killed|executed|passed away|buried|murdered|assassinated)",
                       re.IGNORECASE),
}
_OPENING = 400
"""Characters of a passage's opening searched for its life span in parentheses."""


def asked_event(question: str) -> str | None:
    """``"born"`` or ``"died"`` when ``question`` asks about that event, else None."""
    for event, pattern in _ASKED:
        if pattern.search(question):
            return event
    return None


def states_event(text: str, answer: str, event: str) -> bool:
    """Whether ``text`` states ``answer`` as the ``event`` (a sentence holding both, or the answer in a
    parenthesis of the opening)."""
    wanted = answer.strip()
    if not wanted:
        return False
    if any(_CUES[event].search(sentence) for sentence in sentences_stating(text, wanted)):
        return True
    return any(wanted.casefold() in group.casefold() for group in re.findall(r"\(([^()]*)\)", text[:_OPENING]))
