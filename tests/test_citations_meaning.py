"""check_citations reads meaning (issue 14): polarity, opposites, names stated together, and the regressions."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, check_citations

EVIDENCE = [
    Evidence(n=16, tool="retrieve", kind="passage",
             content="Dune is a 2021 film directed by Denis Villeneuve. The screenplay was written by Judd Winick. "
                     "The film was produced by Warner Bros. It won six awards."),
    Evidence(n=7, tool="retrieve", kind="fact", content="Alice Smith works at Acme Corp."),
    Evidence(n=3, tool="retrieve", kind="passage",
             content="Lambert (died after 938) was the second son of Adalbert II of Tuscany. He was born in Lucca in "
                     "890. Alice never worked at Globex. Revenue increased by 12 percent in 2020."),
]


def conflicts(answer: str, **kwargs: object) -> list[tuple[str, str]]:
    result = check_citations(answer, EVIDENCE, **kwargs)  # type: ignore[arg-type]
    assert result.uncited == []
    return [(c.rule, c.detail) for claim in result.unsupported for c in claim.conflicts]


@pytest.mark.parametrize(("answer", "rule", "detail"), [
    ("The screenplay was not written by Judd Winick [16].", "negation",
     'negation not in evidence: the claim says "not"'),
    ("Alice Smith never worked at Acme Corp [7].", "negation", 'the claim says "never"'),
    ("Alice Smith doesn't work at Acme Corp [7].", "negation", "doesn't"),
    ("Alice worked at Globex [3].", "negation", 'negation missing: the evidence says "never"'),
    ("Lambert died in Lucca in 890 [3].", "opposite", '"died" where the evidence says "born"'),
    ("Dune lost six awards [16].", "opposite", '"lost" where the evidence says "won"'),
    ("Lambert was the eldest son of Adalbert II of Tuscany [3].", "opposite",
     '"eldest" where the evidence says "second"'),
    ("Revenue decreased by 12 percent in 2020 [3].", "opposite", '"decreased" where the evidence says "increased"'),
    ("The screenplay was written by Warner Bros [16].", "together",
     'names not stated together: Warner Bros is stated apart from "screenplay", "written"'),
    ("Judd Winick produced the film with Warner Bros [16].", "together",
     "names not stated together in one sentence of the evidence: Judd Winick, Warner Bros"),
])
def test_meaning_errors_that_the_literal_rules_pass(answer: str, rule: str, detail: str) -> None:
    assert conflicts(answer, meaning=False) == []  # every name and figure is in the cited evidence
    found = conflicts(answer)
    assert [r for r, _ in found] == [rule]
    assert detail in found[0][1]


@pytest.mark.parametrize("answer", [
    "Dune is a 2021 film directed by Denis Villeneuve [16].",  # the real sentence
    "Dune is a 2021 film [16].",  # cut at a clause
    "The film was produced by Warner Bros, and it won six awards [16].",  # two sentences joined
    "The screenplay was written by Judd Winick; the film was produced by Warner Bros [16].",
    "Dune, directed by Denis Villeneuve, was produced by Warner Bros [16].",  # joined around commas
    "Dune won six awards [16].",  # "It won" resolved to the passage's topic
    "Lambert was born in Lucca in 890 [3].",  # "He was born" resolved to the topic
    "Lambert was the second son of Adalbert II of Tuscany [3].",
    "Alice never worked at Globex [3].",  # negated on both sides
    "Lambert, the second son of Adalbert II of Tuscany, was born in Lucca in 890 [3].",
])
def test_correct_claims_pass_the_meaning_rules(answer: str) -> None:
    result = check_citations(answer, EVIDENCE)
    assert result.unsupported == [] and result.verified


def test_a_findings_sentence_fails_strictly_grounded_and_keeps_the_old_fields() -> None:
    from graphrag_agents.agent.gate import strictly_grounded

    result = check_citations("Lambert died in Lucca in 890 [3].", EVIDENCE)
    claim = result.unsupported[0]
    assert claim.cited == [3] and claim.missing_figures == [] and claim.missing_names == []
    assert result.grounded and not result.verified and not strictly_grounded(result)


@pytest.mark.parametrize("sentence", [
    "The election results were not certified until 2021.",
    "Smith was not named chief executive in 2015.",
    "The tools did not arrive until March 1990.",
    "It was unknown in Europe until 1600.",
])
def test_world_negative_claims_are_not_lack_statements(sentence: str) -> None:
    """These were exempted from ``uncited`` by the lack patterns (regression)."""
    assert check_citations(sentence, EVIDENCE).uncited == [sentence]


@pytest.mark.parametrize(("content", "answer"), [
    ("The brand Sno*Drift makes snowmobiles.", "The brand Sno*Drift makes snowmobiles [1]."),
    ("Sno*Drift is a snowmobile brand.", "The **Sno*Drift** brand makes snowmobiles [1]."),
    ("The file number is 0018458010004.", "The file number is 001845801 - 0004 [1]."),
    ("The file number is 0018-45801-0004.", "The file number is 001845801 - 0004 [1]."),
    ("The file number is 001845801 - 0004.", "The file number is 0018458010004 [1]."),
])
def test_punctuation_inside_names_and_numbers_is_not_a_missing_claim(content: str, answer: str) -> None:
    """``Sno*Drift`` was checked as ``SnoDrift``; a regrouped identifier was split into missing figures (regression)."""
    evidence = [Evidence(n=1, tool="retrieve", kind="passage", content=content)]
    assert check_citations(answer, evidence).unsupported == []


def test_a_regrouped_identifier_with_other_digits_is_still_missing() -> None:
    evidence = [Evidence(n=1, tool="retrieve", kind="passage", content="The file number is 0018458010004.")]
    claim = check_citations("The file number is 001845801 - 0005 [1].", evidence).unsupported
    assert claim and claim[0].missing_figures == ["1845801", "5"]


def test_to_llm_text_never_calls_a_failed_draft_just_grounded() -> None:
    text = check_citations("Lambert died in Lucca in 890 [3].", EVIDENCE).to_llm_text()
    assert text.startswith("Citation check: NOT verified: 1 sentence failed the check.")
    assert "which is all that grounded means" in text
    assert '"died" where the evidence says "born"' in text
    clean = check_citations("Lambert was born in Lucca in 890 [3].", EVIDENCE).to_llm_text()
    assert clean.startswith("Citation check: grounded and verified (cites [3])")


def test_verified_is_derived_so_stored_checks_read_the_same() -> None:
    stored = check_citations("Lambert died in Lucca in 890 [3].", EVIDENCE).model_dump()
    stored.pop("verified")  # a check stored before the field existed
    assert CitationCheck.model_validate(stored).verified is False
    stored_ok = check_citations("Alice Smith works at Acme Corp [7].", EVIDENCE).model_dump()
    stored_ok["verified"] = False
    assert CitationCheck.model_validate(stored_ok).verified is True


def test_an_entailment_judge_is_asked_only_about_sentences_the_rules_passed() -> None:
    asked: list[str] = []

    def judge(sentence: str, evidence: Sequence[Evidence]) -> str | None:
        asked.append(sentence)
        return "the evidence does not say it is a remake" if "remake" in sentence else None

    result = check_citations("Dune is a 2021 remake directed by Denis Villeneuve [16]. Lambert died in Lucca in "
                             "890 [3]. Alice Smith works at Acme Corp [7].", EVIDENCE, judge=judge)
    assert asked == ["Dune is a 2021 remake directed by Denis Villeneuve [16].",
                     "Alice Smith works at Acme Corp [7]."]
    assert [(c.sentence[:4], [x.rule for x in c.conflicts]) for c in result.unsupported] == [
        ("Dune", ["judge"]), ("Lamb", ["opposite"])]


def test_suggestions_skip_evidence_that_would_contradict_the_sentence() -> None:
    evidence = [Evidence(n=1, tool="retrieve", kind="fact", content="Lambert was born in Lucca."),
                Evidence(n=2, tool="retrieve", kind="fact", content="Lambert died in Lucca.")]
    result = check_citations("Lambert died in Lucca.", evidence)
    assert [s.evidence for s in result.suggested] == [[2]]
    assert [s.evidence for s in check_citations("Lambert died in Lucca.", evidence, meaning=False).suggested] == [
        [2, 1]]


def test_a_pronoun_stands_for_the_passage_subject_not_for_dates_or_asides() -> None:
    evidence = [Evidence(n=1, tool="retrieve", kind="passage",
                         content="Daniel Lewis (11 December 1902 - 1965) was a Welsh goalkeeper known as Dan Lewis. "
                                 "He kept goal for Arsenal in the 1927 FA Cup Final.")]
    assert check_citations("Dan Lewis kept goal for Arsenal in the 1927 FA Cup Final [1].", evidence).verified
    moved = check_citations("Lewis kept goal for Arsenal in the 1927 December [1].", evidence)
    assert [c.rule for claim in moved.unsupported for c in claim.conflicts] == ["together"]
