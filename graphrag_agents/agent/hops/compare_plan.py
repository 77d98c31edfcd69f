"""The plan of a comparison question: one chain of single-hop steps per option, then a rule that compares their
answers (:mod:`.compare`), so the served choice rests on a cited value for *each* side.

Case (issue 22, the 2WikiMultihopQA mixed set with the 1.5B model): comparisons are about half its questions,
and when the paragraph about one side is missing the model still picks a side, which the single-retrieve path
served as grounded. Read as hops, each side's value must be stated with that side in one cited sentence, or the
run ends in ``missing_hop``; the pick itself is then arithmetic, not the model's.

The rules read three shapes, in general wording (not one data set's):

* **order**: "Who was born first, A or B?", "Was A or B born first?", "Who is older, A or B?", "Which film came
  out first, A or B?", "Which museum was established first, A or B?" -> "When was A born?", "When was B born?";
  the earlier (or later) date picks the option.
* **the same value**: "Are A and B both located in the same country?", "Are A and B of the same nationality?",
  "Were both A and B born in the same place?" -> one question per side; yes when the two values are the same.
* **through a relation** (a bridge): "Which film has the director who was born later, A or B?", "Do both films A
  and B have the directors from the same country?" -> "Who is the director of film A?", "When was #1 born?", and
  the same for B.

Anything else ("Who lived longer, A or B?", which needs two dates per side; a comparison of sizes or counts) is
not planned here and takes the single-retrieve path.
"""

from __future__ import annotations

import re
from typing import Literal

from typing_extensions import NotRequired, TypedDict

from ..fit.names import letters, without_note
from ..fit.sides import both_sides, choice_options

__all__ = ["Comparison", "comparison_plan", "option_span"]


class Comparison(TypedDict):
    """How a comparison plan's answers are compared (plain data, so every checkpointer stores it)."""

    kind: Literal["order", "same"]
    """``order``: pick the option whose date comes first (``pick="min"``) or last (``"max"``); ``same``: yes when
    the sides' values are the same."""
    pick: Literal["min", "max"] | None
    options: list[str]
    """The two options as the question writes them (a parenthesis kept: "Illusions (1982 Film)")."""
    finals: list[int]
    """For each option, the 0-based index of the hop whose answer is its value."""
    subjects: list[str]
    """For each hop, the name its check reads with the answer ('' for a hop that names an earlier answer)."""
    what: NotRequired[str]
    """What a ``same`` comparison compares ("country", "nationality", "place", ...); absent in plans stored by
    earlier releases."""


_PERSON_RELATIONS = ("director", "composer", "performer", "producer", "author", "writer", "creator", "founder",
                     "screenwriter", "editor", "cinematographer", "singer", "architect", "publisher")
_RELATION = "|".join(_PERSON_RELATIONS)
# "Which film has the director who ...", "... film whose director was ...", "films ... have the directors".
_VIA = re.compile(rf"\b(?:has|have|had|with|whose)\s+(?:the\s+|a\s+)?(?P<rel>{_RELATION})s?\b", re.IGNORECASE)
# "Do both directors of films A and B ...".
_VIA_OF = re.compile(rf"\bboth\s+(?P<rel>{_RELATION})s?\s+of\b", re.IGNORECASE)
_WORK = re.compile(r"\b(?P<kind>film|movie|song|album|book|novel|play|series|show|game|band)s?\b", re.IGNORECASE)
_FIRST = re.compile(r"\b(?:first|earlier|earliest|sooner|before|older|oldest|elder)\b", re.IGNORECASE)
_LAST = re.compile(r"\b(?:later|last|latest|more\s+recent(?:ly)?|most\s+recent(?:ly)?|after|younger|youngest|newer|"
                   r"newest)\b", re.IGNORECASE)
_AGE = re.compile(r"\b(?:older|oldest|elder|younger|youngest)\b", re.IGNORECASE)
_BORN = re.compile(r"\b(?:born|birth)\b", re.IGNORECASE)
_DIED = re.compile(r"\b(?:died|die|death|dies)\b", re.IGNORECASE)
_LONGER = re.compile(r"\b(?:lived|live)\b.*\b(?:longer|older|age)\b|\blonger\s+li(?:fe|ved)\b", re.IGNORECASE)
# Who an age is asked of: a person ("Who is older", "Which film director is younger").
_PERSON_ASKED = re.compile(rf"^\s*(?:who|whom|which\s+(?:\w+\s+)?(?:person|man|woman|{_RELATION}|actor|actress|"
                           r"singer|player|author|artist|musician|politician))\b", re.IGNORECASE)
_EVENTS = {"released": "released", "came out": "released", "come out": "released", "published": "published",
           "established": "established", "founded": "founded", "formed": "formed", "opened": "opened",
           "built": "built", "created": "created", "produced": "produced", "launched": "launched",
           "premiered": "premiered", "written": "written", "recorded": "recorded", "made": "made",
           "introduced": "introduced", "completed": "completed", "started": "started", "aired": "first aired"}
