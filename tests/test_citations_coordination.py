"""Names that trade places: a list or an equality keeps the fact, a coordinator joining clauses does not (real rows)."""

from __future__ import annotations

import pytest

from graphrag_agents.citations._coordination import symmetric
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import check_citations

# hotpotqa-c7316f0f0408 (ByKolles Racing; the corpus row's sentence, as written)
KOLLES = Evidence(n=1, tool="retrieve", kind="passage",
                  content="In 2014 they lost their Lotus backing and rebranded as ByKolles Racing with a new LMP1 "
                          "prototype, the CLM P1/01.")
# hotpotqa-608014b8b270 (Lorenzo Monaco; the corpus row's sentence, as written)
MONACO = Evidence(n=2, tool="retrieve", kind="passage",
                  content="He was influenced by Giotto and his followers Spinello Aretino and Agnolo Gaddi.")


def findings(answer: str, evidence: Evidence) -> list[tuple[str, str]]:
    result = check_citations(answer, [evidence])
    return [(c.rule, c.detail) for claim in result.unsupported for c in claim.conflicts]


def test_names_on_either_side_of_clauses_joined_by_and_keep_their_roles() -> None:
    # "and" joins "lost their ... backing" and "rebranded as ...": exchanging the names changes who was lost
    found = findings("In 2014 they lost their ByKolles Racing backing and rebranded as Lotus with a new LMP1 "
                     "prototype, the CLM P1/01 [1].", KOLLES)
    assert found == [("together", "roles reversed: the claim exchanges ByKolles Racing and Lotus of the evidence "
                                  "sentence")]


def test_names_joined_only_by_a_coordinator_trade_places_freely() -> None:
    assert check_citations("He was influenced by Giotto and his followers Agnolo Gaddi and Spinello Aretino [2].",
                           [MONACO]).verified


@pytest.mark.parametrize(("before", "between", "after", "names", "expected"), [
    ([], ["and"], [], set(), True),                                  # "A and B"
    ([], ["ls", "and"], [], {0}, True),                              # a list: "A, `ls`, and B"
    ([], ["is", "an", "alias", "for"], [], set(), True),             # an equality, wherever it stands
    (["between"], ["and"], [], set(), True),                         # "between A and B"
    (["the"], ["backing", "and", "the"], ["backing"], set(), True),  # "the A backing and the B backing"
    (["their"], ["backing", "and", "rebranded", "as"], ["with"], set(), False),
])
def test_symmetric_reads_lists_parallel_phrases_and_equalities(before: list[str], between: list[str],
                                                                after: list[str], names: set[int],
                                                                expected: bool) -> None:
    assert symmetric(before, between, after, lambda i: i in names) is expected
