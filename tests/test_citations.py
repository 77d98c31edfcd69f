"""check_citations: every rule of the reference's "Evidence and citations" section, as tables of cases."""

from __future__ import annotations

import time

import pytest

from graphrag_agents.errors import ConfigurationError
from graphrag_agents.evidence import Evidence, EvidenceLedger
from graphrag_agents.text.sentences import split_sentences
from graphrag_agents.tools.citations import CitationCheck, CitedSource, UnsupportedClaim, check_citations

EVIDENCE = [
    Evidence(n=1, tool="retrieve", kind="passage",
             content="Alice works at Acme Corp. Revenue was 2.80 million dollars in 2021, up 1,250 units or "
                     "45 percent. The planning team met in Zurich.",
             source="reports/Zeta Holdings 2020 q7.md"),
    Evidence(n=2, tool="retrieve", kind="fact", content="Globex acquired Initech in 1999."),
    Evidence(n=3, tool="retrieve", kind="passage",
             content="Corvane Systems ships two models. Jeff Porcaro was a session drummer."),
    Evidence(n=4, tool="retrieve", kind="passage", content="Москва — столица России. Население 13 миллионов."),
    Evidence(n=5, tool="retrieve", kind="passage", content="東京は日本の首都です。人口は1400万人。"),
    Evidence(n=6, tool="status", kind="status", content="entities: 12, relations: 30"),
]


def check(answer: str) -> CitationCheck:
    return check_citations(answer, EVIDENCE)


def unsupported_of(answer: str) -> tuple[list[str], list[str]]:
    """(missing figures, missing names) of a one-sentence cited answer."""
    result = check(answer)
    assert result.uncited == []
    if not result.unsupported:
        return [], []
    assert len(result.unsupported) == 1
    claim = result.unsupported[0]
    return claim.missing_figures, claim.missing_names


# ------------------------------------------------------------------------------------------------ markers

@pytest.mark.parametrize(("answer", "cited", "invalid", "cleaned"), [
    ("Alice works at Acme Corp [1].", [1], [], "Alice works at Acme Corp [1]."),
    ("Acme grew [1, 2].", [1, 2], [], "Acme grew [1, 2]."),
    ("Acme grew [1-3].", [1, 2, 3], [], "Acme grew [1-3]."),
    ("Acme grew [ 1 ].", [1], [], "Acme grew [ 1 ]."),
    ("Acme grew [1,2].", [1, 2], [], "Acme grew [1,2]."),
    ("Acme grew ［1］.", [1], [], "Acme grew ［1］."),
    ("Acme grew 【1，2】.", [1, 2], [], "Acme grew 【1，2】."),
    ("Acme grew [1–3].", [1, 2, 3], [], "Acme grew [1–3]."),
    ("Acme grew [3-1].", [1, 2, 3], [], "Acme grew [3-1]."),
    ("Acme grew [１].", [1], [], "Acme grew [１]."),
    ("Acme grew [9].", [], [9], "Acme grew."),
    ("Acme grew [0].", [], [0], "Acme grew."),
    ("Acme grew [1, 9].", [1], [9], "Acme grew [1]."),
    ("Acme grew [5-8].", [5, 6], [7, 8], "Acme grew [5, 6]."),
    ("Acme grew [1-6, 9].", [1, 2, 3, 4, 5, 6], [9], "Acme grew [1-6]."),
    ("Acme grew [1-100000].", [], [1, 100000], "Acme grew."),
    ("Acme [9] and Globex [2] grew.", [2], [9], "Acme and Globex [2] grew."),
    ("[9] Acme grew.", [], [9], "Acme grew."),
    ("Acme grew.[9][8] Then fell.", [], [8, 9], "Acme grew. Then fell."),
    ("Acme[9] grew.", [], [9], "Acme grew."),
    ("Use `x[9]` here [1].", [1], [], "Use `x[9]` here [1]."),
    ("```\ny = a[9]\n```\nDone [1].", [1], [], "```\ny = a[9]\n```\nDone [1]."),
    ("See [the docs](https://x.org/1) and [x] and [^1] [1].", [1], [], None),
    ("Code [1234567890123] here.", [], [], None),
    ("Acme [999999999999].", [], [999999999999], "Acme."),
    ("[8[9]] Acme grew.", [], [8, 9], "Acme grew."),  # removing [9] must not leave an unchecked [8]
    ("[1[9]] Acme grew.", [1], [9], "[1] Acme grew."),
])
def test_markers(answer: str, cited: list[int], invalid: list[int], cleaned: str | None) -> None:
    result = check(answer)
    assert result.cited == cited
    assert result.invalid == invalid
    assert result.answer == (answer if cleaned is None else cleaned)
    assert result.grounded is bool(cited)


