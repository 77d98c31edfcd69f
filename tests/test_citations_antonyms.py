"""An opposite word in a sentence the claim repeats, read from WordNet's antonyms: built from real rows."""

from __future__ import annotations

import pytest

from graphrag_agents.evidence import Evidence
from graphrag_agents.text import wordnet
from graphrag_agents.tools.citations import check_citations

needs_data = pytest.mark.skipif(not wordnet.available(), reason="the lexicon extra (WordNet data) is not installed")

# hotpotqa-2ddf23626556 (the corpus row's sentence, as written)
ALICE = Evidence(n=1, tool="retrieve", kind="passage",
                 content="The Alice River is often dry, except after the annual summer rains.")
# hotpotqa-e53a9a0860a7 (the corpus row's sentence, as written)
SOILS = Evidence(n=2, tool="retrieve", kind="passage",
                 content="They tend to be associated with wet soils, many growing in shallow water, in wetlands, "
                         "or in wet savannas like flatwoods.")

# hotpotqa-5910abb68905 (the corpus row's sentence, as written)
ARYOSEVEN = Evidence(n=3, tool="retrieve", kind="passage",
                     content="A biosimilar form of recombinant activated factor VII (AryoSeven) is also available, "
                             "but does not play any considerable role in the market.")
UNAVAILABLE = ("A biosimilar form of recombinant activated factor VII (AryoSeven) is also unavailable, but does not "
               "play any considerable role in the market [3].")


def findings(answer: str, evidence: Evidence) -> list[tuple[str, str]]:
    result = check_citations(answer, [evidence])
    return [(c.rule, c.detail) for claim in result.unsupported for c in claim.conflicts]


@needs_data
def test_an_antonym_put_in_a_words_place_is_an_opposite() -> None:
    # dry ! wet and shallow ! deep in WordNet; neither pair is in the opposite table or made with an affix
    assert findings("The Alice River is often wet, except after the annual summer rains [1].", ALICE) == [
        ("opposite", '"wet" where the evidence says "dry"')]
    assert findings("They tend to be associated with wet soils, many growing in deep water [2].", SOILS) == [
        ("opposite", '"deep" where the evidence says "shallow"')]


@pytest.mark.parametrize(("answer", "evidence"), [
    ("The Alice River is often dry, except after the annual summer rains [1].", ALICE),
    # a cut of the sentence, as written
    ("They tend to be associated with wet soils, many growing in shallow water [2].", SOILS),
    # a paraphrase that changes more than one word is left to the other rules
    ("The Alice River is usually dry except after summer rains [1].", ALICE),
])
def test_the_sentence_as_written_and_paraphrases_pass(answer: str, evidence: Evidence) -> None:
    assert check_citations(answer, [evidence]).verified


@needs_data
def test_a_negation_restating_the_word_is_no_opposite() -> None:
    # "not wet" says what "dry" says: two words for one, so no word is put in another's place (the negation
    # rules read the cue)
    found = findings("The Alice River is often not wet, except after the annual summer rains [1].", ALICE)
    assert not [f for f in found if f[0] == "opposite"]


def test_a_negating_prefix_in_the_words_place_is_an_opposite_in_a_negated_sentence() -> None:
    # the opposite rule leaves a negating prefix alone where the sentence holds a negation ("does not play"): there
    # "unable" may restate "not able"; in the word's place, with the same "not" on both sides, it says the opposite
    assert findings(UNAVAILABLE, ARYOSEVEN) == [("opposite", '"unavailable" where the evidence says "available"')]


def test_without_the_extra_only_the_affixes_are_read_and_nothing_raises(without_lexicon: None) -> None:
    assert not wordnet.available()
    assert check_citations("The Alice River is often wet, except after the annual summer rains [1].",
                           [ALICE]).verified
    assert findings(UNAVAILABLE, ARYOSEVEN) == [("opposite", '"unavailable" where the evidence says "available"')]
