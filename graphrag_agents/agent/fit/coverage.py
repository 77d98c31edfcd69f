"""The coverage rule: the evidence an answer cites, with the items linked to it, holds every name the question writes.

Case (the HotpotQA mix, the tuning set, with the 1.5B model): with the paragraph that holds the answer missing, a
single-path draft answered "Brøndby IF" for the club Keld Bordinggaard played for, citing a passage on another
Brøndby player that never names him. The anchor rule (:mod:`.anchor`) lets it pass, because the cited passage names
*one* of the question's names ("Danish Cup"). A hop chain is held to every name already
(:mod:`~graphrag_agents.agent.hops.links`); this holds a single-path answer to the same, with one allowance: a
name may stand in a shown item linked to a cited one (the first hop of a bridge question, read but not cited:
"Robert W. McElroy ... writes for ... America" beside the cited passage on the magazine America).

Two items are **linked** when they are sections of one document (the same title, or the same first part before
`` › ``: ``commands/npm-init.md › Description`` and ``commands/npm-init.md › Configuration``), or share an entity
(here the answer; in a chain, also the answer carried from hop to hop and the graph's entities), an identifier (a
word with a digit, ``.``, ``_``, ``/``, ``@`` or ``:``, or a ``code`` span), or a heading term (one item's title, as
a phrase of the other); the chain's check reads the same links (:func:`linked`). An item names a manual's command
also when it is a section of the page its file names (:func:`~graphrag_agents.retrieval.page_names.page_name`).
Not read: a comparison (its sides have their own rule, :mod:`.sides`) and a yes / no answer; a one-word name that
WordNet reads as an adjective of a noun ("English", "Danish") describes rather than names, and is not looked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ...retrieval.page_names import page_name
from ...text.wordnet import pertainyms
from .echo import IDENTIFIER, holds, question_units
from .names import question_names, without_note, words
from .shown import FitProblem, ShownItem

__all__ = ["coverage_problem", "heading", "heading_name_link", "linked", "question_spans"]

_CODE = re.compile(r"`([^`]{1,80})`")
_SENTENCE_START = re.compile(r"[.?!]\s+([A-Z]\w*)\b")
_WORD = re.compile(r"[^\W_]+")
_INNER_NAME = re.compile(r"(?:^|\s)[a-z][\w'’-]*\s+(?P<name>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
"""A run of capitalised words after a lowercase word: a name inside a heading, not the name it opens with."""
_OWN = re.compile(r"(?<![^\W_])my(?![^\W_])")
"""The lowercase word "my" inside a code span (``my-pkg``, ``my_app``; not ``myapp``, ``enemy``)."""


def question_spans(question: str) -> list[str]:
    """The names a question writes: its ``code`` spans, then its capitalised names (a one-word name that only
    opens a later sentence of the question, "According to ...", is not one). A code span that writes the asker's
    own placeholder, a lowercase word "my" (``require('my-pkg')``, ``cd my_app``), names the asker's project, which
    no manual writes: it is not one either."""
    openers = [m.group(1) for m in _SENTENCE_START.finditer(question)]
    return [*(code for m in _CODE.finditer(question) if not _OWN.search(code := m.group(1).strip())),
            *(n.text for n in question_names(_CODE.sub(" ", question))
              if not (n.text in openers and question.count(n.text) == openers.count(n.text)))]


def _identifiers(text: str) -> set[str]:
    return {u for u in question_units(text) if IDENTIFIER.search(u)} | {m.group(1) for m in _CODE.finditer(text)}


def heading(title: str) -> str:
    """A passage's title as a phrase to look for: its last heading when it has several ("commands/npm-ci.md ›
    Description"), without a note in parentheses ("America (magazine)" -> "America")."""
    return without_note(title.split("›")[-1].strip())


def _title_forms(title: str) -> list[tuple[str, ...]]:
    """A heading's words and, when a heading of three or more words ends in an abbreviation ("Tottenham Hotspur
    F.C."), its words without it: a passage names that club "Tottenham Hotspur"."""
    units = question_units(title)
    forms = [units]
    if len(units) > 2 and "." in title.split()[-1]:
        forms.append(units[:-1])
    return forms


