"""The second look: a structured draft that says the evidence does not answer is asked once more, shown the
sentences of its evidence that share the most words with the question.

A small reader given four passages of several hundred characters each often replies "not in evidence" when one of
them states the answer, most often in a passage's last sentences (the 1.5B model, `techdocs_a`'s tuning half:
3 of its first 7 questions, each with the answering passage shown first). The same model reads a handful of short
sentences well. So, once a run, a decline is answered with a revision turn listing the few sentences of the shown
items whose terms (stemmed, identifiers whole) best cover the question's, each term weighted by how few of those
sentences hold it, each under its evidence number. The reply is checked like any draft; a second decline is the
refusal (``not_in_evidence``). It takes the place of the revision turn, so a run still costs at most the calls
it did.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..text.keyword_terms import question_terms, text_terms
from ..text.sentences import split_sentences

__all__ = ["SECOND_LOOK_SENTENCES", "closest_sentences", "second_look_prompt"]

SECOND_LOOK_SENTENCES = 4
"""How many sentences the second look shows."""
_SENTENCE_CHARS = 400


def closest_sentences(question: str, items: Sequence[tuple[int, str]],
                      limit: int = SECOND_LOOK_SENTENCES) -> list[tuple[int, str]]:
    """The ``limit`` sentences of ``items`` (evidence number, text) that best cover ``question``'s terms, in the
    order the items and sentences come; [] when no sentence shares a term with the question."""
    wanted = set(question_terms(question))
    sentences: list[tuple[int, str, set[str]]] = []
    for n, text in items:
        for span in split_sentences(text):
            said = " ".join(text[span.start:span.end].split())
            if span.checked and said:
                sentences.append((n, said, set(text_terms(said)[0]) & wanted))
    if not sentences:
        return []
    holding = {term: sum(term in terms for _, _, terms in sentences) for term in wanted}
    weight = {term: math.log(1 + len(sentences) / count) for term, count in holding.items() if count}
    scored = [(sum(weight[t] for t in terms), i) for i, (_, _, terms) in enumerate(sentences) if terms]
    best = sorted(i for _, i in sorted(scored, key=lambda s: (-s[0], s[1]))[:limit])
    return [(sentences[i][0], sentences[i][1][:_SENTENCE_CHARS]) for i in best]


def second_look_prompt(question: str, sentences: Sequence[tuple[int, str]]) -> str:
    """The revision turn of a decline: the closest sentences, each under its evidence number, and the question."""
    listed = "\n".join(f"[{n}] {sentence}" for n, sentence in sentences)
    return (f"Look again. These sentences of the evidence share the most words with the question:\n{listed}\n\n"
            f"Question: {question}\nIf one of them answers it, reply with its short answer and its evidence number "
            'in the same JSON format; if none does, reply {"answer": "not in evidence", "evidence": []}.')