def test_sources_are_the_cited_items_in_number_order() -> None:
    result = check("Globex acquired Initech in 1999 [2]. Alice works at Acme [1, 9].")
    assert result.sources == [
        CitedSource(n=1, tool="retrieve", kind="passage", content=EVIDENCE[0].content),
        CitedSource(n=2, tool="retrieve", kind="fact", content=EVIDENCE[1].content),
    ]


# ------------------------------------------------------------------------------------------------ figures

@pytest.mark.parametrize(("answer", "missing"), [
    ("Revenue was 2.8 million [1].", []),
    ("Revenue was 2.80 million [1].", []),
    ("Revenue was 2.800 million [1].", []),
    ("Revenue was 2.85 million [1].", ["2.85"]),
    ("Units rose by 1250 [1].", []),
    ("Units rose by 1,250.0 [1].", []),
    ("Units rose by 125 [1].", ["125"]),
    ("It grew 45% [1].", []),
    ("It grew 45 % [1].", []),
    ("It grew 46% [1].", ["46"]),
    ("It grew 0.45 [1].", ["0.45"]),
    ("Corvane Systems ships 2 models [3].", ["2"]),  # the evidence says "two": reported
    ("Corvane Systems ships two models [3].", []),  # number words are not figures
    ("It has 2 relations [6].", ["2"]),  # "12" does not hold "2"
    ("It has 12 entities and 30 relations [6].", []),
    ("Globex acquired Initech in 1999 [2].", []),
    ("Globex acquired Initech in 2020 [2].", ["2020"]),
    ("It reported 7 items [1].", ["7"]),  # the source path holds 7, and is not searched
    ("In 2021 it grew [1]. In 1999 it was bought [2].", []),
    ("Население 13 миллионов [4].", []),
    ("人口は１４００万人 [5].", []),  # full-width digits
    ("It grew ٤٥ percent [1].", []),  # Arabic-Indic digits
    ("It has 007 relations, 030 of them [6].", ["7"]),
])
def test_figure_rules(answer: str, missing: list[str]) -> None:
    assert unsupported_of(answer)[0] == missing


# ------------------------------------------------------------------------------------------------ names

@pytest.mark.parametrize(("answer", "missing"), [
    ("Alice works at Acme Corp [1].", []),
    ("Bob works at Acme Corp [1].", ["Bob"]),
    ("ALICE works at ACME CORP [1].", []),  # case ignored
    ("Corvane Systems ships models [3].", []),
    ("Corvane Labs ships models [3].", ["Corvane Labs"]),  # every word of the name is needed
    ("The team met Ann [1].", ["Ann"]),  # "Ann" is not a whole word of "planning"
    ("Al works at Acme [1].", []),  # words under three letters are not checked
    ("The drummer was Porcaro [3].", []),  # a lone surname, supported
    ("The drummer was Lukather [3].", ["Lukather"]),  # a lone surname needs support like any other name
    ("Globex grew quickly [1].", []),  # a lone first word of a sentence naming nothing else
    ("Globex hired Alice [1].", ["Globex"]),  # the sentence names something else
    ("Globex Systems grew [1].", ["Globex Systems"]),  # the first word starts a run
    ("The Globex deal closed [1].", ["Globex"]),  # "The" is an opener, "Globex" a name
    ("However, Alice works at Acme [1].", []),  # "However" is an opener, not a name
    ("However Globex hired Alice [1].", ["Globex"]),
    ("Answer: Alice [1].", []),  # a label
    ("She works at Acme [1].", []),
    ("The team met in Zürich [1].", []),  # accents ignored
    ("Zeta bought Acme [1].", ["Zeta"]),  # the source "reports/Zeta Holdings ..." is not searched
    ("Alice works at **Acme Corp** [1].", []),  # Markdown emphasis
    ("Alice works at [Acme](https://initech.example/Bob) [1].", []),  # link targets are not claims
    ("Alice works at Acme Corp and Initech [1, 2].", []),  # names checked against all cited evidence
    ("Globex acquired Initech [1].", ["Globex", "Initech"]),
    ("Москва — столица России [4].", []),
    ("Киев — столица России [4].", ["Киев"]),
    ("東京は日本の首都です [5]。", []),  # no letter case, no names
    ("Tokyo (東京) has 1400万 people [5].", []),
])
def test_name_rules(answer: str, missing: list[str]) -> None:
    assert unsupported_of(answer)[1] == missing


