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
