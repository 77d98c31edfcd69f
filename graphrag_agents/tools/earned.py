"""What earns a place in ``retrieve``'s evidence: a fact line or entity card that tells the reader something the
passages shown do not, about the question asked.

Passages are the evidence; the graph's items are added beside them only when they add to them:

* A co-mention fact whose sentence a shown passage holds (case and spacing aside) is left out: the reader has
  read it there. A typed relation there keeps its item and points at the passage (``in_passage``), since its
  type says what the sentence does not.
* A fact line (either kind) that names no entity of the question and holds none of its content words
  (``RetrievalHits.question_words``: words in under 5% of the chunks) is left out. On npm's docs, for "Does npm
  ci write to the lockfile?", the facts path returned the install page's lines about Node installers, which share
  no content word with the question. When the question has no content word and names no entity, nothing is
  judged this way.
* An entity card whose name a shown passage holds and whose description adds no word the passages lack is left
  out: it repeats a name the reader has read, with a type guessed by the extractor (``Linux (Person)`` beside
  npm's install page, which writes "Linux"). The types a name was outvoted for (``aliases``) are no statement of
  the text and do not count. A card with a description the passages lack, or a name no passage holds, stays.

These rules are off by default (``number_retrieval(..., earned_only=True)`` turns them on): on ``techdocs_a`` they
lowered the evidence items shown that hold a gold answer word, and a card's type is what the reference agent's
hop check reads to tell an answer of the wrong kind.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import cached_property

from ..retrieval.hits import EntityHit, RelationHit

__all__ = ["Shown", "card_adds", "on_question"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # as the keyword search splits words (retrieval/fulltext.py)


def _words(text: str) -> set[str]:
    """Lower-cased words, each also without a plural ``s`` ("versions" holds "version")."""
    found = set(_WORD.findall(text.casefold()))
    return found | {w[:-1] for w in found if len(w) > 3 and w.endswith("s")}


def _flat(text: str) -> str:
    """``text`` case-folded, its spacing collapsed: how the rules below compare texts."""
    return " ".join(text.casefold().split())


def _names(text: str, name: str) -> bool:
    """Whether ``text`` (case-folded) holds ``name`` as whole words."""
    name = _flat(name)
    return bool(name) and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


class Shown:
    """The passages a result shows, read once: their text (case-folded, spacing collapsed) and, when a card is
    judged, their words."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = [_flat(t) for t in texts]

    @cached_property
    def words(self) -> set[str]:
        """Every word of the passages (read only by the opt-in card rule)."""
        return set().union(*(_words(t) for t in self.texts))

    def holder(self, sentence: str) -> int | None:
        """The index of the first passage holding ``sentence`` (case and spacing aside), if any."""
        needle = _flat(sentence)
        return next((i for i, text in enumerate(self.texts) if needle and needle in text), None)


def on_question(hit: RelationHit, question: str, question_words: Collection[str] | None) -> bool:
    """Whether a fact line is about the question: it names an entity the question names, or holds one of its
    content words (``question_words``). True when they were not read (None) or there is nothing to judge by (no
    content word and no entity of the question in the fact)."""
    if question_words is None:
        return True
    q = _flat(question)
    names = [e.name for e in hit.entities] if hit.fact_id else [hit.source, hit.target]
    if any(_names(q, n) for n in names):
        return True
    if not question_words:
        return True
    wanted = _words(" ".join(question_words))
    return not wanted.isdisjoint(_words(f"{hit.fact} {' '.join(names)}"))


def card_adds(entity: EntityHit, shown: Shown) -> bool:
    """Whether an entity card tells something the shown passages do not: a name no passage holds, or a word of
    its description they lack."""
    if not any(_names(text, entity.name) for text in shown.texts):
        return True
    return not _words(entity.description) <= shown.words
