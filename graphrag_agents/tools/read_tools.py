"""The read tools: ``status``, ``get_ontology``, ``retrieve`` and ``check_citations``, numbering their evidence."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from ..ingest.loaders import SUPPORTED_SUFFIXES
from ..retrieval.hits import PassageHit, RelationHit, RetrievalHits
from .evidence import EvidenceLedger
from .results import (
    EntityItem,
    EntityTypeInfo,
    OntologyResult,
    PassageItem,
    RelationItem,
    RelationTypeInfo,
    RetrieveResult,
    StatusResult,
)

if TYPE_CHECKING:
    from ..kg import GraphStatus

__all__ = ["number_ontology", "number_retrieval", "number_status"]


def number_status(ledger: EvidenceLedger, status: GraphStatus) -> StatusResult:
    """A status result carrying one evidence number."""
    result = StatusResult(
        n=0, graph=status.graph, documents=status.documents, chunks=status.chunks, entities=status.entities,
        relations=status.relations, entity_labels=status.entity_labels, relation_types=status.relation_types,
        unembedded=status.unembedded,
        hint="Run finalize to embed new items." if status.unembedded else None,
    )
    result.n = ledger.add("status", "status", result.summary()).n
    return result


def number_ontology(ledger: EvidenceLedger, ontology_json: str) -> OntologyResult:
    """An ontology result (from the stored JSON) carrying one evidence number."""
    data = json.loads(ontology_json or "{}")
    result = OntologyResult(
        n=0,
        entities=[EntityTypeInfo.model_validate(e) for e in data.get("entities", [])],
        relations=[RelationTypeInfo.model_validate(r) for r in data.get("relations", [])],
    )
    if not result.entities and not result.relations:
        result.hint = "No ontology is declared yet; set_ontology declares one before ingesting."
    result.n = ledger.add("get_ontology", "ontology", result.summary()).n
    return result


def _relation_item(ledger: EvidenceLedger, hit: RelationHit, kind: str) -> RelationItem:
    content = f"{hit.source} -[{hit.type}]-> {hit.target}: {hit.fact}"
    key = f"{hit.source}|{hit.type}|{hit.target}|{hit.fact}"
    n = ledger.add("retrieve", "fact" if kind == "fact" else "relation", content, key=key).n
    return RelationItem(n=n, source=hit.source, source_label=hit.source_label, type=hit.type, target=hit.target,
                        target_label=hit.target_label, fact=hit.fact, score=hit.score, hop=hit.hop)


def _file_label(hit: PassageHit) -> str:
    # kg.ingest(paths=...) stores a file under its path as given, as id and path alike: its suffix tells it apart.
    suffix = os.path.splitext(hit.path)[1].lower()
    if (hit.path and hit.path != hit.document_id) or hit.document_id.startswith("file:") \
            or suffix in SUPPORTED_SUFFIXES:
        return os.path.basename(hit.path.removeprefix("file:")) or hit.title or hit.document_id
    return hit.title or hit.document_id


def number_retrieval(ledger: EvidenceLedger, hits: RetrievalHits, min_score: float | None = None) -> RetrieveResult:
    """Number every item found (empty passages get no number) and build the typed result."""

    def keep(score: float) -> bool:
        return min_score is None or score >= min_score

    entities = [
        EntityItem(n=ledger.add("retrieve", "entity",
                                f"{e.name} ({e.label})" + (f": {e.description}" if e.description else ""),
                                key=e.entity_id).n,
                   name=e.name, label=e.label, description=e.description, score=e.score, path=e.path)
        for e in hits.entities if keep(e.score)
    ]
    relations = [_relation_item(ledger, r, "relation") for r in hits.relations if keep(r.score)]
    facts = [_relation_item(ledger, f, "fact") for f in hits.facts if keep(f.score)]
    # A relation both paths found has one number; it is shown once, under facts.
    in_facts = {f.n for f in facts}
    relations = [item for item in relations if item.n not in in_facts]
    passages = [
        PassageItem(n=ledger.add("retrieve", "passage", p.text, source=p.path or p.document_id, key=p.chunk_id).n,
                    document_id=p.document_id, file=_file_label(p), heading=p.heading, text=p.text, score=p.score)
        for p in hits.passages if p.text.strip() and keep(p.score)
    ]
    result = RetrieveResult(question=hits.question, paths=hits.paths_run, entities=entities, relations=relations,
                            facts=facts, passages=passages)
    if not result.evidence_numbers():
        result.hint = ("Nothing matched. Try retrieve again with the exact names of what you look for, or with "
                       "expand_hops 2-3; if the graph may not cover this, say so instead of guessing.")
    return result
