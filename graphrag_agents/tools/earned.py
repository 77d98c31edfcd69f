"""What earns a place in ``retrieve``'s evidence: a fact line or entity card that tells the reader something the
passages shown do not, about the question asked.

Passages are the evidence; the graph's items are added beside them only when they add to them:

* A co-mention fact whose sentence a shown passage holds (case and spacing aside) is left out: the reader has
  read it there. A typed relation there keeps its item and points at the passage (``in_passage``), since its
  type says what the sentence does not.
* A co-mention fact whose text is no sentence (a list the splitter left whole, an option's fields, a table row or
  a heading: :func:`~graphrag_agents.ingest.fact_sentences.reads_as_sentence`) is left out: it states no
  relation. Typed relations are statements by construction and are not judged so.
* A fact line (either kind) that names no entity of the question and holds fewer than two of its content words
  is left out (:func:`on_question`). A content word is a word of three or more letters of the question that fewer
  than 5% of the chunks hold (``RetrievalHits.question_words``), matched as a whole word: "systems" in a question
  is not "system" in a fact, and the corpus's own frequent words ("npm", "version" on npm's docs) do not count.
  An entity is named by the question on its own, not as the end of a file name or path ("package.json" names no
  JSON). When the question has no content word and names no entity, nothing is judged this way.
* An entity card whose name a shown passage holds and whose description adds no word the passages lack is left
  out: it repeats a name the reader has read, with a type guessed by the extractor. The types a name was
  outvoted for (``aliases``) are no statement of the text and do not count. A card with a description the
  passages lack, or a name no passage holds, stays.

The fact rules are on by default; the card rule is opt-in (``number_retrieval(..., earned_only=True)``), since a
card's type is what the reference agent's hop check reads to tell an answer of the wrong kind.
``earned_only=False`` keeps every line (what the benches compare against).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import cached_property

from .._keys import QUERY_WORD as _WORD
from ..ingest.fact_sentences import reads_as_sentence
from ..retrieval.hits import EntityHit, RelationHit

__all__ = ["Shown", "card_adds", "fact_earns", "on_question"]

_CONTENT_LETTERS = 3
"""A content word has at least this many letters: "up" or "ci" is too short to tell a subject."""
_SHARED_WORDS = 2
"""Content words a fact must share with the question (all of them when it has fewer): one shared word is often a
coincidence ("between", "newer", "public" on npm's docs)."""


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


def _names_alone(text: str, name: str) -> bool:
    """Whether ``text`` (case-folded) names ``name`` on its own: as whole words, not as the end of a file name, a
    path or an address ("package.json" does not name JSON)."""
    name = _flat(name)
    return bool(name) and re.search(rf"(?<![\w./@-]){re.escape(name)}(?!\w)", text) is not None


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
    """Whether a fact line is about the question: it names an entity the question names on its own (not inside a
    file name: "package.json" names no JSON), or holds two of its content words (``question_words`` of three or
    more letters, as whole words; the one when the question has one). True when they were not read (None) or
    there is nothing to judge by (no content word and no entity of the question in the fact)."""
    if question_words is None:
        return True
    q = _flat(question)
    names = [e.name for e in hit.entities] if hit.fact_id else [hit.source, hit.target]
    if any(_names_alone(q, n) for n in names):
        return True
    wanted = {w for w in question_words if len(w) >= _CONTENT_LETTERS}
    if not wanted:
        return True
    shared = wanted.intersection(_WORD.findall(f"{hit.fact} {' '.join(names)}".casefold()))
    return len(shared) >= min(_SHARED_WORDS, len(wanted))


def fact_earns(hit: RelationHit, question: str, question_words: Collection[str] | None) -> bool:
    """Whether a fact line earns a place beside the passages: about the question (:func:`on_question`) and, for a
    co-mention fact, a sentence (:func:`~graphrag_agents.ingest.fact_sentences.reads_as_sentence`)."""
    if hit.fact_id and not reads_as_sentence(hit.fact):
        return False
    return on_question(hit, question, question_words)


def card_adds(entity: EntityHit, shown: Shown) -> bool:
    """Whether an entity card tells something the shown passages do not: a name no passage holds, or a word of
    its description they lack."""
    if not any(_names(text, entity.name) for text in shown.texts):
        return True
    return not _words(entity.description) <= shown.words