def linked(first: ShownItem, second: ShownItem, names: Iterable[str] = ()) -> str | None:
    """How ``first`` and ``second`` are linked, in words for a trace (the same item or document, an entity of
    ``names`` both hold, an identifier or a heading term), or None."""
    if first.n == second.n:
        return "the same item"
    document = first.title.split("›", 1)[0].strip()
    if document and document == second.title.split("›", 1)[0].strip():
        return f"the document {document!r}"
    a, b = question_units(first.text), question_units(second.text)
    for name in names:
        units = question_units(name)
        if len(units) and holds(units, a) and holds(units, b):
            return f"the entity {name!r}"
    shared = _identifiers(first.text) & _identifiers(second.text)
    if shared:
        return f"the identifier {sorted(shared)[0]!r}"
    for item, other in ((second, a), (first, b)):
        title = heading(item.title)
        if title and any(holds(units, other) for units in _title_forms(title)):
            return f"the heading term {title!r}"
    return None


def _heading_names(title: str) -> list[str]:
    """The names a heading writes inside it, after a lowercase word ("Hiroshima", "Nagasaki" in "Atomic bombings of
    Hiroshima and Nagasaki"; nothing in "Configuration" or "Sergio Tolento Hernández")."""
    found: list[str] = []
    for part in title.split("›"):
        found += [m["name"] for m in _INNER_NAME.finditer(without_note(part.strip()))]
    return found


def heading_name_link(first: ShownItem, second: ShownItem, asked: frozenset[str]) -> str | None:
    """A bridge between two items: a name inside one item's heading that the other writes, capitalised, and that the
    question does not write (its words ``asked``), in words for a trace; else None.

    The item the question's name stands in often names the bridge entity that the cited item is about, where the
    cited item's heading holds it among other words ("... a former sumo wrestler from Hiroshima" beside the cited
    "Atomic bombings of Hiroshima and Nagasaki"; a MuSiQue train-split mix built for tuning). A name the question
    writes is no bridge: the rule asks where that name stands."""
    for item, other in ((first, second), (second, first)):
        for name in _heading_names(item.title):
            if not words(name) <= asked and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", other.text):
                return f"the name {name!r} of the heading {heading(item.title)!r}"
    return None


def _names(item: ShownItem, item_units: tuple[str, ...], span: str, units: tuple[str, ...]) -> bool:
    """Whether ``item`` (its text and heading as ``item_units``) names ``span``: they hold it, or it is a section of
    the manual page the span names by its file (`` `npm install-ci-test` `` and ``commands/npm-install-ci-test.md``,
    :func:`page_name`)."""
    if holds(units, item_units):
        return True
    page = page_name(item.title)[1]
    return bool(page) and page == tuple(w.lower() for w in _WORD.findall(span))


def coverage_problem(question: str, answer: str, cited: Sequence[ShownItem],
                     shown: Sequence[ShownItem]) -> FitProblem | None:
    """The coverage finding when a name of ``question`` stands neither in a cited item (with its title), nor in the
    answer, nor in a shown item linked to a cited one; else None."""
    if not cited:
        return None
    cited_numbers = {item.n for item in cited}
    others = [item for item in shown if item.n not in cited_numbers]
    # each item's words read once, not once per name of the question
    item_units = {item.n: question_units(f"{item.text} {heading(item.title)}") for item in [*cited, *others]}
    missing = []
    asked = words(question)
    for span in question_spans(question):
        if " " not in span and pertainyms(span):  # "English", "Danish": an adjective, not a name
            continue
        units = question_units(span)
        if not units or words(span) <= words(answer) or holds(units, question_units(answer)) \
                or any(_names(item, item_units[item.n], span, units) for item in cited):
            continue
        holding = [item for item in others if _names(item, item_units[item.n], span, units)]
        if not any(linked(item, source, [answer]) or heading_name_link(item, source, asked)
                   for item in holding for source in cited):
            missing.append(span)
    if not missing:
        return None
    return FitProblem("coverage", f"the evidence you cite does not name {', '.join(map(repr, missing))}, which the "
                                  "question names, nor is it linked to evidence that does")
