"""The readers the answer-fit rules share: a question's names and quoted titles, folded words, and the shown
item a name is the subject of."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...retrieval.candidates import title_key
from ...text.names import Name, extract_names
from ...text.sentences import split_sentences
from ...text.words import fold
from .shown import ShownItem

__all__ = ["phrase", "question_names", "quoted_names", "sentences_stating", "subject_item", "without_note",
           "words"]

_WORD = re.compile(r"[^\W_]+")
_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,120})[\"”]")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
# Question words that open a sentence and are capitalised for that reason alone.
QUESTION_OPENERS = frozenset("what which who whom whose when where why how is are was were do does did in on at "
                             "for from the a an of by to as".split())


def question_names(question: str) -> list[Name]:
    """The names a question mentions (runs of capitalised words; a capitalised question word is not one)."""
    found = []
    for name in extract_names(question, lone_first=True):
        kept = [w for w in name.words if w not in QUESTION_OPENERS]
        if kept:
            found.append(Name(text=name.text, words=tuple(kept), start=name.start))
    return found


def quoted_names(question: str) -> list[Name]:
    """The titles a question quotes ("a song called \"Counterparts\""), as names."""
    found = []
    for m in _QUOTED.finditer(question):
        letters = tuple(fold(w) for w in _LETTERS.findall(m.group(1)))
        if letters:
            found.append(Name(text=m.group(1).strip(), words=letters, start=m.start(1)))
    return found


def subject_item(name: Name, shown: Sequence[ShownItem]) -> ShownItem | None:
    """The first shown item about ``name`` (a passage titled with it, or a text that opens with it), or None."""
    wanted = frozenset(name.words)
    if not wanted:
        return None
    for item in shown:
        title = frozenset(w for w in words(title_key(item.title)) if len(w) >= 3)
        if title and (wanted <= title or title <= wanted):
            return item
        opening = extract_names(item.text[:200], lone_first=True)
        first = frozenset(opening[0].words) if opening and opening[0].start < 3 else frozenset()
        if first and (wanted <= first or first <= wanted):
            return item
    return None


def letters(text: str) -> tuple[str, ...]:
    """The folded words of three or more letters of ``text``."""
    return tuple(fold(w) for w in _LETTERS.findall(text))


def phrase(text: str) -> str:
    """``text`` as folded words between spaces, to find one phrase inside another."""
    return f" {' '.join(fold(w) for w in _WORD.findall(text))} "


def without_note(name: str) -> str:
    """``name`` without a trailing note in parentheses ("Dark River (2017 film)" -> "Dark River")."""
    return _NOTE.sub("", name).strip()


def words(text: str) -> frozenset[str]:
    """The folded words of ``text``."""
    return frozenset(fold(w) for w in _WORD.findall(text))


def sentences_stating(text: str, answer: str) -> list[str]:
    """The sentences of ``text`` that hold ``answer`` (case-folded), case-folded."""
    wanted = answer.casefold()
    folded = (text[s.start:s.end].casefold() for s in split_sentences(text))
    return [sentence for sentence in folded if wanted in sentence]
