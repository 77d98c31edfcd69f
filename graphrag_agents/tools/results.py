"""Typed tool results. Each renders itself for a model with ``to_llm_text()`` and carries its evidence numbers.

Their base, :class:`~graphrag_agents.evidence.ToolResult`, and :func:`llm_text` live in :mod:`graphrag_agents.evidence`
(exported here too).

Results never contain embeddings or internal ``__X__`` names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, Field

from ..evidence.render import Section, fmt_number, render_sections, shorten
from ..evidence.result import ToolResult, llm_text
from .excerpt import excerpt, question_terms

__all__ = [
    "PASSAGES_FIRST",
    "RETRIEVE_TEXT_CHARS",
    "SECTION_FLOOR",
    "EntityItem",
    "OntologyResult",
    "PassageCopy",
    "PassageItem",
    "RelationItem",
    "RetrieveResult",
    "StatusResult",
    "ToolResult",
    "llm_text",
]

PASSAGE_CHARS = 1200
"""Most characters of a passage's text one line shows."""
MIN_PASSAGE_CHARS = 600
"""Fewest characters of a passage's text a line is cut to so that more passages fit ``to_llm_text``'s budget."""
WHOLE_SHARE = 0.4
"""Share of the passages' room the best passages fill whole (up to :data:`PASSAGE_CHARS` each, at least the first)
before the others are cut to fit: short paragraphs stay whole, long sections leave room for more of them."""
COPIES_SHOWN = 3
"""Places a repeated passage's line names besides its own (the item and its evidence hold every one)."""
PASSAGES_FIRST = 1.0
"""Share of ``RetrieveResult.to_llm_text``'s budget the passages are served from before the other sections
(1.0: passages take what they need, facts and entity cards share what is left)."""
SECTION_FLOOR = 0.05
"""Share of ``RetrieveResult.to_llm_text``'s budget kept for each of facts, related facts and entity cards when
it holds something no passage of the result shows (``docs/facts.md``: measured with
``benchmarks/evidence_budget_bench.py``). With three such sections passages keep at least 85%."""
RETRIEVE_TEXT_CHARS = 4400
"""Default budget of ``RetrieveResult.to_llm_text``: reader-sized (``benchmarks/evidence_budget_bench.py``,
``docs/retrieval.md``); every other result's default is 8,000."""


class EntityItem(BaseModel):
    """An entity found by ``retrieve``: a card with its type, how often it is mentioned and where."""

    n: int = Field(description="Evidence number; cite it as [n].")
    name: str
    label: str = Field(description="Entity type from the ontology, or 'Unknown'.")
    description: str = ""
    score: float = Field(description="Higher is better.")
    path: str = Field(description="The retrieve path that found it: exact_names or fuzzy_names.")
    mentions: int = Field(default=0, description="How many chunks mention it.")
    documents: list[str] = Field(default_factory=list, description="Titles of (up to 3) documents mentioning it.")
    aliases: list[str] = Field(default_factory=list,
                               description="Other types the extractor gave the same name (outvoted).")

    def line(self) -> str:
        about = [self.label + (f", also {'/'.join(self.aliases)}" if self.aliases else "")]
        if self.mentions:
            about.append(f"{self.mentions} mention{'s' if self.mentions != 1 else ''}")
        if self.documents:
            about.append("in " + "; ".join(shorten(d, 60) for d in self.documents))
        desc = f": {shorten(self.description, 160)}" if self.description else ""
        return f"[{self.n}] {self.name} ({', '.join(about)}){desc}"


