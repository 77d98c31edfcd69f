"""``add_facts``: entities and relations from the client's own model, checked against the ontology, tied to text.

The source text is stored as a document (``facts:<hash>`` unless an id is given) chunked like any text, so each
relation's fact points at the passage it came from and ``retrieve`` can return that passage as evidence. Labels
and relation patterns must be declared: the client's model is the extractor here, so an undeclared type is
refused with the exact ``set_ontology`` call that declares it, rather than silently stored as ``Unknown``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...errors import ToolError
from ...ingest.chunkers import get_chunker, split_sentences
from ...ingest.ontology import Ontology
from ...ingest.records import (
    ChunkRecord,
    DocumentBatch,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    chunk_id,
    content_hash,
    entity_id,
    name_key,
)
from .inputs import AddFactsInput

__all__ = ["FACTS_ORIGIN", "build_facts_batch"]

FACTS_ORIGIN = "add_facts"
"""The ``origin`` stored on documents written by ``add_facts`` (they have no file loader)."""
_MAX_PROBLEMS = 8


@dataclass
class _Problems:
    """What the call gets wrong, and the set_ontology call that would fix the ontology part."""

    lines: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    relations: dict[str, list[list[str]]] = field(default_factory=dict)
    fixes: dict[str, None] = field(default_factory=dict)
    """Other fixes to name in the hint, in order."""

    def add_pattern(self, rel: str, source: str, target: str) -> None:
        pairs = self.relations.setdefault(rel, [])
        if [source, target] not in pairs:
            pairs.append([source, target])

    def raise_if_any(self) -> None:
        if not self.lines:
            return
        shown = "; ".join(self.lines[:_MAX_PROBLEMS])
        more = f" (and {len(self.lines) - _MAX_PROBLEMS} more)" if len(self.lines) > _MAX_PROBLEMS else ""
        hints = list(self.fixes)
        if self.entities or self.relations:
            call = {"entities": [{"label": e} for e in self.entities],
                    "relations": [{"label": r, "patterns": p} for r, p in self.relations.items()]}
            hints.insert(0, "Declare the missing types with set_ontology(" + json.dumps(call, ensure_ascii=False)[1:-1]
                         + ") (only the pairs the relation's meaning fits), or use declared ones.")
        raise ToolError(f"add_facts refused, nothing was written: {shown}{more}.",
                        " ".join([*hints, "Then call add_facts again."]))


def _check_entities(args: AddFactsInput, ontology: Ontology, problems: _Problems) -> dict[str, list[str]]:
    """Entity labels by normalised name (several when a name has several types)."""
    by_name: dict[str, list[str]] = {}
    declared = {e.label.casefold(): e.label for e in ontology.entities}
    for i, ent in enumerate(args.entities):
        if ontology.entity(ent.label) is None:
            same = declared.get(ent.label.casefold())
            if same is not None:
                problems.lines.append(f"entities[{i}] label {ent.label!r} differs in case from the declared {same!r}")
                problems.fixes.setdefault("Use the declared labels' spelling, as get_ontology shows it.")
            else:
                problems.lines.append(f"entities[{i}] ({ent.name!r}) has the undeclared label {ent.label!r}")
                if ent.label not in problems.entities:
                    problems.entities.append(ent.label)
        labels = by_name.setdefault(name_key(ent.name), [])
        if ent.label not in labels:
            labels.append(ent.label)
    return by_name


def _check_relations(args: AddFactsInput, ontology: Ontology, by_name: dict[str, list[str]],
                     problems: _Problems) -> list[tuple[str, str]]:
    """The (source label, target label) of every relation, checked against the declared patterns."""
    ends: list[tuple[str, str]] = []
    for i, rel in enumerate(args.relations):
        labels: list[str] = []
        for end, name in (("source", rel.source), ("target", rel.target)):
            found = by_name.get(name_key(name), [])
            if len(found) != 1:
                why = "is not one of `entities`" if not found else f"has several types ({', '.join(found)})"
                problems.lines.append(f"relations[{i}] {end} {name!r} {why}")
                problems.fixes.setdefault("List every relation's source and target in `entities`, each name with "
                                          "one label.")
            labels.append(found[0] if found else "")
        source, target = labels
        ends.append((source, target))
        if not source or not target or ontology.allows(source, rel.type, target):
            continue
        if ontology.relation(rel.type) is None:
            problems.lines.append(f"relations[{i}] has the undeclared type {rel.type!r}")
        else:
            problems.lines.append(f"relations[{i}] {rel.type!r} is not declared for ({source!r}, {target!r})")
        problems.add_pattern(rel.type, source, target)
    return ends


def _containing(chunks: list[ChunkRecord], needle: str) -> list[str]:
    folded = needle.casefold()
    return [c.id for c in chunks if folded and folded in c.text.casefold()]


def _fact_and_chunk(chunks: list[ChunkRecord], source: str, target: str, rel_type: str,
                    fact: str | None) -> tuple[str, str]:
    """The relation's fact (given, else the sentence naming both ends) and the chunk it is tied to."""
    if fact and (found := _containing(chunks, fact)):
        return fact, found[0]
    s_key, t_key = source.casefold(), target.casefold()
    for chunk in chunks:
        for sentence in split_sentences(chunk.text):
            low = sentence.casefold()
            if s_key in low and t_key in low:
                return fact or sentence, chunk.id
    for name in (source, target):
        if found := _containing(chunks, name):
            return fact or f"{source} {rel_type} {target}", found[0]
    return fact or f"{source} {rel_type} {target}", chunks[0].id


