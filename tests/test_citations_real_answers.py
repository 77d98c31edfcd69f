"""check_citations on real model answers (issue 23): each rule for real prose, on a RAGTruth row named by its id.

The rows (``tests/data/ragtruth_rows.jsonl``) are copied from the shared ``ragtruth_summary.jsonl`` and
``ragtruth_data2txt.jsonl`` (RAGTruth, Niu et al., ACL 2024; MIT, Copyright (c) 2023 Particle Media). Each test
checks one sentence of a row's answer against the row's passages, cited as [1]..[k], with the rule book before
this issue (``support=False``) and with the default, so it fails without the rule it is about.
"""

from __future__ import annotations

import pytest
from ragtruth_rows import cited, evidence

from graphrag_agents.citations import _direction
from graphrag_agents.citations._lemmas import evidence_keys, key_found, word_key
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, UnsupportedClaim, check_citations


def check(row_id: str, sentence: str, **options: bool) -> CitationCheck:
    return check_citations(cited(row_id, sentence), evidence(row_id), **options)


def check_record(row_id: str, sentence: str, **options: bool) -> CitationCheck:
    """:func:`check` with the ``records`` pack, whose rules read business records (no default since issue 47)."""
    return check_citations(cited(row_id, sentence), evidence(row_id), packs=["records"], **options)


def only_claim(result: CitationCheck) -> UnsupportedClaim:
    assert len(result.unsupported) == 1
    return result.unsupported[0]


# ------------------------------------------------------------------ no false alarms on ordinary prose


@pytest.mark.parametrize(("row_id", "sentence", "old_names", "old_figures"), [
    # a sentence-initial capital the evidence only writes in lowercase ("customers") is no name
    ("ragtruth-data2txt-13603-gpt-3.5-turbo-0613", "Customers have left mixed reviews about Tinker's Burgers.",
     ["Customers"], []),
    # the record says "CA": California is its expansion
    ("ragtruth-data2txt-13619-llama-2-7b-chat", "Goodland Kitchen is a local restaurant located in Goleta, "
     "California, serving a variety of dishes including American New cuisine.", ["California"], []),
    # the evidence abbreviates (WHO) what the answer spells out
    ("ragtruth-summary-15791-gpt-4-0613", "The World Health Organisation estimates climate change will cause an "
     "additional 250,000 deaths per year between 2030 and 2050", ["World Health Organisation"], []),
    # "Sundays" is the record's "Sunday"; "8:00 PM" is its "20:0"
    ("ragtruth-data2txt-13604-gpt-3.5-turbo-0613", "On Sundays, it is open from 11:30 AM to 8:00 PM.", ["Sundays"],
     ["8"]),
    # the answer introducing itself states no figure of the article
    ("ragtruth-summary-15661-llama-2-7b-chat", "Here's a summary of the article in 82 words:", [], ["82"]),
    # "Chinese" is the adjective of the China the passage names
    ("ragtruth-summary-15800-llama-2-13b-chat", "A Chinese cyclist had his bike stolen just before completing a "
     "460-day, 29,200 km journey across China.", ["Chinese"], []),
    # "Governor" says what Doug Ducey is; the passage need not repeat it
    ("ragtruth-summary-11400-gpt-3.5-turbo-0613", "Additionally, Arizona Governor Doug Ducey signed legislation "
     "allowing Arizonans to obtain any lab test without a doctor's order.", ["Arizona Governor Doug Ducey"], []),
    # the passage says ISIS; "ISIL" is another name of the same group
    ("ragtruth-summary-15778-mistral-7B-instruct", "The Yazidis are being held captive by ISIL in several prisons and "
     "detention centers across Iraq.", ["ISIL"], []),
    # the passage says LGBT
    ("ragtruth-summary-11317-llama-2-13b-chat", "The company's opposition to the laws, which were supported by "
     "prominent Republicans, reflects the evolving views of the business community on LGBTQ issues.", ["LGBTQ"], []),
    # a title line names no one
    ("ragtruth-summary-15683-mistral-7B-instruct", 'Boston Marathon Bombing Survivor Testifies: "I Was Completely '
     'Terrified"', ["Boston Marathon Bombing Survivor Testifies"], []),
    # a first word the passage lacks that is tagged as no proper noun: "Prior" is an adverb
    ("ragtruth-summary-11779-gpt-4-0613", "Prior to the change, American citizens and permanent residents who "
     "inquired with the government about being denied aircraft boarding received a letter that neither confirmed "
     "nor denied their inclusion on the no-fly list.", ["Prior"], []),
    # an instruction's verb is no name
    ("ragtruth-summary-11840-llama-2-13b-chat", "Check out the solution video from Georgia Tech mathematician Matt "
     "Baker.", ["Check"], []),
    # "Survivor" is the singular of the passage's lowercase "survivors"
    ("ragtruth-summary-15683-gpt-4-0613", "Survivor Steve Woolfenden, a biomedical researcher, gave moving testimony "
     "about the injuries he and his son sustained from the blast, and the aid they received from bystanders.",
     ["Survivor Steve Woolfenden"], []),
    # the first word after a line's label starts its sentence
    ("ragtruth-data2txt-14552-llama-2-70b-chat", "* Reviews: Mixed, with some positive comments about the bartender "
     "and green chile sauce, and negative comments about service, food quality, and cleanliness.", ["Mixed"], []),
    # the answer spells out the acronym the passage writes, and gives it in parentheses
    ("ragtruth-summary-13872-gpt-4-0613", "The US Citizenship and Immigration Services (USCIS) has taken steps to "
     "expedite the process, including providing mobile biometric services and using email and SMS alerts.",
     ["US Citizenship"], []),
    # the passage says "British" and "Americans": Britain and the United States are the countries it means
    ("ragtruth-summary-15740-mistral-7B-instruct", "The simple yet poignant messages were written by soldiers from "
     "various countries, including Australia, the United States, and Britain.", ["United States", "Britain"], []),
])
def test_ordinary_prose_is_no_missing_name_or_figure(row_id: str, sentence: str, old_names: list[str],
                                                     old_figures: list[str]) -> None:
    before = only_claim(check(row_id, sentence, support=False))
    assert (before.missing_names, before.missing_figures) == (old_names, old_figures)
    assert check(row_id, sentence).verified


