"""check_citations on answers over a business record and its reviews (issue 23, RAGTruth's Data2txt task), with
the ``records`` pack on (``packs=["records"]``; the rules are no default since issue 47).

The rows (``tests/data/ragtruth_records.jsonl``) are copied from the shared ``ragtruth_data2txt.jsonl`` (RAGTruth,
Niu et al., ACL 2024; MIT, Copyright (c) 2023 Particle Media). Each test checks sentences of a row's answer
against the row's passages (the record, then each review), cited as [1]..[k], and names the row; each fails
without the rule it is about.
"""

from __future__ import annotations

import pytest
import ragtruth_rows

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, UnsupportedClaim, check_citations

_ROW = "ragtruth-data2txt-"


def evidence(row: str) -> list[Evidence]:
    return ragtruth_rows.evidence(_ROW + row)


def check(row: str, sentence: str, *, in_answer: bool = True) -> CitationCheck:
    """``sentence`` (from the row's answer unless ``in_answer`` is False) cited the way the shared file cites it,
    checked with the records pack."""
    return check_citations(ragtruth_rows.cited(_ROW + row, sentence, in_answer=in_answer), evidence(row),
                           packs=["records"])


def only_claim(result: CitationCheck) -> UnsupportedClaim:
    assert len(result.unsupported) == 1, result.unsupported
    return result.unsupported[0]


# ------------------------------------------------------------------ the support rule over reviews


def test_words_that_sum_up_reviews_are_no_unsupported_content() -> None:
    # a clean answer: before, 'no cited sentence says "minor", "food", "temperature", "maintenance", "popular",
    # "enjoyable", "destination", "alike"': the review says "toilet actively leaking", "it came to me cold"
    result = check("14031-llama-2-7b-chat", "While some reviewers have noted minor issues with food temperature and "
                   "toilet maintenance, overall, Domingo's Cafe appears to be a popular and enjoyable destination for "
                   "both locals and visitors alike.")
    assert result.verified, result.unsupported


def test_a_sentence_over_a_record_that_is_mostly_invented_is_unsupported() -> None:
    # the same record: eight content words no review or record field says, none of them a review word
    claim = only_claim(check("14031-llama-2-7b-chat", "The owners recently opened a second branch featuring karaoke "
                             "nights, billiards tables, rooftop cocktails and weekly jazz performances.",
                             in_answer=False))
    assert [c.rule for c in claim.conflicts] == ["support"]
    assert len(claim.unsupported_words) >= 8


# ------------------------------------------------------------------ a record's yes/no attributes, in scope


@pytest.mark.parametrize(("row", "sentence", "old_detail"), [
    # "rather than" denies what follows it
    ("14051-gpt-4-0613", "The bar's ambience leans more towards being a 'divey' place rather than trendy or upscale.",
     "states trendy"),
    # a plural verb after "and" has both as its subject
    ("14086-gpt-3.5-turbo-0613", "The parking options include street parking, while garage parking and valet "
     "services are not available.", "states garage"),
    # "or" is no word of a list item: "or valet services available" is still in the list after "no"
    ("14531-gpt-4-0613", "However, it's worth noting that parking options are limited as there are no garage, "
     "street, validated, lot, or valet services available.", "states valet"),
    # a new subject after "and" ends the negation
    ("14737-gpt-4-0613", "However, it doesn't offer Wi-Fi and its parking options include street and lot parking.",
     "denies street"),
    # "is not particularly scenic" says how the lot is, not that there is none
    ("14767-llama-2-7b-chat", "However, the parking lot is not particularly scenic, but the owners are "
     "accommodating.", "denies lot"),
    # the negated verb of a relative clause is about what follows it, not the noun before "that"
    ("15031-gpt-4-0613", "It is a casual dining spot that does not accept reservations but offers outdoor seating and "
     "is suitable for groups.", "denies casual"),
    # the second negation covers the list after it, though a new subject ended the first
    ("14043-gpt-4-0613", "However, it does not offer WiFi and the ambiance is not classified as trendy, upscale, or "
     "hipster.", "states trendy"),
    ("14282-gpt-4-0613", "However, reservations are not accepted and there is no Wi-Fi or music.", "states WiFi"),
])
def test_a_record_attribute_is_denied_only_in_the_scope_of_its_negation(row: str, sentence: str,
                                                                       old_detail: str) -> None:
    # clean answers that say what the record says; the rule before read ``old_detail``
    result = check(row, sentence)
    assert result.verified, result.unsupported