_EVENT = re.compile(r"\b(?P<verb>" + "|".join(sorted(_EVENTS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_SAME = re.compile(r"\bsame\s+(?P<what>country|nationality|citizenship|place|city|birthplace|place\s+of\s+birth)\b",
                   re.IGNORECASE)
_LOCATED = re.compile(r"\blocated\b", re.IGNORECASE)
_SEP = r"[\W_]{0,4}"
_OUT_OF = re.compile(r"\b(?:out of|between|of)\s+X\s+and\s+X\b", re.IGNORECASE)


def comparison_plan(question: str) -> tuple[list[str], Comparison] | None:
    """The hop templates and the comparison rule of a comparison ``question``, or None when the rules do not
    read it (it then takes the single-retrieve path)."""
    question = " ".join(question.split())
    choice = choice_options(question)
    names = choice or both_sides(question)
    if len(names) != 2:
        return None
    options = [option_span(question, name.text) for name in names]
    if any(not option for option in options):
        return None
    question = _without(question, options)  # "Which film came out first, The First Day Of Freedom or ...?"
    same = _SAME.search(question)
    if same is not None:
        ask = _same_step(same["what"].lower(), question)
        kind: Literal["order", "same"] = "same"
        pick: Literal["min", "max"] | None = None
    else:
        if _LONGER.search(question) or not (choice or _OUT_OF.search(question)):
            return None
        first, last = _FIRST.search(question), _LAST.search(question)
        if (first is None) == (last is None):
            return None
        ask = _order_step(question)
        kind, pick = "order", "min" if first is not None else "max"
    if ask is None:
        return None
    via = _VIA.search(question) or _VIA_OF.search(question)
    steps: list[str] = []
    finals: list[int] = []
    subjects: list[str] = []
    for option in options:
        subject = _bare(option)
        if via is not None:
            relation = via["rel"].lower()
            work = _WORK.search(question[:via.start()] if via.re is _VIA else question)
            noun = f"{work['kind'].lower()} " if work is not None else ""
            steps.append(f"Who is the {relation} of {noun}{option}?")
            subjects.append(subject)
            steps.append(ask.format(x=f"#{len(steps)}"))
            subjects.append("")
        else:
            steps.append(ask.format(x=option))
            subjects.append(subject)
        finals.append(len(steps) - 1)
    plan = Comparison(kind=kind, pick=pick, options=options, finals=finals, subjects=subjects)
    if same is not None:
        plan["what"] = " ".join(same["what"].lower().split())
    return steps, plan


def _order_step(question: str) -> str | None:
    """The per-side question of an order comparison ("When was {x} born?"), or None."""
    if _BORN.search(question) or (_AGE.search(question) and not _DIED.search(question)
                                  and (_PERSON_ASKED.search(question) or _VIA.search(question))):
        return "When was {x} born?"
    if _DIED.search(question):
        return "When did {x} die?"
    event = _EVENT.search(question)
    if event is not None:
        return f"When was {{x}} {_EVENTS[event['verb'].lower()]}?"
    return None


def _same_step(what: str, question: str) -> str | None:
    """The per-side question of a same-value comparison, or None."""
    if what == "country":
        if _BORN.search(question):
            return "In which country was {x} born?"
        if _LOCATED.search(question):
            return "Which country is {x} located in?"
        return "Which country is {x} from?"
    if what in ("nationality", "citizenship"):
        return "What is the nationality of {x}?"
    if _BORN.search(question) or what in ("birthplace", "place of birth"):
        return "Where was {x} born?"
    return None


def option_span(question: str, option: str) -> str:
    """``option`` as ``question`` writes it: the punctuation the option reader drops put back ("Wrong Turn 5:
    Bloodlines", "Illusions (1982 Film)"); '' when it cannot be found."""
    tokens = option.split()
    if not tokens:
        return ""
    pattern = _SEP.join(re.escape(token) for token in tokens)
    found = re.search(rf"(?<!\w){pattern}(?:\s*\([^()]{{0,60}}\)|\)|(?<=\w)[?!]+(?=[?!]))?", question)
    if found is None:
        return ""
    span = found.group().rstrip()
    if span.count("(") > span.count(")"):
        span += ")"
    return span


def _without(question: str, options: list[str]) -> str:
    """``question`` with each option replaced by ``X``, so the words of a title ("The First Day Of Freedom") are
    not read as the question's own."""
    for option in options:
        question = question.replace(option, "X")
    return question


def _bare(option: str) -> str:
    """An option without its parenthesised note, the name a passage writes ("Illusions (1982 Film)" ->
    "Illusions")."""
    bare = without_note(option)
    return bare if letters(bare) else option