def build_facts_batch(args: AddFactsInput, ontology: Ontology, document_id: str) -> DocumentBatch:
    """Check the call against ``ontology`` and build the document batch; ToolError lists every problem."""
    problems = _Problems()
    by_name = _check_entities(args, ontology, problems)
    ends = _check_relations(args, ontology, by_name, problems)
    problems.raise_if_any()

    pieces = get_chunker("sentence").chunk(args.text)
    chunks = [ChunkRecord(id=chunk_id(document_id, p.index), index=p.index, text=p.text) for p in pieces]
    entities: dict[str, EntityRecord] = {}
    for ent in args.entities:
        eid = entity_id(ent.label, ent.name)
        record = entities.get(eid)
        if record is None:
            record = entities[eid] = EntityRecord(id=eid, label=ent.label, name=ent.name.strip(),
                                                  chunk_ids=_containing(chunks, ent.name.strip()))
        if ent.description and ent.description not in record.description:
            record.description = f"{record.description} {ent.description}".strip()
    relations: dict[tuple[str, str, str, str], RelationRecord] = {}
    for rel, (source_label, target_label) in zip(args.relations, ends, strict=True):
        fact, cid = _fact_and_chunk(chunks, rel.source.strip(), rel.target.strip(), rel.type, rel.fact)
        src, dst = entity_id(source_label, rel.source), entity_id(target_label, rel.target)
        relations.setdefault((src, dst, rel.type, fact), RelationRecord(src, dst, rel.type, fact, cid))
        for eid in (src, dst):  # an entity is at least mentioned where its relations are stated
            if not entities[eid].chunk_ids:
                entities[eid].chunk_ids.append(cid)
    for record in entities.values():
        if not record.chunk_ids:
            record.chunk_ids.append(chunks[0].id)
    payload = json.dumps([args.text, [e.model_dump() for e in args.entities],
                          [r.model_dump() for r in args.relations]], ensure_ascii=False, sort_keys=True)
    document = DocumentRecord(id=document_id, title=args.title or document_id,
                              content_hash=content_hash(payload),
                              metadata={"origin": FACTS_ORIGIN, "facts": len(relations)})
    return DocumentBatch(document, chunks, list(entities.values()), list(relations.values()))
