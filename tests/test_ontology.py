"""Ontology: the label rule against hostile input, additive merge, patterns and storage."""

from __future__ import annotations

import pytest

from graphrag_agents.errors import ToolError
from graphrag_agents.ingest.ontology import (
    EntityType,
    Ontology,
    RelationType,
    quote_label,
    validate_label,
    validate_property,
)

HOSTILE = [
    ("A|B", "contains '|'"),
    ("A:B", "contains ':'"),
    ("`x`", "contains '`'"),
    ("Drug`) DETACH DELETE n //", "contains '`'"),
    ("a\nb", "line break"),
    ("a\rb", "line break"),
    ("a\u2028b", "line break"),
    ("__Entity__", "__X__ name"),
    ("__x__", "__X__ name"),
    ("Chunk", "reserved"),
    ("Document", "reserved"),
    ("Unknown", "reserved"),
    ("unknown", "reserved"),
    ("CHUNK", "reserved"),
    ("", "is empty"),
    ("   ", "is empty"),
    ("x" * 200, "has 200 characters; the limit is 64"),
    ("Robert'); MATCH (n) DETACH DELETE n //", "contains \"'\""),
    ("Person{name:'x'}", "contains '{'"),
    ("a\tb", "contains '\\t'"),
    ("Drug;", "contains ';'"),
    ("Drug.Name", "contains '.'"),
    ("Drug\u00a0X", "NO-BREAK SPACE"),
    ("Drug\u200bX", "contains"),
    ("x²", "SUPERSCRIPT TWO"),
    ("$param", "contains '$'"),
]


@pytest.mark.parametrize(("label", "rule"), HOSTILE)
def test_hostile_labels_are_refused_naming_the_rule(label: str, rule: str) -> None:
    with pytest.raises(ToolError) as caught:
        validate_label(label)
    assert rule in caught.value.message
    assert caught.value.hint  # every refusal names a way forward
    assert "'" in caught.value.hint  # with a quoted allowed example
    with pytest.raises(ToolError):
        quote_label(label)
    with pytest.raises(ToolError):
        EntityType(label=label)
    with pytest.raises(ToolError):
        RelationType(label=label)


def test_refusal_hint_gives_a_value_that_passes() -> None:
    with pytest.raises(ToolError) as caught:
        validate_label("A|B")
    assert caught.value.hint == "Pass 'A B' instead."  # the cleaned value
    assert validate_label("A B") == "A B"
    with pytest.raises(ToolError) as caught:
        validate_label("|")  # nothing left to pass: an example instead
    assert "'Drug'" in caught.value.hint
    assert validate_label("Drug") == "Drug"


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Drug", "Drug"),
        ("Medical device", "Medical device"),
        ("Supplier_Company", "Supplier_Company"),
        ("COVID-19", "COVID-19"),
        ("3D Model", "3D Model"),
        ("Personne_Morale", "Personne_Morale"),
        ("Лекарство", "Лекарство"),
        ("薬", "薬"),
        ("दवा", "दवा"),  # Devanagari vowel signs are combining marks
        ("Ünternehmen", "Ünternehmen"),
        ("Cafe\u0301", "Café"),  # normalised to NFC
        ("  Drug  ", "Drug"),
        ("x" * 64, "x" * 64),
        ("_private_", "_private_"),
        ("__Half", "__Half"),
        ("ChunkSize", "ChunkSize"),
    ],
)
def test_allowed_labels(label: str, expected: str) -> None:
    assert validate_label(label) == expected
    assert quote_label(label) == f"`{expected}`"


def test_non_string_label_is_refused() -> None:
    with pytest.raises(ToolError, match="must be a string"):
        validate_label(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "ok"), [("dose", True), ("id", False), ("Name", False),
                                          ("embedding", False), ("description", False), ("a|b", False)])
def test_property_names(name: str, ok: bool) -> None:
    if ok:
        assert validate_property(name) == name
        assert EntityType(label="Drug", properties=[name, name]).properties == [name]
    else:
        with pytest.raises(ToolError):
            validate_property(name)


def base() -> Ontology:
    return Ontology(
        entities=[EntityType(label="Drug", description="A medicine"), EntityType(label="Disease")],
        relations=[RelationType(label="TREATS", patterns=[("Drug", "Disease")])],
    )


def test_allows_exact_patterns_only() -> None:
    ontology = base()
    assert ontology.allows("Drug", "TREATS", "Disease")
    assert not ontology.allows("Disease", "TREATS", "Drug")
    assert not ontology.allows("Drug", "CAUSES", "Disease")
    assert not ontology.allows("Unknown", "TREATS", "Disease")
    empty = Ontology(entities=[EntityType(label="Drug")], relations=[RelationType(label="LINKED")])
    assert not empty.allows("Drug", "LINKED", "Drug")  # no patterns: nothing allowed


