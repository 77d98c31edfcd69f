"""Does a short answer answer *this* question? Deterministic rules read beside the citation check.

The citation check verifies that the cited items state the answer; it cannot see the question. With the
paragraph that holds the answer missing, small models answer from whatever is left, and the check then finds
the name they copied: the question's own entity ("Tottenham Hotspur" for "what was Tottenham Hotspur
commonly referred to as?"), one option of a comparison whose other side the evidence never states, or a
passage about something else ("Castile-La Mancha" from a passage about another football club). The rules:

* **echo**: the answer is a phrase of the question itself (choice questions, whose options are answers, and
  yes / no answers excepted; "Indooroopilly Shopping Centre" for "which shopping centre in ... Indooroopilly" is
  not one);
* **choice**: a comparison ("A or B?", "Are A and B both ...?") needs evidence about each side, so each option
  (for a yes / no answer, the two names the question joins) must be the subject of a shown item: a passage
  titled with it, or an item whose text opens with it;
* **anchor**: the cited items must name one of the question's specific names (a name of two or more words, a
  quoted title, or a one-word name that is the subject of a shown item: "Spanish" is not), or be a passage whose
  title a shown item naming one of them mentions (one hop: the bridge of a two-hop question);
* **kind** and **order** (:mod:`~graphrag_agents.agent.figures_fit`): a number for "how many", a date for
  "when", and a comparison's answer on the side the evidence's own years or heights put first.

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
from ..retrieval.candidates import title_key
from .figures_fit import Figure, Reader, kind_problem, order_problem

__all__ = ["FitProblem", "ShownItem", "answer_fit"]

FitRule = Literal["echo", "choice", "anchor", "kind", "order"]

_WORD = re.compile(r"[^\W_]+")
_YES_NO = frozenset({"yes", "no"})
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,120})[\"”]")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
_TOKEN = re.compile(r"[^\W_][\w'’.&-]*|,")
# Lowercase words inside a name ("Craig v. Boren", "Bank of America").
_JOINERS = frozenset({"v.", "v", "vs.", "vs", "of", "the", "and", "&", "de", "da", "di", "del", "der", "van", "von",
                      "la", "le", "du", "y"})
# A question's options: "..., A or B?" (the last " or " before the question mark).
_OR = re.compile(r"\s+or\s+", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
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
    options = choice_options(question)
    answer_words = _words(answer)
    if not answer_words:
        return []
    problems: list[FitProblem] = []
    yes_no = answer_words <= _YES_NO
    if not options and not yes_no and _phrase(answer) in _phrase(question):
        problems.append(FitProblem("echo", f"the answer {answer!r} only repeats the question; it asks for "
                                           "something the question does not say"))
    sides = options if options and _is_option(answer_words, options) else \
        (both_sides(question) if yes_no and _BOTH.match(question) else [])
    missing = [side.text for side in sides if not _subject_of_any(side, shown)]
    if missing:
        problems.append(FitProblem("choice", "a comparison needs evidence about each side: no evidence is about "
                                             f"{', '.join(repr(m) for m in missing)}"))
    if not yes_no and (kind := kind_problem(question, answer)):
        problems.append(FitProblem("kind", kind))
    if options and not yes_no and not missing:
        by_text = {option.text: option for option in options}

        def figure(text: str, read: Reader) -> Figure | None:
            item = _subject_item(by_text[text], shown)
            found = read(item.text) if item is not None else None
            return Figure(text, found[0], item.n, found[1]) if item is not None and found else None

        order = order_problem(question, lambda text: _is_option(answer_words, [by_text[text]]), figure,
                              list(by_text))
        if order:
            problems.append(FitProblem("order", order))
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


def choice_options(question: str) -> list[Name]:
    """The two options of an "A or B?" question (the capitalised phrases just before and after its last " or ",
    joining words such as "v." and "of" included: "Craig v. Boren or United States v. Paramount Pictures, Inc."),
    or []."""
    return _joined(question, _OR)


def both_sides(question: str) -> list[Name]:
    """The two names a yes / no comparison joins ("Are Sutera and Rhodotypos both shrubs?"), or []."""
    return _joined(question, _AND)


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
        if reached_end and kept and kept[0].lower() in _QUESTION_OPENERS:
            kept.pop(0)  # the question's own first word: "Is Japan or China bigger?"
    while kept and (kept[-1] == "," or kept[-1] in _JOINERS):
        kept.pop()
    while kept and kept[0] in _JOINERS:
        kept.pop(0)
    text = " ".join(kept).replace(" ,", ",")
    words = tuple(fold(w) for w in _LETTERS.findall(text) if w.lower() not in _JOINERS)
    return Name(text=text, words=words) if words else None


def _is_option(answer_words: frozenset[str], options: Sequence[Name]) -> bool:
    return any(set(option.words) <= answer_words or answer_words <= _words(option.text) for option in options)


def _named(name: Name, words: frozenset[str]) -> bool:
    return bool(name.words) and all(w in words for w in name.words)


def _subject_of_any(name: Name, shown: Sequence[ShownItem]) -> bool:
    """Whether a shown item is about ``name``: a passage titled with it, or a text that opens with it."""
    return _subject_item(name, shown) is not None


def _subject_item(name: Name, shown: Sequence[ShownItem]) -> ShownItem | None:
    """The first shown item about ``name`` (a passage titled with it, or a text that opens with it), or None."""
    words = frozenset(name.words)
    if not words:
        return None
    for item in shown:
        title = frozenset(w for w in _words(title_key(item.title)) if len(w) >= 3)
        if title and (words <= title or title <= words):
            return item
        opening = extract_names(item.text[:200], lone_first=True)
        first = frozenset(opening[0].words) if opening and opening[0].start < 3 else frozenset()
        if first and (words <= first or first <= words):
            return item
    return None


def _anchored(names: Sequence[Name], cited: Sequence[ShownItem], shown: Sequence[ShownItem]) -> bool:
    """Whether a cited item names a question name, or is a passage whose title a shown item naming one mentions."""
    if any(_named(name, _words(f"{item.title} {item.text}")) for item in cited for name in names):
        return True
    texts = [_words(f"{item.title} {item.text}") for item in shown]
    anchors = [words for words in texts if any(_named(name, words) for name in names)]
    for item in cited:
        title = _words(title_key(item.title))
        if title and any(title <= anchor for anchor in anchors):
            return True
    return False


def _phrase(text: str) -> str:
    """``text`` as folded words between spaces, to find one phrase inside another."""
    return f" {' '.join(fold(w) for w in _WORD.findall(text))} "


def _words(text: str) -> frozenset[str]:
    return frozenset(fold(w) for w in _WORD.findall(text))
