"""The WordNet reader (``graphrag_agents.text.wordnet``) on real WordNet 3.0 entries, and without its data.

Every expected word below is what WordNet 3.0's own files say (``data.*`` / ``index.*`` of the ``lexicon`` extra):
the "!" (antonym), "&" (similar to) and "\\\\" (pertains to) pointers of the synsets named in each test.
"""

from __future__ import annotations

import pytest

from graphrag_agents.text import wordnet

needs_data = pytest.mark.skipif(not wordnet.available(), reason="the lexicon extra (WordNet data) is not installed")


@needs_data
def test_direct_antonyms_of_each_part_of_speech() -> None:
    # verb include (02632940) ! exclude; adverb explicitly (00367418) ! implicitly; noun parent ! child
    assert "exclude" in wordnet.antonyms("include")
    assert "implicitly" in wordnet.antonyms("explicitly")
    assert "child" in wordnet.antonyms("parent")


@needs_data
def test_inflections_and_irregular_forms_are_lemmatised() -> None:
    # "fails" -> verb fail (! succeed, by the suffix rule s -> ""); "children" -> child (noun.exc) ! parent;
    # "fell" -> fall (verb.exc) ! rise
    assert "succeed" in wordnet.antonyms("fails")
    assert "parent" in wordnet.antonyms("children")
    assert "rise" in wordnet.antonyms("fell")
    assert wordnet.lemmas("children") >= {"child"}


@needs_data
def test_satellite_antonyms_come_through_the_head_only_when_asked() -> None:
    # "ancient" (01644847) is a satellite of "old" (01643620), whose "!" points at "young" (01646941); it has no
    # antonym of its own
    assert wordnet.antonyms("ancient", satellites=False) == frozenset()
    assert "young" in wordnet.antonyms("ancient")


@needs_data
def test_a_word_is_never_its_own_antonym_and_unknown_words_have_none() -> None:
    assert "used" not in wordnet.antonyms("used")
    assert wordnet.antonyms("npmrc") == frozenset()
    assert wordnet.antonyms("") == frozenset()


@needs_data
def test_pertainyms_give_the_noun_an_adjective_pertains_to() -> None:
    # adjective solar \ noun sun; biological \ biology; Norwegian \ Norway (folded)
    assert "sun" in wordnet.pertainyms("solar")
    assert "biology" in wordnet.pertainyms("biological")
    assert "norway" in wordnet.pertainyms("Norwegian")
    assert wordnet.pertainyms("sun") == frozenset()


def test_without_the_extra_every_lookup_is_empty(without_lexicon: None) -> None:
    assert wordnet.available() is False
    assert wordnet.data_dir() is None
    assert wordnet.antonyms("include") == frozenset()
    assert wordnet.pertainyms("solar") == frozenset()
    assert wordnet.lemmas("children") == frozenset()
