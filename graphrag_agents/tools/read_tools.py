"""The read tools: ``status``, ``get_ontology``, ``retrieve`` and ``check_citations``, numbering their evidence."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from ..evidence import EvidenceLedger
from ..evidence.render import shorten
from ..ingest.loaders import SUPPORTED_SUFFIXES
from ..retrieval.hits import EntityHit, PassageHit, PassageSource, RelationHit, RetrievalHits
from .earned import Shown, card_adds, fact_earns
from .results import (
    PASSAGE_CHARS,
    EntityItem,
    EntityTypeInfo,
    OntologyResult,
    PassageCopy,
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


def _fact_content(hit: RelationHit) -> str:
    """The fact as evidence text (what ``check_citations`` searches): who it links, then its sentence."""
    if hit.fact_id:
        return f"{', '.join(e.name for e in hit.entities)}: {hit.fact}"
    return f"{hit.source} -[{hit.type}]-> {hit.target}: {hit.fact}"


def _relation_item(ledger: EvidenceLedger, hit: RelationHit, kind: str, in_passage: int | None) -> RelationItem:
    n = ledger.add("retrieve", "fact" if kind == "fact" else "relation", _fact_content(hit), key=hit.key).n
    return RelationItem(n=n, source=hit.source, source_label=hit.source_label, type=hit.type, target=hit.target,
                        target_label=hit.target_label, entities=[e.name for e in hit.entities], fact=hit.fact,
                        score=hit.score, hop=hit.hop, in_passage=in_passage)


def _file_label(hit: PassageHit | PassageSource) -> str:
    # kg.ingest(paths=...) stores a file under its path as given, as id and path alike: its suffix tells it apart.
    suffix = os.path.splitext(hit.path)[1].lower()
    if (hit.path and hit.path != hit.document_id) or hit.document_id.startswith("file:") \
            or suffix in SUPPORTED_SUFFIXES:
        return os.path.basename(hit.path.removeprefix("file:")) or hit.title or hit.document_id
    return hit.title or hit.document_id


def _passage_item(ledger: EvidenceLedger, hit: PassageHit) -> PassageItem:
    """A passage with one number; one folded from copies (``PassageHit.copies``) names every source, and each
    copy's chunk gets the same number (a citation of it is valid for each source)."""
    sources = list(dict.fromkeys([hit.path or hit.document_id, *(c.path or c.document_id for c in hit.copies)]))
    n = ledger.add("retrieve", "passage", hit.text, source=sources[0], key=hit.chunk_id,
                   sources=sources if hit.copies else (), aliases=[c.chunk_id for c in hit.copies]).n
    also = [PassageCopy(document_id=c.document_id, file=_file_label(c), heading=c.heading) for c in hit.copies]
    return PassageItem(n=n, document_id=hit.document_id, file=_file_label(hit), heading=hit.heading, text=hit.text,
                       score=hit.score, copies=also)


def number_retrieval(ledger: EvidenceLedger, hits: RetrievalHits, min_score: float | None = None, *,
                     earned_only: bool | None = None) -> RetrieveResult:
    """Number every item found (empty passages get no number) and build the typed result.

    Passages are numbered first, then facts, relations and entities. A fact or relation found by both paths is
    one item (under facts). A co-mention fact whose sentence a shown passage holds (case and spacing aside) is
    left out; a typed relation there keeps its item and points at the passage (``in_passage``).
    What else earns a place (:mod:`.earned`): by default (``earned_only=None``) a fact line must be about the
    question and a co-mention fact a sentence; ``earned_only=True`` also leaves out an entity card repeating a
    name the passages show (off by default: the reference agent reads entity types from the cards);
    ``earned_only=False`` keeps every fact line and card.
    """

    def keep(score: float) -> bool:
        return min_score is None or score >= min_score

    passages = [_passage_item(ledger, p) for p in hits.passages if p.text.strip() and keep(p.score)]
    shown = Shown(shorten(p.text, PASSAGE_CHARS) for p in passages)
    facts: list[RelationItem] = []
    relations: list[RelationItem] = []
    done: set[str] = set()
    for kind, found, out in (("fact", hits.facts, facts), ("relation", hits.relations, relations)):
        for hit in found:
            if not keep(hit.score) or hit.key in done:
                continue
            done.add(hit.key)
            at = shown.holder(hit.fact)
            if at is not None and hit.fact_id:
                continue
            if earned_only is not False and not fact_earns(hit, hits.question, hits.question_words):
                continue
            out.append(_relation_item(ledger, hit, kind, None if at is None else passages[at].n))
    entities = [
        EntityItem(n=ledger.add("retrieve", "entity", _entity_content(e), key=e.entity_id).n,
                   name=e.name, label=e.label, description=e.description, score=e.score, path=e.path,
                   mentions=e.mentions, documents=list(e.documents), aliases=list(e.aliases))
        for e in hits.entities if keep(e.score) and (earned_only is not True or card_adds(e, shown))
    ]
    result = RetrieveResult(question=hits.question, paths=hits.paths_run, entities=entities, relations=relations,
                            facts=facts, passages=passages)
    if not result.evidence_numbers():
        result.hint = ("Nothing matched. Try retrieve again with the exact names of what you look for, or with "
                       "expand_hops 2-3; if the graph may not cover this, say so instead of guessing.")
    return result


def _entity_content(e: EntityHit) -> str:
    # The card's document titles stay out: a title is where the name occurs, not something stated about it.
    return f"{e.name} ({e.label})" + (f": {e.description}" if e.description else "")
