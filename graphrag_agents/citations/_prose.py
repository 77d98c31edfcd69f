"""Ordinary prose that states no world claim, or no figure, where the rules would see one (private).

Real answers are written for people: "Step 1:" and "1)" number steps, they do not state figures; "Do not uncover
the pan" is an instruction, not a negated claim about the world; "Individuals with IBS ..." starts with a capital
because sentences do; "9:00 PM" is the "21:0" of a record; "Passage 2 says" numbers the evidence.
:func:`strip_list_marker` removes a leading step number or list marker before the rules read a sentence,
:func:`blank_evidence_references` the numbers of references to the evidence, :func:`is_instruction` tells the
polarity rule to leave an imperative alone, :func:`is_sentence_start` tells the name rule which capital is only
the sentence's first letter, :func:`to_24_hours` reads clock times the way records write them, and
:func:`is_about_answer` and :func:`is_title` find the lines that introduce or title the answer.
"""

from __future__ import annotations

import re

__all__ = ["blank_evidence_references", "is_about_answer", "is_instruction", "is_sentence_start", "is_title",
           "strip_list_marker", "to_24_hours"]

_LIST_MARKER = re.compile(
    r"^\W{0,3}(?:(?:step|part|tip|option|phase|stage|day|round|item|point|no\.?|number|#)\s*\d{1,3}[a-z]?\b(?:\s*[:.)\-–—])?"
    r"|\(?\d{1,3}[a-z]?[.)](?!\d)|\(\d{1,3}\)|[ivx]{1,4}[.)])\s*",
    re.IGNORECASE,
)
# An instruction: a verb in the imperative (or "do not" / "never" + verb) opening the sentence or a clause.
_INSTRUCTION = re.compile(
    r"^\W{0,3}(?:please\s+)?(?:do\s+not|don['’]t|never|avoid|make\s+sure|be\s+sure|always|remember|try|keep|"
    r"let|add|mix|stir|place|put|remove|cover|uncover|cook|bake|heat|serve|pour|cut|use|check|call|contact|visit|"
    r"consider|take|follow|wait|turn|set|leave|allow|store|wash|apply|ask|see|read|note)\b",
    re.IGNORECASE,
)
# "Here is a summary of the article in 82 words:", "Sure! Here's an overview ...": the answer about itself.
_ABOUT_ANSWER = re.compile(
    r"^\W{0,3}(?:(?:sure|certainly|okay|ok)\W+)?(?:here\s+is|here['’]s|here\s+are|below\s+is|the\s+following\s+is)\s+"
    r"(?:(?:a|an|the|my|your)\s*)?(?:[\w\-]+\s+){0,3}?(?:summary|overview|answer|response|description|rewrite|version|"
    r"text|paragraph|passage|objective|breakdown|list)\b",
    re.IGNORECASE,
)
# "Passage 2", "passages 1 and 3", "Document [3]": a reference to the evidence itself, not a figure of the world
_EVIDENCE_REF = re.compile(
    r"\b(?:passages?|documents?|sources?|paragraphs?|excerpts?|snippets?|contexts?)\s*(?:#\s*|no\.\s*)?"
    r"\[?\d{1,2}\]?(?:\s*(?:,|and|&|or|to|-)\s*\[?\d{1,2}\]?)*",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")
# One or two words, a number of up to two digits, a colon ("Note:", "Tip 2:"); written so that no run of letters
# or spaces can be split two ways, which made a long run of spaces take quadratic time.
_LABEL = re.compile(r"[^\W\d_]+(?:\s+[^\W\d_]+)?\s*(?:\d{1,2}\s*)?:", re.IGNORECASE)
_LEADING = "\"'([{*_“‘«¿¡<-–—•· \t"


def strip_list_marker(text: str) -> str:
    """``text`` without a leading step number or list marker ("Step 2:", "3)", "(iv)"), blanked to spaces so
    offsets stay put."""
    m = _LIST_MARKER.match(text)
    return text if m is None or not m.group().strip() else " " * m.end() + text[m.end():]


def is_instruction(clause: str) -> bool:
    """Whether ``clause`` opens with an imperative ("Do not uncover the pan", "Avoid ...", "Stir in ...")."""
    return _INSTRUCTION.match(clause) is not None


def blank_evidence_references(text: str) -> str:
    """``text`` with the numbers of its references to the evidence ("Passage 2 says ...", "passages 1 and 3")
    blanked to spaces, offsets kept: they number the evidence, they state no figure."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"\d", " ", m.group())
    return _EVIDENCE_REF.sub(blank, text)


def to_24_hours(text: str) -> str:
    """Clock times written with am/pm rewritten on the 24-hour clock ("2:00 PM" -> "14:00", "12 am" -> "0:00"),
    as records and timetables write them; other text unchanged."""
    def rewrite(m: re.Match[str]) -> str:
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        return f"{hour}:{m.group(2) or '00'}"
    return _CLOCK.sub(rewrite, text)


def is_about_answer(text: str) -> bool:
    """Whether ``text`` introduces the answer itself ("Here is a summary of the article in 82 words:")."""
    return _ABOUT_ANSWER.match(text) is not None


def is_title(text: str) -> bool:
    """Whether ``text`` is a title line: three or more words of four or more letters, every one capitalised, and
    no full stop ("Boston Marathon Bombing Survivor Testifies: "I Was Completely Terrified"")."""
    long_words = [w for w in _WORD.findall(text) if len(w) >= 4]
    return len(long_words) >= 3 and all(w[0].isupper() for w in long_words) and not text.rstrip().endswith(".")


def is_sentence_start(text: str, offset: int) -> bool:
    """Whether ``offset`` is the first word of ``text`` (after quotes, brackets, bullets and spaces), or the
    first word after a leading label ("Note: Always ...", "Tip 2: Keep ...")."""
    before = text[:offset].strip(_LEADING)
    return not before or _LABEL.fullmatch(before) is not None
