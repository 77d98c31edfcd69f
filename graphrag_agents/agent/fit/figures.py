"""Answer-fit rules that read figures: the kind of answer a question asks for, and the order of a comparison.

* **kind**: "how many / how much" asks for a number and "what year / when" for a date; an answer without one is
  the thing the question describes, not what it asks ("Spencer Gifts LLC" for "... a retailer that has how many
  stores?").
* **order**: "Which is older / taller, A or B?" is decided by figures the evidence gives about each side. When the
  passage about each option gives its figure (its first year for older / born first / earlier and younger /
  later; its first height in metres for taller / higher) and the answer is the option the figures put second, the
  answer has the comparison backwards ("Muztagh Ata" when its passage says 7,546 m and Manaslu's 8,163 m).

Both are yes / no rules on what the question and the shown evidence say, with no weights, like the other
answer-fit rules (:mod:`~graphrag_agents.agent.fit`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["MONTHS", "Figure", "Reader", "first_metres", "first_year", "kind_problem", "order_problem"]

_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred"
                 "|thousand|million|billion|dozen|several|many|no|none")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
"""The month names, folded, in order."""
_MONTHS = "|".join(MONTHS)
_ASKS_NUMBER = re.compile(r"\bhow (?:many|much)\b|\bwhat (?:number|amount) of\b", re.IGNORECASE)
# "When was ...?" (not a title such as "When Harry Met Sally ...").
_ASKS_DATE = re.compile(r"\b(?:what|which) (?:year|decade|century)\b|^\s*when (?:was|were|is|are|did|does|do|has|"
                        r"had|will)\b", re.IGNORECASE)
_HAS_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
_HAS_DATE = re.compile(rf"\d|\b(?:{_MONTHS}|century|decade|centuries)\b", re.IGNORECASE)

_YEAR = re.compile(r"(?<![\d,.])(1[0-9]{3}|20[0-9]{2})(?![\d,])")
_METRES = re.compile(r"(?<![\d,.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:m|metres|meters)\b")
# Comparatives and the figure that decides them: which figure, and whether the smaller one wins.
_EARLIER = re.compile(r"\b(?:older|oldest|born first|earlier|earliest|(?:founded|formed|established|created|"
                      r"released|published|built|opened|started|began|came out) first|first (?:founded|formed|"
                      r"established|released|published|built|opened))\b", re.IGNORECASE)
_LATER = re.compile(r"\b(?:younger|youngest|newer|newest|later|latest|more recent|most recent|born later|"
                    r"born last)\b", re.IGNORECASE)
_TALLER = re.compile(r"\b(?:taller|tallest|higher|highest)\b", re.IGNORECASE)
_SHORTER = re.compile(r"\b(?:shorter|shortest|lower|lowest)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Figure:
    """The figure the evidence gives one option of a comparison: its value, the item it is in and the text."""

    option: str
    value: int
    n: int
    text: str


def kind_problem(question: str, answer: str) -> str | None:
    """Why ``answer`` is not the kind of answer ``question`` asks for (a number, a date), or None."""
    if _ASKS_NUMBER.search(question) and not _HAS_NUMBER.search(answer):
        return f"the question asks how many or how much, and the answer {answer!r} holds no number"
    if _ASKS_DATE.search(question) and not _HAS_DATE.search(answer):
        return f"the question asks when, and the answer {answer!r} holds no date or year"
    return None


Reader = Callable[[str], tuple[int, str] | None]
"""Finds a figure in a text: its value and how the text writes it."""


def order_problem(question: str, answer_is: Callable[[str], bool],
                  figures: Callable[[str, Reader], Figure | None], options: Sequence[str]) -> str | None:
    """Why the chosen option of an "A or B?" comparison is the one its evidence's figures put second, or None.

    ``answer_is(option)``: whether the answer is that option; ``figures(option, read)``: the figure ``read``
    finds in the shown passage about ``option`` (None when there is none)."""
    rule = _comparison(question)
    if rule is None or len(options) != 2:
        return None
    read, smaller_wins, word = rule
    found = [figures(option, read) for option in options]
    if any(f is None for f in found):
        return None
    first, second = (f for f in found if f is not None)
    if first.value == second.value:
        return None
    winner, loser = (first, second) if (first.value < second.value) == smaller_wins else (second, first)
    if not answer_is(loser.option) or answer_is(winner.option):
        return None
    return (f"evidence [{loser.n}] gives {loser.option} {loser.text} and evidence [{winner.n}] gives "
            f"{winner.option} {winner.text}: by these, the answer is {winner.option} ({word})")


def first_year(text: str) -> tuple[int, str] | None:
    """The first year (1000-2099) in ``text``."""
    found = _YEAR.search(text)
    return (int(found.group(1)), found.group(1)) if found else None


def first_metres(text: str) -> tuple[int, str] | None:
    """The first height or length in metres in ``text`` ("8,163 metres", "7546 m")."""
    found = _METRES.search(text)
    return (int(found.group(1).replace(",", "")), found.group(0)) if found else None


def _comparison(question: str) -> tuple[Reader, bool, str] | None:
    """How ``question``'s comparison is decided: the figure reader, whether the smaller figure wins, and the
    word naming the winner; None when it is not one these rules decide."""
    rules = ((_EARLIER, first_year, True, "earlier"), (_LATER, first_year, False, "later"),
             (_TALLER, first_metres, False, "higher"), (_SHORTER, first_metres, True, "lower"))
    matched = [(read, smaller, word) for pattern, read, smaller, word in rules if pattern.search(question)]
    return matched[0] if len(matched) == 1 else None
