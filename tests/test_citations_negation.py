"""check_citations reads a negation clause by clause, whatever the tense or the verb's form (issue 47 item 1).

The two Bob Jones cases are the issue's regression reports. The npm sentences are rows of the shared ``techdocs_a``
corpus (npm CLI 11.19.1 docs, Artistic License 2.0, Copyright (c) npm, Inc. and Contributors), each test naming its
row.
"""

from __future__ import annotations

import pytest

from graphrag_agents.citations._negation import clauses, lemma_key
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, check_citations

# techdocs_a-638f815be407 (commands/npm-update.md › Description), the sentences around the one the tests change
NPM_UPDATE = ("It will also install missing packages.\n\nIf the `-g` flag is specified, this command will update "
              "globally installed packages.\n\nIf no package name is specified, all packages in the specified "
              "location (global or local) will be updated.")
# techdocs_a-e94f1173c56a (configuring-npm/folders.md › Description › Man Pages)
MAN_PAGES = ("When in global mode, man pages are linked into `{prefix}/share/man`.\n\nWhen in local mode, man pages "
             "are not installed.\n\nMan pages are not installed on Windows systems.")


def check(answer: str, content: str) -> CitationCheck:
    return check_citations(answer, [Evidence(n=1, tool="retrieve", kind="passage", content=content)])


def negation_details(result: CitationCheck) -> list[str]:
    return [c.detail for claim in result.unsupported for c in claim.conflicts if c.rule == "negation"]


@pytest.mark.parametrize(("answer", "evidence", "cue"), [
    ("Bob Jones never lived in Paris [1].", "Bob Jones lives in Paris.", "never"),
    ("Bob Jones didn't live in Paris in 2001 [1].", "Bob Jones lived in Paris in 2001.", "didn't"),
])
def test_the_issue_47_negation_reports_are_findings(answer: str, evidence: str, cue: str) -> None:
    # both passed as grounded and verified with no finding at 75f0126: "lived" and "lives" shared no stem, so the
    # sentence rules found no sentence the claim restates and never compared the negation
    result = check(answer, evidence)
    assert result.grounded and not result.verified
    assert negation_details(result) == [f'negation not in evidence: the claim says "{cue}", the evidence does not']


@pytest.mark.parametrize(("answer", "evidence"), [
    ("Bob Jones does not live in Paris [1].", "Bob Jones lived in Paris."),  # present against past
    ("Bob Jones has never lived in Paris [1].", "Bob Jones was living in Paris."),
    ("Bob Jones won't live in Paris [1].", "Bob Jones will live in Paris."),
    ("Bob Jones cannot live in Paris [1].", "Bob Jones can live in Paris."),
    ("Bob Jones wasn't living in Paris in 2001 [1].", "Bob Jones lived in Paris in 2001."),
    ("Bob Jones lived in Paris [1].", "Bob Jones didn't live in Paris."),  # the reverse: negation missing
    ("Bob Jones is living in Paris [1].", "Bob Jones has never lived in Paris."),
])
def test_a_negation_one_side_lacks_is_a_finding_in_any_tense(answer: str, evidence: str) -> None:
    assert negation_details(check(answer, evidence))


@pytest.mark.parametrize(("answer", "evidence"), [
    ("Bob Jones did not live in Paris [1].", "Bob Jones never lived in Paris."),  # another cue, the same negation
    ("Bob Jones doesn't live in Paris [1].", "Bob Jones does not live in Paris."),
    ("Bob Jones lives in Paris [1].", "Bob Jones lived in Paris."),
    # "not Rome" covers Rome only: it denies nothing the evidence says about living in Paris
    ("Bob Jones lived in Paris [1].", "Bob Jones lived in Paris, not Rome."),
])
def test_the_same_polarity_in_another_form_passes(answer: str, evidence: str) -> None:
    result = check(answer, evidence)
    assert result.verified, result.unsupported


def test_an_elliptical_contrast_is_scoped_to_what_it_names() -> None:
    # the scope rule's case: "..., not Rome" negates Rome; a claim that he lived in Rome restates that negated part
    assert negation_details(check("Bob Jones lived in Rome [1].", "Bob Jones lived in Paris, not Rome."))
    # and the claim's own "not Rome" is no negated living in Paris (Rome is in the evidence, so no name is missing)
    result = check("Bob Jones lived in Paris, not Rome [1].", "Bob Jones lived in Paris. He never visited Rome.")
    assert negation_details(result) == []


def test_a_cue_in_a_subordinate_clause_stays_there() -> None:
    # techdocs_a-638f815be407: "no" negates the "if" clause's package name, not the updating
    assert check("If no package name is specified, all packages in the specified location (global or local) "
                 "will be updated [1].", NPM_UPDATE).verified
    moved = check("All packages in the specified location (global or local) will be updated if no package name is "
                  "specified [1].", NPM_UPDATE)
    assert moved.verified, moved.unsupported
    negated = check("If no package name is specified, all packages in the specified location (global or local) "
                    "will not be updated [1].", NPM_UPDATE)
    assert negation_details(negated)


def test_a_negated_sentence_restated_with_its_negation_dropped_is_a_finding() -> None:
    # techdocs_a-e94f1173c56a
    assert check("Man pages aren't installed on Windows systems [1].", MAN_PAGES).verified
    assert negation_details(check("Man pages are installed on Windows systems [1].", MAN_PAGES))


def test_two_cues_on_one_target_cancel() -> None:
    (clause,) = clauses("You cannot not install peer dependencies")
    assert lemma_key("install") not in clause.negated
    (single,) = clauses("You cannot install peer dependencies")
    assert single.negated == {lemma_key("install")}


def test_inflections_share_one_key() -> None:
    assert len({lemma_key(w) for w in ("live", "lives", "lived", "living")}) == 1
    assert lemma_key("ran") == lemma_key("running") == lemma_key("run")
    assert lemma_key("installs") == lemma_key("installed") == lemma_key("install")


def test_without_a_cue_on_either_side_no_clause_is_parsed() -> None:
    # the first sentence of NPM_UPDATE, cited as written: neither it nor its evidence holds a cue, so every clause
    # agrees and the rule must not spend the clause split of each cited sentence (the default's cold check)
    from graphrag_agents.citations import _negation

    def reads() -> int:
        info = _negation._item_clauses.cache_info()
        return info.hits + info.misses

    content = NPM_UPDATE.replace("no package name", "a package name")
    before = reads()
    assert check("It will also install missing packages [1].", content).verified
    assert reads() == before
    # with a cue in the evidence, its clauses are read
    assert check("It will also install missing packages [1].", NPM_UPDATE).verified
    assert reads() == before + 1


# techdocs_a-6fa826cda7a8 (commands/npm-search.md › Description), the sentence the tests negate
NPM_SEARCH_COLOR = "If your terminal has color support, it will further highlight the matches in the results."


def test_a_negated_copy_worded_like_a_lack_statement_is_read_as_a_claim() -> None:
    # "... will not ... highlight the matches in the results" has the shape of a report on the evidence ("not ...
    # in the results"), which the meaning rules leave alone; it repeats the cited sentence, so it is a claim
    result = check("If your terminal has color support, it will not further highlight the matches in the results "
                   "[1].", NPM_SEARCH_COLOR)
    assert not result.verified and negation_details(result)
    # a report on the evidence that repeats none of its sentences is still left alone
    assert check("The passages do not say which colors the matches get [1].", NPM_SEARCH_COLOR).verified
