"""What the retrieval paths return: scored passages, entities and relations, before any evidence numbering."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["EntityHit", "FactEntity", "PassageHit", "PassageSource", "RelationHit", "RetrievalHits"]


@dataclass(frozen=True)
class PassageSource:
    """Where a copy of a passage's text stands: another chunk holding the same (or near-same) text."""

    chunk_id: str
    document_id: str
    title: str = ""
    path: str = ""
    heading: str = ""


@dataclass
class PassageHit:
    """A chunk of source text."""

    chunk_id: str
    document_id: str
    text: str
    score: float
    """Higher is better, in [0, 1]: the fused passage score (see ``passages.py``)."""
    title: str = ""
    path: str = ""
    heading: str = ""
    found_by: list[str] = field(default_factory=list)
    """Which signals found it: vector, fulltext, entity, bridge, titled, feedback."""
    similarity: float = 0.0
    """Cosine similarity of the chunk's stored embedding to the question."""
    copies: list[PassageSource] = field(default_factory=list)
    """Other chunks found for the question whose text is the same or nearly (``repeats.py``), folded into this
    passage: the text is shown once and names every source."""

    @property
    def document_ids(self) -> list[str]:
        """Its own document, then each copy's (without repeats): every source it came from."""
        return list(dict.fromkeys([self.document_id, *(c.document_id for c in self.copies)]))


@dataclass
class EntityHit:
    """An entity of the graph."""

    entity_id: str
    name: str
    label: str
    description: str
    score: float
    """Higher is better, in [0, 1]; each path documents its own score."""
    path: str
    """The retrieve path that found it: exact_names or fuzzy_names."""
    mentions: int = 0
    """How many chunks mention it."""
    documents: list[str] = field(default_factory=list)
    """Titles of (up to 3) documents that mention it."""
    aliases: list[str] = field(default_factory=list)
    """Other types the extractor gave this name, outvoted (see ``finalize``'s label vote)."""


@dataclass(frozen=True)
class FactEntity:
    """An entity a co-mention fact names."""

    entity_id: str
    name: str
    label: str


@dataclass
class RelationHit:
    """A fact: a typed relation between two entities, or a co-mention fact naming several.

    A typed relation (llm extractor, ``add_facts``) has ``source`` and ``target``. A co-mention fact (the ``ner``
    extractor's sentence) is one stored fact linking every pair of its ``entities``; its ``source`` and
    ``target`` are empty and ``fact_id`` names its node.
    """

    source: str
    source_label: str
    type: str
    target: str
    target_label: str
    fact: str
    score: float
    """Higher is better, in [0, 1]; each path documents its own score."""
    path: str
    """The retrieve path that found it: facts or links."""
    hop: int = 0
    """For links: how many hops from the entities found (1 = adjacent)."""
    chunk_ids: list[str] = field(default_factory=list)
    source_id: str = ""
    """Entity id of the source."""
    target_id: str = ""
    """Entity id of the target."""
    entities: list[FactEntity] = field(default_factory=list)
    """For a co-mention fact: every entity it names, in the order the sentence names them."""
    fact_id: str = ""
    """For a co-mention fact: the id of its stored fact node."""

    @property
    def key(self) -> str:
        """What identifies this fact across paths and calls: the fact node, or the relation's ends, type and fact."""
        return self.fact_id or f"{self.source_id}|{self.type}|{self.target_id}|{self.fact}"

    @property
    def entity_ids(self) -> list[str]:
        """Ids of the entities this fact links (``links`` walks on from them)."""
        return [e.entity_id for e in self.entities] if self.fact_id else [self.source_id, self.target_id]


@dataclass
class RetrievalHits:
    """Everything one retrieve call found, per path."""

    question: str
    entities: list[EntityHit] = field(default_factory=list)
    relations: list[RelationHit] = field(default_factory=list)
    facts: list[RelationHit] = field(default_factory=list)
    passages: list[PassageHit] = field(default_factory=list)
    paths_run: list[str] = field(default_factory=list)
    question_words: frozenset[str] | None = None
    """The question's content words (:mod:`.content_words`: in under 5% of the chunks), which a fact line must
    hold, or name an entity of the question, to enter the evidence; None: not read (no fact line is judged)."""

    @property
    def best_score(self) -> float:
        """The highest score of any item (0 when nothing was found), for abstention gates."""
        scores = [h.score for h in self.entities] + [h.score for h in self.relations]
        scores += [h.score for h in self.facts] + [h.score for h in self.passages]
        return max(scores, default=0.0)
