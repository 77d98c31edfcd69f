"""A name moved in a sentence the claim repeats, and opposites made with affixes (issue 47): built from real rows."""

from __future__ import annotations

import pytest

from graphrag_agents.citations._affixes import affix_opposites
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import check_citations

# techdocs_a-f1fd1d2c70ef (npm's docs, npx's changes since v7), as written
NPX = Evidence(n=1, tool="retrieve", kind="passage", content="""\
This resulted in some shifts in its functionality:

- Any `npm` config value may be provided.
- The `--no-install` option is deprecated, and will be converted to `--no`.
- Shell fallback functionality is removed, as it is not advisable.
- The `--npm` option is removed.
  `npx` will always use the `npm` it ships with.
- The `--node-arg` and `-n` options are removed.
- The `--shell` option is replaced with `--script-shell`, but maintained in the `npx` executable for backwards \
compatibility.
""")
# hotpotqa-527d385a4b27 (the corpus row's sentence, as written)
SCREENPLAY = Evidence(n=2, tool="retrieve", kind="passage",
                      content="The screenplay was written by John Paxton with uncredited help from Ben Hecht.")


def findings(answer: str, evidence: Evidence) -> list[tuple[str, str]]:
    result = check_citations(answer, [evidence])
    return [(c.rule, c.detail) for claim in result.unsupported for c in claim.conflicts]


def test_two_names_exchanged_reverse_the_roles() -> None:
    found = findings("The `--script-shell` option is replaced with `--shell`, but maintained in the `npx` "
                     "executable for backwards compatibility [1].", NPX)
    assert found == [("together", "roles reversed: the claim exchanges `--script-shell` and `--shell` of the "
                                  "evidence sentence")]


def test_a_name_put_in_another_names_place_is_a_moved_name() -> None:
    # `--npm` is in the passage, in another line: the literal rules pass it
    found = findings("The `--npm` option is deprecated, and will be converted to `--no` [1].", NPX)
    assert found == [("together", "the claim puts `--npm` where the evidence sentence says `--no-install`")]


@pytest.mark.parametrize("answer", [
    "The `--shell` option is replaced with `--script-shell`, but maintained in the `npx` executable for backwards "
    "compatibility [1].",
    # names joined by "and" trade places with the same meaning
    "The `-n` and `--node-arg` options are removed [1].",
    "The `--no-install` option is deprecated, and will be converted to `--no` [1].",
])
def test_the_sentence_as_written_and_coordinated_names_pass(answer: str) -> None:
    assert check_citations(answer, [NPX]).verified


def test_capitalised_names_exchanged_in_a_real_sentence() -> None:
    found = findings("The screenplay was written by Ben Hecht with uncredited help from John Paxton [2].",
                     SCREENPLAY)
    assert found and found[0][1].startswith("roles reversed: the claim exchanges Ben Hecht and John Paxton")


def test_an_opposite_made_with_a_prefix_is_an_opposite_word() -> None:
    found = findings("The screenplay was written by John Paxton with credited help from Ben Hecht [2].", SCREENPLAY)
    assert found == [("opposite", '"credited" where the evidence says "uncredited"')]


@pytest.mark.parametrize(("word", "opposite"), [
    ("disabled", "enabled"), ("include", "exclude"), ("uninstall", "install"), ("invalid", "valid"),
    ("upload", "download"), ("output", "input"), ("preinstall", "postinstall"), ("useless", "useful"),
])
def test_affix_opposites_read_the_derivation(word: str, opposite: str) -> None:
    assert opposite in affix_opposites(word)


@pytest.mark.parametrize(("word", "not_opposite"), [
    ("unless", "less"), ("less", "unless"), ("install", "stall"), ("inform", "form"), ("display", "play"),
    ("discover", "cover"), ("until", "til"),
])
def test_words_that_only_look_negated_have_no_affix_opposite(word: str, not_opposite: str) -> None:
    assert not_opposite not in affix_opposites(word)


@pytest.mark.parametrize(("passage", "answer"), [
    # ragtruth-summary-15702-llama-2-70b-chat (clean): the claim says "able" too, in its other clause
    ("Eventually he was able to rig a makeshift mast and sail, but he could make little headway against the "
     "currents.",
     "He was able to rig a makeshift mast and sail, but he was unable to make much headway against the currents [1]."),
    # ragtruth-summary-11860-gpt-4-0613 (clean): "likely unable" is "unlikely ... able"
    ("A doctor's capacity declaration stated that Mitchell will likely be unable, due to her medical condition, to "
     "attend any court hearings for the next four to six months.",
     "Mitchell is unlikely to attend any court hearings due to her medical condition [1]."),
])
def test_a_negating_prefix_that_restates_a_negation_is_no_opposite(passage: str, answer: str) -> None:
    assert check_citations(answer, [Evidence(n=1, tool="retrieve", kind="passage", content=passage)]).verified