def test_unsupported_claim_fields() -> None:
    result = check("Globex acquired Initech and Hooli in 2020 [2, 9].")
    assert result.unsupported == [UnsupportedClaim(
        sentence="Globex acquired Initech and Hooli in 2020 [2].", cited=[2], missing_figures=["2020"],
        missing_names=["Hooli"])]
    assert result.grounded is True  # the claim checks are warnings


# ------------------------------------------------------------------------------------------------ uncited

@pytest.mark.parametrize(("answer", "uncited"), [
    ("Alice works at Acme Corp.", ["Alice works at Acme Corp."]),
    ("It grew 45 percent.", ["It grew 45 percent."]),
    ("It grew a lot.", []),
    ("Globex does not provide pensions.", ["Globex does not provide pensions."]),  # a negative world claim
    ("Alice was never an employee of Globex.", ["Alice was never an employee of Globex."]),
    ("Alice works at Acme Corp. [1] Globex bought Initech.", ["Globex bought Initech."]),
    ("Alice works at Acme Corp [1]. She joined in 2021.", ["She joined in 2021."]),
    ("Alice works at Acme [9].", ["Alice works at Acme."]),  # only invalid markers: no marker of its own
    ("Alice works at Acme [1]\nGlobex bought Initech [2]", []),
    ("- Alice works at Acme [1]\n- Globex bought Initech", ["Globex bought Initech"]),
    ("## Acme Results\n\nAlice works at Acme [1].", []),  # headings state no claim
    ("| Company | Year |\n|---|---|\n| Globex | 1999 [2] |\n| Initech | 2001 |", ["| Initech | 2001 |"]),
    ("```\nAcme 2021\n```", []),
    ("Dr. Smith met Mr. Jones in the U.S. in 1999 [1].", []),  # one sentence, cited
])
def test_uncited_rules(answer: str, uncited: list[str]) -> None:
    assert check(answer).uncited == uncited


@pytest.mark.parametrize("sentence", [
    "The graph does not say who founded Globex.",
    "The knowledge graph doesn't mention when Globex was founded.",
    "The retrieved passages do not mention the 1999 deal.",
    "The evidence lacks any figure for Globex revenue.",
    "I could not find who founded Globex.",
    "I couldn't find any information about Initech.",
    "We were unable to determine Globex's founder.",
    "There is no information about Globex in the graph.",
    "No passage in the graph mentions Initech.",
    "None of the passages states how many people Globex employs.",
    "Nothing in the evidence says whether Globex bought Initech.",
    "The founder of Globex is not mentioned.",
    "The sources are silent on Globex's pensions.",
    "Globex's founding year is unclear from the passages.",
])
def test_sentences_saying_the_graph_lacks_something_need_no_citation(sentence: str) -> None:
    result = check(sentence)
    assert result.uncited == []
    assert result.grounded is False


@pytest.mark.parametrize("sentence", [
    "Globex does not provide pensions.",
    "Globex did not acquire Hooli.",
    "Initech has no offices in Zurich.",
    "Bigtop Records did not sign Alice.",
    "Alice does not appear in Doctors Don't Tell.",
])
def test_negative_claims_about_the_world_need_a_citation(sentence: str) -> None:
    assert check(sentence).uncited == [sentence]


# ------------------------------------------------------------------------------------------------ sentences