def test_a_step_number_is_no_figure() -> None:
    # the real sentence of ragtruth-summary-15735-mistral-7B-instruct's row, numbered as a step
    row_id = "ragtruth-summary-15735-mistral-7B-instruct"
    sentence = "Step 3: A man has died at Walt Disney World Speedway's Exotic Driving Experience."
    answer = sentence + " [1]"
    assert only_claim(check_citations(answer, evidence(row_id), support=False)).missing_figures == ["3"]
    assert check_citations(answer, evidence(row_id)).unsupported == []


def test_a_greeting_is_no_name() -> None:
    # the real sentence of ragtruth-summary-15735-mistral-7B-instruct's row, after a greeting as chat answers open
    row_id = "ragtruth-summary-15735-mistral-7B-instruct"
    answer = "Hi there! A man has died at Walt Disney World Speedway's Exotic Driving Experience [1]."
    assert check_citations(answer, evidence(row_id)).verified


def test_a_reference_to_the_evidence_is_no_figure() -> None:
    # the real sentence of ragtruth-summary-15735-mistral-7B-instruct's row, attributed to its passage the way QA
    # answers over numbered passages do
    row_id = "ragtruth-summary-15735-mistral-7B-instruct"
    answer = "According to passage 1, a man has died at Walt Disney World Speedway's Exotic Driving Experience [1]."
    assert only_claim(check_citations(answer, evidence(row_id), support=False)).missing_figures == ["1"]
    assert check_citations(answer, evidence(row_id)).verified


