"""The anchor rule: the cited items must be about the question's names, or one hop from them.

Case: with the paragraph holding the answer missing, the 1.5B model cited a passage about another football club
for "Castile-La Mancha" (the mixed HotpotQA set). The cited items must name one of the question's specific names
(a name of two or more words, a quoted title, or a one-word name that is the subject of a shown item: "Spanish"
is not), or be a passage whose title a shown item naming one of them mentions (the one hop of a bridge question:
"Hugo Rodríguez Romero ... plays for Real Murcia", then the Real Murcia passage), or whose title holds a name that
such an item writes (:func:`~.coverage.heading_name_link`: "... a wrestler from Hiroshima", then "Atomic bombings of
Hiroshima and Nagasaki").
"""

from __future__ import annotations

from collections.abc import Sequence

from ...retrieval.candidates import title_key
from ...text.names import Name
from .coverage import heading_name_link
from .names import question_names, quoted_names, subject_item, words
from .shown import FitProblem, ShownItem

__all__ = ["anchor_problem", "specific_names"]


def specific_names(question: str, shown: Sequence[ShownItem]) -> list[Name]:
    """The question's quoted titles and its names of two or more words (or one word that a shown item is about)."""
    names = question_names(question)
    return [*quoted_names(question),
            *(name for name in names if len(name.text.split()) > 1 or subject_item(name, shown) is not None)]


def anchor_problem(question: str, cited: Sequence[ShownItem], shown: Sequence[ShownItem]) -> FitProblem | None:
    """The anchor finding when no cited item is tied to the question's specific names, else None."""
    specific = specific_names(question, shown)
    if specific and cited and not _anchored(specific, cited, shown, words(question)):
        return FitProblem("anchor", "the evidence you cite does not name "
                                    f"{', '.join(repr(n.text) for n in specific)}, nor is it linked to evidence "
                                    "that does")
    return None


def _named(name: Name, held: frozenset[str]) -> bool:
    return bool(name.words) and all(w in held for w in name.words)


def _anchored(names: Sequence[Name], cited: Sequence[ShownItem], shown: Sequence[ShownItem],
              asked: frozenset[str]) -> bool:
    """Whether a cited item names a question name, or is a passage whose title a shown item naming one mentions
    (whole, or a name inside it that the question does not write)."""
    if any(_named(name, words(f"{item.title} {item.text}")) for item in cited for name in names):
        return True
    texts = [(item, words(f"{item.title} {item.text}")) for item in shown]
    anchors = [(item, held) for item, held in texts if any(_named(name, held) for name in names)]
    for item in cited:
        title = words(title_key(item.title))
        if title and any(title <= held for _, held in anchors):
            return True
        if any(heading_name_link(anchor, item, asked) for anchor, _ in anchors):
            return True
    return False
