"""``CitationCheck.claims``: each sentence's verdict and the evidence spans behind it (issue 47 item 4).

The passages are rows of the shared eval corpora, each test naming its row: HotpotQA (CC BY-SA 4.0) and
``techdocs_a`` (npm CLI 11.19.1 docs, Artistic License 2.0, Copyright (c) npm, Inc. and Contributors).
"""

from __future__ import annotations

from graphrag_agents.citations import CheckedClaim, EvidenceSpan
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, check_citations

# hotpotqa-d7e302fdc4df (Ann Beattie)
BEATTIE = ("Ann Beattie (born September 8, 1947) is an American novelist and short story writer. She has received an "
           "award for excellence from the American Academy and Institute of Arts and Letters and the PEN/Malamud Award "
           "for excellence in the short story form. Her work has been compared to that of Alice Adams, J.D. Salinger, "
           "John Cheever, and John Updike. She holds an undergraduate degree from American University and a master's "
           "degree from the University of Connecticut.")
# hotpotqa-c3bb590b5581 (...All the Marbles): it opens with "…", which NFKC reads as three characters
MARBLES = ("…All the Marbles (reissued as The California Dolls) is a 1981 comedy-drama film about the trials and "
           "travails of a female wrestling tag team and their manager. It was directed by Robert Aldrich (his final "
           "film) and stars Peter Falk, Vicki Frederick and Laurene Landon.")
# techdocs_a-a6aca6dc6b1a (commands/npm-query.md), the sentence the perturbation set's "do-support present n't"
# draft negates
NPM_QUERY = ("The `npm query` command allows for usage of css selectors in order to retrieve an array of dependency "
             "objects.")


def evidence(*texts: str) -> list[Evidence]:
    return [Evidence(n=i, tool="retrieve", kind="passage", content=text) for i, text in enumerate(texts, 1)]


def spans(items: list[Evidence], spans_of: list[EvidenceSpan]) -> list[str]:
    contents = {item.n: item.content for item in items}
    return [contents[s.n][s.start:s.end] for s in spans_of]


def test_a_verified_sentence_points_at_the_sentence_that_says_it() -> None:
    items = evidence(BEATTIE)
    check = check_citations("Ann Beattie holds a master's degree from the University of Connecticut [1].", items)
    (claim,) = check.claims
    assert claim.verdict == "verified" and claim.cited == [1]
    # the fourth sentence, credited with "Ann Beattie" through its "She"
    assert spans(items, claim.support) == ["She holds an undergraduate degree from American University and "
                                                  "a master's degree from the University of Connecticut."]
    assert claim.closest is None and claim.missing == []


def test_a_sentence_joining_two_items_gets_one_span_in_each() -> None:
    items = evidence(BEATTIE, MARBLES)
    answer = "Ann Beattie is an American novelist [1], and …All the Marbles was directed by Robert Aldrich [2]."
    (claim,) = check_citations(answer, items).claims
    assert claim.verdict == "verified" and claim.cited == [1, 2]
    assert sorted(spans(items, claim.support)) == [
        "Ann Beattie (born September 8, 1947) is an American novelist and short story writer.",
        "It was directed by Robert Aldrich (his final film) and stars Peter Falk, Vicki Frederick and Laurene Landon."]


# hotpotqa-83a04ee7359e (S. P. L. Sørensen), both of its sentences
SORENSEN = ("Søren Peder Lauritz Sørensen (9 January 1868 – 12 February 1939) was a Danish chemist, famous for the "
            "introduction of the concept of pH, a scale for measuring acidity and alkalinity. He was born in "
            "Havrebjerg, Denmark.")


def test_a_sentence_joining_two_sentences_of_one_item_gets_the_one_saying_most_of_it() -> None:
    # the "two sentences joined" draft of citations_bench.py for this row: a second span of the same item that
    # holds a fifth of the claim's words would read, highlighted alone, as the support of the whole sentence
    items = evidence(SORENSEN)
    answer = (SORENSEN[:-len(" He was born in Havrebjerg, Denmark.")].rstrip(".")
              + "; he was born in Havrebjerg, Denmark [1].")
    (claim,) = check_citations(answer, items).claims
    assert claim.verdict == "verified"
    assert spans(items, claim.support) == [SORENSEN.split(" He was born")[0]]


def test_spans_point_into_the_content_as_given_not_its_nfkc_form() -> None:
    # NFKC writes the opening "…" as "...": offsets into the normalised text would be two characters late
    items = evidence(MARBLES)
    (claim,) = check_citations("It was directed by Robert Aldrich [1].", items).claims
    (span,) = claim.support
    assert MARBLES[span.start:span.end] == ("It was directed by Robert Aldrich (his final film) and stars Peter Falk, "
                                            "Vicki Frederick and Laurene Landon.")


def test_an_unsupported_sentence_gets_its_closest_sentence_and_what_it_lacks() -> None:
    items = evidence(BEATTIE)
    check = check_citations("Ann Beattie (born September 8, 1948) is an American novelist [1].", items)
    (claim,) = check.claims
    assert claim.verdict == "unsupported" and claim.support == []
    assert claim.closest is not None
    assert spans(items, [claim.closest]) == [
        "Ann Beattie (born September 8, 1947) is an American novelist and short story writer."]
    assert claim.missing == ["1948"]


def test_a_negation_the_sentence_lacks_is_what_the_claim_adds() -> None:
    # the "do-support present n't" draft of techdocs_a-a6aca6dc6b1a in benchmarks/data/citation_perturbations.jsonl
    items = evidence(NPM_QUERY)
    answer = ("The `npm query` command doesn't allow for usage of css selectors in order to retrieve an array of "
              "dependency objects [1].")
    check = check_citations(answer, items)
    (claim,) = check.claims
    assert claim.verdict == "unsupported" and [c.rule for c in check.unsupported[0].conflicts] == ["negation"]
    assert claim.closest == EvidenceSpan(n=1, start=0, end=len(NPM_QUERY))
    assert claim.missing == ["doesn't"]


def test_every_sentence_has_an_entry_in_order_with_its_place_in_the_answer() -> None:
    items = evidence(BEATTIE)
    answer = ("## Ann Beattie\n\nAnn Beattie is an American novelist [1]. She was born in 1947. "
              "The graph does not say where she lives. Her work is well liked [7].")
    check = check_citations(answer, items)
    assert [c.verdict for c in check.claims] == ["no_claim", "verified", "uncited", "no_claim", "no_claim"]
    for claim in check.claims:
        assert " ".join(check.answer[claim.start:claim.end].split()) == claim.text
    assert check.claims[2].text in check.uncited and check.invalid == [7]


def test_a_check_stored_without_claims_still_reads() -> None:
    stored = {"answer": "Ann Beattie is a novelist [1].", "grounded": True, "cited": [1]}
    assert CitationCheck.model_validate(stored).claims == []
    data = check_citations("Ann Beattie is an American novelist [1].", evidence(BEATTIE)).model_dump(mode="json")
    restored = CitationCheck.model_validate(data)
    assert isinstance(restored.claims[0], CheckedClaim) and restored.claims[0].support[0].n == 1


def test_the_literal_rules_alone_give_verdicts_without_spans() -> None:
    # meaning=False never splits the cited items into sentences: its claims say what the rules found, no span
    items = evidence(BEATTIE)
    check = check_citations("Ann Beattie is an American novelist [1]. She was born in 1948 [1].", items, meaning=False)
    assert [(c.verdict, c.support, c.closest, c.missing) for c in check.claims] == [
        ("verified", [], None, []), ("unsupported", [], None, ["1948"])]
