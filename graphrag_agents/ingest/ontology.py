"""The ontology: the entity and relation types extraction may use, and the label rule that keeps Cypher safe.

Entity labels become node labels in Cypher, which cannot be passed as query parameters, so every label goes
through :func:`validate_label` and reaches a query only through :func:`quote_label`. Relation types are stored
as a property value (``RELATES {type}``) but follow the same rule. An ontology only grows:
:meth:`Ontology.merge` adds types, descriptions, properties and patterns and never removes any.
"""

from __future__ import annotations

import unicodedata
from typing import Any, TypeVar

from pydantic import BaseModel, Field, field_validator

from graphrag_agents.errors import ToolError

__all__ = [
    "MAX_LABEL_CHARS",
    "RESERVED_LABELS",
    "RESERVED_PROPERTIES",
    "EntityType",
    "Ontology",
    "OntologyChanges",
    "RelationType",
    "quote_label",
    "validate_label",
    "validate_property",
]

MAX_LABEL_CHARS = 64
RESERVED_LABELS = frozenset({"Chunk", "Document", "Unknown"})
"""Labels the package uses itself; refused in any letter case so they cannot be confused."""
RESERVED_PROPERTIES = frozenset({"id", "name", "description", "embedding"})
"""Properties every entity already has; an entity type cannot declare them again."""

_RULE = "labels may use letters (any script), digits, spaces, '-' and '_'"
_EXAMPLE = "Use a name such as 'Drug', 'Medical device' or 'Supplier_Company'."


def _show(label: str) -> str:
    return repr(label if len(label) <= 40 else label[:40] + "…")


def _allowed(char: str) -> bool:
    category = unicodedata.category(char)
    return char in " -_" or category[0] in "LM" or category == "Nd"


def _cleaned_hint(label: str) -> str:
    """The hint of a label refused for its characters: the label with each of them made a space, when that one
    passes the rule (the key rule's promise: the refusal shows the cleaned value), else an example."""
    cleaned = " ".join("".join(c if _allowed(c) else " " for c in label).split())
    try:
        return f"Pass {validate_label(cleaned)!r} instead." if cleaned else _EXAMPLE
    except ToolError:
        return _EXAMPLE


def validate_label(label: str, kind: str = "Label") -> str:
    """Check a label against the label rule and return it NFC-normalised, without surrounding whitespace.

    Labels may use letters of any script (with their combining marks), digits, spaces, ``-`` and ``_``, up
    to 64 characters. Refused, each with a :class:`ToolError` naming the broken rule: ``|``, ``:``, backticks,
    line breaks and any other character, ``__X__`` names, the reserved ``Chunk``, ``Document`` and
    ``Unknown`` (any case), empty labels and labels over 64 characters.

    Example: ``validate_label(" Drug ") == "Drug"``; ``validate_label("A|B")`` raises.
    """
    if not isinstance(label, str):
        raise ToolError(f"{kind} must be a string, got {type(label).__name__}.", _EXAMPLE)
    # The key rule (graphrag_agents._keys): whitespace at either end is stripped, line breaks inside refused.
    label = unicodedata.normalize("NFC", label).strip()
    if "\n" in label or "\r" in label or "\u2028" in label or "\u2029" in label:
        raise ToolError(f"{kind} {_show(label)} contains a line break; {_RULE}.", _cleaned_hint(label))
    if not label:
        raise ToolError(f"{kind} is empty; {_RULE}.", _EXAMPLE)
    if len(label) > MAX_LABEL_CHARS:
        raise ToolError(f"{kind} {_show(label)} has {len(label)} characters; the limit is {MAX_LABEL_CHARS}.",
                        "Use a shorter name such as 'Drug'; put the detail in the description.")
    for char in label:
        if char in "|:`":
            raise ToolError(f"{kind} {_show(label)} contains {char!r}, which is refused; {_RULE}.",
                            _cleaned_hint(label))
        category = unicodedata.category(char)
        if not _allowed(char):
            raise ToolError(f"{kind} {_show(label)} contains {char!r} ({unicodedata.name(char, category)}), "
                            f"which is not allowed; {_RULE}.", _cleaned_hint(label))
    if len(label) >= 4 and label.startswith("__") and label.endswith("__"):
        raise ToolError(f"{kind} {_show(label)} is a __X__ name, reserved for internal labels.",
                        f"Drop the underscores: {label.strip('_')!r}." if label.strip("_") else _EXAMPLE)
    reserved = next((r for r in RESERVED_LABELS if r.casefold() == label.casefold()), None)
    if reserved:
        raise ToolError(f"{kind} {_show(label)} is reserved: the package uses {reserved!r} itself.",
                        "Use a more specific name such as 'Report' or 'Source_document'.")
    return label


