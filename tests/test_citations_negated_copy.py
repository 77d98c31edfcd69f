"""A negation added to, or taken out of, a sentence the claim repeats word for word: built from real rows."""

from __future__ import annotations

import pytest

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import check_citations

# hotpotqa-0b894aaf66a4 (the corpus row's sentence, as written)
FAYE = Evidence(n=1, tool="retrieve", kind="passage",
                content='It was the last film Faye made as a major Hollywood star, and she did not make another film '
                        'until "State Fair" (1962).')
# hotpotqa-d0ee28ce87da (the corpus row's sentence, as written)
JONI = Evidence(n=2, tool="retrieve", kind="passage",
                content="For this release, four Joni James singles were added, but one of them had never been "
                        "released.")


def findings(answer: str, evidence: Evidence) -> list[tuple[str, str]]:
    result = check_citations(answer, [evidence])
    return [(c.rule, c.detail) for claim in result.unsupported for c in claim.conflicts]


@pytest.mark.parametrize(("answer", "evidence"), [
    # the sentence negates another verb already ("did not make", "had never been"): a second negation is read
    ('It was not the last film Faye made as a major Hollywood star, and she did not make another film until '
     '"State Fair" (1962) [1].', FAYE),
    ("For this release, four Joni James singles were not added, but one of them had never been released [2].", JONI),
    ("For this release, four Joni James singles weren't added, but one of them had never been released [2].", JONI),
])
def test_a_negation_added_to_a_repeated_sentence_is_a_finding(answer: str, evidence: Evidence) -> None:
    found = findings(answer, evidence)
    assert len(found) == 1 and found[0][0] == "negation"
    assert found[0][1].startswith("negation not in evidence: the claim says")


@pytest.mark.parametrize("answer", [
    'It was the last film Faye made as a major Hollywood star, and she did not make another film until "State Fair" '
    '(1962) [1].',
    # a contraction says what its words say
    'It was the last film Faye made as a major Hollywood star, and she didn\'t make another film until "State Fair" '
    '(1962) [1].',
])
def test_the_sentence_as_written_and_its_contraction_pass(answer: str) -> None:
    assert check_citations(answer, [FAYE]).verified