class RelationItem(BaseModel):
    """A fact: a typed relation between two entities, or a co-mention fact linking every pair of its entities.

    A typed relation has ``source`` and ``target``; a co-mention fact (one sentence naming several entities) is
    one item listing its ``entities``, with ``source`` and ``target`` empty.
    """

    n: int = Field(description="Evidence number; cite it as [n].")
    source: str = ""
    source_label: str = ""
    type: str
    target: str = ""
    target_label: str = ""
    entities: list[str] = Field(default_factory=list,
                                description="For a co-mention fact: the entities it names (each pair is linked).")
    fact: str = Field(description="The sentence the fact was extracted from.")
    score: float = Field(description="Higher is better.")
    hop: int = Field(default=0, description="For links: hops from the entities found (1 = adjacent).")
    in_passage: int | None = Field(default=None, description="A passage of this result that holds the fact's "
                                   "sentence (its number); the text is then shown there only.")

    def ends(self) -> str:
        """Who the fact links: ``source -[TYPE]-> target``, or the co-mention's entities."""
        if self.entities:
            return " · ".join(self.entities)
        return f"{self.source} -[{self.type}]-> {self.target}"

    def line(self) -> str:
        hop = f", hop {self.hop}" if self.hop else ""
        score = f"score {fmt_number(round(self.score, 3))}{hop}"
        if self.in_passage is not None:
            return f"[{self.n}] {self.ends()} (stated in [{self.in_passage}]; {score})"
        return f"[{self.n}] {self.ends()}: {shorten(self.fact, 300)} ({score})"


class PassageCopy(BaseModel):
    """Another place a passage's text stands (the same or near-same text), folded into that passage."""

    document_id: str
    file: str = Field(description="The document's file name, or its title for text documents.")
    heading: str = ""

    def where(self) -> str:
        """``file › heading``, or the file alone."""
        return f"{self.file} › {self.heading}" if self.heading else self.file


class PassageItem(BaseModel):
    """A passage of source text; text repeated in several places is one passage naming each (``copies``)."""

    n: int = Field(description="Evidence number; cite it as [n].")
    document_id: str
    file: str = Field(description="The document's file name, or its title for text documents.")
    heading: str = ""
    text: str
    score: float = Field(description="Higher is better.")
    copies: list[PassageCopy] = Field(default_factory=list, description="Other places the same text stands; "
                                      "[n] cites it in each of them.")

    def line(self, limit: int = PASSAGE_CHARS, terms: frozenset[str] = frozenset()) -> str:
        """The passage's header and its text within ``limit`` characters: around the question's ``terms``
        (:func:`~graphrag_agents.tools.excerpt.excerpt`) when it is longer, else from its head."""
        where = f"{self.file} › {self.heading}" if self.heading else self.file
        shown = [shorten(c.where(), 80) for c in self.copies[:COPIES_SHOWN]]
        more = len(self.copies) - len(shown)
        also = f"; also in {'; '.join(shown)}" + (f" and {more} more" if more else "") if self.copies else ""
        return (f"[{self.n}] ({where}{also}, score {fmt_number(round(self.score, 3))})\n"
                f"{excerpt(self.text, terms, limit)}")


_Item = TypeVar("_Item", "EntityItem", "RelationItem")


