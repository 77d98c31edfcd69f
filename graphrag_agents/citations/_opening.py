"""Whether a sentence's first word is an ordinary word by its part of speech: "Prior to the change", "Similar
incidents", "Stay tuned" (private).

A sentence starts with a capital, so a first word the evidence never writes is no missing name unless it is a
proper noun. spaCy's tagger (the ``ner`` extra) tells: "Prior" is an adverb, "Multiple" an adjective, "Check"
a verb, while "Leech came from ..." is a proper noun. The check asks it only about a one-word opening the
evidence lacks in every form when that word alone would make the claim unsupported (a call costs milliseconds),
and its answer is cached by sentence. Without spaCy, no first word is read as ordinary this way.
"""

from __future__ import annotations

from functools import lru_cache

from ._direction import _parser

__all__ = ["opens_with_common_word"]

# Penn tags of proper nouns: a first word with another tag is an ordinary word.
_PROPER = frozenset({"NNP", "NNPS"})
# The tagger reads the first words only: the rest of a long sentence does not change the first word's tag much.
_HEAD_CHARS = 200


@lru_cache(maxsize=8192)
def opens_with_common_word(sentence: str) -> bool:
    """Whether the first word of ``sentence`` is tagged as no proper noun (False without spaCy)."""
    nlp = _parser()
    if nlp is None:
        return False
    doc = nlp.make_doc(sentence.lstrip()[:_HEAD_CHARS])
    for name in ("tok2vec", "tagger"):
        if name in nlp.pipe_names:
            doc = nlp.get_pipe(name)(doc)
    first = next((tok for tok in doc if tok.is_alpha), None)
    return first is not None and bool(first.tag_) and first.tag_ not in _PROPER
