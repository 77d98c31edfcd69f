"""The ontology as the graph stores it (JSON on the metadata node), and the default one.

The default ontology is stored at the first ingest into a graph that has none, so extraction has types to use;
declaring an ontology with ``set_ontology`` before the first ingest keeps the defaults out. Changes are
additive only (:meth:`Ontology.merge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

from ..store.graph import GraphStore
from ..store.schema import read_meta, write_meta_field
from .ontology import EntityType, Ontology, OntologyChanges, RelationType

__all__ = ["CO_MENTION", "DEFAULT_ONTOLOGY", "load_ontology", "merge_ontology", "to_ontology"]

CO_MENTION = "RELATED_TO"
"""The relation type of the ner extractor: two entities named in the same sentence (the fact)."""

_PEOPLE_ORGS = ["Person", "Organization"]
_DEFAULT_ENTITIES = [
    ("Person", "A real or fictional person."),
    ("Organization", "A company, institution, band, team, party or other organised body."),
    ("Location", "A place: country, city, region, building, landmark or natural feature."),
    ("Group", "A nationality, religious, political or ethnic group."),
    ("Event", "A named event: war, battle, election, festival, sports event, disaster."),
    ("Work", "A creative work: book, film, song, album, painting, show, game."),
    ("Product", "A named product, vehicle, device or brand."),
]
_DEFAULT_RELATIONS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("WORKS_FOR", "The person works or worked for the organization.", [("Person", "Organization")]),
    ("MEMBER_OF", "The source is or was a member of the target.",
     [("Person", "Organization"), ("Person", "Group"), ("Organization", "Organization")]),
    ("LOCATED_IN", "The source is or was located in the target place.",
     [("Organization", "Location"), ("Location", "Location"), ("Event", "Location"), ("Person", "Location")]),
    ("CREATED", "The source created, wrote, directed, performed or produced the target.",
     [(s, t) for s in _PEOPLE_ORGS for t in ("Work", "Product")]),
    ("PARTICIPATED_IN", "The source took part in the event.", [(s, "Event") for s in _PEOPLE_ORGS]),
    ("RELATED_TO", "Any other link; for the ner extractor, the two entities are named in the same sentence.",
     [(s, t) for s, t in product([e for e, _ in _DEFAULT_ENTITIES], repeat=2)]),
]

DEFAULT_ONTOLOGY = Ontology(
    entities=[EntityType(label=label, description=text) for label, text in _DEFAULT_ENTITIES],
    relations=[RelationType(label=label, description=text, patterns=pats) for label, text, pats in _DEFAULT_RELATIONS],
)
"""Stored at the first ingest into a graph with no declared ontology."""


async def load_ontology(store: GraphStore) -> Ontology:
    """The stored ontology (empty when none was declared or the graph does not exist); read-only."""
    if not await store.exists():
        return Ontology()
    meta = await read_meta(store)
    return Ontology.from_json(meta.ontology_json) if meta is not None else Ontology()


def to_ontology(entities: Sequence[EntityType | Mapping[str, Any]] = (),
                relations: Sequence[RelationType | Mapping[str, Any]] = ()) -> Ontology:
    """Build (and validate) an ontology from types or plain dicts, e.g. ``{"label": "Drug"}``.

    Raises :class:`~graphrag_agents.errors.ToolError` naming the rule a label breaks.
    """
    return Ontology(
        entities=[e if isinstance(e, EntityType) else EntityType.model_validate(dict(e)) for e in entities],
        relations=[r if isinstance(r, RelationType) else RelationType.model_validate(dict(r)) for r in relations],
    )


async def merge_ontology(store: GraphStore, addition: Ontology) -> tuple[Ontology, OntologyChanges]:
    """Add ``addition`` to the stored ontology (never removes anything) and store the result.

    The metadata node must exist (``KnowledgeGraph.ensure_schema``). Serialise calls per graph: this reads,
    merges and writes.
    """
    current = await load_ontology(store)
    merged, changes = current.merge(addition)
    if changes.changed:
        await write_meta_field(store, "ontology", merged.to_json())
    return merged, changes