@pytest.mark.parametrize(("row_id", "sentence", "old_rule"), [
    # an instruction is not a negated claim about the world
    ("ragtruth-summary-15747-llama-2-70b-chat", "Don't run away after a no, instead, ask why and try to find a "
     "solution.", "negation"),
    # the evidence says the agent was never in danger, two sentences on from the words the clause restates
    ("ragtruth-summary-15628-gpt-3.5-turbo-0613", "The cargo hold is pressurized and temperature controlled, so the "
     "agent was not in any danger.", "negation"),
    # a restated sentence with its names kept, and the plant's place added from another sentence: a synthesis
    ("ragtruth-summary-15599-gpt-4-0613", "Blue Bell has temporarily shut down its Broken Arrow, Oklahoma, plant "
     "over the discovery of listeria contamination in a serving of ice cream originating from that plant.",
     "together"),
    # a summary merging the article's sentences: it drops some of a sentence's names and adds others (the office,
    # the state), but none where a dropped name stood, so no name was moved
    ("ragtruth-summary-13926-llama-2-70b-chat", "The Governor's Office in Pennsylvania has settled a sexual "
     "harassment claim against a senior aide, Mike Vereb, for $295,000.", "together"),
    # the student, her university and its city come from different sentences of the article: it shares no start
    # and end with any one of them, as a sentence with a name put in another's place would
    ("ragtruth-summary-11349-gpt-4-0613", "Hill was a student at Mount St. Joseph University in Cincinnati, and her "
     "dream was to play college basketball.", "together"),
    # the place and the car are named in different sentences of the article, which the claim joins: it keeps no
    # sentence's start and end around a name put in another's place
    ("ragtruth-summary-15735-gpt-4-0613", "A man has died at Walt Disney World Speedway's Exotic Driving Experience "
     "after a Lamborghini crashed into a guardrail.", "together"),
    # the passage's "need not worry as JetBlue will provide alternative flights" negates the worry, not the flights
    ("ragtruth-summary-13917-gpt-4-0613", "Passengers booked on these routes for 2024 will be offered alternative "
     "flights or refunds.", "negation"),
    # "Prosecutors aren't swayed and will seek the death penalty": the seeking is not negated
    ("ragtruth-summary-11890-gpt-3.5-turbo-0613", "Holmes claims to have been insane at the time, while prosecutors "
     "seek the death penalty.", "negation"),
])
def test_meaning_rules_leave_real_prose_alone(row_id: str, sentence: str, old_rule: str) -> None:
    assert [c.rule for c in only_claim(check(row_id, sentence, support=False)).conflicts] == [old_rule]
    assert check(row_id, sentence).verified


# ------------------------------------------------------------------ claim support


def test_unsupported_content_is_reported_word_by_word() -> None:
    # the annotated span of this hallucinated answer is the whole sentence (Evident Baseless Info)
    row_id = "ragtruth-summary-15714-mistral-7B-instruct"
    sentence = ("The cause of the explosion remains unknown but experts have suggested that a spark may have ignited a "
                "hydrogen leak.")
    assert check(row_id, sentence, support=False).verified
    claim = only_claim(check(row_id, sentence))
    assert [c.rule for c in claim.conflicts] == ["support"]
    assert claim.unsupported_words == ["cause", "explosion", "remains", "unknown", "experts", "spark", "ignited",
                                       "hydrogen", "leak"]
    assert '"explosion"' in claim.conflicts[0].detail


@pytest.mark.parametrize(("row_id", "sentence", "counts"), [
    # Evident Baseless Info: the article gives no number of children (span "raising two children")
    ("ragtruth-summary-13870-mistral-7B-instruct", "Tameka discussed her journey as a mother and entrepreneur, "
     "balancing her work and raising two children.", ["two"]),
    # Evident Conflict: "just six players remaining" where the article has the final five
    ("ragtruth-summary-13857-mistral-7B-instruct", "With only two weeks left in the game and just six players "
     "remaining, there is no time for mistakes.", ["six"]),
    # three reviews are the evidence items [2]-[4]: a count of the evidence itself is not read
    ("ragtruth-data2txt-13673-llama-2-7b-chat", "Reviews: Three reviews are provided in the structured data, each "
     "offering a different perspective on the restaurant.", []),
    # a clean answer: the article writes the count in digits ("8 tips")
    ("ragtruth-summary-15747-gpt-3.5-turbo-0613", "Jiang offers eight tips for making rejection work for you, "
     "including not being afraid to ask for something and not running away after a rejection.", []),
])
def test_a_count_in_words_must_be_in_the_evidence(row_id: str, sentence: str, counts: list[str]) -> None:
    result = check(row_id, sentence)
    found = [w for u in result.unsupported for w in u.unsupported_words]
    assert found == counts
    if counts:
        assert f'"{counts[0]}"' in only_claim(result).conflicts[0].detail


