"""check_citations' rule packs and the general record rule (issue 47 item 3).

The rows are copied from the shared ``ragtruth_data2txt.jsonl`` (RAGTruth, Niu et al., ACL 2024; MIT, Copyright
(c) 2023 Particle Media) into ``tests/data/ragtruth_rows.jsonl`` and ``tests/data/ragtruth_records.jsonl``; each
test names the row its sentence comes from.
"""

from __future__ import annotations

import pytest
from ragtruth_rows import cited, evidence

from graphrag_agents.citations import _pack_records, check_citations
from graphrag_agents.citations._evidence import EvidenceIndex
from graphrag_agents.citations._record_values import record_value_finding
from graphrag_agents.errors import ConfigurationError
from graphrag_agents.evidence import Evidence
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

# ------------------------------------------------------------------ the records pack is no default


def test_the_records_rules_run_only_in_their_pack() -> None:
    # the annotated span "with extended hours on weekends": the record gives 9:00-21:00 on every day; only the
    # records pack reads opening hours
    row_id = "ragtruth-data2txt-14135-llama-2-7b-chat"
    answer = cited(row_id, "The restaurant's hours of operation are Monday through Sunday from 9:00 AM to 21:00 PM, "
                           "with extended hours on weekends.")
    assert check_citations(answer, evidence(row_id)).verified
    found = check_citations(answer, evidence(row_id), packs=["records"])
    assert [c.rule for u in found.unsupported for c in u.conflicts] == ["hours"]


def test_the_default_path_parses_no_hours_or_business_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    for name in ("record_hours", "record_attributes"):
        real = getattr(_pack_records, name)
        monkeypatch.setattr(_pack_records, name, lambda text, real=real, name=name: calls.append(name) or real(text))
    row_id = "ragtruth-data2txt-14135-llama-2-7b-chat"
    answer = cited(row_id, "The restaurant's hours of operation are Monday through Sunday from 9:00 AM to 21:00 PM, "
                           "with extended hours on weekends.")
    check_citations(answer, evidence(row_id))
    assert calls == []
    check_citations(answer, evidence(row_id), packs=["records"])
    assert "record_hours" in calls


@pytest.mark.parametrize("packs", [["recrods"], "yelp", ["records", "hours"]])
def test_an_unknown_pack_names_the_known_ones(packs: list[str] | str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        check_citations("Alice works at Acme [1].", [Evidence(n=1, tool="retrieve", kind="fact",
                                                               content="Alice works at Acme.")], packs=packs)
    assert "Unknown citation rule pack" in str(raised.value) and "records (" in str(raised.value)


def test_a_pack_name_alone_is_the_pack() -> None:
    ev = [Evidence(n=1, tool="retrieve", kind="fact", content="Alice works at Acme.")]
    assert check_citations("Alice works at Acme [1].", ev, packs="records").verified


# ------------------------------------------------------------------ the general record rule, on the default path


def test_a_yes_no_attribute_said_otherwise_is_a_finding_without_the_pack() -> None:
    # an annotated conflict: the record gives "OutdoorSeating": false
    row_id = "ragtruth-data2txt-13601-mistral-7B-instruct"
    answer = cited(row_id, "It offers outdoor seating, reservations, takeout, and is good for groups.")
    result = check_citations(answer, evidence(row_id))
    assert [(c.rule, c.detail) for u in result.unsupported for c in u.conflicts] == [
        ("record", "the claim states OutdoorSeating; the record gives it as false")]
    # a clean answer over the same record says what it says
    clean = "ragtruth-data2txt-13601-gpt-3.5-turbo-0613"
    assert check_citations(cited(clean, "However, outdoor seating is not available."), evidence(clean)).verified


def test_a_key_of_several_words_is_named_only_by_its_words_in_a_row() -> None:
    # an annotated answer whose "does not offer reservations" agrees with "RestaurantsReservations": false; the
    # general rule must not read "restaurant ... reservations" as the key and the negation as after it
    row_id = "ragtruth-data2txt-13619-mistral-7B-instruct"
    sentence = "The restaurant is open Monday through Friday from 7 am to 2 pm and does not offer reservations."
    result = check_citations(cited(row_id, sentence), evidence(row_id))
    assert not any(c.rule == "record" for u in result.unsupported for c in u.conflicts), result.unsupported


def test_a_number_bound_to_a_key_must_be_its_value() -> None:
    # an annotated baseless "average rating of 4.5 stars": the record gives "business_stars": 4.0, and cited with
    # its record alone the figure is bound to the key's last word
    row_id = "ragtruth-data2txt-14542-llama-2-70b-chat"
    sentence = ("With an average rating of 4.5 stars, Three Pickles is a local favorite and a great spot to stop by "
                "for a tasty meal.")
    record = [EvidenceIndex(evidence(row_id)[0].content)]
    assert record_value_finding(sentence, record) == "the claim gives 4.5 stars; the record gives business_stars 4"
    assert record_value_finding(sentence.replace("4.5", "4.0"), record) is None
    # "3.5 out of 5 stars" (row ragtruth-data2txt-14918-llama-2-7b-chat's wording): 5 is the scale, no value
    assert record_value_finding("The business has a rating of 4 out of 5 stars.", record) is None


def test_an_entity_card_with_properties_is_a_record() -> None:
    # the general rule reads a card's properties as a record: the wording is the same answer's, over a card
    row_id = "ragtruth-data2txt-13601-mistral-7B-instruct"
    card = 'Finch & Fork (Restaurant): a restaurant in Santa Barbara {"OutdoorSeating": false, "stars": 4.0}'
    ev = [Evidence(n=1, tool="retrieve", kind="entity", content=card)]
    answer = cited(row_id, "It offers outdoor seating, reservations, takeout, and is good for groups.")
    result = check_citations(answer.split(" [")[0] + " [1]", ev)
    assert any(c.detail == "the claim states OutdoorSeating; the record gives it as false"
               for u in result.unsupported for c in u.conflicts), result.unsupported


# ------------------------------------------------------------------ the toolkit option and the MCP flag


async def test_a_toolkit_checks_with_the_packs_it_was_given(kg: KnowledgeGraph) -> None:
    row_id = "ragtruth-data2txt-14135-llama-2-7b-chat"
    sentence = ("The restaurant's hours of operation are Monday through Sunday from 9:00 AM to 21:00 PM, with "
                "extended hours on weekends.")
    plain, packed = GraphRAGToolkit(kg, read_only=True), GraphRAGToolkit(kg, read_only=True, citation_packs=["records"])
    for toolkit in (plain, packed):
        for item in evidence(row_id):
            toolkit.ledger.add("retrieve", "passage", item.content)
    answer = cited(row_id, sentence)
    assert (await plain.check_citations(answer)).verified
    assert [c.rule for u in (await packed.check_citations(answer)).unsupported for c in u.conflicts] == ["hours"]
    session = packed.new_session()  # a session shares the toolkit's options
    for item in evidence(row_id):
        session.ledger.add("retrieve", "passage", item.content)
    assert [c.rule for u in (await session.check_citations(answer)).unsupported for c in u.conflicts] == ["hours"]
    with pytest.raises(ConfigurationError, match="records"):
        GraphRAGToolkit(kg, citation_packs=["yelp"])