def validate_property(name: str) -> str:
    """Check an entity property name: the label rule, and none of the names in ``RESERVED_PROPERTIES``."""
    name = validate_label(name, kind="Property")
    if name.casefold() in RESERVED_PROPERTIES:
        raise ToolError(f"Property {name!r} is reserved: every entity already has "
                        f"{', '.join(sorted(RESERVED_PROPERTIES))}.",
                        "Declare only extra properties, e.g. 'dose'.")
    return name


def quote_label(label: str) -> str:
    """Return the label validated and backtick-quoted for Cypher, e.g. ``quote_label("Medical device")``."""
    return f"`{validate_label(label)}`"


class EntityType(BaseModel):
    """A kind of entity extraction may create, e.g. ``Drug``."""

    label: str = Field(description="Entity label: letters, digits, spaces, '-', '_'; 64 characters at most.")
    description: str = Field(default="", description="What counts as this type; guides extraction.")
    properties: list[str] = Field(default_factory=list, description="Extra properties to extract, e.g. dose.")

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        return validate_label(value, kind="Entity label")

    @field_validator("properties")
    @classmethod
    def _properties(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(validate_property(p) for p in value))


class RelationType(BaseModel):
    """A kind of relation, e.g. ``TREATS``, with the (source, target) entity types it may connect."""

    label: str = Field(description="Relation type: letters, digits, spaces, '-', '_'; 64 characters at most.")
    description: str = Field(default="", description="What the relation means; guides extraction.")
    patterns: list[tuple[str, str]] = Field(
        default_factory=list, description="Allowed (source entity label, target entity label) pairs.")

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        return validate_label(value, kind="Relation label")

    @field_validator("patterns")
    @classmethod
    def _patterns(cls, value: list[tuple[str, str]]) -> list[tuple[str, str]]:
        pairs = ((validate_label(s, kind="Pattern source"), validate_label(t, kind="Pattern target"))
                 for s, t in value)
        return list(dict.fromkeys(pairs))


class OntologyChanges(BaseModel):
    """What :meth:`Ontology.merge` changed, and what it kept although the addition differed."""

    added_entities: list[str] = Field(default_factory=list)
    added_relations: list[str] = Field(default_factory=list)
    added_properties: list[tuple[str, str]] = Field(
        default_factory=list, description="(entity label, property)")
    added_patterns: list[tuple[str, str, str]] = Field(
        default_factory=list, description="(relation label, source label, target label)")
    added_descriptions: list[str] = Field(
        default_factory=list, description="Labels whose empty description was set.")
    kept_descriptions: list[str] = Field(
        default_factory=list, description="Labels whose description was kept over a different new one.")

    @property
    def changed(self) -> bool:
        """True when the merge added anything."""
        return bool(self.added_entities or self.added_relations or self.added_properties
                    or self.added_patterns or self.added_descriptions)


def _no_duplicates(labels: list[str], kind: str) -> None:
    seen: dict[str, str] = {}
    for label in labels:
        first = seen.get(label.casefold())
        if first is not None:
            same = "twice" if first == label else f"twice, as {first!r} and {label!r}"
            raise ToolError(f"{kind} type {label!r} is declared {same}.",
                            "Declare each type once, with all its properties and patterns in one entry.")
        seen[label.casefold()] = label


_T = TypeVar("_T", EntityType, RelationType)
_V = TypeVar("_V")