def test_an_attribute_a_review_gives_is_no_conflict_with_the_record() -> None:
    # the record gives "upscale": false; the review says "Nice, friendly upscale casual place on State Street."
    result = check("13604-gpt-3.5-turbo-0613", "Based on customer reviews, Benchmark Eatery is described as an "
                   "upscale casual place with a friendly atmosphere.")
    assert result.verified, result.unsupported
    claim = only_claim(check("13604-gpt-3.5-turbo-0613", "The restaurant has a trendy atmosphere.", in_answer=False))
    assert claim.conflicts[0].detail == "the claim states trendy; the record gives it as false"


def test_a_plural_subject_of_a_negated_verb_is_still_denied() -> None:
    # the record of the clean answer above: street parking is true, so denying it with garage parking is a conflict
    claim = only_claim(check("14086-gpt-3.5-turbo-0613", "Street parking and garage parking are not available.",
                             in_answer=False))
    assert claim.conflicts[0].detail == "the claim denies street; the record gives it as true"


def test_a_line_saying_the_data_leaves_out_what_the_record_gives() -> None:
    # the annotated span "the structured data does not mention any information about parking facilities": the
    # record gives BusinessParking
    claim = only_claim(check("14030-gpt-3.5-turbo-0613", "However, the structured data does not mention any "
                             "information about parking facilities, music, or specific ambience."))
    assert [(c.rule, c.detail) for c in claim.conflicts] == [
        ("record", "the claim says the data leaves out parking; the record gives it")]


@pytest.mark.parametrize(("row", "sentence"), [
    # the record gives lot parking as true and the other kinds as false: "other parking options" are the rest
    ("14767-gpt-3.5-turbo-0613", "The parking lot is available for customers' use, but there is no information "
     "provided about other parking options."),
    # outdoor seating and takeout come before what the data leaves out (WiFi, music, ... are null in the record)
    ("14756-gpt-4-0613", "The café has outdoor seating and offers takeout but does not provide information on WiFi, "
     "music, ambience, reservations, or parking."),
])
def test_a_line_saying_the_data_leaves_out_what_it_does(row: str, sentence: str) -> None:
    result = check(row, sentence)
    assert result.verified, result.unsupported


# ------------------------------------------------------------------ names and figures of a record


@pytest.mark.parametrize(("row", "sentence", "old_name"), [
    # the record's categories say "Restaurants"; a review says "Micheladas"
    ("14091-llama-2-7b-chat", "Pascucci is a popular Gelato, Food, Restaurant, Italian, Vegetarian, Gluten-Free "
     "establishment located in Santa Barbara, California.", "Restaurant"),
    ("14531-mistral-7B-instruct", "There are various tequilas and lagers available, along with a famous Michelada "
     "recipe.", "Michelada"),
    # the format of the record the answer is about
    ("14219-llama-2-70b-chat", "Based on the provided structured data in JSON format, Petit Valentien is a French and "
     "Ethiopian restaurant located in Santa Barbara, CA.", "JSON"),
    # "Outdoor" is a word of the record's key OutdoorSeating, not a name
    ("14778-gpt-3.5-turbo-0613", "Outdoor seating is not available, and there is no WiFi.", "Outdoor"),
    # a contraction opens an instruction
    ("14860-llama-2-70b-chat", "Don't miss out on this local treasure before it moves to a larger location in "
     "downtown Santa Barbara.", "Don't"),
])
def test_a_records_words_are_no_missing_names(row: str, sentence: str, old_name: str) -> None:
    result = check(row, sentence)
    assert result.verified, result.unsupported


def test_the_scale_of_a_star_rating_is_no_figure() -> None:
    # the record gives "business_stars": 3.5; before, "5" was a missing figure
    result = check("14627-llama-2-70b-chat", "The restaurant has a rating of 3.5 stars out of 5, based on customer "
                   "reviews.")
    assert result.verified, result.unsupported
    claim = only_claim(check("14627-llama-2-70b-chat", "The restaurant has a rating of 4.5 stars out of 5.",
                             in_answer=False))
    assert claim.missing_figures == ["4.5"]


# ------------------------------------------------------------------ opening hours


def test_open_on_a_day_the_record_gives_no_hours() -> None:
    # the annotated span "The truck is open Monday": the record gives hours for Tuesday to Friday and Sunday
    claim = only_claim(check("14113-llama-2-70b-chat", "The truck is open Monday and Thursday in Santa Barbara, and "
                             "Tuesday, Wednesday, Friday, and Sunday in Lompoc, Vandenberg, and Lompoc."))
    assert [(c.rule, c.detail) for c in claim.conflicts] == [
        ("hours", "the claim says open on Monday; the record gives no hours for it")]
    assert check("14113-llama-2-70b-chat", "The truck is open Tuesday and Sunday.", in_answer=False).verified