@pytest.mark.parametrize(("text", "sentences"), [
    ("Dr. Smith met Mr. Jones. They talked.", ["Dr. Smith met Mr. Jones.", "They talked."]),
    ("He moved to the U.S. in 1990. He left.", ["He moved to the U.S. in 1990.", "He left."]),
    ("He moved to the U.S. He left.", ["He moved to the U.S.", "He left."]),
    ("It joined the U.S. Army in 1990.", ["It joined the U.S. Army in 1990."]),
    ("It costs 2.80 dollars. Cheap.", ["It costs 2.80 dollars.", "Cheap."]),
    ("See e.g. the report. Then go.", ["See e.g. the report.", "Then go."]),
    ("J. K. Rowling wrote it. Fine.", ["J. K. Rowling wrote it.", "Fine."]),
    ("Wow! Really? Yes.", ["Wow!", "Really?", "Yes."]),
    ("Yahoo! is a company.", ["Yahoo! is a company."]),
    ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),
    ("Acme Inc. (TMA) grew.", ["Acme Inc. (TMA) grew."]),
    ("Acme grew. [3] Globex fell.", ["Acme grew. [3]", "Globex fell."]),
    ("Made by Warner Bros. [3] The film won.", ["Made by Warner Bros. [3]", "The film won."]),
    # A full stop both before and after the marker: the marker and the second stop close the first sentence.
    ("Acme grew. [3]. Globex fell. [1][2].", ["Acme grew. [3].", "Globex fell. [1][2]."]),
    ("Made by Warner Bros. Pictures in 2009.", ["Made by Warner Bros. Pictures in 2009."]),
    ("A line [1]\nNext line [2]", ["A line [1]", "Next line [2]"]),
    ("A wrapped\nline.", ["A wrapped\nline."]),
    ("- one item\n- Second item", ["one item", "Second item"]),
    ("1. First point\n2) Second point", ["First point", "Second point"]),
    ("> Quoted claim. Another.", ["Quoted claim.", "Another."]),
    ("東京は首都です。大阪は都市です。", ["東京は首都です。", "大阪は都市です。"]),
    ("東京は首都です。[5]大阪は都市です。", ["東京は首都です。[5]", "大阪は都市です。"]),
    ("Москва — столица. Киев тоже.", ["Москва — столица.", "Киев тоже."]),
    ("First para.\n\nSecond para", ["First para.", "Second para"]),
    ("Text\n\n---\n\nMore", ["Text", "More"]),
])
def test_sentence_splitting(text: str, sentences: list[str]) -> None:
    assert [text[s.start:s.end] for s in split_sentences(text) if s.checked] == sentences


def test_a_marker_between_two_full_stops_cites_the_sentence_before_it() -> None:
    result = check("Alice works at Acme Corp. [1]. Globex acquired Initech in 1999. [2].")
    assert result.verified and [c.cited for c in result.claims] == [[1], [2]] and not result.uncited


def test_evidence_given_as_text_by_number_is_read_as_passages() -> None:
    result = check_citations("Alice works at Acme Corp [1].", {1: "Alice works at Acme Corp."})
    assert result.verified and result.sources[0].kind == "passage"
    assert not check_citations("Alice works at Globex [1].", {1: "Alice works at Acme Corp."}).verified


@pytest.mark.parametrize(("evidence", "named"), [
    ({1: 5}, "evidence[1] is a int"),
    ({"1": "Alice works at Acme Corp."}, "evidence key '1'"),
    ("Alice works at Acme Corp.", "evidence is one str"),
    ([1, 2], "holds a int"),
])
def test_evidence_of_another_shape_is_refused_naming_the_fix(evidence: object, named: str) -> None:
    with pytest.raises(ConfigurationError, match="Fix|pass") as raised:
        check_citations("Alice works at Acme Corp [1].", evidence)  # type: ignore[arg-type]
    assert named in str(raised.value)


def test_headings_and_table_headers_are_not_checked() -> None:
    text = "# Globex 2020\n\n| Company | Year |\n|---|---|\n| Globex | 1999 |"
    kinds = [(text[s.start:s.end], s.checked) for s in split_sentences(text)]
    assert kinds == [("# Globex 2020", False), ("| Company | Year |", False), ("| Globex | 1999 |", True)]


# ------------------------------------------------------------------------------------------------ grounded