def test_a_sentence_said_word_for_word_is_no_move_however_like_another_it_is() -> None:
    # techdocs_a-7fd82c98adc2 (npm's package.json defaults): two items open with the same words and another file
    defaults = Evidence(n=1, tool="retrieve", kind="passage", content="""\
npm will default some values based on package contents.

* `"scripts": {"start": "node server.js"}`

  If there is a `server.js` file in the root of your package, then npm will default the `start` command to \
`node server.js`.

* `"scripts":{"install": "node-gyp rebuild"}`

  If there is a `binding.gyp` file in the root of your package and you have not defined an `install` or \
`preinstall` script, npm will default the `install` command to compile using node-gyp.
""")
    for claim in ("If there is a `server.js` file in the root of your package [1].",
                  "If there is a `binding.gyp` file in the root of your package [1]."):
        assert check_citations(claim, [defaults]).verified


def test_a_moved_name_in_a_sentence_the_splitter_joined_to_the_next() -> None:
    # hotpotqa-48bfa7807de9 (its first 390 characters, as written): "s of 2013" joins the first sentence to the second
    femmes = Evidence(n=1, tool="retrieve", kind="passage", content=(
        "Violent Femmes is an American folk punk band from Milwaukee, Wisconsin, initially active from 1980 to 2009. "
        "s of 2013 , the band is active again. The band is a trio, including singer, guitarist and songwriter Gordon "
        "Gano, bassist Brian Ritchie, and various drummers: Victor DeLorenzo (1980–1993, 2002–2009 and 2013), Guy "
        "Hoffman (1993–2002), Brian Viglione (2013–2016), and John Sparrow (2016-present)."))
    answer = ("Violent Femmes is an American folk punk band from Milwaukee, Brian Viglione, initially active from 1980 "
              "to 2009 [1].")
    assert findings(answer, femmes) == [
        ("together", "the claim puts Brian Viglione where the evidence sentence says Wisconsin")]
    assert check_citations("Violent Femmes is an American folk punk band from Milwaukee, Wisconsin, initially active "
                           "from 1980 to 2009 [1].", [femmes]).verified


def test_worst_known_where_the_evidence_says_best_known_is_an_opposite() -> None:
    # hotpotqa-96dfccd8aace (its first sentence, as written)
    bonham = Evidence(n=1, tool="retrieve", kind="passage", content=(
        "John Henry Bonham (31 May 1948 – 25 September 1980) was an English musician and songwriter, best known as "
        "the drummer for the British rock band Led Zeppelin."))
    found = findings("John Henry Bonham was an English musician and songwriter, worst known as the drummer for the "
                     "British rock band Led Zeppelin [1].", bonham)
    assert found == [("opposite", '"worst" where the evidence says "best"')]


def test_a_name_put_with_a_few_words_in_place_of_another_is_a_moved_name() -> None:
    # 2wiki-0f7dbd08409d (as written): the remake's title put where the first sentence says "Norwegian comedy- drama"
    film = Evidence(n=1, tool="retrieve", kind="passage", content=(
        "Aldri annet enn bråk is a 1954 Norwegian comedy- drama film, edited by Edith Carlmar. It takes place in a "
        "working- class setting in the city of Oslo. The English title is\" Nothing but trouble\". A 1955 Danish "
        "remake,\" Altid ballade\", was directed by Gabriel Axel."))
    found = findings("Aldri annet enn bråk is a 1954 Altid ballade, edited by Edith Carlmar [1].", film)
    assert found and found[0][0] == "together" and found[0][1].startswith("the claim puts Altid ballade where")


def test_a_time_dropped_and_a_place_added_is_no_moved_name() -> None:
    # ragtruth-summary-12060-gpt-3.5-turbo-0613 (clean): the passage's sentence, as written, and the summary's
    passage = Evidence(n=1, tool="retrieve", kind="passage", content=(
        "As Iraqi forces, aided by Shiite militiamen, took control Wednesday of the northern city of Tikrit, they "
        "found vehicles laden with explosives and buildings that might be booby-trapped. Iraqi  Prime Minister "
        "Haider al-Abadi arrived Wednesday to claim the victory, which took place a year after the city was first "
        "attacked by ISIS."))
    assert check_citations("Iraqi Prime Minister Haider al-Abadi arrived in Tikrit to claim the victory [1].",
                           [passage]).verified