class RetrieveResult(ToolResult):
    """What ``retrieve`` found: passages, facts, facts around the entities found, and entities, each numbered."""

    question: str
    paths: list[str] = Field(description="The search paths that ran.")
    entities: list[EntityItem] = Field(default_factory=list)
    relations: list[RelationItem] = Field(default_factory=list, description="Relations around the entities found.")
    facts: list[RelationItem] = Field(default_factory=list, description="Relations whose fact matches the question.")
    passages: list[PassageItem] = Field(default_factory=list)

    def evidence_numbers(self) -> list[int]:
        items: list[EntityItem | RelationItem | PassageItem] = [*self.entities, *self.relations, *self.facts,
                                                                 *self.passages]
        return [i.n for i in items]

    @property
    def best_score(self) -> float:
        """The best score of any item, 0 when nothing was found."""
        scores = [e.score for e in self.entities] + [r.score for r in (*self.relations, *self.facts)]
        return max(scores + [p.score for p in self.passages], default=0.0)

    @property
    def best_evidence_score(self) -> float:
        """The best score of a passage or fact: the items that can bear an answer (abstention gates use it).

        Entity scores are left out: an exact name match scores 1 whether or not the graph holds the answer.
        """
        return max([f.score for f in self.facts] + [p.score for p in self.passages], default=0.0)

    def to_llm_text(self, max_chars: int = RETRIEVE_TEXT_CHARS, *, passages_share: float = PASSAGES_FIRST,
                    section_floor: float = SECTION_FLOOR, focus: bool = True) -> str:
        """Passages first, then facts (the facts path's, then those around the entities), then entity cards.

        ``max_chars`` counts every character the model reads (default :data:`RETRIEVE_TEXT_CHARS`, 4,400).
        Each other section holding something no passage of this result shows (a fact from a passage not
        returned, an entity card whose name no passage holds) is kept ``section_floor`` of the budget first
        (default :data:`SECTION_FLOOR`, 0.05; at least one line), and its unseen items come first in it. Passages
        are then served up to ``passages_share`` of the budget (at the default 1.0 they keep at least twice the
        share of any other section whenever they need it); the other sections share the rest, a section that
        needs less handing the remainder on. A cut section says how many items it left out and which ``paths``
        return them; a section with no room at all is named in one closing line. A fact whose sentence a passage
        of this result holds is named with that passage's number, not repeated.

        With ``focus`` (the default), a passage longer than its room shows the lines around the question's words
        (:mod:`~graphrag_agents.tools.excerpt`); the best passages keep :data:`PASSAGE_CHARS` while they fill
        :data:`WHOLE_SHARE` of the passages' room, and the others are cut to as few as :data:`MIN_PASSAGE_CHARS`
        so that more of them are read. ``focus=False`` shows every passage's first :data:`PASSAGE_CHARS`
        characters, as the previous release did.
        """
        if not 0 < passages_share <= 1:
            raise ValueError("passages_share must be in (0, 1]")
        if not 0 <= section_floor <= 0.2:
            raise ValueError("section_floor must be in [0, 0.2]: above it the floors would leave passages less "
                             "than twice each other section's share")
        shown = " ".join(p.text.lower() for p in self.passages)
        facts = _unseen_first(self.facts, lambda f: f.in_passage is None)
        related = _unseen_first(self.relations, lambda r: r.in_passage is None)
        entities = _unseen_first(self.entities, lambda e: e.name.lower() not in shown)

        def section(title: str, items: list[tuple[bool, str]], noun: tuple[str, str], *paths: str) -> Section:
            floor = section_floor if any(unseen for unseen, _ in items) else 0.0
            return Section(title, [line for _, line in items], floor=floor, noun=noun, paths=paths)

        floors = sum(section_floor for items in (facts, related, entities) if any(u for u, _ in items))
        # 60: the header's own words and the section's title, beside the question and the footer
        room = int(max_chars * (passages_share - floors)) - len(self.question) - len(self._footer()) - 60
        sections = [
            Section("Passages", self._passage_lines(room, focus), weight=2, first=passages_share,
                    noun=("passage", "passages")),
            section("Facts", facts, ("fact", "facts"), "facts"),
            section("Related facts", related, ("related fact", "related facts"), "links"),
            section("Entities", entities, ("entity card", "entity cards"), "exact_names", "fuzzy_names"),
        ]
        if not any(s.lines for s in sections):
            return shorten(f"Nothing found for {self.question!r}. " + self._footer(), max_chars)
        header = f"retrieve: {self.question!r} — cite evidence as [n]"
        return render_sections(header, sections, max_chars, self._footer())

    def _passage_lines(self, room: int, focus: bool) -> list[str]:
        """Each passage's line. With ``focus``, the best passages keep up to :data:`PASSAGE_CHARS` of their text
        while they fill :data:`WHOLE_SHARE` of ``room`` (the first always), and the others are cut around the
        question's words to the longest limit (down to :data:`MIN_PASSAGE_CHARS`) at which all of them fit
        ``room``: more passages are read."""
        if not focus or not self.passages:
            return [p.line() for p in self.passages]
        terms = question_terms(self.question)
        best: list[str] = []
        used = 0
        for passage in self.passages:
            line = passage.line(PASSAGE_CHARS, terms)
            if best and used + len(line) + 1 > WHOLE_SHARE * room:
                break
            best.append(line)
            used += len(line) + 1
        rest: list[str] = []
        for limit in range(PASSAGE_CHARS, MIN_PASSAGE_CHARS - 1, -100):
            rest = [p.line(limit, terms) for p in self.passages[len(best):]]
            if used + sum(len(line) + 1 for line in rest) < room:
                break
        return best + rest