@pytest.mark.parametrize(("answer", "grounded"), [
    ("Alice works at Acme Corp.", False),  # cites nothing
    ("Alice works at Acme Corp [9].", False),  # cites only numbers that point at nothing
    ("The graph does not say who founded Globex.", False),
    ("Alice works at Acme Corp [1, 9].", True),  # invalid numbers are removed, the real one stays
    ("Bob works at Hooli in 2030 [1].", True),  # unsupported claims are warnings
    ("Alice works at Acme [1]. Globex bought Initech.", True),  # uncited claims are warnings
    ("## Sources [6]", True),
    ("", False),
])
def test_grounded(answer: str, grounded: bool) -> None:
    assert check(answer).grounded is grounded


# ------------------------------------------------------------------------------------------------ evidence

def test_evidence_as_mapping_iterable_or_ledger() -> None:
    ledger = EvidenceLedger()
    for item in EVIDENCE[:3]:
        ledger.add(item.tool, item.kind, item.content, item.source)
    answer = "Globex acquired Initech in 1999 [2]. Alice works at Acme [1, 3, 4]."
    results = [check_citations(answer, evidence) for evidence in
               (ledger, ledger.items(), {e.n: e for e in ledger.items()}, iter(ledger.items()))]
    assert all(r == results[0] for r in results)
    assert results[0].cited == [1, 2, 3]
    assert results[0].invalid == [4]


def test_dropped_evidence_is_invalid() -> None:
    ledger = EvidenceLedger()
    for item in EVIDENCE[:3]:
        ledger.add(item.tool, item.kind, item.content, item.source)
    ledger.drop([2])
    result = check_citations("Globex acquired Initech in 1999 [2].", ledger)
    assert (result.cited, result.invalid, result.grounded) == ([], [2], False)
    assert result.uncited == ["Globex acquired Initech in 1999."]


def test_evicted_evidence_is_invalid() -> None:
    ledger = EvidenceLedger(capacity=2)
    for item in EVIDENCE[:3]:
        ledger.add(item.tool, item.kind, item.content, item.source)
    assert check_citations("Alice works at Acme [1].", ledger).invalid == [1]


def test_no_evidence_at_all() -> None:
    result = check_citations("Alice works at Acme [1].", [])
    assert (result.grounded, result.invalid, result.answer) == (False, [1], "Alice works at Acme.")


# ------------------------------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("answer", [
    "", " ", "\n\n\n", "[", "]", "[]", "[,]", "[-]", "[1-]", "[-1]", "[1,,2]", "```", "`", "|", "#", "- ",
    "\u200b\u200d", "\x00\x01\x02", "\ud800 lone surrogate [1]", "🙂 [1] 🙂.", "...", "?!?!", "。。。", "［", "【】",
    "مرحبا بالعالم [1].", "שלום עולם [2].", "नमस्ते दुनिया [1]।", "Ελλάδα και Αθήνα [1].", "Ｆｕｌｌ ｗｉｄｔｈ [１].",
    "Mixed Москва and 東京 and Ελλάδα 2021 [4, 5].", "a" * 10_000 + ".", "[" * 10_000, "[1," * 5_000,
    "[7[7[7[7[7[7[9]]]]]]] Acme.", "[" * 50 + "9" + "]" * 50,
])
def test_bad_input_gives_a_result(answer: str) -> None:
    result = check(answer)
    assert isinstance(result, CitationCheck)
    assert isinstance(result.to_llm_text(), str)


def test_mixed_scripts() -> None:
    result = check("Москва и 東京: Tokyo has 1400 people [5]. Москва — столица России [4]. Париж — столица [4].")
    assert result.cited == [4, 5]
    assert [(c.cited, c.missing_figures, c.missing_names) for c in result.unsupported] == [
        ([5], [], ["Москва", "Tokyo"]),  # neither is in the Japanese passage
    ]  # "Париж" alone at the start of a sentence naming nothing else is not checked
    assert check("Париж и Москва — столицы [4].").unsupported[0].missing_names == ["Париж"]