@pytest.mark.parametrize(("claim_word", "evidence_word"), [
    # ragtruth-summary-15599-gpt-3.5-turbo-0613: "closed" / "discovered" where the passage says "shut down" and
    # "discovery"; ragtruth-summary-15735-mistral-7B-instruct: "died" / "death"; "crashed" / "crash"
    ("discovered", "discovery"), ("died", "death"), ("crashed", "crash"), ("contamination", "contaminated"),
    ("ran", "running"), ("children", "child"), ("three", "3"),
    # ragtruth-data2txt-13761-gpt-3.5-turbo-0613: "on Tuesdays to Sundays" where the record's keys are "Tuesday" and
    # "Sunday"; a plural whose singular has an ending of its own ("prices", "price")
    ("Sundays", "Sunday"), ("Tuesdays", "Tuesday"), ("prices", "price"),
])
def test_inflections_irregular_forms_and_number_words_meet(claim_word: str, evidence_word: str) -> None:
    keys = evidence_keys(frozenset({evidence_word}))
    assert key_found(word_key(claim_word), *keys)
    assert not key_found(word_key("praised"), *keys)


# ------------------------------------------------------------------ relation direction


@pytest.mark.parametrize("use_parser", [True, False])
@pytest.mark.parametrize(("claim", "reversed_"), [
    ("Wisconsin beat Duke in the title game [1].", True),  # the passage: "Duke beat Wisconsin in the title game."
    ("Duke was beaten by Wisconsin in the title game [1].", True),
    ("Duke beat Wisconsin in the title game [1].", False),
    ("Wisconsin was beaten by Duke in the title game [1].", False),
])
def test_relation_roles_must_match_the_evidence(claim: str, reversed_: bool, use_parser: bool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    row_id = "ragtruth-summary-15673-gpt-4-0613"
    if not use_parser:
        monkeypatch.setattr(_direction, "_parser", lambda: None)  # spaCy not installed: the patterns decide
        _direction.roles.cache_clear()
    assert check_citations(claim, evidence(row_id), support=False).verified  # every name in one sentence
    result = check_citations(claim, evidence(row_id))
    _direction.roles.cache_clear()
    assert [c.rule for u in result.unsupported for c in u.conflicts] == (["direction"] if reversed_ else [])


# ------------------------------------------------------------------ records


@pytest.mark.parametrize(("sentence", "attribute"), [
    # the four annotated conflicts of this answer: the record gives each attribute as false
    ("It offers outdoor seating, reservations, takeout, and is good for groups.", "OutdoorSeating"),
    ("The restaurant has a casual ambiance with a classy and trendy atmosphere.", "trendy"),
    ("The decor is upscale, but the prices are reasonable.", "upscale"),
    ("Customers can enjoy their meals while listening to music.", "Music"),
])
def test_a_claim_against_a_records_yes_no_attribute(sentence: str, attribute: str) -> None:
    row_id = "ragtruth-data2txt-13601-mistral-7B-instruct"
    assert not any(c.rule == "record" for u in check_record(row_id, sentence, support=False).unsupported
                   for c in u.conflicts)
    claim = only_claim(check_record(row_id, sentence))
    assert [c.rule for c in claim.conflicts] == ["record"]
    assert f"states {attribute};" in claim.conflicts[0].detail


def test_a_claim_that_agrees_with_the_record_passes() -> None:
    # the clean answer of another model on the same record (OutdoorSeating: false, RestaurantsReservations: true)
    row_id = "ragtruth-data2txt-13601-gpt-3.5-turbo-0613"
    assert check_record(row_id, "However, outdoor seating is not available.").verified
    assert check_record(row_id, "The restaurant also accepts reservations, making it convenient for customers to "
                                "secure a table.").verified


@pytest.mark.parametrize(("row_id", "sentence", "old_detail"), [
    # the negation follows the ambience, across "and": it denies reservations, not "divey" (true in the record)
    ("ragtruth-data2txt-13603-gpt-4-0613", "The restaurant has a classy, divey ambience and does not accept "
     "reservations.", "the claim denies divey"),
    # "no" covers the list after it (valet, garage, lot), not the street parking said before it
    ("ragtruth-data2txt-13603-gpt-4-0613", "While parking is available on the street, there is no valet, garage, or "
     "lot parking.", "the claim denies street"),
    # "tourists" are people, not the "touristy" ambience the record gives as false
    ("ragtruth-data2txt-13619-llama-2-7b-chat", "Despite this, Goodland Kitchen remains a popular spot for both "
     "locals and tourists, with many appreciating their friendly service.", "the claim states touristy"),
])
def test_a_record_attribute_is_read_in_its_own_scope(row_id: str, sentence: str, old_detail: str) -> None:
    # these clean answers state what the record says; the rule before read a negation anywhere in the clause
    # and an ambience by any word of its stem, and reported ``old_detail``
    result = check_record(row_id, sentence)
    assert result.verified, result.unsupported


def test_a_record_attribute_after_a_negation_in_a_list_is_denied() -> None:
    # the same record: "valet" and "garage" are false, so denying them is right; "street" is true
    row_id = "ragtruth-data2txt-13603-gpt-4-0613"
    sentence = "While parking is available on the street, there is no valet, garage, or lot parking."
    assert check_record(row_id, sentence).verified
    answer = "There is no valet, garage, or street parking [1][2][3][4]."
    claim = only_claim(check_citations(answer, evidence(row_id), packs=["records"]))
    assert claim.conflicts[0].detail == "the claim denies street; the record gives it as true"


@pytest.mark.parametrize(("row_id", "sentence", "amenity"), [
    # the annotated span "WiFi available": the record gives "WiFi": null and no review mentions it
    ("ragtruth-data2txt-14690-llama-2-7b-chat", "Sublime is a restaurant located in Santa Barbara, CA, offering "
     "American (New) cuisine with outdoor seating and WiFi available.", "wifi"),
    # the annotated span "catering services": neither the record nor a review says catering
    ("ragtruth-data2txt-13693-mistral-7B-instruct", "However, they do offer takeout and catering services.",
     "catering"),
])
def test_an_amenity_the_record_and_reviews_never_mention(row_id: str, sentence: str, amenity: str) -> None:
    assert check_record(row_id, sentence, support=False).verified
    claim = only_claim(check_record(row_id, sentence))
    assert [(c.rule, c.detail) for c in claim.conflicts] == [
        ("record", f"the claim names {amenity}; neither the record nor a cited review mentions it")]
    assert claim.unsupported_words == [amenity]


@pytest.mark.parametrize(("row_id", "sentence"), [
    # a line about what the data leaves out names no amenity it offers
    ("ragtruth-data2txt-14756-gpt-4-0613", "The café has outdoor seating and offers takeout but does not provide "
     "information on WiFi, music, ambience, reservations, or parking."),
    # "catering to" is a verb here, not a service
    ("ragtruth-data2txt-14091-gpt-3.5-turbo-0613", "It is a restaurant that offers gelato and Italian food, catering "
     "to both vegetarian and gluten-free dietary preferences."),
])
def test_no_amenity_is_read_where_none_is_offered(row_id: str, sentence: str) -> None:
    result = check_record(row_id, sentence)
    assert result.verified, result.unsupported


@pytest.mark.parametrize(("row_id", "sentence", "detail"), [
    # the annotated span "Monday to Saturday from 17:00-21:00": the record opens at 17:30 on Monday, until 23:00
    ("ragtruth-data2txt-13601-gpt-4-0613", "The restaurant operates from Monday to Saturday from 17:00-21:00 and on "
     "Sunday from 9:00-14:00.", "the claim gives 17:00-21:00 for Monday, Tuesday, Wednesday, Thursday, Friday, "
     "Saturday; the record's hours differ on some of those days"),
    # the annotated span "It operates daily": the record gives Monday no hours
    ("ragtruth-data2txt-14171-gpt-4-0613", "It operates daily from 11:0 to 21:0 and provides amenities like free WiFi, "
     "outdoor seating, and ample lot parking.", "the claim says open every day; the record gives no hours for Monday"),
    # the annotated span "with extended hours on weekends": the record gives 9:00-21:00 on every day
    ("ragtruth-data2txt-14135-llama-2-7b-chat", "The restaurant's hours of operation are Monday through Sunday from "
     "9:00 AM to 21:00 PM, with extended hours on weekends.", "the claim says extended hours on Saturday, Sunday; the "
     "record's hours are no longer then"),
])
def test_a_claim_against_a_records_opening_hours(row_id: str, sentence: str, detail: str) -> None:
    assert check_record(row_id, sentence, support=False).verified  # every figure is in the record
    claim = only_claim(check_record(row_id, sentence))
    assert [(c.rule, c.detail) for c in claim.conflicts] == [("hours", detail)]


def test_a_records_hours_say_the_words_about_opening() -> None:
    # the record gives hours for all seven days; "open seven days a week" is what they say (the hours rule reads it)
    row_id = "ragtruth-data2txt-14135-gpt-4-0613"
    sentence = ("Del Pueblo Cafe, located at 5134 Hollister Ave in Santa Barbara, California, is a local Mexican "
                "restaurant open seven days a week from 9 am to 9 pm.")
    # before: 'no cited sentence says "California", "local", "open", "seven", ...'
    result = check_record(row_id, sentence)
    assert result.verified, result.unsupported


@pytest.mark.parametrize(("row_id", "sentence"), [
    # each range with the days written next to it, not the days of the range before
    ("ragtruth-data2txt-14038-gpt-4-0613", "It operates from 12 PM to 8 PM from Monday to Thursday, 12 PM to 9 PM on "
     "Fridays, and 11 AM to 9 PM on Saturdays and 11 AM to 8 PM on Sundays."),
    ("ragtruth-data2txt-14200-gpt-3.5-turbo-0613", "On Thursdays, they have shorter hours from 12:00 PM to 5:45 PM, "
     "while on Fridays and Saturdays, they extend their operating hours until 10:00 PM."),
    # the record keeps Friday and Saturday open until 20:00, the other days until 19:00 or earlier
    ("ragtruth-data2txt-14604-gpt-4-0613", "The bakery is open every day of the week, with extended hours on Fridays "
     "and Saturdays."),
    # "weekends" is loose: the record closes at 21:00 on Saturday and 20:00 on Sunday; right on one of the two
    ("ragtruth-data2txt-14756-gpt-3.5-turbo-0613", "The café is open from 7:00 am to 8:00 pm on weekdays and from "
     "7:00 am to 9:00 pm on weekends."),
])
def test_hours_that_agree_with_the_record_pass(row_id: str, sentence: str) -> None:
    result = check_record(row_id, sentence)
    assert result.verified, result.unsupported


# ------------------------------------------------------------------ the session's cache


def test_a_sessions_cache_reads_each_evidence_item_once() -> None:
    from graphrag_agents.citations._cache import IndexCache

    row_id = "ragtruth-summary-15673-gpt-4-0613"
    items = evidence(row_id)
    cache = IndexCache()
    first = check_citations("Wisconsin beat Duke in the title game [1].", items, cache=cache)
    index = cache.index(items[0].content)
    second = check_citations("Wisconsin beat Duke in the title game [1].", items, cache=cache)
    assert len(cache) == 1 and cache.index(items[0].content) is index
    assert "sentences" in vars(index)  # its sentences were built by the first check and kept
    assert first.model_dump() == second.model_dump() == check_citations(
        "Wisconsin beat Duke in the title game [1].", items).model_dump()


def test_a_misspelled_name_is_not_found_by_the_initials_the_evidence_spells_out() -> None:
    # HotpotQA mixed (the 1.5B model's answer, the question's own misspelling): the passage writes "Mitchells &
    # Butlers plc ... (also referred to as "M&B")", and "Mitchells & Bustlers" has its initials.
    passage = ('Mitchells & Butlers plc () (also referred to as "M&B") runs circa 1,784 managed pubs, bars and '
               'restaurants throughout the United Kingdom.')
    items = [Evidence(n=1, tool="retrieve", kind="passage", content=passage)]
    misspelled = check_citations("Answer: Mitchells & Bustlers plc [1].", items)
    assert not misspelled.verified and misspelled.unsupported[0].missing_names == ["Mitchells & Bustlers"]
    assert check_citations("Answer: Mitchells & Butlers plc [1].", items).verified
    assert check_citations("M&B runs pubs [1].", items).verified
    # an acronym the evidence writes and does not spell out still stands for its expansion
    flsa = [Evidence(n=1, tool="retrieve", kind="passage", content="The FLSA sets a federal minimum wage.")]
    assert check_citations("The Fair Labor Standards Act sets a federal minimum wage [1].", flsa).verified
