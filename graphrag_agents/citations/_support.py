"""Claim support: the content words of a cited sentence that no cited evidence says, in any form (private).

Names and figures are checked by the literal rules; a real answer mostly adds content in ordinary lowercase words
("and the fire has been extinguished", invented steps, causes, outcomes). This rule reads every content word of
the claim (3+ letters, not a function word, not a word about the text or the answer itself such as "summary",
"article", "however", "overall") and looks for it in the cited evidence by its :func:`~._lemmas.word_key`:
inflections, irregular forms, number words and split JSON keys all meet. A sentence is unsupported when at least
:data:`MIN_UNSUPPORTED` of its content words are missing and they are more than :data:`MAX_SHARE` of them
(a paraphrase with a synonym or two passes); the missing words are reported so a reviser knows what to drop.
The two thresholds were chosen on the tuning half of the shared RAGTruth files (see ``docs/citations-figures.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text.words import LETTERS, fold
from ._evidence import FUNCTION_WORDS, EvidenceIndex
from ._lemmas import key_found, word_key

__all__ = ["GLUE_WORDS", "HOURS_WORDS", "MAX_SHARE", "MIN_UNSUPPORTED", "unsupported_words"]

MIN_UNSUPPORTED = 6
"""A sentence is unsupported only when at least this many of its content words are missing from its evidence."""
MAX_SHARE = 0.6
"""... and when they are more than this share of its content words."""

GLUE_WORDS = frozenset("""
summary summarize summarizes summarized article articles passage passages text texts author authors writer
report reported reports story stories news piece document documents source sources content information details
detail data structured overview objective mentions mentioned mention mentioning notes noted note notes states
stated stating describes described describing discusses discussed discussing highlights highlighted
highlighting explains explained explaining suggests suggested suggesting indicates indicated indicating
according based appears appear seems seem overall however despite although though additionally furthermore
moreover also still meanwhile instead rather especially particularly generally specifically notably including
includes included various several numerous certain other others another such like likely potentially
possibly perhaps really actually quite very highly fairly somewhat review reviews reviewer reviewers customer
customers patron patrons visitor visitors guest guests diner diners experience experiences business
establishment place spot option options variety range offers offer offering offered provides provide
providing provided features feature featuring available availability located location situated area
includes going make makes making made take takes taking get gets getting thing things something way ways
due given sure words word respond response answer question questions regarding related relating concerning
overall total aspects aspect amid among toward towards well able doesn didn isn wasn weren aren hasn haven
hadn couldn wouldn shouldn won
""".split())
"""Words about the text, the answer or the genre, and discourse words: they state no claim of their own."""


HOURS_WORDS = frozenset("""
open opens opening opened close closes closing closed operate operates operating operation operations hours hour
daily day days week weekly seven weekday weekdays weekend weekends
""".split())
"""Words about opening hours: a record that gives hours per day says them (its days are read by :mod:`._hours`,
in the ``records`` pack, which skips these words for such a record)."""


def unsupported_words(claim: str, skip: frozenset[str], items: Sequence[EvidenceIndex], *,
                      least: int = MIN_UNSUPPORTED, share: float = MAX_SHARE) -> list[str]:
    """The content words of ``claim`` that no item of ``items`` says in any form, when they are enough to
    make it unsupported (see the module docstring); else an empty list.

    Args:
        claim: The cited sentence (NFKC-normalised, no markers).
        skip: Folded words already checked by the literal rules (its names' words), or said by a record in a form
            the evidence's words do not give (:data:`HOURS_WORDS` for opening hours).
        items: The evidence it cites.
        least: The fewest missing words that make it unsupported (:data:`MIN_UNSUPPORTED`).
        share: The share of its content words they must exceed (:data:`MAX_SHARE`).
    """
    words: list[str] = []
    for word in LETTERS.findall(claim):
        folded = fold(word)
        if (len(folded) < 3 or folded in FUNCTION_WORDS or folded in GLUE_WORDS or folded in skip
                or word.isupper()):
            continue
        words.append(word)
    if len(words) < least:
        return []
    missing = [w for w in dict.fromkeys(words) if not any(key_found(word_key(w), *item.keys) for item in items)]
    if len(missing) >= least and len(missing) > share * len(words):
        return missing
    return []