def test_one_megabyte_answer_in_linear_time() -> None:
    unit = ("Alice works at Acme Corp [1]. Revenue was 2.8 million in 2021 [1]. Globex bought Hooli. "
            "The graph does not say who founded Initech. Dr. Smith met Ann in the U.S. [9]\n\n")

    def timed(size: int) -> tuple[float, CitationCheck]:
        answer = (unit * (size // len(unit) + 1))[:size]
        start = time.perf_counter()
        result = check(answer)
        return time.perf_counter() - start, result

    small = min(timed(100_000)[0] for _ in range(2))
    big, result = timed(1_000_000)
    assert result.invalid == [9]
    assert result.grounded
    assert len(result.uncited) > 1000
    assert big / small < 40, f"1 MB took {big / small:.1f}x the 100 KB time (linear would be 10x)"


@pytest.mark.parametrize("answer", [
    "[" * 200_000, "[1," * 70_000, "a" * 200_000, "Dr. " * 50_000, "1,000 " * 35_000, "東京" * 100_000,
    "( I could not " * 15_000, "[1-100000]" * 20_000, "`" * 200_000, "```\n" * 50_000, "- " * 100_000,
    "| " * 100_000, "U.S. " * 40_000, "The graph " * 20_000, " " * 200_000 + ".",
])
@pytest.mark.timeout(120)  # a guard against super-linear backtracking (minutes at this size), not a timing claim
def test_hostile_answers_finish_and_cite_nothing(answer: str) -> None:
    result = check(answer)
    assert not result.grounded and result.cited == []


# ------------------------------------------------------------------------------------------------ model text

def test_to_llm_text_when_grounded_and_clean() -> None:
    text = check("Alice works at Acme Corp [1].").to_llm_text()
    assert text.startswith("Citation check: grounded and verified (cites [1])")
    assert "NOT" not in text


def test_to_llm_text_lists_what_to_fix() -> None:
    text = check("Bob works at Acme in 2030 [1, 9]. Globex bought Initech.").to_llm_text()
    assert "Removed invalid citations [9]" in text
    assert '- "Globex bought Initech."' in text
    assert '- "Bob works at Acme in 2030 [1]." [1] lacks figures 2030; names Bob' in text


def test_to_llm_text_when_not_grounded() -> None:
    text = check("Alice works at Acme.").to_llm_text()
    assert text.startswith("Citation check: NOT grounded")


def test_to_llm_text_respects_its_budget() -> None:
    answer = " ".join(f"Globex sold {i} units to Hooli." for i in range(500))
    text = check(answer).to_llm_text(max_chars=2000)
    assert len(text) <= 2000
    assert "more omitted)" in text


def test_every_result_field_is_described() -> None:
    for model in (CitationCheck, CitedSource, UnsupportedClaim):
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{name} has no description"


@pytest.mark.parametrize(
    ("answer", "suggested"),
    [
        ("Globex acquired Initech in 1999.", [2]),  # one item holds the names and the figure
        ("Alice works at Acme Corp.", [1]),
        ("Jeff Porcaro was a drummer at Acme.", []),  # no single item holds both names
        ("Globex acquired Initech in 2001.", []),  # the figure is in no item
        ("Initech was bought.", [2]),  # a lone first-word name counts
        ("The graph does not say who founded Globex.", None),  # a lack statement is not uncited at all
        ("Globex acquired Initech [2].", None),  # cited: nothing to suggest
    ],
)
def test_uncited_sentences_get_the_evidence_that_holds_them(answer: str, suggested: list[int] | None) -> None:
    result = check(answer)
    if suggested is None:
        assert result.suggested == [] and result.uncited == []
        return
    assert result.uncited == [answer]
    assert [s.evidence for s in result.suggested] == ([suggested] if suggested else [])
    if suggested:
        assert f"evidence [{suggested[0]}] holds its figures and names" in result.to_llm_text()


def test_suggestions_are_newest_first_and_capped() -> None:
    items = [Evidence(n=n, tool="retrieve", kind="fact", content="Globex acquired Initech.") for n in range(1, 7)]
    result = check_citations("Globex acquired Initech.", items)
    assert [s.evidence for s in result.suggested] == [[6, 5, 4]]


def test_suggestions_stop_after_twenty_sentences() -> None:
    """Each suggestion may read every evidence item: only the first 20 uncited sentences get one (linear time)."""
    items = [Evidence(n=1, tool="retrieve", kind="fact", content="Globex acquired Initech.")]
    result = check_citations(" ".join(["Globex acquired Initech."] * 25), items)
    assert len(result.uncited) == 25 and len(result.suggested) == 20
