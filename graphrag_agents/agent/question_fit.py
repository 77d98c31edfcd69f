"""Does a short answer answer *this* question? Three deterministic rules read beside the citation check.

The citation check verifies that the cited items state the answer; it cannot see the question. With the
paragraph that holds the answer missing, small models answer from whatever is left, and the check then finds
the name they copied: the question's own entity ("Tottenham Hotspur" for "what was Tottenham Hotspur
commonly referred to as?"), one option of a comparison whose other side the evidence never states, or a
passage about something else ("Castile-La Mancha" from a passage about another football club). The rules:

* **echo**: the answer only repeats words of the question (choice questions, whose options are answers, and
  yes / no answers excepted);
* **choice**: a comparison ("A or B?", "Are A and B both ...?") needs evidence about each side, so every option
  (for a yes / no answer, every name of the question) must be the subject of a shown item: a passage titled
  with it, or an item whose text opens with it;
* **anchor**: the cited items must name one of the question's specific names (a name of two or more words, a
  quoted title, or a one-word name that is the subject of a shown item: "Spanish" is not), or be a passage whose
  title a shown item naming one of them mentions (one hop: the bridge of a two-hop question).

A finding leads to the revision turn (with the finding in words) and then to the fixed refusal, as a failed
check does. No weights: each rule is a yes / no on names, so nothing was tuned on the questions it is
measured on (``docs/agent.md``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..citations._names import Name, extract_names
from ..citations._text import fold

__all__ = ["FitProblem", "ShownItem", "answer_fit"]

FitRule = Literal["echo", "choice", "anchor"]

_WORD = re.compile(r"[^\W_]+")
_YES_NO = frozenset({"yes", "no"})
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,120})[\"”]")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
# A question's options: "..., A or B?" (the last " or " before the question mark).
_OR = re.compile(r"\s+or\s+", re.IGNORECASE)
_BOTH = re.compile(r"^\s*(?:are|were|is|was|do|does|did|have|has)\b.*\b(?:and|or)\b", re.IGNORECASE)
# Question words that open a sentence and are capitalised for that reason alone.
_QUESTION_OPENERS = frozenset("what which who whom whose when where why how is are was were do does did in on at "
                              "for from the a an of by to as".split())


@dataclass(frozen=True)
class ShownItem:
    """An item of evidence the drafting turn showed: its number, its passage title ('' for a fact) and text."""

    n: int
    title: str
    text: str


@dataclass(frozen=True)
class FitProblem:
    """One rule the answer breaks, with the words the revision turn tells the model."""

    rule: FitRule
    detail: str


def answer_fit(question: str, answer: str, cited: Sequence[int], shown: Sequence[ShownItem]) -> list[FitProblem]:
    """What keeps ``answer`` (citing ``cited``, drafted from ``shown``) from answering ``question``; [] when
    nothing does. ``shown`` should hold the cited items too; a cited number it lacks is ignored (the citation
    check reports numbers that do not exist)."""
    by_n = {item.n: item for item in shown}
    cited_items = [by_n[n] for n in cited if n in by_n]
    names = question_names(question)
    options = choice_options(question, names)
    answer_words = _words(answer)
    if not answer_words:
        return []
    problems: list[FitProblem] = []
    yes_no = answer_words <= _YES_NO
    if not options and not yes_no and answer_words <= _words(question):
        problems.append(FitProblem("echo", f"the answer {answer!r} only repeats the question; it asks for "
                                           "something the question does not say"))
    sides = options if options and _is_option(answer_words, options) else \
        (names if yes_no and _BOTH.match(question) and len(names) >= 2 else [])
    missing = [side.text for side in sides if not _subject_of_any(side, shown)]
    if missing:
        problems.append(FitProblem("choice", "a comparison needs evidence about each side: no evidence is about "
                                             f"{', '.join(repr(m) for m in missing)}"))
    quoted = quoted_names(question)
    specific = [*quoted, *(name for name in names if len(name.text.split()) > 1 or _subject_of_any(name, shown))]
    if specific and cited_items and not _anchored(specific, cited_items, shown):
        problems.append(FitProblem("anchor", "the evidence you cite does not name "
                                             f"{', '.join(repr(n.text) for n in specific)}, nor is it linked to "
                                             "evidence that does"))
    return problems


def question_names(question: str) -> list[Name]:
    """The names a question mentions (runs of capitalised words; a capitalised question word is not one)."""
    found = []
    for name in extract_names(question, lone_first=True):
        words = [w for w in name.words if w not in _QUESTION_OPENERS]
        if words:
            found.append(Name(text=name.text, words=tuple(words), start=name.start))
    return found


def quoted_names(question: str) -> list[Name]:
    """The titles a question quotes ("a song called \"Counterparts\""), as names."""
    found = []
    for m in _QUOTED.finditer(question):
        words = tuple(fold(w) for w in _LETTERS.findall(m.group(1)))
        if words:
            found.append(Name(text=m.group(1).strip(), words=words, start=m.start(1)))
    return found


def choice_options(question: str, names: Sequence[Name]) -> list[Name]:
    """The two options of an "A or B?" question (the names just before and after its last " or "), or []."""
    joins = list(_OR.finditer(question))
    if not joins:
        return []
    join = joins[-1]
    before = [n for n in names if n.start + len(n.text) <= join.start() + 1
              and not question[n.start + len(n.text):join.start()].strip(" ,\"'”’")]
    after = [n for n in names if n.start >= join.end() - 1 and not question[join.end():n.start].strip(" \"'“‘")]
    return [before[-1], after[0]] if before and after else []


def _is_option(answer_words: frozenset[str], options: Sequence[Name]) -> bool:
    return any(set(option.words) <= answer_words or answer_words <= _words(option.text) for option in options)


def _named(name: Name, words: frozenset[str]) -> bool:
    return bool(name.words) and all(w in words for w in name.words)


def _subject_of_any(name: Name, shown: Sequence[ShownItem]) -> bool:
    """Whether a shown item is about ``name``: a passage titled with it, or a text that opens with it."""
    words = frozenset(name.words)
    if not words:
        return False
    for item in shown:
        title = _words(_title_core(item.title))
        if title and words <= title <= _words(name.text) | words:
            return True
        opening = extract_names(item.text[:200], lone_first=True)
        if opening and opening[0].start < 3 and words <= frozenset(opening[0].words):
            return True
    return False


def _anchored(names: Sequence[Name], cited: Sequence[ShownItem], shown: Sequence[ShownItem]) -> bool:
    """Whether a cited item names a question name, or is a passage whose title a shown item naming one mentions."""
    if any(_named(name, _words(f"{item.title} {item.text}")) for item in cited for name in names):
        return True
    anchors = [_words(f"{item.title} {item.text}") for item in shown
               if any(_named(name, _words(f"{item.title} {item.text}")) for name in names)]
    for item in cited:
        title = _words(_title_core(item.title))
        if title and any(title <= anchor for anchor in anchors):
            return True
    return False


def _title_core(title: str) -> str:
    """A document title without its disambiguating qualifier: "Rush (band)" -> "Rush"."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title)


def _words(text: str) -> frozenset[str]:
    return frozenset(fold(w) for w in _WORD.findall(text))