def test_a_scope_after_words_of_its_own_is_no_reading_of_the_range() -> None:
    # the annotated span "Monday through Sunday from 11am to 22pm, with extended hours on weekends": the record
    # opens at 16:00 on Tuesday; "weekends" belongs to "extended hours", so the range is read for every day
    claim = only_claim(check("14223-llama-2-7b-chat", "Their hours of operation are Monday through Sunday from 11am "
                             "to 22pm, with extended hours on weekends."))
    assert [c.rule for c in claim.conflicts] == ["hours"]


def test_every_day_with_a_time_range_needs_hours_on_every_day() -> None:
    # the annotated span "open from 10:00 AM to 8:00 PM every day of the week": the record gives Sunday no hours
    claim = only_claim(check("14081-gpt-3.5-turbo-0613", "They are open from 10:00 AM to 8:00 PM every day of the "
                             "week."))
    assert [(c.rule, c.detail) for c in claim.conflicts] == [
        ("hours", "the claim says open every day; the record gives no hours for Sunday")]


# ------------------------------------------------------------------ what the answer says the business is like


@pytest.mark.parametrize(("row", "sentence", "words"), [
    # the annotated span "The restaurant has a casual, rustic atmosphere": the record gives "Ambience": null, and no
    # review says casual or rustic
    ("13996-llama-2-70b-chat", "The restaurant has a casual, rustic atmosphere and offers take-out and delivery "
     "options.", ["casual", "rustic"]),
    # the annotated span "burgers, sandwiches, salads, and entrees.": the reviews are about service and a closing
    ("14040-llama-2-13b-chat", "The menu features traditional American cuisine, including burgers, sandwiches, "
     "salads, and entrees.", ["burgers", "sandwiches", "salads", "entrees"]),
    # the annotated span "loyal following among both locals and tourists": no review says loyal or regulars
    ("14059-llama-2-7b-chat", "Despite being a small establishment, Savoy Cafe & Deli has gained a loyal following "
     "among both locals and tourists, with many customers returning multiple times for its delicious food and "
     "pleasant ambiance.", ["loyal"]),
])
def test_a_description_neither_the_record_nor_a_review_gives(row: str, sentence: str, words: list[str]) -> None:
    claim = only_claim(check(row, sentence))
    shown = ", ".join(f'"{w}"' for w in words)
    assert [(c.rule, c.detail) for c in claim.conflicts] == [
        ("record", f"the claim says {shown}; neither the record nor a cited review says so")]
    assert claim.unsupported_words == words


def test_an_ambience_the_record_leaves_unknown_needs_a_review() -> None:
    # the annotated span "The ambience is described as casual": the record gives "casual": null, no review says it
    claim = only_claim(check("14905-mistral-7B-instruct", "The ambience is described as casual and the overall "
                             "atmosphere is not recommended by some customers."))
    assert claim.unsupported_words == ["casual"]
    # a clean answer: the record gives "casual": true and "trendy", "upscale": false; the record rule reads the denial
    result = check("14627-llama-2-70b-chat", "The atmosphere is described as casual and not particularly trendy or "
                   "upscale.")
    assert result.verified, result.unsupported


@pytest.mark.parametrize(("row", "sentence"), [
    # a review's "extremely pricey menu options" says overpriced
    ("13673-gpt-4-0613", "However, others report negative experiences, citing unattentive service, overpriced menu "
     "options, and issues with payment processing."),
    # a review's "the food take forever" and "excessive wait times" say slow
    ("13603-llama-2-70b-chat", "While the food is delicious, some customers have reported long wait times for their "
     "orders, and the service can be slow and unfriendly."),
])
def test_a_description_a_review_gives_in_other_words_passes(row: str, sentence: str) -> None:
    result = check(row, sentence)
    assert result.verified, result.unsupported


def test_the_end_of_a_compound_is_no_description() -> None:
    # no review of this restaurant says friendly (nor nice, kind, polite, ...): "kid-friendly" is about children
    row = "14219-gpt-3.5-turbo-0613"
    assert check(row, "It is a kid-friendly restaurant.", in_answer=False).verified
    claim = only_claim(check(row, "The staff is friendly.", in_answer=False))
    assert claim.unsupported_words == ["friendly"]
