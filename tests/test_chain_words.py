"""Chain scoring reads the question's words in a passage as whole words, as the word splitter cuts them."""

from __future__ import annotations

import re

from graphrag_agents.retrieval.chain import _finder, _words

_WORD = re.compile(r"[^\W_]+")


def test_only_whole_words_are_found() -> None:
    finder = _finder(["art", "born", "1954", "café", "new"])
    text = "Steve (born 1954) is an artist; his café_art Newark shop, the NEW one, art."
    assert _words(text, finder) == frozenset({"born", "1954", "art", "new", "café"})  # "_" splits words
    assert _words("Artists were reborn", finder) == frozenset()
    assert _words("anything", _finder([])) == frozenset()


def test_the_finder_agrees_with_splitting_the_text_into_words() -> None:
    vocabulary = ["river", "écrivain", "x2", "iv", "ö", "duke", "of"]
    texts = ["Louis IV, Duke of Burgundy (écrivain) x2 x22 river-side", "Ölstaat Ö ö river_bank", "", "of"]
    finder = _finder(vocabulary)
    for text in texts:
        assert _words(text, finder) == frozenset(_WORD.findall(text.lower())) & set(vocabulary)