class Ontology(BaseModel):
    """Entity and relation types. Construction checks labels and duplicates, not that patterns name declared
    entities: an addition may name types declared earlier, so :meth:`merge` checks that on its result (and
    :meth:`from_json` on what it reads); call :meth:`check_patterns` to check a standalone ontology.
    """

    entities: list[EntityType] = Field(default_factory=list)
    relations: list[RelationType] = Field(default_factory=list)

    def model_post_init(self, context: Any, /) -> None:
        """Refuse a type declared twice (labels compared ignoring case)."""
        _no_duplicates([e.label for e in self.entities], "Entity")
        _no_duplicates([r.label for r in self.relations], "Relation")

    def entity(self, label: str) -> EntityType | None:
        """The entity type with this exact label, if declared."""
        return next((e for e in self.entities if e.label == label), None)

    def relation(self, label: str) -> RelationType | None:
        """The relation type with this exact label, if declared."""
        return next((r for r in self.relations if r.label == label), None)

    def check_patterns(self) -> None:
        """Raise :class:`ToolError` when a relation pattern names an entity type that is not declared."""
        declared = {e.label for e in self.entities}
        for rel in self.relations:
            for source, target in rel.patterns:
                missing = source if source not in declared else target if target not in declared else None
                if missing is not None:
                    near = next((d for d in declared if d.casefold() == missing.casefold()), None)
                    raise ToolError(
                        f"Relation {rel.label!r} has the pattern ({source!r}, {target!r}), but the entity "
                        f"type {missing!r} is not declared.",
                        f"Use the declared spelling {near!r}." if near else
                        f"Declare it in `entities`, e.g. {{'label': {missing!r}}}, in the same call.")

    def allows(self, source_label: str, rel_label: str, target_label: str) -> bool:
        """True when ``rel_label`` is declared with the pattern (source, target).

        A relation type without patterns allows no pair, so adding a pattern only ever widens what is kept.
        """
        rel = self.relation(rel_label)
        return rel is not None and (source_label, target_label) in rel.patterns

    def merge(self, other: Ontology) -> tuple[Ontology, OntologyChanges]:
        """Return this ontology extended by ``other``, and what changed. Nothing is ever removed.

        New types are appended; properties and patterns are added to existing types. A description is set
        only where the existing one is empty: a different non-empty description keeps the old one and the
        label is listed in ``kept_descriptions``. A label that matches an existing one except for letter case
        is refused, as are patterns naming undeclared entity types (:class:`ToolError`).
        """
        changes = OntologyChanges()
        entities = [e.model_copy(deep=True) for e in self.entities]
        relations = [r.model_copy(deep=True) for r in self.relations]
        for new in other.entities:
            old = _merge_type(entities, new, "Entity", changes.added_entities, changes)
            if old is not None:
                props = _extend(old.properties, new.properties)
                changes.added_properties.extend((old.label, prop) for prop in props)
        for new_rel in other.relations:
            old_rel = _merge_type(relations, new_rel, "Relation", changes.added_relations, changes)
            if old_rel is not None:
                pairs = _extend(old_rel.patterns, new_rel.patterns)
                changes.added_patterns.extend((old_rel.label, *pair) for pair in pairs)
        merged = Ontology(entities=entities, relations=relations)
        merged.check_patterns()
        return merged, changes

    def to_json(self) -> str:
        """Serialise for storage in the graph."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes) -> Ontology:
        """Read an ontology stored with :meth:`to_json`, checking its labels and patterns again."""
        ontology = cls.model_validate_json(data)
        ontology.check_patterns()
        return ontology


def _find(types: list[_T], label: str, kind: str) -> _T | None:
    for existing in types:
        if existing.label == label:
            return existing
        if existing.label.casefold() == label.casefold():
            raise ToolError(f"{kind} type {label!r} differs only in letter case from the declared "
                            f"{existing.label!r}.", f"Use the declared spelling {existing.label!r}.")
    return None


def _merge_type(types: list[_T], new: _T, kind: str, added: list[str], changes: OntologyChanges) -> _T | None:
    """Append a copy of ``new`` to ``types`` if its label is new (listed in ``added``) and return None; otherwise
    merge its description into the type already there and return that type, whose members the caller extends."""
    old = _find(types, new.label, kind)
    if old is None:
        types.append(new.model_copy(deep=True))
        added.append(new.label)
        return None
    _merge_description(old, new, changes)
    return old


def _extend(items: list[_V], new: list[_V]) -> list[_V]:
    """Append to ``items`` what ``new`` holds and it lacks, in order; return what was appended."""
    appended: list[_V] = []
    for item in new:
        if item not in items:
            items.append(item)
            appended.append(item)
    return appended


def _merge_description(old: EntityType | RelationType, new: EntityType | RelationType,
                       changes: OntologyChanges) -> None:
    if not new.description or new.description == old.description:
        return
    if old.description:
        changes.kept_descriptions.append(old.label)
    else:
        old.description = new.description
        changes.added_descriptions.append(old.label)