def test_merge_adds_and_never_removes() -> None:
    addition = Ontology(
        entities=[EntityType(label="Drug", description="Other words", properties=["dose"]),
                  EntityType(label="Disease", description="An illness"),
                  EntityType(label="Gene")],
        relations=[RelationType(label="TREATS", description="cures", patterns=[("Drug", "Disease")]),
                   RelationType(label="CAUSES", patterns=[("Gene", "Disease")])],
    )
    merged, changes = base().merge(addition)
    assert [e.label for e in merged.entities] == ["Drug", "Disease", "Gene"]
    assert merged.entity("Drug") == EntityType(label="Drug", description="A medicine", properties=["dose"])
    assert merged.entity("Disease") and merged.entity("Disease").description == "An illness"  # type: ignore[union-attr]
    assert merged.allows("Drug", "TREATS", "Disease") and merged.allows("Gene", "CAUSES", "Disease")
    assert changes.added_entities == ["Gene"]
    assert changes.added_relations == ["CAUSES"]
    assert changes.added_properties == [("Drug", "dose")]
    assert changes.added_descriptions == ["Disease", "TREATS"]
    assert changes.kept_descriptions == ["Drug"]
    assert changes.added_patterns == []
    assert changes.changed


def test_merge_is_pure_and_idempotent() -> None:
    original = base()
    snapshot = original.model_dump()
    addition = Ontology(relations=[RelationType(label="TREATS", patterns=[("Disease", "Drug")])])
    merged, changes = original.merge(addition)
    assert original.model_dump() == snapshot
    assert changes.added_patterns == [("TREATS", "Disease", "Drug")]
    again, no_changes = merged.merge(addition)
    assert again == merged
    assert not no_changes.changed


def test_merge_relation_may_use_entities_declared_earlier() -> None:
    addition = Ontology(relations=[RelationType(label="PREVENTS", patterns=[("Drug", "Disease")])])
    merged, _ = base().merge(addition)
    assert merged.allows("Drug", "PREVENTS", "Disease")


def test_pattern_naming_undeclared_entity_is_refused() -> None:
    with pytest.raises(ToolError) as caught:
        base().merge(Ontology(relations=[RelationType(label="CAUSES", patterns=[("Gene", "Disease")])]))
    assert "'Gene' is not declared" in caught.value.message
    assert "`entities`" in caught.value.hint
    with pytest.raises(ToolError, match="'Organ' is not declared"):
        Ontology.from_json(Ontology(
            entities=[EntityType(label="Drug")],
            relations=[RelationType(label="HITS", patterns=[("Drug", "Organ")])]).to_json())


def test_pattern_with_other_letter_case_points_at_declared_spelling() -> None:
    with pytest.raises(ToolError) as caught:
        base().merge(Ontology(relations=[RelationType(label="CAUSES", patterns=[("drug", "Disease")])]))
    assert "'drug' is not declared" in caught.value.message
    assert caught.value.hint == "Use the declared spelling 'Drug'."


def test_pattern_cannot_name_unknown() -> None:
    with pytest.raises(ToolError, match="reserved"):
        RelationType(label="TREATS", patterns=[("Drug", "Unknown")])


@pytest.mark.parametrize(
    ("entities", "message"),
    [
        ([{"label": "Drug"}, {"label": "Drug"}], "declared twice"),
        ([{"label": "Drug"}, {"label": "drug"}], "declared twice, as 'Drug' and 'drug'"),
    ],
)
def test_duplicate_declarations_are_refused(entities: list[dict[str, str]], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        Ontology.model_validate({"entities": entities})


def test_merge_refuses_case_variant_of_existing_label() -> None:
    with pytest.raises(ToolError) as caught:
        base().merge(Ontology(entities=[EntityType(label="drug")]))
    assert "differs only in letter case" in caught.value.message
    assert "'Drug'" in caught.value.hint


def test_json_round_trip_and_tool_input_shape() -> None:
    ontology = Ontology.model_validate({
        "entities": [{"label": "Drug"}, {"label": "Disease"}],
        "relations": [{"label": "TREATS", "patterns": [["Drug", "Disease"]]}],
    })
    assert ontology == base().model_copy(update={"entities": [EntityType(label="Drug"),
                                                              EntityType(label="Disease")]})
    restored = Ontology.from_json(ontology.to_json())
    assert restored == ontology
    assert restored.relation("TREATS") is not None
    assert restored.relation("treats") is None
    with pytest.raises(ToolError, match="contains '|'"):
        Ontology.from_json('{"entities": [{"label": "A|B"}]}')