def _unseen_first(items: Sequence[_Item], unseen: Callable[[_Item], bool]) -> list[tuple[bool, str]]:
    """Each item's line with whether it shows something no passage does, those first (else best first)."""
    marked = [(unseen(item), item.line()) for item in items]
    return [m for m in marked if m[0]] + [m for m in marked if not m[0]]


class StatusResult(ToolResult):
    """What the graph holds. The result as a whole carries one evidence number."""

    n: int = Field(description="Evidence number of this status; cite it as [n].")
    graph: str
    documents: int
    chunks: int
    entities: int
    relations: int
    entity_labels: dict[str, int] = Field(description="Entity count per label.")
    relation_types: dict[str, int] = Field(description="Relation count per type.")
    unembedded: int = Field(description="Items waiting for finalize to embed them.")

    def evidence_numbers(self) -> list[int]:
        return [self.n]

    def summary(self) -> str:
        """The status as one text (also the evidence content ``check_citations`` searches)."""
        labels = ", ".join(f"{k} {v}" for k, v in self.entity_labels.items()) or "none"
        types = ", ".join(f"{k} {v}" for k, v in self.relation_types.items()) or "none"
        text = (f"Graph {self.graph} holds {self.documents} documents, {self.chunks} chunks, {self.entities} "
                f"entities and {self.relations} relations. Entity labels: {labels}. Relation types: {types}.")
        if self.unembedded:
            text += f" {self.unembedded} items are not embedded yet (run finalize)."
        return text

    def to_llm_text(self, max_chars: int = 8000) -> str:
        text = f"[{self.n}] {self.summary()}"
        if self.hint:
            text += "\n" + self._footer()
        return shorten(text, max_chars) if len(text) > max_chars else text


class EntityTypeInfo(BaseModel):
    """A declared entity type."""

    label: str
    description: str = ""
    properties: list[str] = Field(default_factory=list)


class RelationTypeInfo(BaseModel):
    """A declared relation type with its (source, target) patterns."""

    label: str
    description: str = ""
    patterns: list[tuple[str, str]] = Field(default_factory=list)


class OntologyResult(ToolResult):
    """The declared ontology. The result as a whole carries one evidence number."""

    n: int = Field(description="Evidence number of this ontology; cite it as [n].")
    entities: list[EntityTypeInfo]
    relations: list[RelationTypeInfo]

    def evidence_numbers(self) -> list[int]:
        return [self.n]

    def summary(self) -> str:
        """The ontology as one text (also the evidence content)."""
        if not self.entities and not self.relations:
            return "No ontology is declared."
        ents = "; ".join(
            e.label + (f" ({e.description})" if e.description else "")
            + (f" [properties: {', '.join(e.properties)}]" if e.properties else "")
            for e in self.entities
        )
        rels = "; ".join(
            r.label + (f" ({r.description})" if r.description else "") + ": "
            + ", ".join(f"{s} -> {t}" for s, t in r.patterns)
            for r in self.relations
        )
        return f"Entity types: {ents or 'none'}. Relation types: {rels or 'none'}."

    def to_llm_text(self, max_chars: int = 8000) -> str:
        text = f"[{self.n}] {self.summary()}"
        if self.hint:
            text += "\n" + self._footer()
        return shorten(text, max_chars) if len(text) > max_chars else text
